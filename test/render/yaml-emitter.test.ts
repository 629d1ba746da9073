// emitYaml (src/render/yaml-emitter.ts) must write exactly the bytes of toYaml as it was
// (yaml.stringify with cdk8s's options, called here directly as `yamlReference`) for every
// JSON-like value, and what it writes must parse back to the value.
//   1. property: arbitrary JSON-like values -> byte-identical to yamlReference, and yaml.parse with
//      version 1.1 and 1.2 gives the value back (documented exceptions below, all yaml's own);
//   2. every committed dist/**/*.yaml file: parse, re-emit, equal to the file body;
//      plus every document of a small synthetic fleet;
//   3. one small example per string-style decision (plain / double / single / literal block,
//      chomping and indentation indicators, keys, explicit keys), numbers, empty collections;
//   4. the guards: the copied YAML 1.1 tag regexps still equal the installed yaml's, the fast
//      path never claims "plain" for a string yaml would quote (exhaustive for short strings),
//      and values outside the JSON domain fall back to yaml.stringify.
// A re-run of a property failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).
//
// Round-trip exceptions (measured; yaml writes the same bytes, so they are properties of the
// yaml package's output, not of the emitter; in manifests only user-supplied text such as a
// custom Falco rules file or ConfigMap data could reach the last two, and toYaml has them today):
//   - a mapping key `<<` is written plain, and a YAML 1.1 parser reads it as a merge key;
//   - a string `0o17` is plain (not a YAML 1.1 int), but YAML 1.2 reads it as the int 15;
//   - U+FEFF as the very first character of the document is eaten as a byte-order mark;
//   - a whole-document (top-level) multi-line string whose leading blank run contains a space
//     is written as `|1-` at indent 0, which yaml's own parser rejects;
//   - a multi-line string that ends up double-quoted with line folding (a control character such
//     as \r, or a last line of only blanks, and >= 40 characters) and has a line of exactly one
//     space ("\n \n"): yaml escapes that space twice and writes `\\ `, which reads back as a
//     backslash (see the 'yaml 2.9.1 bug' cases below);
//   - a multi-line string of only blanks and newlines that has a space, e.g. "\n \n" or " \n": it
//     becomes a `|+` block without an indentation indicator, so the spaces read back as
//     indentation (lost) or, next to a tab, as an error.

import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { Document, parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATED_HEADER, toYaml } from '../../src/render/serialize';
import { emitYaml, getEmitterStats, isSimplePlain, resetEmitterStats, YAML11_TAG_TESTS } from '../../src/render/yaml-emitter';

/**
 * The reference: yaml.stringify with the options toYaml has used so far (cdk8s's). Called
 * directly, so that the tests keep comparing against the yaml package after serialize.ts switches
 * toYaml over to emitYaml; 'toYaml still writes what yaml writes' below ties toYaml to it.
 */
const YAML_OPTIONS = { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false, indentSeq: true } as const;
const yamlReference = (value: unknown): string => stringify(value, YAML_OPTIONS) as string;

const SEED = 0x79616d6c; // "yaml"
const NUM_RUNS = 3000;
const REPO = path.resolve(__dirname, '..', '..');
// The bench helpers locate the example fleet relative to their compiled location (lib/bench/),
// so they are loaded from lib/ (built by `npm run build`, which `npm test` runs first).
const LIB_BENCH = path.join(REPO, 'lib', 'bench', 'serialize-bench.js');
const requireLib = createRequire(__filename);

function logRun(title: string, seed: number, numRuns: number): void {
  console.info(`[fast-check] yaml-emitter › ${title}: seed=${seed} numRuns=${numRuns}`);
}

/** emitYaml and the reference, byte for byte. */
function expectSame(value: unknown): string {
  const ours = emitYaml(value);
  expect(ours).toBe(yamlReference(value));
  return ours;
}

// ---------------------------------------------------------------------------------------------
// Generators

