// Property tests of the keyed-list merge (src/resolve/resolve.ts): `modules` by name, registry-cache
// `caches` by upstream, Falco `destinations` by name. Layers are hand-built `FleetModel`s (no YAML,
// empty position indexes) so that thousands of merges run in well under a second.
//
// Laws, for layers A (lower) and B (higher), and C above both:
//   - an entry keyed k in B overrides the fields of k that B sets and keeps A's other fields;
//   - entries only in A or only in B survive;
//   - `enabled: false` in the highest layer that mentions an entry removes it;
//   - the result is sorted by key (code-point order);
//   - the order of entries inside a layer, and of keys inside a map, does not matter;
//   - associativity: A, B, C as defaults/group/runtime == (A merged with B) as defaults + C
//     == A as defaults + (B merged with C), where "merged" keeps `enabled` flags;
//   - idempotence and identity: A over A is A; an empty layer changes nothing.
// A re-run of a failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import type { FleetModel, FleetOptions, GroupDeclaration, Layer, RuntimeDeclaration } from '../../src/validate/model';
import { parseFleetYaml } from '../../src/lib/yaml/parse-yaml';
import { PositionIndex } from '../../src/lib/yaml/positions';
import { type Assignment, resolveFleet, type ResolvedRuntime } from '../../src/resolve/resolve';
import { validateFleet } from '../../src/validate/validate';

const SEED = 0x6b6d7267; // "kmrg"
const NUM_RUNS = 300;
const NOW = new Date('2026-11-22T00:00:00Z');
const KEYED = '\u0001';

type Rec = Record<string, unknown>;

function check<T>(title: string, arb: fc.Arbitrary<T>, predicate: (value: T) => void, numRuns = NUM_RUNS): void {
  console.info(`[fast-check] keyed-merge › ${title}: seed=${SEED} numRuns=${numRuns}`);
  fc.assert(fc.property(arb, predicate), { seed: SEED, numRuns });
}

// ---------------------------------------------------------------------------------------------
// Generators: one layer's settings with all three keyed lists

/** Keys chosen so that code-point order differs from locale order ('a-b' < 'a.' < 'ab'). */
const MODULE_KEYS = ['api-gateway', 'api', 'apigateway', 'istio', 'serverless'];
const UPSTREAM_KEYS = ['a-b.example', 'a.example', 'ab.example', 'docker.io'];
const DESTINATION_KEYS = ['logging', 'otlp', 'stdout'];

const nonEmpty = (r: Rec): boolean => Object.keys(r).length > 0;

const moduleFields = fc.record(
  { channel: fc.constantFrom('regular', 'fast'), customResourcePolicy: fc.constantFrom('CreateAndDelete', 'Ignore'), enabled: fc.boolean() },
  { requiredKeys: [] },
);
const cacheFields = fc.record(
  {
    volume: fc.record({ size: fc.constantFrom('10Gi', '20Gi'), storageClassName: fc.constantFrom('fast', 'slow') }, { requiredKeys: [] }).filter(nonEmpty),
    garbageCollection: fc.record({ ttl: fc.constantFrom('24h', '168h') }),
    secretReferenceName: fc.constantFrom('pull-a', 'pull-b'),
    enabled: fc.boolean(),
  },
  { requiredKeys: [] },
);
const destinationFields = fc.record({ resourceSecretName: fc.constantFrom('sink-a', 'sink-b'), enabled: fc.boolean() }, { requiredKeys: [] });

/** Entries with distinct keys, in random order. */
function keyedEntries(keys: readonly string[], keyField: string, fields: fc.Arbitrary<Rec>): fc.Arbitrary<Rec[]> {
  return fc
    .shuffledSubarray([...keys])
    .chain((ks) => (ks.length === 0 ? fc.constant([] as Rec[]) : fc.tuple(...ks.map((k) => fields.map((f) => ({ [keyField]: k, ...f }) as Rec)))));
}

