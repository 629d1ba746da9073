// Unit tests of the layering (src/resolve/resolve.ts): Fleet defaults, then matching groups by
// priority, then the runtime; keyed lists by key, other lists and scalars replaced; provenance.
// Fleets are written as YAML text and go through the real YAML gate and validator in memory, so
// positions and the model are exactly what `kyma-fleet validate` would see.

import { describe, expect, it } from 'vitest';
import type { LoadedDocument, LoadedFleet } from '../../src/load/load';
import type { FleetModel, Layer } from '../../src/validate/model';
import { parseFleetYaml } from '../../src/lib/yaml/parse-yaml';
import { PositionIndex } from '../../src/lib/yaml/positions';
import {
  type Assignment,
  displayPath,
  findAssignment,
  flattenLayer,
  keyedListsOf,
  resolveFleet,
  type ResolvedRuntime,
  type ResolveResult,
  toResolvedSegments,
} from '../../src/resolve/resolve';
import { validateFleet } from '../../src/validate/validate';
import { EXTENSIONS } from '../../src/extensions';
import type { FleetKind } from '../../src/validate/schema';

const NOW = new Date('2026-11-22T00:00:00Z');
const API = 'apiVersion: kyma-fleet.dev/v1alpha1';
const K = '\u0001'; // the KEYED marker of resolved paths
const SPECS = keyedListsOf(EXTENSIONS);

// ---------------------------------------------------------------------------------------------
// Building fleets from text

const indent = (text: string, n: number): string =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

/** fleet.yaml; the defaults body starts on line 7, indented by 4. */
function fleetYaml(defaults: string): string {
  return [API, 'kind: Fleet', 'metadata:', '  name: test', 'spec:', defaults ? '  defaults:\n' + indent(defaults, 4) : '  defaults: {}', ''].join('\n');
}

interface GroupSpec {
  readonly name: string;
  readonly priority: number;
  /** Flow-style selector, e.g. '{matchLabels: {tier: prod}}'. */
  readonly selector?: string;
  /** Settings body; starts on line 9, indented by 4. */
  readonly settings?: string;
}

function groupYaml(g: GroupSpec): string {
  return [
    API,
    'kind: RuntimeGroup',
    'metadata:',
    `  name: ${g.name}`,
    'spec:',
    `  priority: ${g.priority}`,
    `  selector: ${g.selector ?? '{}'}`,
    g.settings ? '  settings:\n' + indent(g.settings, 4) : '  settings: {}',
    '',
  ].join('\n');
}

interface RuntimeSpec {
  readonly name: string;
  /** Flow-style labels, e.g. '{tier: prod}'. */
  readonly labels?: string;
  /** Settings directly under spec; start on line 14, indented by 2. */
  readonly settings?: string;
}

let idCounter = 0;
function runtimeYaml(r: RuntimeSpec): string {
  const id = `5c0ffee0-0000-4000-8000-${String(++idCounter).padStart(12, '0')}`;
  return [
    API,
    'kind: KymaRuntime',
    'metadata:',
    `  name: ${r.name}`,
    `  labels: ${r.labels ?? '{}'}`,
    'spec:',
    `  runtimeID: ${id}`,
    '  globalAccountID: ga-1',
    '  subaccountID: sa-1',
    '  region: eu-central-1',
    '  shoot:',
    `    name: c-${r.name}`,
    '    project: kyma-dev',
    r.settings ? indent(r.settings, 2) : '',
    '',
  ].join('\n');
}

function loadedDoc(relPath: string, kind: FleetKind, text: string): LoadedDocument {
  const file = `fleet/${relPath}`;
  const parsed = parseFleetYaml(Buffer.from(text, 'utf8'), file);
  expect(parsed.diagnostics, `test fixture ${relPath} must parse`).toEqual([]);
  return { expectedKind: kind, relPath, file, data: parsed.data, positions: parsed.positions };
}

interface FleetSpec {
  readonly defaults?: string;
  readonly groups?: readonly GroupSpec[];
  readonly runtimes: readonly RuntimeSpec[];
}

