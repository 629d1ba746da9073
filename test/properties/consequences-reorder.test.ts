// Property tests of the review's consequence classes (src/render/consequences.ts, issue 29): a
// render whose only change is a reordering (map keys and list items, at any depth, of the Kyma CR,
// the Shoot fragment, the Runtime CR fragment and the config objects) or a no-op (the same values
// with another header comment, or no change at all) makes no class for any runtime; and, so that
// the property can fail, a real change of the same renders (a module dropped, a cache's upstream,
// Falco or Lakom switched) always makes one. Renders are generated in the shape synth writes
// (src/render/serialize.ts), so the classifier reads them as it reads dist/.
// A re-run of a failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/generate-fleet';
import { classifyDiff } from '../../src/render/consequences';
import { manifestFile } from '../../src/render/serialize';
import { diffTrees } from '../../src/render/tree-diff';

const SEED = 0x636f6e73; // "cons"
const NUM_RUNS = 200;

type Rec = Record<string, unknown>;

function check<T>(title: string, arb: fc.Arbitrary<T>, predicate: (value: T) => void): void {
  console.info(`[fast-check] consequences › ${title}: seed=${SEED} numRuns=${NUM_RUNS}`);
  fc.assert(fc.property(arb, predicate), { seed: SEED, numRuns: NUM_RUNS });
}

// ---------------------------------------------------------------------------------------------
// Generators: one runtime's render

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta');
const upstream = fc.constantFrom('docker.io', 'ghcr.io', 'quay.io', 'europe-docker.pkg.dev', 'registry.k8s.io');
const cache = fc.record(
  {
    upstream,
    volume: fc.record({ size: fc.constantFrom('10Gi', '20Gi', '50Gi'), storageClassName: fc.constantFrom('standard', 'premium-rwo') }, { requiredKeys: ['size'] }),
    garbageCollection: fc.record({ ttl: fc.constantFrom('168h', '72h', '0s') }),
    secretReferenceName: word.map((w) => `${w}-pull`),
  },
  { requiredKeys: ['upstream'] },
);
const caches = fc.uniqueArray(cache, { selector: (c) => c.upstream, minLength: 1, maxLength: 4 });
const modules = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('istio', 'api-gateway', 'serverless', 'telemetry', 'btp-operator'), managed: fc.constant(true), channel: fc.constantFrom('fast', 'regular') }, { requiredKeys: ['name', 'managed'] }),
  { selector: (m) => m.name, maxLength: 5 },
);
const falco = fc.oneof(
  fc.constant({ type: 'shoot-falco-service', disabled: true }),
  fc.record({
    type: fc.constant('shoot-falco-service'),
    providerConfig: fc.record({
      apiVersion: fc.constant('falco.extensions.gardener.cloud/v1alpha1'),
      kind: fc.constant('FalcoServiceConfig'),
      autoUpdate: fc.boolean(),
      rules: fc.record({ standard: fc.uniqueArray(fc.constantFrom('falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'), { minLength: 1 }) }),
      destinations: fc.uniqueArray(fc.record({ name: fc.constantFrom('logging', 'stdout', 'central') }), { selector: (d) => d.name, minLength: 1 }),
    }),
  }),
);
const lakom = fc.oneof(
  fc.constant({ type: 'shoot-lakom-service', disabled: true }),
  fc.record({
    type: fc.constant('shoot-lakom-service'),
    providerConfig: fc.record(
      { apiVersion: fc.constant('lakom.extensions.gardener.cloud/v1alpha1'), kind: fc.constant('LakomConfig'), scope: fc.constantFrom('KubeSystem', 'KubeSystemManagedByGardener', 'Cluster'), trustedKeysResourceName: word },
      { requiredKeys: ['apiVersion', 'kind'] },
    ),
  }),
);

interface RuntimeRender {
  readonly channel: string;
  readonly modules: Rec[];
  readonly caches: Rec[];
  readonly falco?: Rec;
  readonly lakom?: Rec;
  readonly rules: Record<string, string>;
}

const runtimeRender: fc.Arbitrary<RuntimeRender> = fc.record(
  {
    channel: fc.constantFrom('fast', 'regular'),
    modules,
    caches,
    falco,
    lakom,
    rules: fc.dictionary(word.map((w) => `falco-rules-${w}`), fc.constantFrom('- rule: a\n', '- list: b\n  items: [sh]\n'), { maxKeys: 2 }),
  },
  { requiredKeys: ['channel', 'modules', 'caches', 'rules'] },
);