/** A layer with the keyed lists only; extension-level `enabled` is left to the caller. */
const listsLayer: fc.Arbitrary<Rec> = fc.record({
  modules: keyedEntries(MODULE_KEYS, 'name', moduleFields),
  extensions: fc.record({
    'registry-cache': fc.record({ caches: keyedEntries(UPSTREAM_KEYS, 'upstream', cacheFields) }),
    falco: fc.record({ destinations: keyedEntries(DESTINATION_KEYS, 'name', destinationFields) }),
  }),
});

/** A full layer: the keyed lists plus scalars, a non-keyed list and extension-level `enabled`. */
const fullLayer: fc.Arbitrary<Rec> = fc
  .record({
    lists: listsLayer,
    channel: fc.option(fc.constantFrom('regular', 'fast'), { nil: undefined }),
    cacheEnabled: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    falcoEnabled: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    standardRules: fc.option(fc.subarray(['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'], { minLength: 1 }), { nil: undefined }),
  })
  .map(({ lists, channel, cacheEnabled, falcoEnabled, standardRules }) => {
    const layer = structuredClone(lists);
    const ext = layer.extensions as Record<string, Rec>;
    if (channel !== undefined) layer.channel = channel;
    if (cacheEnabled !== undefined) ext['registry-cache']!.enabled = cacheEnabled;
    if (falcoEnabled !== undefined) ext.falco!.enabled = falcoEnabled;
    if (standardRules !== undefined) ext.falco!.rules = { standard: standardRules };
    return layer;
  });

/** Turns both extensions on in a layer (for laws about the lists, not about extension state). */
function enableExtensions(layer: Rec): Rec {
  const out = structuredClone(layer);
  const ext = (out.extensions ??= {}) as Record<string, Rec>;
  (ext['registry-cache'] ??= {}).enabled = true;
  (ext.falco ??= {}).enabled = true;
  return out;
}

const twoLayers = fc.tuple(listsLayer.map(enableExtensions), listsLayer);
const threeLayers = fc.tuple(listsLayer.map(enableExtensions), listsLayer, listsLayer);

// ---------------------------------------------------------------------------------------------
// Hand-built models

/** The options of a Fleet that sets nothing, as the validator reads them (so new options need no edit here). */
const FLEET_OPTIONS: FleetOptions = (() => {
  const text = 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: Fleet\nmetadata:\n  name: t\nspec:\n  defaults: {}\n';
  const parsed = parseFleetYaml(Buffer.from(text), 'fleet/fleet.yaml');
  const validated = validateFleet(
    { root: '/virtual/fleet', displayRoot: 'fleet', fleet: { expectedKind: 'Fleet', relPath: 'fleet.yaml', file: 'fleet/fleet.yaml', data: parsed.data, positions: parsed.positions }, groups: [], runtimes: [], files: new Map(), diagnostics: [] },
    { now: NOW, allowEmpty: true },
  );
  if (!validated.model) throw new Error(`empty fleet did not validate: ${JSON.stringify(validated.diagnostics)}`);
  return validated.model.options;
})();

function layerOf(kind: Layer['kind'], name: string, settings: Rec, priority: number): Layer {
  const where = { defaults: ['fleet/fleet.yaml', ['spec', 'defaults']], group: [`fleet/groups/${name}.yaml`, ['spec', 'settings']], runtime: [`fleet/runtimes/${name}.yaml`, ['spec']] } as const;
  const [file, settingsPath] = where[kind];
  return { kind, name, file, settingsPath, settings, positions: new PositionIndex(), priority };
}

interface GroupLayer {
  readonly name: string;
  readonly priority: number;
  readonly settings: Rec;
}

