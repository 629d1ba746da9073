// Property tests of the input gate (src/lib/yaml/parse-yaml.ts) and the whole input side:
//   1. totality: arbitrary bytes, YAML-ish text and mutated valid runtime files never make
//      parseFleetYaml (or checkFleet) throw; every diagnostic is well-formed (line >= 1, col >= 1,
//      a code, one line of text) and a file either yields data or at least one error;
//   2. the real binary, given ~30 mutated runtime files in one fleet, exits 0 or 1 (never 70 or by
//      a signal) and prints only `fleet/<file>:<line>:<col>: error|warning` lines and the summary;
//   3. CRLF, CR and BOM variants of generated runtime files parse and resolve exactly like the LF
//      original, positions included;
//   4. the nesting gate (MAX_DEPTH): plain scalars with quotes or brackets do not bypass it.
// A re-run of a failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).

import * as fs from 'node:fs';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFleet, type CheckedFleet } from '../../src/run/check';
import { MAX_DEPTH, MAX_DIAGNOSTICS_PER_FILE, parseFleetYaml, type ParsedYaml } from '../../src/lib/yaml/parse-yaml';
import type { Diagnostic, DocPath } from '../../src/lib/diagnostics';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { runtime } from '../hostile/catalogue';

const SEED = 0x70a1;
const now = new Date(NOW);

type Rec = Record<string, unknown>;

function logRun(title: string, seed: number, numRuns: number): void {
  console.info(`[fast-check] loader-totality › ${title}: seed=${seed} numRuns=${numRuns}`);
}

// ---------------------------------------------------------------------------------------------
// Well-formedness of what the gate returns

const CODE = /^[EW]_[A-Z0-9_]+$/;

function lineBreaks(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 0x0a || b === 0x0d) n++;
  return n;
}

function expectWellFormedDiagnostics(diags: readonly Diagnostic[], file: string, bytes: Uint8Array): void {
  for (const d of diags) {
    const where = `${d.file}:${d.line}:${d.col} [${d.code}] ${d.message}`;
    expect(d.file, where).toBe(file);
    expect(Number.isInteger(d.line) && d.line >= 1, where).toBe(true);
    expect(Number.isInteger(d.col) && d.col >= 1, where).toBe(true);
    expect(d.line, where).toBeLessThanOrEqual(lineBreaks(bytes) + 1);
    expect(d.col, where).toBeLessThanOrEqual(bytes.length + 1);
    expect(d.code, where).toMatch(CODE);
    expect(['error', 'warning'], where).toContain(d.severity);
    expect(d.message.length, where).toBeGreaterThan(0);
    expect(d.message, where).not.toMatch(/[\r\n]/);
    expect(typeof d.field, where).toBe('string');
  }
}