/** Validates the fleet in memory (asserting it is valid) and returns its model. */
function modelOf(spec: FleetSpec): FleetModel {
  const loaded: LoadedFleet = {
    root: '/virtual/fleet',
    displayRoot: 'fleet',
    fleet: loadedDoc('fleet.yaml', 'Fleet', fleetYaml(spec.defaults ?? '')),
    groups: (spec.groups ?? []).map((g) => loadedDoc(`groups/${g.name}.yaml`, 'RuntimeGroup', groupYaml(g))),
    runtimes: spec.runtimes.map((r) => loadedDoc(`runtimes/${r.name}.yaml`, 'KymaRuntime', runtimeYaml(r))),
    files: new Map(),
    diagnostics: [],
  };
  const validated = validateFleet(loaded, { now: NOW });
  // A group that selects none of the runtimes is only a warning (W_SELECTOR_MATCHES_NONE,
  // test/validate/empty-selectors.test.ts); these fixtures are about resolution.
  expect(validated.diagnostics.filter((d) => d.code !== 'W_SELECTOR_MATCHES_NONE'), 'test fixture must be a valid fleet').toEqual([]);
  return validated.model!;
}

function resolve(spec: FleetSpec): ResolveResult {
  return resolveFleet(modelOf(spec));
}

/** Resolves a fleet of one runtime `rt` and returns it (asserting no resolve diagnostics). */
function resolveOne(spec: Omit<FleetSpec, 'runtimes'> & { runtime?: Omit<RuntimeSpec, 'name'> }): ResolvedRuntime {
  const result = resolve({ ...spec, runtimes: [{ name: 'rt', ...spec.runtime }] });
  expect(result.diagnostics).toEqual([]);
  return result.runtimes[0]!;
}

const assignmentAt = (r: ResolvedRuntime, ...path: string[]): Assignment | undefined =>
  r.assignments.find((a) => a.path.length === path.length && a.path.every((s, i) => s === path[i]));

// ---------------------------------------------------------------------------------------------