function modelOf(defaults: Rec, groups: readonly GroupLayer[], runtime: Rec): FleetModel {
  const groupDecls: GroupDeclaration[] = groups.map((g) => ({
    name: g.name,
    file: `fleet/groups/${g.name}.yaml`,
    positions: new PositionIndex(),
    priority: g.priority,
    selector: {},
    layer: layerOf('group', g.name, g.settings, g.priority),
  }));
  const rt: RuntimeDeclaration = {
    name: 'rt',
    file: 'fleet/runtimes/rt.yaml',
    positions: new PositionIndex(),
    runtimeID: '5c0ffee0-0000-4000-8000-000000000001',
    globalAccountID: 'ga-1',
    subaccountID: 'sa-1',
    region: 'eu-central-1',
    shoot: { name: 'c-rt', project: 'kyma-dev' },
    labels: {},
    layer: layerOf('runtime', 'rt', runtime, Infinity),
  };
  return {
    root: '/virtual/fleet',
    displayRoot: 'fleet',
    fleetFile: 'fleet/fleet.yaml',
    fleetPositions: new PositionIndex(),
    options: FLEET_OPTIONS,
    defaults: layerOf('defaults', 'defaults', defaults, -Infinity),
    groups: groupDecls,
    runtimes: [rt],
    files: new Map(),
    extensionState: new Map(),
    now: NOW,
    complete: true,
  };
}

function resolveLayers(defaults: Rec, groups: readonly GroupLayer[], runtime: Rec): ResolvedRuntime {
  const result = resolveFleet(modelOf(defaults, groups, runtime), EXTENSIONS);
  expect(result.diagnostics).toEqual([]);
  return result.runtimes[0]!;
}

/** A, B, C as defaults, one group and the runtime. */
const resolveABC = (a: Rec, b: Rec, c: Rec): ResolvedRuntime => resolveLayers(a, [{ name: 'b', priority: 0, settings: b }], c);

// ---------------------------------------------------------------------------------------------
// Reading lists out of layers and results

interface ListSpec {
  readonly label: string;
  readonly path: readonly string[];
  readonly key: string;
}
const LISTS: readonly ListSpec[] = [
  { label: 'modules', path: ['modules'], key: 'name' },
  { label: 'caches', path: ['extensions', 'registry-cache', 'caches'], key: 'upstream' },
  { label: 'destinations', path: ['extensions', 'falco', 'destinations'], key: 'name' },
];

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

function entriesIn(layer: Rec, list: ListSpec): Rec[] {
  let node: unknown = layer;
  for (const seg of list.path) node = isRec(node) ? node[seg] : undefined;
  return Array.isArray(node) ? (node as Rec[]) : [];
}

const samePath = (a: Assignment, path: readonly string[]): boolean => a.path.length === path.length && a.path.every((s, i) => s === path[i]);

/** The resolved list, without entries that only the extension's defaults added (Falco's logging). */
function resultList(r: ResolvedRuntime, list: ListSpec): Rec[] {
  let items: Rec[];
  if (list.label === 'modules') items = r.settings.modules as unknown as Rec[];
  else items = ((r.settings.extensions[list.path[1]!]?.config[list.path[2]!] as Rec[] | undefined) ?? []);
  return items.filter((e) => {
    const keyLeaf = [...list.path, `${KEYED}${list.key}=${String(e[list.key])}`, list.key];
    return !r.assignments.some((a) => samePath(a, keyLeaf) && a.source.kind === 'default');
  });
}

const codePointSorted = (keys: readonly string[]): string[] => [...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));

/** Deep merge of maps, later wins; the reference for fields inside one entry. */
function mergeMaps(a: Rec, b: Rec): Rec {
  const out: Rec = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isRec(v) && isRec(out[k]) ? mergeMaps(out[k] as Rec, v) : structuredClone(v);
  return out;
}

/** Reference keyed merge of one list over layers, lowest first. */
function referenceList(layers: readonly Rec[], list: ListSpec): Rec[] {
  const byKey = new Map<string, Rec>();
  for (const layer of layers) {
    for (const e of entriesIn(layer, list)) {
      const k = String(e[list.key]);
      byKey.set(k, mergeMaps(byKey.get(k) ?? {}, e));
    }
  }
  return codePointSorted([...byKey.keys()])
    .map((k) => byKey.get(k)!)
    .filter((e) => e.enabled !== false)
    .map(({ enabled: _enabled, ...rest }) => rest);
}