function expectTotal(bytes: Uint8Array, file = 'fleet/runtimes/fuzz.yaml'): ParsedYaml {
  let parsed: ParsedYaml | undefined;
  expect(() => {
    parsed = parseFleetYaml(bytes, file);
  }).not.toThrow();
  const p = parsed!;
  expectWellFormedDiagnostics(p.diagnostics, file, bytes);
  expect(p.diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS_PER_FILE);
  // Data xor errors: a file that yields data has no diagnostic, one that yields none has an error.
  const errors = p.diagnostics.filter((d) => d.severity === 'error').length;
  if (p.data === undefined) expect(errors, 'no data but no error').toBeGreaterThan(0);
  else expect(p.diagnostics, 'data and diagnostics').toEqual([]);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Mutations of valid runtime files

const EXTENSIONS_EXAMPLE = [
  '  channel: fast',
  '  modules:',
  '    - name: serverless',
  '      channel: fast',
  '  extensions:',
  '    registry-cache:',
  '      enabled: true',
  '      caches:',
  '        - upstream: docker.io',
  '          volume:',
  '            size: 20Gi',
  '          garbageCollection: {ttl: 168h}',
  '    falco:',
  '      enabled: true',
  '      falcoVersion: 0.42.1',
  '      rules:',
  '        standard: [falco-rules, falco-incubating-rules]',
  '      destinations:',
  '        - name: logging',
  '        - name: stdout',
  '',
].join('\n');

const baseFiles = (name: string, id?: string): string[] => [
  runtime(name, '', id),
  runtime(name, '  channel: fast\n  modules:\n    - name: serverless\n      channel: fast\n', id),
  runtime(name, EXTENSIONS_EXAMPLE, id),
];

const LINES = [
  '---', '...', '--- !!map', '%YAML 1.1', '%TAG !e! tag:example.com,2000:', '<<: {channel: fast}', '  <<: {}', '? [a, b]', '? complex\n: value',
  '  anchor: &a {x: 1}', '  alias: *a', '  bin: !!binary aGVsbG8=', '  set: !!set {a, b}', '  custom: !thing x', '\tchannel: fast', '  \tchannel: fast',
  'spec: {}', '  channel: "unclosed', "  channel: 'unclosed", "  note: x '", '  note: b [', '  note: |', '  note: >-', '#', '', '  channel: 0x1F',
  '  channel: 1e400', '  channel: 99999999999999999999', '  channel: .inf', '  channel: ~', '  __proto__: {x: 1}', '  constructor: 1',
  '  channel: fast', '  1: a', '  "1": b', 'metadata: {name: other}', '  extensions: {shoot-dns-service: {enabled: true}}',
];
const INSERTS = [
  '&a ', '*a', '!!binary ', '!!str ', '!x ', '\t', '\u0000', '\ufeff', '\u0085', '\u2028', '\u202e', '\u200b', '\r', '"', "'", '[', ']', '{', '}',
  ': ', '- ', '#', '|', '>', '%', '@', '`', ',', '?', '\\', '\n', '\n---\n', ' ', '\u00e9', '\u{1f600}', '${VAR}',
];
const VALUES = [
  '', '""', "''", '0', '-1', '1.5', '1e3', '0o17', '0x10', 'null', '~', 'true', 'false', '[]', '{}', '[a, b]', '{a: 1}', '"\\u0000"', '"\\x7f"',
  '"a\\nb"', 'yes', 'no', 'on', 'a'.repeat(300), '-', '"\\ud800"', "'it''s'", '9007199254740993', '-0', '.5', '1_000', 'https://user:pw@x.io',
  '"-----BEGIN RSA PRIVATE KEY-----"', '../../etc/passwd', '[{name: a}, {name: a}]',
];

type Mutation =
  | { readonly kind: 'line'; readonly at: number; readonly text: string }
  | { readonly kind: 'insert'; readonly at: number; readonly text: string }
  | { readonly kind: 'deep'; readonly at: number; readonly open: string; readonly n: number; readonly closed: boolean }
  | { readonly kind: 'value'; readonly at: number; readonly text: string }
  | { readonly kind: 'flip'; readonly at: number; readonly mask: number }
  | { readonly kind: 'bytes'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly kind: 'truncate' | 'duplicateLine' | 'dropLine'; readonly at: number }
  | { readonly kind: 'bom' | 'crlf' | 'cr' | 'utf16' };

const CLOSERS: Record<string, string> = { '[': ']', '{': '}', '{a: ': '}', '[{a: ': '}]', '- ': '' };
const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

function mutationArb(maxDepth: number): fc.Arbitrary<Mutation> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('line' as const), at: frac, text: fc.constantFrom(...LINES) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: frac, text: fc.constantFrom(...INSERTS) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('value' as const), at: frac, text: fc.constantFrom(...VALUES) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('deep' as const), at: frac, open: fc.constantFrom(...Object.keys(CLOSERS)), n: fc.integer({ min: 1, max: maxDepth }), closed: fc.boolean() }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: frac, mask: fc.integer({ min: 1, max: 255 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), at: frac, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('truncate' as const, 'duplicateLine' as const, 'dropLine' as const), at: frac }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('bom' as const, 'crlf' as const, 'cr' as const, 'utf16' as const) }) },
  );
}

const indexIn = (len: number, at: number): number => Math.min(len, Math.floor(at * (len + 1)));

