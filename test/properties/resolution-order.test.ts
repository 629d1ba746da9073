// Property: resolution does not depend on the order in which the fleet is presented.
//
// Random fleets (groups with random priorities, ties included; selectors over a small label
// vocabulary; channel, modules, registry caches and Falco settings) are written to a temp folder and
// checked with `checkFleet`. Then the same fleet is presented differently and checked again:
//   A. in memory: the LoadedFleet's groups, runtimes, files and loader diagnostics are permuted and
//      every map of every parsed document gets a new key order (positions are kept, so the
//      result must be identical, file:line:col included);
//   B. on disk: the files are rewritten with every map's keys and every keyed list's entries
//      (modules, caches, destinations) and selector expressions permuted; positions move, so the
//      result must be identical up to line, column and list index.
// A re-run of a failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import { checkFleet, type CheckedFleet } from '../../src/run/check';
import { loadFleet, type LoadedDocument, type LoadedFleet } from '../../src/load/load';
import { type Assignment, resolveFleet, type ResolvedRuntime, type Source } from '../../src/resolve/resolve';
import { checkResolved } from '../../src/resolve/resolved-rules';
import { validateFleet } from '../../src/validate/validate';
import { type Diagnostic, hasErrors, normalizeDiagnostics } from '../../src/lib/diagnostics';
import { EXAMPLE_FLEET, NOW } from '../helpers/fleet-fixture';

const SEED = 0x0bde5eed;
const NUM_RUNS = 100;
const now = new Date(NOW);

type Rec = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Generators

const CHANNELS = ['regular', 'fast', 'experimental'];
const MODULES = ['api-gateway', 'btp-operator', 'istio', 'serverless', 'telemetry'];
const UPSTREAMS = ['docker.io', 'europe-docker.pkg.dev', 'ghcr.io', 'quay.io'];
const DESTINATIONS = ['logging', 'stdout', 'central', 'otlp'];
const STANDARD_RULES = ['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'];
/** In the example FalcoProfile: supported, deprecated and expired at NOW, preview. */
const FALCO_VERSIONS = ['0.42.1', '0.43.0', '0.44.1'];
const GROUP_NAMES = ['alpha', 'beta', 'delta', 'gamma'];

const nonEmpty = (r: Rec): boolean => Object.keys(r).length > 0;
const keyed = <T extends Rec>(arb: fc.Arbitrary<T>, key: keyof T & string): fc.Arbitrary<T[]> =>
  fc.uniqueArray(arb, { selector: (e) => e[key], maxLength: 3 });