/** State of an extension: the last layer that sets `enabled` decides. */
function referenceState(layers: readonly Rec[], extension: string): 'enabled' | 'disabled' | 'unset' {
  let state: 'enabled' | 'disabled' | 'unset' = 'unset';
  for (const layer of layers) {
    const e = ((layer.extensions as Rec | undefined)?.[extension] as Rec | undefined)?.enabled;
    if (typeof e === 'boolean') state = e ? 'enabled' : 'disabled';
  }
  return state;
}

/** Layer-level merge that keeps `enabled` flags: maps deep, keyed lists by key, everything else replaced. */
const KEYED_PATHS = new Map(LISTS.map((l) => [l.path.join('/'), l.key]));
function mergeLayers(a: unknown, b: unknown, path: readonly string[] = []): unknown {
  if (isRec(a) && isRec(b)) {
    const out: Rec = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? mergeLayers(out[k], v, [...path, k]) : structuredClone(v);
    return out;
  }
  const key = KEYED_PATHS.get(path.join('/'));
  if (key !== undefined && Array.isArray(a) && Array.isArray(b)) {
    const byKey = new Map<unknown, Rec>((a as Rec[]).map((e) => [e[key], e]));
    for (const e of b as Rec[]) byKey.set(e[key], byKey.has(e[key]) ? (mergeLayers(byKey.get(e[key]), e, [...path, '*']) as Rec) : e);
    return [...byKey.values()];
  }
  return structuredClone(b);
}

/** Leaves of a map as dotted path -> value. */
function leaves(v: Rec, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, x] of Object.entries(v)) {
    if (isRec(x)) for (const [p, y] of leaves(x, `${prefix}${k}.`)) out.set(p, y);
    else out.set(prefix + k, x);
  }
  return out;
}