describe('resolveFleet: which layer wins', () => {
  interface Row {
    readonly fleet: Omit<FleetSpec, 'runtimes'> & { runtime?: Omit<RuntimeSpec, 'name'> };
    readonly then: (r: ResolvedRuntime) => void;
  }
  const rows: Record<string, Row> = {
    'a runtime that no group selects gets exactly the fleet defaults': {
      fleet: {
        defaults: 'channel: regular\nmodules:\n  - name: istio\n  - name: api-gateway',
        groups: [{ name: 'prod', priority: 10, selector: '{matchLabels: {tier: prod}}', settings: 'channel: fast' }],
        runtime: { labels: '{tier: dev}' },
      },
      then: (r) => {
        expect(r.groups).toEqual([]);
        expect(r.settings).toEqual({ channel: 'regular', modules: [{ name: 'api-gateway' }, { name: 'istio' }], extensions: {} });
      },
    },
    'a matching group overrides a default and the runtime overrides the group': {
      fleet: {
        defaults: 'channel: regular',
        groups: [{ name: 'prod', priority: 10, selector: '{matchLabels: {tier: prod}}', settings: 'channel: fast' }],
        runtime: { labels: '{tier: prod}', settings: 'channel: experimental' },
      },
      then: (r) => {
        expect(r.groups.map((g) => g.name)).toEqual(['prod']);
        expect(r.settings.channel).toBe('experimental');
        expect(assignmentAt(r, 'channel')!.overridden.map((o) => o.value)).toEqual(['regular', 'fast']);
      },
    },
    'a higher-priority group wins over a lower-priority one whatever their names': {
      fleet: {
        defaults: 'channel: regular',
        groups: [
          { name: 'aaa-high', priority: 20, settings: 'channel: fast' },
          { name: 'zzz-low', priority: 10, settings: 'channel: experimental' },
        ],
      },
      then: (r) => {
        expect(r.groups.map((g) => g.name)).toEqual(['zzz-low', 'aaa-high']);
        expect(r.settings.channel).toBe('fast');
      },
    },
    'negative priorities order below zero and defaults still come first': {
      fleet: {
        defaults: 'channel: regular',
        groups: [
          { name: 'minus', priority: -5, settings: 'channel: experimental' },
          { name: 'zero', priority: 0, settings: 'channel: fast' },
        ],
      },
      then: (r) => {
        expect(r.settings.channel).toBe('fast');
        expect(assignmentAt(r, 'channel')!.overridden.map((o) => o.value)).toEqual(['regular', 'experimental']);
      },
    },
    'groups of equal priority that agree apply in name order, so the later name is the source': {
      fleet: {
        groups: [
          { name: 'beta', priority: 10, settings: 'channel: fast' },
          { name: 'alpha', priority: 10, settings: 'channel: fast' },
        ],
      },
      then: (r) => {
        const a = assignmentAt(r, 'channel')!;
        expect(a.source).toMatchObject({ kind: 'layer', layer: 'group', name: 'beta' });
        expect(a.overridden.map((o) => (o.source.kind === 'layer' ? o.source.name : 'default'))).toEqual(['alpha']);
      },
    },
    'maps merge deeply: a field a group sets and a field the runtime sets both survive': {
      fleet: {
        groups: [{ name: 'falco-on', priority: 10, settings: 'extensions:\n  falco:\n    enabled: true\n    falcoVersion: 0.42.1' }],
        runtime: { settings: 'extensions:\n  falco:\n    autoUpdate: false' },
      },
      then: (r) => {
        expect(r.settings.extensions.falco).toMatchObject({ state: 'enabled', config: { falcoVersion: '0.42.1', autoUpdate: false } });
      },
    },
    'modules merge by name: the runtime changes one module and keeps the others and their fields': {
      fleet: {
        defaults: 'modules:\n  - name: istio\n    customResourcePolicy: Ignore\n  - name: serverless',
        runtime: { settings: 'modules:\n  - name: istio\n    channel: fast\n  - name: telemetry' },
      },
      then: (r) => {
        expect(r.settings.modules).toEqual([
          { name: 'istio', channel: 'fast', customResourcePolicy: 'Ignore' },
          { name: 'serverless' },
          { name: 'telemetry' },
        ]);
      },
    },
    'a module the runtime disables with enabled: false disappears from the result': {
      fleet: {
        defaults: 'modules:\n  - name: istio\n  - name: serverless',
        groups: [{ name: 'g', priority: 1, settings: 'modules:\n  - name: serverless\n    channel: fast' }],
        runtime: { settings: 'modules:\n  - name: serverless\n    enabled: false' },
      },
      then: (r) => {
        expect(r.settings.modules).toEqual([{ name: 'istio' }]);
      },
    },
    'a module disabled in a lower layer and re-enabled with enabled: true comes back with the lower layers\u2019 fields': {
      fleet: {
        defaults: 'modules:\n  - name: serverless\n    channel: fast',
        groups: [{ name: 'g', priority: 1, settings: 'modules:\n  - name: serverless\n    enabled: false' }],
        runtime: { settings: 'modules:\n  - name: serverless\n    enabled: true' },
      },
      then: (r) => {
        expect(r.settings.modules).toEqual([{ name: 'serverless', channel: 'fast' }]);
      },
    },
    // Current behaviour, pinned on purpose: `enabled` merges like any other field, so a higher layer
    // that names a disabled entry without `enabled: true` does not bring it back. PRODUCT.md does not
    // say which way this should go; see the report that came with this file.
    'a module disabled in a lower layer and named again without enabled in a higher layer stays removed': {
      fleet: {
        groups: [{ name: 'g', priority: 1, settings: 'modules:\n  - name: serverless\n    enabled: false' }],
        runtime: { settings: 'modules:\n  - name: serverless\n    channel: fast' },
      },
      then: (r) => {
        expect(r.settings.modules).toEqual([]);
      },
    },
    'a non-keyed list is replaced as a whole: the runtime\u2019s standard Falco rules replace the group\u2019s': {
      fleet: {
        groups: [{ name: 'g', priority: 1, settings: 'extensions:\n  falco:\n    enabled: true\n    rules:\n      standard: [falco-rules, falco-incubating-rules]' }],
        runtime: { settings: 'extensions:\n  falco:\n    rules:\n      standard: [falco-sandbox-rules]' },
      },
      then: (r) => {
        expect(r.settings.extensions.falco!.config.rules).toEqual({ standard: ['falco-sandbox-rules'] });
      },
    },
    'an extension the runtime disables is disabled with an empty config even though a group configured it': {
      fleet: {
        groups: [{ name: 'g', priority: 1, settings: 'extensions:\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: docker.io' }],
        runtime: { settings: 'extensions:\n  registry-cache:\n    enabled: false' },
      },
      then: (r) => {
        expect(r.settings.extensions['registry-cache']).toEqual({ state: 'disabled', config: {} });
      },
    },
    'an extension that is configured but that no layer enables is unset with an empty config': {
      fleet: { runtime: { settings: 'extensions:\n  registry-cache:\n    caches:\n      - upstream: docker.io' } },
      then: (r) => {
        expect(r.settings.extensions['registry-cache']).toEqual({ state: 'unset', config: {} });
      },
    },
    'registry caches merge by upstream and come out sorted by upstream in code-point order': {
      fleet: {
        defaults: 'extensions:\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: ab.example\n        volume: {size: 10Gi}\n      - upstream: a.example',
        runtime: { settings: 'extensions:\n  registry-cache:\n    caches:\n      - upstream: a-b.example\n      - upstream: ab.example\n        volume: {storageClassName: fast}' },
      },
      then: (r) => {
        expect(r.settings.extensions['registry-cache']!.config.caches).toEqual([
          { upstream: 'a-b.example' },
          { upstream: 'a.example' },
          { upstream: 'ab.example', volume: { size: '10Gi', storageClassName: 'fast' } },
        ]);
      },
    },
    'an enabled registry cache gets the kyma-system namespace as a default of the extension': {
      fleet: { runtime: { settings: 'extensions:\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: docker.io' } },
      then: (r) => {
        expect(r.settings.extensions['registry-cache']!.config.namespace).toBe('kyma-system');
        expect(assignmentAt(r, 'extensions', 'registry-cache', 'namespace')!.source).toEqual({ kind: 'default', extension: 'registry-cache' });
      },
    },
    'an enabled Falco whose only destination is disabled gets the logging destination as a default': {
      fleet: {
        groups: [{ name: 'g', priority: 1, settings: 'extensions:\n  falco:\n    enabled: true\n    destinations:\n      - name: stdout' }],
        runtime: { settings: 'extensions:\n  falco:\n    destinations:\n      - name: stdout\n        enabled: false' },
      },
      then: (r) => {
        expect(r.settings.extensions.falco!.config.destinations).toEqual([{ name: 'logging' }]);
      },
    },
  };

  it.each(Object.entries(rows))('%s', (_name, row) => {
    // GIVEN the fleet of the row; WHEN its runtime `rt` is resolved
    const r = resolveOne(row.fleet);
    // THEN the row's expectation holds
    row.then(r);
  });
});