const TRAP_WORDS = [
  // YAML 1.1 bools and nulls
  'y', 'Y', 'n', 'N', 'yes', 'Yes', 'YES', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF',
  'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '~', '',
  // numbers in every 1.1 and 1.2 spelling
  '0', '-0', '+1', '017', '0o17', '0x1F', '0X1F', '0b101', '1_000', '1e3', '1E+3', 'e5', 'E-1', '1.', '.5', '.', '0.42.1',
  '1.5e-7', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '1:20', '-1:20:30', '1:20.5', '190:20:30.15', '12345678901234567890',
  // dates and timestamps
  '2026-07-31', '2026-07-31T23:59:59Z', '2026-7-1 1:2:3 +5', '2026-07-31t23:59:59.123-03:30', '2026-07-31 ',
  // Kubernetes-ish values
  '168h', '10Gi', '500m', 'kyma-system', 'operator.kyma-project.io/v1beta2', 'https://a.example/x?y=z#f', 'a:b', 'x#y',
  // indicators, document markers, special keys
  '<<', '=', '-', '?', ':', '- x', '? x', ': x', '-x', '?x', ':x', '#x', 'x #y', 'x:', 'a: b', ' x', 'x ', '\tx', '%x', '@x',
  '`x', '!x', '&x', '*x', '|x', '>x', '[x]', '{x}', ',x', '"x', "'x", 'say "hi"', "it's", 'both " and \'', '---', '---x',
  '...', '...x', '--- x', '%YAML 1.1', '__proto__', 'constructor', 'toString',
  // control characters, odd whitespace, surrogates
  'bell\u0007', 'nul\u0000', 'esc\u001b', 'del\u007f', 'nel\u0085x', 'nbsp\u00a0x', 'ls\u2028x', 'ps\u2029x', 'lone\ud800x',
  'x\udc00', 'tab\tin', 'cr\rlf', 'caf\u00e9', '\u{1F600}',
];

/** Characters that each steer some branch of yaml's string stringifier. */
const TRICKY_CHAR = fc.constantFrom(
  ...'aeEnNoOyYtTfF019.-+_:/ \t\n#%\'"\\~<=?|>&*!@`[]{},'.split(''),
  '\r', '\u0007', '\u0085', '\u00a0', '\u2028', '\ufeff', '\ud800', '\u00e9', '\u{1F600}',
);

const line = fc.oneof(fc.string({ unit: TRICKY_CHAR, maxLength: 12 }), fc.string({ maxLength: 20 }), fc.constantFrom(...TRAP_WORDS));
/** Multi-line text: lines (some indented, some blank), then a tail of newlines/spaces/tabs. */
const multiLine = fc
  .tuple(
    fc.constantFrom('', ' ', '  ', '\n', '\n '),
    fc.array(line, { minLength: 2, maxLength: 6 }),
    fc.constantFrom('', '\n', '\n\n', '\n\n\n', ' ', ' \n', '\n ', '\t', '\n\t\n'),
  )
  .map(([head, lines, tail]) => head + lines.join('\n') + tail);
/** Around the 1024-character limit of implicit keys, and long values. */
const long = fc
  .tuple(fc.constantFrom('x', 'a b ', '"', "'", '\\', 'é'), fc.integer({ min: 1015, max: 1030 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n));

const str = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRAP_WORDS) },
  { weight: 3, arbitrary: fc.string({ unit: TRICKY_CHAR, maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: multiLine },
  { weight: 1, arbitrary: long },
);

const num = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, 1e-7, 2 ** 53, -(2 ** 53) - 2, 5e-324, 1.7976931348623157e308, 0.1, 1e300),
);

const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, str, num, fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(str, tie('value'), { maxKeys: 5 }),
})).value;

// ---------------------------------------------------------------------------------------------
// Round-trip exceptions (see the header)

function* strings(v: unknown): Generator<string> {
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* strings(x);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      yield k;
      yield* strings(x);
    }
  }
}

function* keys(v: unknown): Generator<string> {
  if (Array.isArray(v)) for (const x of v) yield* keys(x);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      yield k;
      yield* keys(x);
    }
  }
}