function applyMutation(input: Buffer, m: Mutation): Buffer {
  const text = (): string => input.toString('latin1'); // byte-preserving view for line edits
  const lineEdit = (edit: (lines: string[], i: number) => void, at: number): Buffer => {
    const lines = text().split('\n');
    edit(lines, indexIn(lines.length - 1, at));
    return Buffer.from(lines.join('\n'), 'latin1');
  };
  const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
  switch (m.kind) {
    case 'line':
      return lineEdit((lines, i) => lines.splice(i, 0, utf8(m.text)), m.at);
    case 'insert': {
      const i = indexIn(input.length, m.at);
      return Buffer.concat([input.subarray(0, i), Buffer.from(m.text, 'utf8'), input.subarray(i)]);
    }
    case 'deep': {
      const i = indexIn(input.length, m.at);
      const nest = m.open.repeat(m.n) + (m.closed ? 'x' + CLOSERS[m.open]!.repeat(m.n) : '');
      return Buffer.concat([input.subarray(0, i), Buffer.from(nest, 'utf8'), input.subarray(i)]);
    }
    case 'value': {
      const lines = text().split('\n');
      const candidates = lines.flatMap((l, i) => (/^\s*(- )?[\w.-]+: \S/.test(l) ? [i] : []));
      if (candidates.length === 0) return input;
      const i = candidates[indexIn(candidates.length - 1, m.at)]!;
      lines[i] = lines[i]!.replace(/^(\s*(?:- )?[\w.-]+: ).*$/, (_all, key: string) => key + utf8(m.text));
      return Buffer.from(lines.join('\n'), 'latin1');
    }
    case 'flip': {
      if (input.length === 0) return input;
      const out = Buffer.from(input);
      const i = indexIn(out.length - 1, m.at);
      out[i] = out[i]! ^ m.mask;
      return out;
    }
    case 'bytes': {
      const i = indexIn(input.length, m.at);
      return Buffer.concat([input.subarray(0, i), Buffer.from(m.bytes), input.subarray(i)]);
    }
    case 'truncate':
      return input.subarray(0, indexIn(input.length, m.at));
    case 'duplicateLine':
      return lineEdit((lines, i) => lines.splice(i, 0, lines[i]!), m.at);
    case 'dropLine':
      return lineEdit((lines, i) => lines.splice(i, 1), m.at);
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), input]);
    case 'crlf':
      return Buffer.from(text().replace(/\n/g, '\r\n'), 'latin1');
    case 'cr':
      return Buffer.from(text().replace(/\n/g, '\r'), 'latin1');
    case 'utf16':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(input.toString('utf8'), 'utf16le')]);
  }
}

function mutatedFileArb(bases: readonly string[], maxDepth: number): fc.Arbitrary<{ base: number; mutations: Mutation[] }> {
  return fc.record({ base: fc.nat({ max: bases.length - 1 }), mutations: fc.array(mutationArb(maxDepth), { minLength: 1, maxLength: 4 }) });
}

const mutate = (base: string, mutations: readonly Mutation[]): Buffer => mutations.reduce(applyMutation, Buffer.from(base, 'utf8'));

/** Characters that matter to YAML, for text that reaches the parser more often than random bytes. */
const YAML_CHARS = [
  ...'abcxyz019 :-?,[]{}#&*!|>\'"%@`\\\n\t.~=<_/$',
  '\r', '\u0000', '\u0085', '\u00a0', '\u2028', '\ufeff', '\u00e9', '\u{1f600}', '---', '...', ': ', '- ', '? ', '&a', '*a', '!!', '<<', '\n  ', '\n    ',
];

// ---------------------------------------------------------------------------------------------