describe('resolveFleet: provenance', () => {
  it('every assignment names the file, line and column that set it and what it overrode, lowest first', () => {
    // GIVEN channel set on line 7 of fleet.yaml, line 9 of groups/g.yaml and line 14 of the runtime
    const r = resolveOne({
      defaults: 'channel: regular',
      groups: [{ name: 'g', priority: 1, settings: 'channel: fast' }],
      runtime: { settings: 'channel: experimental' },
    });
    // WHEN the channel's assignment is read
    const a = assignmentAt(r, 'channel')!;
    // THEN it points at the runtime's value and lists the group and defaults values it replaced
    expect(a.value).toBe('experimental');
    expect(a.source).toEqual({ kind: 'layer', layer: 'runtime', name: 'rt', file: 'fleet/runtimes/rt.yaml', docPath: ['spec', 'channel'], line: 14, col: 12 });
    expect(a.overridden).toEqual([
      { value: 'regular', source: { kind: 'layer', layer: 'defaults', name: 'defaults', file: 'fleet/fleet.yaml', docPath: ['spec', 'defaults', 'channel'], line: 7, col: 14 } },
      { value: 'fast', source: { kind: 'layer', layer: 'group', name: 'g', file: 'fleet/groups/g.yaml', docPath: ['spec', 'settings', 'channel'], line: 9, col: 14 } },
    ]);
  });

  it('a keyed-list entry is addressed by its key in the resolved path and by its index in the document path', () => {
    // GIVEN serverless as the second module of the runtime
    const r = resolveOne({ runtime: { settings: 'modules:\n  - name: istio\n  - name: serverless\n    channel: fast' } });
    // WHEN the assignment of its channel is read
    const a = assignmentAt(r, 'modules', `${K}name=serverless`, 'channel')!;
    // THEN the document path has index 1 and the position is that of `fast` (line 17, col 16)
    expect(a.source).toMatchObject({ docPath: ['spec', 'modules', 1, 'channel'], line: 17, col: 16 });
    expect(displayPath(a.path)).toBe('modules[name=serverless].channel');
  });

  it('assignments are sorted by resolved path', () => {
    // GIVEN a runtime with settings in every area
    const r = resolveOne({
      defaults: 'modules:\n  - name: istio\nchannel: regular',
      runtime: { settings: 'extensions:\n  falco:\n    enabled: true\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: docker.io' },
    });
    // WHEN the paths are joined THEN they are in code-point order
    const keys = r.assignments.map((a) => a.path.join('\u0000'));
    expect(keys).toEqual([...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });
});

describe('resolveFleet: groups of equal priority', () => {
  it('two matching groups that set a field differently are one E_OVERRIDE_CONFLICT at the later group, naming the other', () => {
    // GIVEN groups a and b, both priority 10, both matching, setting channel to fast and experimental
    const result = resolve({
      groups: [
        { name: 'a', priority: 10, settings: 'channel: fast' },
        { name: 'b', priority: 10, settings: 'channel: experimental' },
      ],
      runtimes: [{ name: 'rt-1' }, { name: 'rt-2' }],
    });
    // WHEN resolved THEN exactly one conflict is reported (not one per runtime), at b's value
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'E_OVERRIDE_CONFLICT',
        file: 'fleet/groups/b.yaml',
        line: 9,
        col: 14,
        field: 'settings.channel',
        message:
          'set to "experimental" here and to "fast" by group "a" (fleet/groups/a.yaml:9:14); both groups have priority 10 and match runtime "rt-1": give one a higher priority or make them agree',
      },
    ]);
  });

  interface Row {
    readonly groups: readonly GroupSpec[];
    readonly runtime?: Omit<RuntimeSpec, 'name'>;
    readonly then: (r: ResolvedRuntime) => void;
  }
  const noConflict: Record<string, Row> = {
    'groups that set the same value are not a conflict': {
      groups: [
        { name: 'a', priority: 10, settings: 'channel: fast' },
        { name: 'b', priority: 10, settings: 'channel: fast' },
      ],
      then: (r) => expect(r.settings.channel).toBe('fast'),
    },
    'groups that set different fields of the same cache are not a conflict and both apply': {
      groups: [
        { name: 'a', priority: 10, settings: 'extensions:\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: docker.io\n        volume: {size: 10Gi}' },
        { name: 'b', priority: 10, settings: 'extensions:\n  registry-cache:\n    caches:\n      - upstream: docker.io\n        volume: {storageClassName: fast}' },
      ],
      then: (r) =>
        expect(r.settings.extensions['registry-cache']!.config.caches).toEqual([{ upstream: 'docker.io', volume: { size: '10Gi', storageClassName: 'fast' } }]),
    },
    'groups that set a field differently but do not both match the runtime are not a conflict': {
      groups: [
        { name: 'a', priority: 10, selector: '{matchLabels: {geo: eu}}', settings: 'channel: fast' },
        { name: 'b', priority: 10, selector: '{matchLabels: {geo: us}}', settings: 'channel: experimental' },
      ],
      runtime: { labels: '{geo: us}' },
      then: (r) => expect(r.settings.channel).toBe('experimental'),
    },
    'groups of different priority that set a field differently are not a conflict: the higher one wins': {
      groups: [
        { name: 'a', priority: 11, settings: 'channel: fast' },
        { name: 'b', priority: 10, settings: 'channel: experimental' },
      ],
      then: (r) => expect(r.settings.channel).toBe('fast'),
    },
  };

  it.each(Object.entries(noConflict))('%s', (_name, row) => {
    // GIVEN the groups of the row; WHEN the runtime is resolved (resolveOne asserts no diagnostics)
    const r = resolveOne({ groups: row.groups, runtime: row.runtime });
    // THEN the result is the row's
    row.then(r);
  });
});