/** The files synth writes for one runtime (the example's layout). */
function files(i: number, r: RuntimeRender, header = (t: string) => t, transform = (o: Rec): unknown => o): Array<[string, string]> {
  const name = `rt-${i}`;
  const id = `0000000${i}-1111-4222-8333-444444444444`;
  const objects: Array<[string, Rec]> = [
    [`skr/kyma-default.yaml`, { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { channel: r.channel, modules: r.modules } }],
    [
      `garden/shoot-c-${i}.yaml`,
      {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: `c-${i}`, namespace: 'garden-p' },
        spec: {
          extensions: [{ type: 'registry-cache', providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: r.caches } }, ...(r.falco ? [r.falco] : []), ...(r.lakom ? [r.lakom] : [])],
          resources: [...new Set(r.caches.map((c) => c.secretReferenceName).filter((s) => s !== undefined))].map((n) => ({ name: n, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: n } })),
        },
      },
    ],
    [`kcp/runtime-${id}.yaml`, { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', metadata: { name: id, namespace: 'kcp-system' }, spec: { imageRegistryCache: r.caches.map((c) => ({ name: c.upstream, namespace: 'kyma-system', config: c })) } }],
    ...r.caches.map((c): [string, Rec] => [`skr-config/registrycacheconfig-${String(c.upstream)}.yaml`, { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfig', metadata: { name: c.upstream, namespace: 'kyma-system' }, spec: c }]),
    ...Object.entries(r.rules).map(([cm, text]): [string, Rec] => [`skr-config/configmap-${cm}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm, namespace: 'kube-system' }, data: { 'rules.yaml': text } }]),
  ];
  return objects.map(([rel, o]) => [`runtimes/${name}/${rel}`, header(manifestFile(transform(o)))]);
}

function shuffled<T>(items: readonly T[], rnd: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The same value with every map's keys and every list's items in another order. */
function permuted(v: unknown, rnd: () => number): unknown {
  if (Array.isArray(v)) return shuffled(v.map((x) => permuted(x, rnd)), rnd);
  if (v !== null && typeof v === 'object') return Object.fromEntries(shuffled(Object.entries(v as Rec), rnd).map(([k, x]) => [k, permuted(x, rnd)]));
  return v;
}

const fleetCase = fc.record({ runtimes: fc.array(runtimeRender, { minLength: 1, maxLength: 3 }), seed: fc.integer(), comment: fc.boolean() });

function tree(runtimes: readonly RuntimeRender[], header?: (t: string) => string, transform?: (o: Rec) => unknown): Map<string, string> {
  return new Map(runtimes.flatMap((r, i) => files(i, r, header, transform)));
}

describe('consequence classes: reorderings and no-ops make none', () => {
  it('every list and map of every runtime reordered, and the header comment changed or not: no class for any runtime', () => {
    let textsDiffer = 0;
    check('reordered', fleetCase, ({ runtimes, seed, comment }) => {
      const rnd = mulberry32(seed);
      const d = diffTrees(tree(runtimes), tree(runtimes, comment ? (t) => `# written again\n${t}` : undefined, (o) => permuted(o, rnd)));
      if (d.runtimes.changed.length > 0) textsDiffer++;
      expect([...classifyDiff(d).classesOf]).toEqual([]);
    });
    // The texts do differ in most cases: the classifier, not the diff, finds nothing.
    expect(textsDiffer).toBeGreaterThan(NUM_RUNS / 2);
  });

  it('the same render again: no change, no class', () => {
    check('no-op', fleetCase, ({ runtimes }) => {
      const d = diffTrees(tree(runtimes), tree(runtimes));
      expect(d.runtimes.changed).toEqual([]);
      expect([...classifyDiff(d).classesOf]).toEqual([]);
    });
  });

  it('control: a real change of a reordered render always makes a class for that runtime', () => {
    const change = fc.constantFrom('module', 'upstream', 'falco', 'lakom', 'channel');
    check('a real change', fc.tuple(fleetCase, change), ([{ runtimes, seed }, what]) => {
      const rnd = mulberry32(seed);
      const r0 = runtimes[0]!;
      const changed: RuntimeRender =
        what === 'module'
          ? { ...r0, modules: [...r0.modules, { name: 'keda', managed: true }] }
          : what === 'upstream'
            ? { ...r0, caches: [...r0.caches, { upstream: 'mirror.acme.test' }] }
            : what === 'falco'
              ? { ...r0, falco: r0.falco && r0.falco.disabled !== true ? { type: 'shoot-falco-service', disabled: true } : { type: 'shoot-falco-service', providerConfig: { kind: 'FalcoServiceConfig' } } }
              : what === 'lakom'
                ? { ...r0, lakom: { type: 'shoot-lakom-service', disabled: r0.lakom?.disabled !== true } }
                : { ...r0, channel: r0.channel === 'fast' ? 'regular' : 'fast', modules: [...r0.modules, { name: 'no-own-channel', managed: true }] };
      const base = what === 'channel' ? [{ ...r0, modules: [...r0.modules, { name: 'no-own-channel', managed: true }] }, ...runtimes.slice(1)] : runtimes;
      const classes = classifyDiff(diffTrees(tree(base), tree([changed, ...runtimes.slice(1)], undefined, (o) => permuted(o, rnd)))).classesOf;
      expect(classes.get('rt-0')?.length ?? 0).toBeGreaterThan(0);
      expect([...classes.keys()]).toEqual(['rt-0']);
    });
  });
});