describe('parseFleetYaml is total', () => {
  it('never throws on arbitrary bytes and reports only well-formed diagnostics', () => {
    const numRuns = 400;
    logRun('arbitrary bytes', SEED, numRuns);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expectTotal(bytes);
      }),
      { seed: SEED, numRuns },
    );
  });

  it('never throws on YAML-ish text built from the characters the parser cares about', () => {
    const numRuns = 400;
    logRun('YAML-ish text', SEED + 1, numRuns);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...YAML_CHARS), maxLength: 600 }), (text) => {
        expectTotal(Buffer.from(text, 'utf8'));
      }),
      { seed: SEED + 1, numRuns },
    );
  });

  it('never throws on mutated valid runtime files (---, anchors, tags, tabs, deep brackets, BOM, CRLF, NUL, flips, truncation)', () => {
    const numRuns = 400;
    logRun('mutated runtime files', SEED + 2, numRuns);
    const bases = baseFiles('fuzz');
    const stats = { data: 0, codes: new Set<string>() };
    fc.assert(
      fc.property(mutatedFileArb(bases, 1000), ({ base, mutations }) => {
        const p = expectTotal(mutate(bases[base]!, mutations));
        if (p.data !== undefined) stats.data++;
        for (const d of p.diagnostics) stats.codes.add(d.code);
      }),
      { seed: SEED + 2, numRuns },
    );
    console.info(`[fast-check] loader-totality › mutated files parsed to data: ${stats.data}/${numRuns}; codes: ${[...stats.codes].sort().join(' ')}`);
    // Not vacuous: some mutants still parse, and the gate's main refusals were exercised.
    expect(stats.data).toBeGreaterThan(0);
    for (const code of ['E_YAML_SYNTAX', 'E_ENCODING', 'E_CONTROL_CHAR', 'E_MULTI_DOC', 'E_TOO_DEEP', 'E_TAG_FORBIDDEN']) expect([...stats.codes]).toContain(code);
  });
});