describe('flattenLayer', () => {
  const layer = (settings: Record<string, unknown>, positions = new PositionIndex()): Layer => ({
    kind: 'runtime',
    name: 'rt',
    file: 'fleet/runtimes/rt.yaml',
    settingsPath: ['spec'],
    settings,
    positions,
    priority: Infinity,
  });

  it('turns maps into leaves, keyed-list entries into key segments and other lists into one leaf each', () => {
    // GIVEN a layer with a scalar, a keyed list, a nested map and a non-keyed list
    const settings = {
      channel: 'fast',
      modules: [{ name: 'istio', channel: 'fast' }],
      extensions: { falco: { enabled: true, rules: { standard: ['falco-rules'] } } },
    };
    // WHEN it is flattened
    const leaves = flattenLayer(layer(settings), SPECS).map((a) => [displayPath(a.path), a.value, a.source.kind === 'layer' ? a.source.docPath : []]);
    // THEN every leaf is there, in key order, with its document path
    expect(leaves).toEqual([
      ['channel', 'fast', ['spec', 'channel']],
      ['extensions.falco.enabled', true, ['spec', 'extensions', 'falco', 'enabled']],
      ['extensions.falco.rules.standard', ['falco-rules'], ['spec', 'extensions', 'falco', 'rules', 'standard']],
      ['modules[name=istio].channel', 'fast', ['spec', 'modules', 0, 'channel']],
      ['modules[name=istio].name', 'istio', ['spec', 'modules', 0, 'name']],
    ]);
  });

  it('takes positions from the layer\u2019s index, falling back to the nearest ancestor and then to 1:1', () => {
    // GIVEN an index that knows only spec.modules (line 20, col 3)
    const positions = new PositionIndex();
    positions.set(['spec', 'modules'], { line: 20, col: 3 });
    // WHEN a layer with a module and a channel is flattened
    const leaves = flattenLayer(layer({ channel: 'fast', modules: [{ name: 'istio' }] }, positions), SPECS);
    // THEN the module leaf is placed at its list, the channel at 1:1
    expect(leaves.map((a) => (a.source.kind === 'layer' ? [a.source.line, a.source.col] : []))).toEqual([
      [1, 1],
      [20, 3],
    ]);
  });

  it('an empty map or an empty keyed list contributes nothing, an empty non-keyed list is a leaf', () => {
    // GIVEN empty values of each kind WHEN flattened THEN only the non-keyed list remains
    const leaves = flattenLayer(layer({ modules: [], extensions: { falco: { rules: { standard: [] } }, 'registry-cache': {} } }), SPECS);
    expect(leaves.map((a) => [displayPath(a.path), a.value])).toEqual([['extensions.falco.rules.standard', []]]);
  });
});