/** Random permutation of entries in keyed lists and of keys in every map (same content). */
function shuffleLayer(value: unknown, rng: () => number, path: readonly string[] = []): unknown {
  const permute = <T>(xs: T[]): T[] => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  if (Array.isArray(value)) {
    const items = value.map((v) => shuffleLayer(v, rng, [...path, '*']));
    return KEYED_PATHS.has(path.join('/')) ? permute(items) : items;
  }
  if (isRec(value)) {
    const out: Rec = {};
    for (const k of permute(Object.keys(value))) out[k] = shuffleLayer(value[k], rng, [...path, k]);
    return out;
  }
  return value;
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

/** Assignments without positions: path, value, the layer, and the document path with list indices. */
const pathsAndValues = (r: ResolvedRuntime): string => JSON.stringify(r.assignments.map((a) => [a.path, a.value]));

// ---------------------------------------------------------------------------------------------

describe('keyed-list merge laws', () => {
  it('a higher layer\u2019s entry overrides the fields it sets and keeps the lower layer\u2019s other fields', () => {
    check('override keeps other fields', twoLayers, ([a, b]) => {
      // GIVEN A as defaults and B as the runtime; WHEN resolved
      const r = resolveLayers(a, [], b);
      for (const list of LISTS) {
        const result = new Map(resultList(r, list).map((e) => [String(e[list.key]), e]));
        const inA = new Map(entriesIn(a, list).map((e) => [String(e[list.key]), e]));
        for (const eb of entriesIn(b, list)) {
          const k = String(eb[list.key]);
          const got = result.get(k);
          if (!got) continue; // removed: the disable law covers it
          // THEN every field B sets has B's value, every other field of A's entry has A's value, nothing else
          const lb = leaves(eb);
          const la = leaves(inA.get(k) ?? {});
          const expected = new Map([...la, ...lb]);
          expected.delete('enabled');
          expect(leaves(got), `${list.label}[${k}]`).toEqual(expected);
        }
      }
    });
  });

  it('entries that only the lower or only the higher layer mentions survive unless they disable themselves', () => {
    check('one-sided entries survive', twoLayers, ([a, b]) => {
      const r = resolveLayers(a, [], b);
      for (const list of LISTS) {
        const keysA = new Map(entriesIn(a, list).map((e) => [String(e[list.key]), e]));
        const keysB = new Map(entriesIn(b, list).map((e) => [String(e[list.key]), e]));
        const result = new Map(resultList(r, list).map((e) => [String(e[list.key]), e]));
        for (const [k, e] of keysA) if (!keysB.has(k) && e.enabled !== false) expect(result.has(k), `${list.label}: ${k} only in A`).toBe(true);
        for (const [k, e] of keysB) if (!keysA.has(k) && e.enabled !== false) expect(result.has(k), `${list.label}: ${k} only in B`).toBe(true);
        // and nothing appears that no layer mentions
        for (const k of result.keys()) expect(keysA.has(k) || keysB.has(k), `${list.label}: ${k} from nowhere`).toBe(true);
      }
    });
  });

  it('enabled: false in the highest layer that mentions an entry removes it, whatever lower layers say', () => {
    check('highest disable removes', threeLayers, ([a, b, c]) => {
      // GIVEN A, B, C as defaults, group and runtime
      const r = resolveABC(a, b, c);
      for (const list of LISTS) {
        const result = new Set(resultList(r, list).map((e) => String(e[list.key])));
        const keys = new Set([a, b, c].flatMap((l) => entriesIn(l, list).map((e) => String(e[list.key]))));
        for (const k of keys) {
          const highest = [c, b, a].map((l) => entriesIn(l, list).find((e) => String(e[list.key]) === k)).find((e) => e !== undefined)!;
          // THEN an entry whose highest mention says enabled: false is gone
          if (highest.enabled === false) expect(result.has(k), `${list.label}: ${k}`).toBe(false);
          // and one whose highest mention says enabled: true is there
          if (highest.enabled === true) expect(result.has(k), `${list.label}: ${k}`).toBe(true);
        }
      }
    });
  });

  it('every merged list is sorted by key in code-point order', () => {
    check('sorted by key', fc.tuple(fullLayer, fullLayer, fullLayer).map(([a, b, c]) => [enableExtensions(a), b, c] as const), ([a, b, c]) => {
      const r = resolveABC(a, b, c);
      for (const list of LISTS) {
        const keys = resultList(r, list).map((e) => String(e[list.key]));
        expect(keys, list.label).toEqual(codePointSorted(keys));
        expect(new Set(keys).size, `${list.label} keys are unique`).toBe(keys.length);
      }
    });
  });

  it('matches a reference merge for any number of layers, including extension state and Falco\u2019s logging default', () => {
    const arb = fc.record({
      defaults: fullLayer,
      groups: fc.array(fullLayer, { maxLength: 3 }),
      runtime: fullLayer,
      names: fc.shuffledSubarray(['alpha', 'beta', 'gamma'], { minLength: 3, maxLength: 3 }),
    });
    check('reference merge', arb, ({ defaults, groups, runtime, names }) => {
      // GIVEN groups of distinct priorities whose names do not follow their priority
      const gs = groups.map((settings, i) => ({ name: names[i]!, priority: (i + 1) * 10, settings }));
      // WHEN resolved
      const r = resolveLayers(defaults, [...gs].reverse(), runtime);
      const layers = [defaults, ...groups, runtime];
      // THEN modules, caches and destinations are the reference merge, in priority order
      expect(r.settings.modules).toEqual(referenceList(layers, LISTS[0]!));
      for (const [name, list] of [
        ['registry-cache', LISTS[1]!],
        ['falco', LISTS[2]!],
      ] as const) {
        const state = referenceState(layers, name);
        const got = r.settings.extensions[name];
        expect(got?.state ?? 'unset', `${name} state`).toBe(state);
        if (state !== 'enabled') {
          expect(got?.config ?? {}, `${name} config`).toEqual({});
          continue;
        }
        const expected = referenceList(layers, list);
        const actual = got!.config[list.path[2]!] as Rec[] | undefined;
        if (name === 'falco') expect(actual).toEqual(expected.length > 0 ? expected : [{ name: 'logging' }]);
        else expect(actual ?? []).toEqual(expected);
      }
    });
  });
});

describe('keyed-list merge algebra', () => {
  it('is independent of the order of entries in each layer and of key order in each map', () => {
    check('order independence', fc.tuple(fullLayer, fullLayer, fullLayer, fc.integer()), ([a, b, c, seed]) => {
      // GIVEN A, B, C and the same layers with every keyed list and every map permuted
      const rng = mulberry32(seed);
      const [a2, b2, c2] = [a, b, c].map((l) => shuffleLayer(l, rng) as Rec);
      // WHEN both are resolved
      const r1 = resolveABC(a, b, c);
      const r2 = resolveABC(a2!, b2!, c2!);
      // THEN settings serialize identically and assignments differ at most in list indices of docPath
      expect(JSON.stringify(r2.settings)).toBe(JSON.stringify(r1.settings));
      expect(pathsAndValues(r2)).toBe(pathsAndValues(r1));
      const sources = (r: ResolvedRuntime): string =>
        JSON.stringify(
          r.assignments.map((x) => [x.path, x.source.kind === 'layer' ? [x.source.layer, x.source.docPath.filter((s) => typeof s === 'string')] : x.source]),
        );
      expect(sources(r2)).toBe(sources(r1));
    });
  });

  it('every assignment\u2019s document path leads to its value in the layer it names, however entries are ordered', () => {
    check('docPath points at the value', fc.tuple(fullLayer, fullLayer, fullLayer, fc.integer()), ([a, b, c, seed]) => {
      const rng = mulberry32(seed);
      const [a2, b2, c2] = [a, b, c].map((l) => shuffleLayer(l, rng) as Rec);
      const r = resolveABC(a2!, b2!, c2!);
      const bySource: Record<string, Rec> = { defaults: a2!, b: b2!, rt: c2! };
      for (const x of r.assignments) {
        for (const { source, value } of [x, ...x.overridden]) {
          if (source.kind !== 'layer') continue;
          const skip = source.layer === 'defaults' ? 2 : source.layer === 'group' ? 2 : 1;
          let node: unknown = bySource[source.name];
          for (const seg of source.docPath.slice(skip)) node = (node as Record<string | number, unknown>)[seg];
          expect(node, `${source.name}:${source.docPath.join('.')}`).toEqual(value);
        }
      }
    });
  });

  it('is associative: A, B, C as three layers equals A merged with B under C, and A under B merged with C', () => {
    check('associativity', fc.tuple(fullLayer, fullLayer, fullLayer), ([a, b, c]) => {
      // GIVEN three layers and the layer-level merges A+B and B+C (keeping enabled flags)
      const ab = mergeLayers(a, b) as Rec;
      const bc = mergeLayers(b, c) as Rec;
      // WHEN resolved as three layers and as two
      const three = resolveABC(a, b, c);
      const left = resolveLayers(ab, [], c);
      const right = resolveLayers(a, [], bc);
      // THEN the settings and the resolved leaves are the same
      expect(JSON.stringify(left.settings)).toBe(JSON.stringify(three.settings));
      expect(JSON.stringify(right.settings)).toBe(JSON.stringify(three.settings));
      expect(pathsAndValues(left)).toBe(pathsAndValues(three));
      expect(pathsAndValues(right)).toBe(pathsAndValues(three));
    });
  });

  it('is idempotent and has the empty layer as identity', () => {
    check('idempotence and identity', fullLayer, (a) => {
      // GIVEN a layer A; WHEN resolved alone, over itself twice, and with empty layers around it
      const alone = resolveLayers(a, [], {});
      const thrice = resolveABC(a, structuredClone(a), structuredClone(a));
      const padded = resolveABC({}, a, {});
      // THEN the settings are the same
      expect(JSON.stringify(thrice.settings)).toBe(JSON.stringify(alone.settings));
      expect(JSON.stringify(padded.settings)).toBe(JSON.stringify(alone.settings));
    });
  });
});