const settingsArb: fc.Arbitrary<Rec> = fc.record(
  {
    channel: fc.constantFrom(...CHANNELS),
    modules: keyed(fc.record({ name: fc.constantFrom(...MODULES), channel: fc.constantFrom(...CHANNELS), enabled: fc.boolean() }, { requiredKeys: ['name'] }), 'name'),
    extensions: fc.record(
      {
        'registry-cache': fc.record(
          {
            enabled: fc.boolean(),
            caches: keyed(
              fc.record(
                {
                  upstream: fc.constantFrom(...UPSTREAMS),
                  volume: fc.record({ size: fc.constantFrom('10Gi', '20Gi', '50Gi') }),
                  garbageCollection: fc.record({ ttl: fc.constantFrom('24h', '168h') }),
                  enabled: fc.boolean(),
                },
                { requiredKeys: ['upstream'] },
              ),
              'upstream',
            ),
          },
          { requiredKeys: [] },
        ),
        falco: fc.record(
          {
            enabled: fc.boolean(),
            falcoVersion: fc.constantFrom(...FALCO_VERSIONS),
            autoUpdate: fc.boolean(),
            rules: fc.record({ standard: fc.subarray(STANDARD_RULES, { minLength: 1 }) }),
            destinations: keyed(fc.record({ name: fc.constantFrom(...DESTINATIONS), enabled: fc.boolean() }, { requiredKeys: ['name'] }), 'name'),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const selectorArb: fc.Arbitrary<Rec> = fc.oneof(
  fc.constant({}),
  fc.record({ tier: fc.constantFrom('dev', 'prod'), geo: fc.constantFrom('eu', 'us') }, { requiredKeys: [] }).filter(nonEmpty).map((m) => ({ matchLabels: m })),
  fc
    .array(
      fc.oneof(
        fc.record({ key: fc.constantFrom('tier', 'geo'), operator: fc.constantFrom('In', 'NotIn'), values: fc.subarray(['dev', 'prod', 'eu', 'us'], { minLength: 1 }) }),
        fc.record({ key: fc.constantFrom('tier', 'geo'), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
      ),
      { minLength: 1, maxLength: 2 },
    )
    .map((e) => ({ matchExpressions: e })),
);

interface GenGroup {
  readonly name: string;
  readonly priority: number;
  readonly selector: Rec;
  readonly settings: Rec;
}
interface GenRuntime {
  readonly name: string;
  readonly labels: Rec;
  readonly settings: Rec;
  /** Reuses the runtime ID and Shoot of rt-0 (a duplicate error), where duplicates are written. */
  readonly duplicate: boolean;
}
interface GenFleet {
  readonly defaults: Rec;
  readonly policy: boolean;
  readonly groups: readonly GenGroup[];
  readonly runtimes: readonly GenRuntime[];
}

const fleetArb: fc.Arbitrary<GenFleet> = fc
  .record({
    defaults: settingsArb,
    policy: fc.boolean(),
    groupNames: fc.shuffledSubarray(GROUP_NAMES, { maxLength: 4 }),
    groups: fc.array(
      fc.record({
        priority: fc.integer({ min: 0, max: 2 }),
        selector: selectorArb,
        settings: settingsArb,
        // Copying another group's settings makes equal-priority ties that agree (no conflict).
        copyOf: fc.option(fc.nat({ max: 3 }), { nil: undefined, freq: 3 }),
      }),
      { minLength: 4, maxLength: 4 },
    ),
    runtimes: fc.array(
      fc.record({
        labels: fc.record({ tier: fc.constantFrom('dev', 'prod'), geo: fc.constantFrom('eu', 'us') }, { requiredKeys: [] }),
        settings: settingsArb,
        duplicate: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  })
  .map(({ defaults, policy, groupNames, groups, runtimes }) => ({
    defaults,
    policy,
    groups: groupNames.map((name, i) => {
      const g = groups[i]!;
      const settings = g.copyOf !== undefined && g.copyOf !== i ? structuredClone(groups[g.copyOf]!.settings) : g.settings;
      return { name, priority: g.priority, selector: g.selector, settings };
    }),
    runtimes: runtimes.map((r, i) => ({ name: `rt-${i}`, labels: r.labels, settings: r.settings, duplicate: i > 0 && r.duplicate })),
  }));

// ---------------------------------------------------------------------------------------------
// Writing fleets

const API = 'kyma-fleet.dev/v1alpha1';
const PROFILE = fs.readFileSync(path.join(EXAMPLE_FLEET, 'profiles/falco-profile.yaml'));

/**
 * The fleet's documents. `duplicates` writes the runtime ID and Shoot of rt-0 into runtimes marked
 * `duplicate`. Only on disk: validateFleet reports a duplicate on whichever runtime it sees second,
 * so its result depends on the order of LoadedFleet.runtimes, which loadFleet fixes by path.
 */
function documentsOf(f: GenFleet, duplicates: boolean): Map<string, Rec> {
  const docs = new Map<string, Rec>();
  docs.set('fleet.yaml', {
    apiVersion: API,
    kind: 'Fleet',
    metadata: { name: 'prop' },
    spec: {
      falcoProfile: 'profiles/falco-profile.yaml',
      ...(f.policy ? { policies: [{ name: 'prod-runs-falco', selector: { matchLabels: { tier: 'prod' } }, requireExtensions: ['falco'] }] } : {}),
      defaults: f.defaults,
    },
  });
  for (const g of f.groups) {
    docs.set(`groups/${g.name}.yaml`, {
      apiVersion: API,
      kind: 'RuntimeGroup',
      metadata: { name: g.name },
      spec: { selector: g.selector, priority: g.priority, settings: g.settings },
    });
  }
  f.runtimes.forEach((r, i) => {
    const twin = duplicates && r.duplicate;
    docs.set(`runtimes/${r.name}.yaml`, {
      apiVersion: API,
      kind: 'KymaRuntime',
      metadata: { name: r.name, labels: r.labels },
      spec: {
        runtimeID: `5c0ffee0-0000-4000-8000-${String(twin ? 1 : i + 1).padStart(12, '0')}`,
        globalAccountID: 'ga-1',
        subaccountID: 'sa-1',
        region: 'eu-central-1',
        shoot: { name: twin ? 'c-rt-0' : `c-${r.name}`, project: 'kyma-dev' },
        ...r.settings,
      },
    });
  });
  return docs;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function permute<T>(xs: readonly T[], rng: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Lists whose order means nothing: keyed lists and selector requirements. */
const UNORDERED_LISTS = new Set(['modules', 'caches', 'destinations', 'matchExpressions', 'values']);

/** New key order in every map; with `lists`, also permutes the entries of unordered lists. */
function reorder(value: unknown, rng: () => number, lists: boolean, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => reorder(v, rng, lists));
    return lists && UNORDERED_LISTS.has(key) ? permute(items, rng) : items;
  }
  if (isRec(value)) {
    const out: Rec = {};
    for (const k of permute(Object.keys(value), rng)) out[k] = reorder(value[k], rng, lists, k);
    return out;
  }
  return value;
}

/** Writes the fleet to <cwd>/fleet, replacing what was there; with `rng`, in a permuted form. */
function writeFleet(cwd: string, f: GenFleet, options: { rng?: () => number; duplicates: boolean }): Map<string, string> {
  const { rng, duplicates } = options;
  const root = path.join(cwd, 'fleet');
  fs.rmSync(root, { recursive: true, force: true });
  for (const dir of ['groups', 'runtimes', 'profiles']) fs.mkdirSync(path.join(root, dir), { recursive: true });
  fs.writeFileSync(path.join(root, 'profiles/falco-profile.yaml'), PROFILE);
  const texts = new Map<string, string>();
  for (const [rel, doc] of documentsOf(f, duplicates)) {
    const text = stringify(rng ? reorder(doc, rng, true) : doc, { aliasDuplicateObjects: false, lineWidth: 0 });
    fs.writeFileSync(path.join(root, rel), text);
    texts.set(`fleet/${rel}`, text);
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------
// Checking a presented fleet (checkFleet with a permuted LoadedFleet in the middle)

function checkPresented(cwd: string, rng: () => number): CheckedFleet {
  const loaded = loadFleet({ fleetDir: 'fleet', cwd, extensions: EXTENSIONS });
  const shuffleDoc = (d: LoadedDocument): LoadedDocument => ({ ...d, data: reorder(d.data, rng, false) });
  const presented: LoadedFleet = {
    ...loaded,
    fleet: loaded.fleet && shuffleDoc(loaded.fleet),
    groups: permute(loaded.groups.map(shuffleDoc), rng),
    runtimes: permute(loaded.runtimes.map(shuffleDoc), rng),
    files: new Map(permute([...loaded.files], rng)),
    diagnostics: permute(loaded.diagnostics, rng),
  };
  // The body of checkFleet (src/run/check.ts) from here on.
  const validated = validateFleet(presented, { now, extensions: EXTENSIONS });
  const diagnostics = [...validated.diagnostics];
  let runtimes: ResolvedRuntime[] = [];
  if (validated.model) {
    const resolved = resolveFleet(validated.model, EXTENSIONS);
    runtimes = resolved.runtimes;
    diagnostics.push(...resolved.diagnostics);
    if (validated.model.complete) diagnostics.push(...checkResolved(validated.model, runtimes, EXTENSIONS));
  }
  const sorted = normalizeDiagnostics(diagnostics);
  return { model: validated.model, runtimes, diagnostics: sorted, ok: !hasErrors(sorted) };
}

// ---------------------------------------------------------------------------------------------
// Comparable outcomes

function positionFree(s: Source): unknown {
  return s.kind === 'layer' ? { layer: s.layer, name: s.name, file: s.file, docPath: s.docPath.map((x) => (typeof x === 'number' ? '#' : x)) } : s;
}

function assignmentsOf(r: ResolvedRuntime, exact: boolean): string {
  if (exact) return JSON.stringify(r.assignments);
  return JSON.stringify(
    r.assignments.map((a: Assignment) => ({
      path: a.path,
      value: a.value,
      source: positionFree(a.source),
      overridden: a.overridden.map((o) => ({ value: o.value, source: positionFree(o.source) })),
    })),
  );
}

function diagnosticsOf(ds: readonly Diagnostic[], exact: boolean): unknown {
  if (exact) return ds;
  return ds
    .map((d) =>
      JSON.stringify({
        severity: d.severity,
        code: d.code,
        file: d.file,
        field: d.field.replace(/\[\d+\]/g, '[#]'),
        message: d.message.replace(/:\d+:\d+/g, ':L:C').replace(/\[\d+\]/g, '[#]'),
      }),
    )
    .sort();
}

function outcome(c: CheckedFleet, exact: boolean): unknown {
  return {
    ok: c.ok,
    model: c.model !== undefined,
    runtimes: c.runtimes.map((r) => ({
      name: r.runtime.name,
      groups: r.groups.map((g) => g.name),
      settings: JSON.stringify(r.settings),
      assignments: assignmentsOf(r, exact),
    })),
    diagnostics: diagnosticsOf(c.diagnostics, exact),
  };
}

/** Every scalar assignment's line:col in its file shows its value (provenance survives the permutation). */
function expectPositionsPointAtValues(c: CheckedFleet, texts: ReadonlyMap<string, string>): void {
  for (const r of c.runtimes) {
    for (const a of r.assignments) {
      for (const { source, value } of [a, ...a.overridden]) {
        if (source.kind !== 'layer' || (typeof value !== 'string' && typeof value !== 'boolean')) continue;
        const lines = texts.get(source.file)!.split('\n');
        const at = lines[source.line - 1]!.slice(source.col - 1);
        expect(at.startsWith(String(value)) || at.startsWith(JSON.stringify(value)), `${source.file}:${source.line}:${source.col} shows ${String(value)}`).toBe(true);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe('resolution is independent of presentation order', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-order-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** How often the generated fleets hit the interesting cases (a vacuous run must not pass). */
  const stats = { runs: 0, ok: 0, conflicts: 0, agreeingTies: 0, matchedGroups: 0 };
  function count(c: CheckedFleet): void {
    stats.runs++;
    if (c.ok) stats.ok++;
    if (c.diagnostics.some((d) => d.code === 'E_OVERRIDE_CONFLICT')) stats.conflicts++;
    for (const r of c.runtimes) {
      stats.matchedGroups += r.groups.length;
      const prios = r.groups.map((g) => g.priority);
      if (prios.length !== new Set(prios).size && !c.diagnostics.some((d) => d.code === 'E_OVERRIDE_CONFLICT')) stats.agreeingTies++;
    }
  }

  it('A: permuting groups, runtimes, files and map keys of the loaded fleet changes nothing, positions included', () => {
    console.info(`[fast-check] resolution-order › in-memory permutation: seed=${SEED} numRuns=${NUM_RUNS}`);
    const cwd = path.join(tmp, 'a');
    fs.mkdirSync(cwd);
    fc.assert(
      fc.property(fleetArb, fc.integer(), (f, seed) => {
        // GIVEN a random fleet on disk and its result with checkFleet
        writeFleet(cwd, f, { duplicates: false });
        const base = checkFleet({ fleetDir: 'fleet', cwd, now });
        count(base);
        // WHEN the loaded fleet is presented in another order (twice, with different permutations)
        const rng = mulberry32(seed);
        for (let i = 0; i < 2; i++) {
          const again = checkPresented(cwd, rng);
          // THEN settings, assignments (with file:line:col) and diagnostics are identical
          expect(outcome(again, true)).toEqual(outcome(base, true));
        }
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    console.info(`[fast-check] resolution-order › generated: ${JSON.stringify(stats)}`);
    expect(stats.ok).toBeGreaterThan(0);
    expect(stats.conflicts).toBeGreaterThan(0);
    expect(stats.agreeingTies).toBeGreaterThan(0);
    expect(stats.matchedGroups).toBeGreaterThan(0);
    expect(stats.ok).toBeLessThan(stats.runs);
  });

  it('B: rewriting the files with permuted keys, keyed-list entries and selector terms changes nothing but positions', () => {
    console.info(`[fast-check] resolution-order › on-disk permutation: seed=${SEED + 1} numRuns=${NUM_RUNS}`);
    const cwdA = path.join(tmp, 'b1');
    const cwdB = path.join(tmp, 'b2');
    fs.mkdirSync(cwdA);
    fs.mkdirSync(cwdB);
    let duplicates = 0;
    fc.assert(
      fc.property(fleetArb, fc.integer(), (f, seed) => {
        // GIVEN a random fleet, written once as generated and once permuted
        const textsA = writeFleet(cwdA, f, { duplicates: true });
        const textsB = writeFleet(cwdB, f, { rng: mulberry32(seed), duplicates: true });
        // WHEN both are checked
        const a = checkFleet({ fleetDir: 'fleet', cwd: cwdA, now });
        const b = checkFleet({ fleetDir: 'fleet', cwd: cwdB, now });
        // THEN the results agree up to line, column and list index
        expect(outcome(b, false)).toEqual(outcome(a, false));
        // AND in both, every assignment's position shows its value
        expectPositionsPointAtValues(a, textsA);
        expectPositionsPointAtValues(b, textsB);
        if (a.diagnostics.some((d) => d.code === 'E_DUPLICATE_RUNTIME_ID')) duplicates++;
      }),
      { seed: SEED + 1, numRuns: NUM_RUNS },
    );
    console.info(`[fast-check] resolution-order › fleets with a duplicate runtime ID: ${duplicates}/${NUM_RUNS}`);
    expect(duplicates).toBeGreaterThan(0);
  });
});