describe('displayPath, toResolvedSegments and findAssignment', () => {
  it.each([
    [['channel'], 'channel'],
    [['modules', `${K}name=istio`, 'channel'], 'modules[name=istio].channel'],
    [['extensions', 'registry-cache', 'caches', `${K}upstream=docker.io`, 'volume', 'size'], 'extensions.registry-cache.caches[upstream=docker.io].volume.size'],
  ])('displayPath shows %j as %s', (path, text) => {
    expect(displayPath(path)).toBe(text);
  });

  const config = {
    caches: [{ upstream: 'docker.io', volume: { size: '10Gi' } }, { upstream: 'ghcr.io' }],
    rules: { standard: ['falco-rules'] },
  };
  it.each([
    ['maps a keyed list index to the entry\u2019s key', 'registry-cache', ['caches', 1, 'upstream'], ['extensions', 'registry-cache', 'caches', `${K}upstream=ghcr.io`, 'upstream']],
    ['follows nested maps below an entry', 'registry-cache', ['caches', 0, 'volume', 'size'], ['extensions', 'registry-cache', 'caches', `${K}upstream=docker.io`, 'volume', 'size']],
    ['stops at a non-keyed list, which is one leaf', 'falco', ['rules', 'standard', 0], ['extensions', 'falco', 'rules', 'standard']],
  ] as const)('toResolvedSegments %s', (_name, ext, path, expected) => {
    // GIVEN a resolved config WHEN a rule's path is mapped THEN it names resolved segments
    expect(toResolvedSegments(config, ext, [...path], SPECS)).toEqual(expected);
  });

  it('findAssignment prefers the exact path, then the key field of an entry, then an ancestor', () => {
    // GIVEN a runtime with a cache and a non-keyed list
    const r = resolveOne({
      runtime: {
        settings:
          'extensions:\n  registry-cache:\n    enabled: true\n    caches:\n      - upstream: docker.io\n        volume: {size: 10Gi}\n  falco:\n    enabled: true\n    rules:\n      standard: [falco-rules]',
      },
    });
    const entry = ['extensions', 'registry-cache', 'caches', `${K}upstream=docker.io`];
    // WHEN paths are looked up THEN exact beats child, an entry is explained by its key field, a leaf below a list by the list
    expect(displayPath(findAssignment(r.assignments, [...entry, 'volume', 'size'])!.path)).toBe('extensions.registry-cache.caches[upstream=docker.io].volume.size');
    expect(displayPath(findAssignment(r.assignments, entry)!.path)).toBe('extensions.registry-cache.caches[upstream=docker.io].upstream');
    expect(displayPath(findAssignment(r.assignments, ['extensions', 'falco', 'rules', 'standard', '0'])!.path)).toBe('extensions.falco.rules.standard');
  });
});