const checked = { v11: 0, v12: 0 };
const exempt = { mergeKey11: 0, octal12: 0, bom: 0, topLeadingSpace: 0, foldedSpaceLine: 0, blankBlock: 0 };

function* values(v: unknown): Generator<string> {
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* values(x);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) yield* values(x);
}

/** A string value yaml writes double-quoted with folding, with a line of one space. */
function hasFoldedSpaceLine(v: unknown): boolean {
  for (const s of values(v)) if (s.includes('\n \n') && yamlReference([s]).startsWith('- "')) return true;
  return false;
}

/** A string value of only blanks and newlines with a space in it, written as a `|+` block. */
function hasBlankBlock(v: unknown): boolean {
  for (const s of values(v)) if (/^[ \t\n]*$/.test(s) && s.includes('\n') && s.includes(' ')) return true;
  return false;
}

function roundTrips11(v: unknown, text: string): boolean {
  if (text.startsWith('\ufeff')) return exempt.bom++, false;
  if (hasFoldedSpaceLine(v)) return exempt.foldedSpaceLine++, false;
  if (hasBlankBlock(v)) return exempt.blankBlock++, false;
  if (typeof v === 'string' && v.includes('\n') && /^[ \n]* /.test(v)) return exempt.topLeadingSpace++, false;
  for (const k of keys(v)) if (k === '<<') return exempt.mergeKey11++, false;
  return true;
}

function roundTrips12(v: unknown, text: string): boolean {
  if (text.startsWith('\ufeff') || hasFoldedSpaceLine(v) || hasBlankBlock(v)) return false;
  if (typeof v === 'string' && v.includes('\n') && /^[ \n]* /.test(v)) return false;
  for (const s of strings(v)) if (/^0o[0-7]+$/.test(s)) return exempt.octal12++, false;
  return true;
}

// ---------------------------------------------------------------------------------------------