describe('checkFleet is total on mutated runtime files', () => {
  let fx: FleetFixture;
  beforeAll(() => {
    // The example fleet with its groups and policies, but only the runtime under test.
    fx = FleetFixture.example();
    for (const f of fs.readdirSync(fx.path('runtimes'))) fx.remove(`runtimes/${f}`);
  });
  afterAll(() => fx.cleanup());

  it('never throws and reports only well-formed diagnostics, whatever the runtime file holds', () => {
    const numRuns = 150;
    logRun('checkFleet on mutated files', SEED + 3, numRuns);
    const bases = baseFiles('fuzz');
    const stats = { ok: 0, validYamlButInvalid: 0 };
    fc.assert(
      fc.property(mutatedFileArb(bases, 200), ({ base, mutations }) => {
        const bytes = mutate(bases[base]!, mutations);
        fx.write('runtimes/fuzz.yaml', bytes);
        let result: CheckedFleet | undefined;
        expect(() => {
          result = checkFleet({ fleetDir: 'fleet', cwd: fx.dir, now });
        }).not.toThrow();
        for (const d of result!.diagnostics) {
          const where = `${d.file}:${d.line}:${d.col} [${d.code}] ${d.message}`;
          expect(d.file, where).toMatch(/^fleet\//);
          expect(d.line >= 1 && d.col >= 1, where).toBe(true);
          expect(d.code, where).toMatch(CODE);
          expect(d.message, where).not.toMatch(/[\r\n]/);
        }
        if (result!.ok) stats.ok++;
        else if (parseFleetYaml(bytes, 'x').data !== undefined) stats.validYamlButInvalid++;
      }),
      { seed: SEED + 3, numRuns },
    );
    console.info(`[fast-check] loader-totality › checkFleet: ok ${stats.ok}, parsed but invalid ${stats.validYamlButInvalid} of ${numRuns}`);
    expect(stats.validYamlButInvalid).toBeGreaterThan(0);
  });
});

describe('the real binary on a fleet of mutated runtime files', () => {
  let fx: FleetFixture | undefined;
  afterAll(() => fx?.cleanup());

  it('exits 0 or 1 and prints only file:line:col diagnostics and the summary', () => {
    const count = 30;
    logRun('binary on 30 mutated files', SEED + 4, count);
    // GIVEN the example fleet plus 30 mutated runtime files (deep nesting up to 5000 levels here:
    // the child process contains a V8 abort, should the gate let one through)
    fx = FleetFixture.example();
    const samples = fc.sample(mutatedFileArb(baseFiles('x'), 5000), { seed: SEED + 4, numRuns: count });
    samples.forEach(({ base, mutations }, n) => {
      const name = `fuzz-${n}`;
      const id = `5c0ffee0-0000-4000-8000-${String(9000 + n).padStart(12, '0')}`;
      fx!.write(`runtimes/${name}.yaml`, mutate(baseFiles(name, id)[base]!, mutations));
    });
    // WHEN the real binary validates it
    const r = fx.runBinary(['validate', '--now', NOW]);
    // THEN it ends normally with 0 or 1 and every stderr line is a diagnostic or the summary
    expect([0, 1], `exit ${r.code}; stderr:\n${r.stderr.slice(0, 2000)}`).toContain(r.code);
    const bad = r.errLines.filter((l) => !/^fleet\/[^:]+:\d+:\d+: (error|warning)/.test(l) && !/^fleet: /.test(l));
    expect(bad).toEqual([]);
    if (r.code === 1) expect(r.errLines[r.errLines.length - 1]).toMatch(/^fleet: \d+ errors?/);
  });
});

// ---------------------------------------------------------------------------------------------
// CRLF / CR / BOM invariance

const twinSettings: fc.Arbitrary<Rec> = fc.record(
  {
    channel: fc.constantFrom('regular', 'fast'),
    modules: fc.uniqueArray(fc.record({ name: fc.constantFrom('istio', 'serverless', 'telemetry'), channel: fc.constantFrom('regular', 'fast') }, { requiredKeys: ['name'] }), {
      selector: (m) => m.name,
      maxLength: 3,
    }),
    extensions: fc.record(
      {
        'registry-cache': fc.record({
          enabled: fc.boolean(),
          caches: fc.uniqueArray(fc.record({ upstream: fc.constantFrom('docker.io', 'ghcr.io', 'quay.io'), volume: fc.record({ size: fc.constantFrom('10Gi', '20Gi') }) }, { requiredKeys: ['upstream'] }), {
            selector: (c) => c.upstream,
            minLength: 1,
            maxLength: 3,
          }),
        }),
        falco: fc.record(
          { enabled: fc.boolean(), rules: fc.record({ standard: fc.subarray(['falco-rules', 'falco-incubating-rules'], { minLength: 1 }) }), destinations: fc.constant([{ name: 'stdout' }]) },
          { requiredKeys: ['enabled'] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

/** Free text for annotations: multi-line, quotes, comment and indicator characters. */
const noteArb = fc.string({ unit: fc.constantFrom(...'ab :#-\'"[]{}|>\\\t\u00e9'.split(''), '\n', '\n\n', '  '), maxLength: 40 });

const twinArb = fc.record({
  settings: twinSettings,
  notes: fc.dictionary(fc.constantFrom('note', 'owner', 'kyma-fleet.dev/why'), noteArb, { maxKeys: 3 }),
  style: fc.record({
    defaultStringType: fc.constantFrom('PLAIN' as const, 'QUOTE_DOUBLE' as const, 'QUOTE_SINGLE' as const),
    collectionStyle: fc.constantFrom('any' as const, 'block' as const, 'flow' as const),
    indent: fc.constantFrom(2, 4),
    indentSeq: fc.boolean(),
    lineWidth: fc.constantFrom(0, 20, 80),
  }),
  header: fc.constantFrom('', '# comment\n', '\n\n# two blank lines above\n'),
  footer: fc.constantFrom('', '# trailing comment\n', '\n\n'),
  trailingSpaces: fc.boolean(),
});

type Twin = typeof twinArb extends fc.Arbitrary<infer T> ? T : never;

function twinText(t: Twin): string {
  const doc = {
    apiVersion: 'kyma-fleet.dev/v1alpha1',
    kind: 'KymaRuntime',
    // geo: eu selects the example's europe group; not tier: production, whose policy requires Falco.
    metadata: { name: 'twin', labels: { tier: 'development', geo: 'eu' }, ...(Object.keys(t.notes).length > 0 ? { annotations: t.notes } : {}) },
    spec: {
      runtimeID: '5c0ffee0-0000-4000-8000-0000000000aa',
      globalAccountID: 'ga-1',
      subaccountID: 'sa-1',
      region: 'eu-central-1',
      shoot: { name: 'c-twin', project: 'kyma-dev' },
      ...t.settings,
    },
  };
  let text = t.header + stringify(doc, { ...t.style, aliasDuplicateObjects: false }) + t.footer;
  // Trailing spaces only where no quoted scalar can span lines (they would change its value).
  if (t.trailingSpaces && t.style.defaultStringType === 'PLAIN' && t.style.collectionStyle === 'block' && t.style.lineWidth === 0) {
    text = text.replace(/\n/g, '  \n');
  }
  return text;
}

/** Every path of a data tree, for comparing position indexes. */
function pathsOf(v: unknown, base: DocPath = []): DocPath[] {
  const out: DocPath[] = [base];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...base, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...base, k]));
  return out;
}

describe('line endings and BOM do not change what a file means', () => {
  let fx: FleetFixture;
  beforeAll(() => {
    fx = FleetFixture.example();
    for (const f of fs.readdirSync(fx.path('runtimes'))) fx.remove(`runtimes/${f}`);
  });
  afterAll(() => fx.cleanup());

  const VARIANTS: Record<string, (lf: string) => string> = {
    CRLF: (s) => s.replace(/\n/g, '\r\n'),
    CR: (s) => s.replace(/\n/g, '\r'),
    'BOM + LF': (s) => '\ufeff' + s,
    'BOM + CRLF': (s) => '\ufeff' + s.replace(/\n/g, '\r\n'),
  };

  const outcome = (c: CheckedFleet): unknown => ({
    ok: c.ok,
    diagnostics: c.diagnostics,
    runtimes: c.runtimes.map((r) => ({ name: r.runtime.name, groups: r.groups.map((g) => g.name), settings: JSON.stringify(r.settings), assignments: JSON.stringify(r.assignments) })),
  });

  it('CRLF, CR and BOM variants of generated runtime files parse and resolve exactly like the LF original', () => {
    const numRuns = 60;
    logRun('CRLF/CR/BOM invariance', SEED + 5, numRuns);
    let valid = 0;
    fc.assert(
      fc.property(twinArb, (t) => {
        // GIVEN a generated runtime file with LF line endings, and its result
        const lf = twinText(t);
        const p0 = parseFleetYaml(Buffer.from(lf, 'utf8'), 'fleet/runtimes/twin.yaml');
        fx.write('runtimes/twin.yaml', lf);
        const c0 = outcome(checkFleet({ fleetDir: 'fleet', cwd: fx.dir, now }));
        if ((c0 as { ok: boolean }).ok) valid++;
        for (const [name, variant] of Object.entries(VARIANTS)) {
          // WHEN the same file is written with other line endings or a BOM
          const text = variant(lf);
          const p = parseFleetYaml(Buffer.from(text, 'utf8'), 'fleet/runtimes/twin.yaml');
          // THEN the data, the diagnostics and every position are the same ...
          expect(p.data, name).toEqual(p0.data);
          expect(p.diagnostics, name).toEqual(p0.diagnostics);
          for (const at of pathsOf(p0.data)) {
            expect(p.positions.valueAt(at), `${name} value ${at.join('.')}`).toEqual(p0.positions.valueAt(at));
            expect(p.positions.keyAt(at), `${name} key ${at.join('.')}`).toEqual(p0.positions.keyAt(at));
          }
          // ... and the fleet resolves to exactly the same settings, provenance and diagnostics
          fx.write('runtimes/twin.yaml', text);
          expect(outcome(checkFleet({ fleetDir: 'fleet', cwd: fx.dir, now })), name).toEqual(c0);
        }
      }),
      { seed: SEED + 5, numRuns },
    );
    console.info(`[fast-check] loader-totality › twins valid: ${valid}/${numRuns}`);
    expect(valid).toBeGreaterThan(numRuns / 2);
  });
});

// ---------------------------------------------------------------------------------------------
// The nesting gate (H14)
//
// PRODUCT BUG (src/lib/yaml/parse-yaml.ts, measureNestingDepth, lines ~367-396): the pre-parse depth
// estimate loses track after a plain scalar that contains a quote or an opening bracket. A `'`
// or `"` after a space (`note: x '`) starts a "quote" that YAML does not have, and the rest of the
// file is skipped as quoted text (line 391); a `[` or `{` inside a plain scalar (`note: see [1`)
// counts as an open flow collection forever, which switches off the block-indentation and `- - -`
// counting (line 367). Nesting far above MAX_DEPTH then reaches the parser: it either parses
// without any diagnostic or fails as RESOURCE_EXHAUSTION (E_YAML_SYNTAX) instead of E_TOO_DEEP.

const depthOf = (v: unknown): number =>
  Array.isArray(v) ? 1 + Math.max(0, ...v.map(depthOf)) : v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;

const NEST = 100;
const flowNest = '['.repeat(NEST) + ']'.repeat(NEST);
const blockNest = '- '.repeat(NEST) + 'x';

describe('the nesting gate refuses nesting deeper than MAX_DEPTH', () => {
  it.each([
    ['flow brackets', `a: x\nb: ${flowNest}\n`],
    ['compact block sequences', `a: x\nb:\n  ${blockNest}\n`],
  ])('refuses %s nested 100 deep in an otherwise plain file', (_name, text) => {
    // GIVEN 100 levels of nesting WHEN parsed THEN E_TOO_DEEP, no data
    const p = parseFleetYaml(Buffer.from(text), 'f.yaml');
    expect(p.data).toBeUndefined();
    expect(p.diagnostics.map((d) => d.code)).toEqual(['E_TOO_DEEP']);
  });

  it.each([
    ['an unclosed single quote in a plain scalar before it', `a: x '\nb: ${flowNest}\n`],
    ['an unclosed double quote in a plain scalar before it', `a: x "\nb: ${flowNest}\n`],
    ['an opening bracket in a plain scalar before it', `a: see [1\nb:\n  ${blockNest}\n`],
    ['an opening brace in a plain scalar before it', `a: x {\nb:\n  ${blockNest}\n`],
  ])('refuses nesting 100 deep after %s', (_name, text) => {
    // GIVEN 100 levels of nesting after an innocent plain scalar WHEN parsed THEN E_TOO_DEEP, no data
    const p = parseFleetYaml(Buffer.from(text), 'f.yaml');
    expect(p.diagnostics.map((d) => d.code)).toEqual(['E_TOO_DEEP']);
    expect(p.data).toBeUndefined();
  });

  it('whatever the gate lets through nests at most MAX_DEPTH deep', () => {
    const numRuns = 200;
    logRun('nesting gate', SEED + 6, numRuns);
    const arb = fc.record({
      before: fc.constantFrom("note: it is 'ours", 'note: say "hi', 'note: see [1', 'note: a {b', 'note: plain', '# a comment'),
      form: fc.constantFrom('flow', 'block', 'braces'),
      n: fc.integer({ min: MAX_DEPTH + 1, max: 400 }),
    });
    fc.assert(
      fc.property(arb, ({ before, form, n }) => {
        const nest =
          form === 'flow' ? `b: ${'['.repeat(n)}${']'.repeat(n)}` : form === 'braces' ? `b: ${'{a: '.repeat(n)}x${'}'.repeat(n)}` : `b:\n  ${'- '.repeat(n)}x`;
        const p = parseFleetYaml(Buffer.from(`${before}\n${nest}\n`), 'f.yaml');
        if (p.data !== undefined) expect(depthOf(p.data)).toBeLessThanOrEqual(MAX_DEPTH);
        else expect(p.diagnostics.map((d) => d.code)).toContain('E_TOO_DEEP');
      }),
      { seed: SEED + 6, numRuns },
    );
  });
});