describe('emitYaml property: byte-identical to yaml.stringify and round-trips', () => {
  afterAll(() => {
    console.info(`[yaml-emitter] round trips checked: ${JSON.stringify(checked)}; exempted (yaml's own output does not round-trip): ${JSON.stringify(exempt)}`);
  });

  it('for arbitrary JSON-like values', () => {
    logRun('emitYaml === yamlReference, parse 1.1/1.2 round trip', SEED, NUM_RUNS);
    resetEmitterStats();
    fc.assert(
      fc.property(json, (v) => {
        const text = emitYaml(v);
        expect(text).toBe(yamlReference(v));
        if (roundTrips11(v, text)) {
          checked.v11++;
          expect(parse(text, { version: '1.1', maxAliasCount: 0 })).toEqual(v);
        }
        if (roundTrips12(v, text)) {
          checked.v12++;
          expect(parse(text, { version: '1.2', maxAliasCount: 0 })).toEqual(v);
        }
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    const stats = getEmitterStats();
    console.info(`[yaml-emitter] property: ${stats.documents} documents, ${stats.fallbackDocuments} fallbacks`);
    expect(stats.fallbackDocuments).toBe(0);
  });

  it('for manifest-shaped values (maps of maps and lists under string keys)', () => {
    const manifest = fc.record({
      apiVersion: fc.constantFrom('v1', 'operator.kyma-project.io/v1beta2'),
      kind: fc.constantFrom('ConfigMap', 'Kyma'),
      metadata: fc.record({ name: str, labels: fc.dictionary(str, str, { maxKeys: 4 }) }),
      spec: fc.dictionary(str, fc.oneof(str, num, fc.boolean(), fc.array(fc.dictionary(str, str, { maxKeys: 3 }), { maxLength: 3 })), { maxKeys: 6 }),
      data: fc.dictionary(str, fc.oneof(str, multiLine), { maxKeys: 3 }),
    });
    logRun('manifest-shaped', SEED + 1, 500);
    fc.assert(
      fc.property(manifest, (m) => {
        const text = expectSame(m);
        if (roundTrips11(m, text)) {
          checked.v11++;
          expect(parse(text, { version: '1.1', maxAliasCount: 0 })).toEqual(m);
        }
        if (roundTrips12(m, text)) {
          checked.v12++;
          expect(parse(text, { version: '1.2', maxAliasCount: 0 })).toEqual(m);
        }
      }),
      { seed: SEED + 1, numRuns: 500 },
    );
  });
});

describe('emitYaml on real output', () => {
  it('re-emits every committed dist/**/*.yaml file byte for byte', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const abs = path.join(dir, e.name);
        if (e.isDirectory()) walk(abs);
        else if (e.name.endsWith('.yaml')) files.push(abs);
      }
    };
    walk(path.join(REPO, 'dist'));
    expect(files.length).toBeGreaterThan(0);
    resetEmitterStats();
    for (const file of files) {
      const content = fs.readFileSync(file, 'utf8');
      expect(content.startsWith(GENERATED_HEADER), file).toBe(true);
      const body = content.slice(GENERATED_HEADER.length);
      const value = parse(body, { version: '1.1', maxAliasCount: 0 });
      expect(emitYaml(value), file).toBe(body);
      expect(yamlReference(value), file).toBe(body);
      expect(toYaml(value), file).toBe(body);
    }
    const stats = getEmitterStats();
    console.info(`[yaml-emitter] dist: ${files.length} files, ${stats.fallbackDocuments} fallbacks`);
    expect(stats.fallbackDocuments).toBe(0);
  });

  it.skipIf(!fs.existsSync(LIB_BENCH))('matches yaml on every document of a 100-runtime synthetic fleet (needs npm run build)', () => {
    const { collectDocuments } = requireLib(LIB_BENCH) as { collectDocuments: (dir: string, cwd?: string) => unknown[] };
    const { generateFleet } = requireLib(path.join(REPO, 'lib', 'bench', 'generate-fleet.js')) as { generateFleet: (dir: string, n: number, seed: number) => unknown };
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'yaml-emitter-'));
    try {
      generateFleet(path.join(tmp, 'fleet'), 100, 42);
      const docs = collectDocuments(path.join(tmp, 'fleet'), REPO);
      expect(docs.length).toBeGreaterThan(500);
      resetEmitterStats();
      let blockScalars = 0;
      for (const d of docs) {
        const text = expectSame(d);
        if (/: \|[-+]?\n/.test(text)) blockScalars++;
      }
      const stats = getEmitterStats();
      console.info(`[yaml-emitter] synthetic fleet: ${docs.length} documents (${blockScalars} with a block scalar), ${stats.fallbackDocuments} fallbacks`);
      expect(stats.fallbackDocuments).toBe(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('string styles (each case: emitYaml === yamlReference === expected)', () => {
  const cases: Array<[string, unknown, string]> = [
    // plain
    ['plain word', { k: 'kyma-system' }, 'k: kyma-system\n'],
    ['plain group/version', { k: 'operator.kyma-project.io/v1beta2' }, 'k: operator.kyma-project.io/v1beta2\n'],
    ['plain URL (colon and hash not after/before a space)', { k: 'https://a.example/x?y=z#f' }, 'k: https://a.example/x?y=z#f\n'],
    ['plain version with two dots (not a float)', { k: '0.42.1' }, 'k: 0.42.1\n'],
    ['plain Go duration / quantity', { k: '168h', q: '10Gi' }, 'k: 168h\nq: 10Gi\n'],
    ['plain inner spaces and quotes', { k: 'say "hi"', j: "it's", b: 'both " and \'' }, 'k: say "hi"\nj: it\'s\nb: both " and \'\n'],
    ['plain tab inside, non-ASCII', { k: 'tab\tin', c: 'café', s: 'nbsp\u00a0x' }, 'k: tab\tin\nc: café\ns: nbsp\u00a0x\n'],
    ['plain indicator chars that are fine mid-string or alone', { a: '-x', b: '?x', c: '=', d: '<<' }, 'a: -x\nb: ?x\nc: =\nd: <<\n'],
    ['plain document markers below the top level', { k: '---x', d: '...x' }, 'k: ---x\nd: ...x\n'],
    ['plain 0o17 (a YAML 1.2 int, not a 1.1 one)', { k: '0o17' }, 'k: 0o17\n'],
    // double quotes: YAML 1.1 non-strings
    ['bool words', { a: 'y', b: 'N', c: 'yes', d: 'no', e: 'on', f: 'Off', g: 'TRUE', h: 'false' }, 'a: "y"\nb: "N"\nc: "yes"\nd: "no"\ne: "on"\nf: "Off"\ng: "TRUE"\nh: "false"\n'],
    ['null words and the empty string', { a: '~', b: 'null', c: 'NULL', d: '' }, 'a: "~"\nb: "null"\nc: "NULL"\nd: ""\n'],
    ['ints', { a: '0', b: '-3', c: '+12', d: '017', e: '0x1F', f: '0b101', g: '1_000' }, 'a: "0"\nb: "-3"\nc: "+12"\nd: "017"\ne: "0x1F"\nf: "0b101"\ng: "1_000"\n'],
    ['floats', { a: '1e3', b: 'e5', c: 'E-1', d: '1.', e: '.', f: '.inf', g: '-.Inf', h: '.nan' }, 'a: "1e3"\nb: "e5"\nc: "E-1"\nd: "1."\ne: "."\nf: ".inf"\ng: "-.Inf"\nh: ".nan"\n'],
    ['sexagesimal', { a: '1:20', b: '1:20.5', c: '190:20:30' }, 'a: "1:20"\nb: "1:20.5"\nc: "190:20:30"\n'],
    ['dates and timestamps', { a: '2026-07-31', b: '2026-07-31T23:59:59Z', c: '2026-7-1 1:2:3 +5' }, 'a: "2026-07-31"\nb: "2026-07-31T23:59:59Z"\nc: "2026-7-1 1:2:3 +5"\n'],
    // double quotes: not plain-safe
    ['leading/trailing space, leading tab', { a: ' x', b: 'x ', c: '\tx' }, 'a: " x"\nb: "x "\nc: "\\tx"\n'],
    ['comment and mapping indicators', { a: '#x', b: 'x #y', c: 'x:', d: 'a: b', e: ': x' }, 'a: "#x"\nb: "x #y"\nc: "x:"\nd: "a: b"\ne: ": x"\n'],
    ['sequence/explicit-key indicators', { a: '-', b: '?', c: '- x', d: '? x' }, 'a: "-"\nb: "?"\nc: "- x"\nd: "? x"\n'],
    ['other leading indicators', { a: '%x', b: '@x', c: '`x', d: '!x', e: '&x', f: '*x', g: '|x', h: '>x', i: '[x]', j: '{x}', l: ',x', m: "'x" },
      'a: "%x"\nb: "@x"\nc: "`x"\nd: "!x"\ne: "&x"\nf: "*x"\ng: "|x"\nh: ">x"\ni: "[x]"\nj: "{x}"\nl: ",x"\nm: "\'x"\n'],
    ['control characters force double quotes with YAML escapes', { a: 'bell\u0007', b: 'nul\u0000', c: 'esc\u001b', d: 'x\u0001', e: 'cr\r' },
      'a: "bell\\a"\nb: "nul\\0"\nc: "esc\\e"\nd: "x\\x01"\ne: "cr\\r"\n'],
    ['lone surrogates force double quotes', { a: 'lone\ud800x' }, 'a: "lone\\ud800x"\n'],
    // single quotes: a string that needs quoting and contains " but no '
    ['single quotes when the string has " and no \'', { a: '"x', b: ' "x" ' }, 'a: \'"x\'\nb: \' "x" \'\n'],
    // literal block scalars
    ['multi-line: |- (strip)', { k: 'a\nb' }, 'k: |-\n  a\n  b\n'],
    ['multi-line: | (clip, one trailing newline)', { k: 'a\nb\n' }, 'k: |\n  a\n  b\n'],
    ['multi-line: |+ (keep, several trailing newlines)', { k: 'a\nb\n\n' }, 'k: |+\n  a\n  b\n\n'],
    ['multi-line: |+ for only newlines', { k: '\n' }, 'k: |+\n  \n'],
    ['multi-line: inner blank lines are not indented', { k: 'a\n\n\nb\n\n' }, 'k: |+\n  a\n\n\n  b\n\n'],
    ['multi-line: leading space needs the indentation indicator', { k: ' a\nb', c: '  a\n b\n' }, 'k: |2-\n   a\n  b\nc: |2\n    a\n   b\n'],
    ['multi-line: leading newline', { k: '\na\nb' }, 'k: |-\n  \n  a\n  b\n'],
    ['multi-line: trailing space on a line is kept', { k: 'a \nb', c: 'a\nb ' }, 'k: |-\n  a \n  b\nc: |-\n  a\n  b \n'],
    ['multi-line: looks like YAML inside (Falco rules)', { k: '- rule: x\n  desc: y\n' }, 'k: |\n  - rule: x\n    desc: y\n'],
    ['multi-line: document markers inside', { a: '%YAML\nx', b: 'x\n---\ny' }, 'a: |-\n  %YAML\n  x\nb: |-\n  x\n  ---\n  y\n'],
    ['multi-line in nested sequences', ['a\nb', ['c\n'], { d: ' e\nf' }], '- |-\n  a\n  b\n- - |\n    c\n- d: |2-\n     e\n    f\n'],
    // multi-line that cannot be a block scalar -> double quotes
    ['multi-line ending in newline + whitespace', { a: 'a\n ', b: 'a\n\t' }, 'a: "a\\n "\nb: "a\\n\\t"\n'],
    ['multi-line with CR', { a: 'a\r\nb' }, 'a: "a\\r\\nb"\n'],
    ['multi-line with a control character: short stays escaped', { a: 'a\nb\u0007' }, 'a: "a\\nb\\a"\n'],
    ['multi-line with a control character: long (>= 40) is written with real line breaks',
      { k: 'first line of a long-ish string value\n\n second\u0007' }, 'k: "first line of a long-ish string value\n\n\n  \\ second\\a"\n'],
    ['multi-line ending in newline + space, long', { k: 'a long string value ending in a newline and a space\n ' }, 'k: "a long string value ending in a newline and a space\n\n  \\ "\n'],
    // keys
    ['keys: trap words and numbers are quoted too', { y: 1, '1': 2, '': 3, 'a b': 4 }, '"1": 2\n"y": 1\n"": 3\na b: 4\n'],
    ['keys: multi-line keys are double-quoted, never folded', { 'first line of a long-ish key string\nsecond': 1 }, '"first line of a long-ish key string\\nsecond": 1\n'],
    ['keys: <<, =', { '<<': 1, '=': 2 }, '<<: 1\n=: 2\n'],
    ['keys: document markers quoted at the top level only', { '---x': { '---y': 1 }, '%x': 2 }, '"---x":\n  ---y: 1\n"%x": 2\n'],
    ['keys: single quotes', { '"k"': 1 }, '\'"k"\': 1\n'],
    // top-level scalars
    ['top-level multi-line string', 'a\nb', '|-\na\nb\n'],
    ['top-level string with a document marker: indented block', '---x', '|-\n  ---x\n'],
    ['top-level multi-line with a document marker', 'a\n%b', '|-\n  a\n  %b\n'],
    ['top-level plain string', 'x', 'x\n'],
    ['top-level quoted strings', '%x', '"%x"\n'],
    ['top-level trap word', 'no', '"no"\n'],
    // numbers and other scalars
    ['numbers as yaml writes them', [0, -0, 1.5, 1e21, 1e-7, -2.5e-300, 2 ** 53 + 2, 5e-324], '- 0\n- -0\n- 1.5\n- 1e+21\n- 1e-7\n- -2.5e-300\n- 9007199254740994\n- 5e-324\n'],
    ['non-finite numbers', [NaN, Infinity, -Infinity], '- .nan\n- .inf\n- -.inf\n'],
    ['booleans and null', { t: true, f: false, z: null }, 't: true\nf: false\nz: null\n'],
    // collections
    ['empty collections inline', { a: [], b: {}, c: [[], {}, [[]]] }, 'a: []\nb: {}\nc:\n  - []\n  - {}\n  - - []\n'],
    ['top-level empty collections', [{}, []], '- {}\n- []\n'],
    ['indentSeq and maps in sequences', { a: [{ b: 1, c: [2] }] }, 'a:\n  - b: 1\n    c:\n      - 2\n'],
    ['undefined: dropped from objects, null in arrays, {} when nothing is left', { a: undefined, b: [undefined], c: { d: undefined } }, 'b:\n  - null\nc: {}\n'],
  ];
  for (const [title, value, expected] of cases) {
    it(title, () => {
      expect(expectSame(value)).toBe(expected);
    });
  }

  it('yaml 2.9.1 bug, mirrored: a one-space line in a folded double-quoted string reads back as a backslash', () => {
    const value = 'first line of a long-ish string value\n \nsecond\r';
    const text = expectSame({ k: value });
    expect(text).toBe('k: "first line of a long-ish string value\n\n  \\\\ \n\n  second\\r"\n');
    expect(parse(text).k).toBe('first line of a long-ish string value\n\\\nsecond\r');
    expect(hasFoldedSpaceLine({ k: value })).toBe(true);
  });

  it('yaml 2.9.1 bug, mirrored: blank-only multi-line strings lose their spaces', () => {
    expect(expectSame({ d: { k: '\n \n' } })).toBe('d:\n  k: |+\n    \n     \n');
    expect(parse('d:\n  k: |+\n    \n     \n').d.k).toBe('\n\n');
    expect(expectSame({ k: ' \n' })).toBe('k: |+\n   \n');
    expect(() => parse(yamlReference({ k: ' \n\t\n' }))).toThrow(/indentation indicator/);
    expect(hasBlankBlock({ k: ' \n' })).toBe(true);
  });

  it('explicit keys beyond 1024 characters (as written, quotes included)', () => {
    const k1024 = 'k'.repeat(1024);
    const k1025 = 'k'.repeat(1025);
    const q = '"'.repeat(1023); // single-quoted: 1025 characters
    expect(expectSame({ [k1024]: 'v' })).toBe(`${k1024}: v\n`);
    expect(expectSame({ [k1025]: 'v' })).toBe(`? ${k1025}\n: v\n`);
    expect(expectSame({ [q]: { a: 1, b: [2] } })).toBe(`? '${q}'\n: a: 1\n  b:\n    - 2\n`);
    expect(expectSame({ x: { [k1025]: ['a', 'b'] } })).toBe(`x:\n  ? ${k1025}\n  : - a\n    - b\n`);
    expect(expectSame({ [k1025]: {} })).toBe(`? ${k1025}\n: {}\n`);
  });

  it('the Falco rule ConfigMap of the example fleet keeps its literal block', () => {
    const rule = '# Falco custom rule\n- rule: Shell\n  condition: >\n    spawned_process\n  tags: [acme, shell]\n';
    const text = expectSame({ apiVersion: 'v1', kind: 'ConfigMap', data: { 'rule.yaml': rule }, immutable: false });
    expect(text).toBe('apiVersion: v1\nkind: ConfigMap\ndata:\n  rule.yaml: |\n    # Falco custom rule\n    - rule: Shell\n      condition: >\n        spawned_process\n      tags: [acme, shell]\nimmutable: false\n');
  });
});

describe('guards', () => {
  it('toYaml (src/render/serialize.ts) still writes what yaml writes with these options', () => {
    const samples: unknown[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'y', b: 'x\ny\n', c: '0.42.1', d: '' }, e: [{ f: null }, [], {}] },
      'no',
      [1.5, -0, true],
    ];
    for (const v of samples) expect(toYaml(v)).toBe(yamlReference(v));
  });

  it("the copied YAML 1.1 tag tests are exactly the installed yaml's", () => {
    const schema = new Document(null, { version: '1.1' }).schema as unknown as { tags: Array<{ default?: unknown; tag: string; test?: RegExp }>; compat: unknown };
    const theirs = schema.tags.filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test).map((t) => `${t.tag} ${t.test!.source}/${t.test!.flags}`);
    const tagOf = schema.tags.filter((t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test).map((t) => t.tag);
    expect(YAML11_TAG_TESTS.map((r, i) => `${tagOf[i]} ${r.source}/${r.flags}`)).toEqual(theirs);
    expect(schema.compat).toBeNull();
  });

  it('the fast path only accepts strings yaml writes plain, as keys and values, at any depth (exhaustive up to 3 characters)', () => {
    const alphabet = 'aeEnNoOyYlLtTfFsuxb019_./-+: #\'"~<'.split('');
    const words: string[] = [...TRAP_WORDS];
    for (const a of alphabet) {
      words.push(a);
      for (const b of alphabet) {
        words.push(a + b);
        for (const c of alphabet) words.push(a + b + c);
      }
    }
    let accepted = 0;
    for (const s of words) {
      if (!isSimplePlain(s)) continue;
      accepted++;
      expect(yamlReference({ [s]: s }), s).toBe(`${s}: ${s}\n`);
      expect(yamlReference({ a: { [s]: [s] } }), s).toBe(`a:\n  ${s}:\n    - ${s}\n`);
    }
    console.info(`[yaml-emitter] fast path: ${accepted} of ${words.length} short strings accepted, all plain in yaml`);
    expect(accepted).toBeGreaterThan(1000);
  });

  it('the fast path agrees with yaml on random strings', () => {
    const unit = fc.constantFrom(...'abcdeEfilnNoOrsStTuyY_./-0123456789'.split(''));
    logRun('fast path', SEED + 2, 3000);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 8 }), fc.constantFrom(...TRAP_WORDS)), (s) => {
        if (isSimplePlain(s)) expect(yamlReference({ [s]: s })).toBe(`${s}: ${s}\n`);
        expectSame({ [s]: s });
      }),
      { seed: SEED + 2, numRuns: 3000 },
    );
  });

  it('values outside the JSON domain fall back to yaml.stringify (same bytes, counted)', () => {
    class Thing {
      constructor(readonly a = 1) {}
    }
    const withToJSON = { toJSON: () => ({ replaced: true }) };
    const iterable = Object.assign({ a: 1 }, { [Symbol.iterator]: function* () { yield 'x'; } });
    const values: unknown[] = [
      { when: new Date('2026-07-31T23:59:59Z') },
      { m: new Map([['a', 1]]) },
      { s: new Set(['a']) },
      { t: new Thing() },
      { b: 10n },
      { w: withToJSON },
      { i: iterable },
      [new String('boxed')],
      { a: Object.assign(['x'], { toJSON: () => 'replaced' }) },
      { a: Object.assign(['x'], { [Symbol.iterator]: function* () { yield 'y'; } }) },
    ];
    resetEmitterStats();
    for (const v of values) expectSame(v);
    expect(getEmitterStats()).toEqual({ documents: values.length, fallbackDocuments: values.length });
    // yaml refuses functions and symbols; so does the fallback
    expect(() => yamlReference({ f: () => 1 })).toThrow();
    expect(() => emitYaml({ f: () => 1 })).toThrow();
    expect(emitYaml(undefined)).toBe(yamlReference(undefined));
  });

  it('shared references are written twice, never as anchors/aliases (H61)', () => {
    const shared = { a: 1 };
    const text = expectSame({ x: shared, y: shared, z: [shared, shared] });
    expect(text).not.toMatch(/[&*]a\d/);
    expect(parse(text, { maxAliasCount: 0 })).toEqual({ x: shared, y: shared, z: [shared, shared] });
  });
});
