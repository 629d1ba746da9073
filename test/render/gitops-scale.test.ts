// The wiring of 100,000 runtimes: no object a user applies, and no object the controllers create from
// dist/gitops/, exceeds 1 MiB with the largest status its controller can write (etcd refuses requests
// over 1.5 MiB by default; a Kustomization or ApplicationSet whose status no longer fits stops
// reconciling). Statuses are built in the controllers' own formats: Flux's inventory entries
// `<namespace>_<name>_<group>_<kind>` with the version (kustomize-controller internal/inventory),
// conditions at their CRD maxLength (32768), five history snapshots; Argo CD's ApplicationSet
// status.resources (one ResourceStatus per generated Application, before 3.3 untruncated) and the
// bootstrap Application's status.resources (one per ApplicationSet). Runtime names are 63 characters,
// the longest a name may be, so every per-entry string is as long as it can get.
//
// The per-runtime Kustomizations and Applications are not here: what they hold is one runtime's
// folder, bounded by the per-runtime caps of the fleet format, whatever the fleet size.

import { describe, expect, it } from 'vitest';
import { gitopsObjectName, type GitopsRuntime, MAX_RUNTIMES_PER_SHARD, renderGitops, resolveGitopsOptions, shardOf } from '../../src/gitops/gitops';
import { fluxArtifactGenerator } from '../../src/gitops/flux-wiring';

type Rec = Record<string, any>;

const N = 100_000;
const MiB = 1024 * 1024;
const TIME = '2026-11-27T12:00:00Z';
/** What Flux writes as a revision of a Git source: branch, "@sha1:", 40 hex. */
const REVISION = `refs/heads/${'b'.repeat(200)}@sha1:${'f'.repeat(40)}`;

/**
 * 63-character DNS labels, distinct, spread over the shards like real names. They differ in their
 * first characters: long names that share the first 50 are told apart by 8 hex of a hash only, and
 * among 100,000 of them two collide (validation refuses such a pair, E_GITOPS_NAME_COLLISION).
 */
function runtimeName(i: number): string {
  const head = `${i.toString(36)}-`;
  return `${head}${'r'.repeat(63 - head.length)}`;
}

const RUNTIMES: GitopsRuntime[] = Array.from({ length: N }, (_, i) => ({
  name: runtimeName(i),
  runtimeID: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
  targets: ['skr', 'skr-config', 'kcp', 'garden'],
  waitFor: ['registrycacheconfigs.core.kyma-project.io'],
}));

const OPTIONS = resolveGitopsOptions(
  {
    flux: { namespace: 'k'.repeat(63), sourceRef: { kind: 'GitRepository', name: 's'.repeat(253), namespace: 'f'.repeat(63) } },
    argocd: { enabled: true, namespace: 'a'.repeat(63), repoURL: `https://github.com/${'o'.repeat(100)}/${'r'.repeat(100)}.git`, targetRevision: 'main' },
  },
  'kcp-system',
);

/** Flux conditions (Ready, Reconciling, Stalled, Healthy) with messages at the CRD's maxLength. */
function fluxConditions(): Rec[] {
  return ['Ready', 'Reconciling', 'Stalled', 'Healthy'].map((type) => ({
    type,
    status: 'False',
    reason: 'ReconciliationFailed',
    message: 'm'.repeat(32768),
    lastTransitionTime: TIME,
    observedGeneration: 9_007_199_254_740_991,
  }));
}

/** A Flux Kustomization's largest status for an inventory of these objects (apiVersion, kind, namespace, name). */
function fluxStatus(objects: ReadonlyArray<{ apiVersion: string; kind: string; namespace: string; name: string }>): Rec {
  const entries = objects.map((o) => {
    const slash = o.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : o.apiVersion.slice(0, slash);
    const version = slash < 0 ? o.apiVersion : o.apiVersion.slice(slash + 1);
    return { id: `${o.namespace}_${o.name}_${group}_${o.kind}`, v: version };
  });
  return {
    observedGeneration: 9_007_199_254_740_991,
    lastAppliedRevision: REVISION,
    lastAttemptedRevision: REVISION,
    lastAppliedOriginRevision: REVISION,
    lastHandledReconcileAt: TIME,
    conditions: fluxConditions(),
    inventory: { entries },
    history: Array.from({ length: 5 }, () => ({
      digest: `sha256:${'d'.repeat(64)}`,
      firstReconciled: TIME,
      lastReconciled: TIME,
      lastReconciledDuration: '1h2m3.456789s',
      lastReconciledStatus: 'ReconciliationFailed',
      totalReconciliations: 9_007_199_254_740_991,
      metadata: { revision: REVISION, originRevision: REVISION },
    })),
  };
}

/** Argo CD's ResourceStatus of one Application in an ApplicationSet's (or Application's) status. */
function resourceStatus(kind: string, namespace: string, name: string): Rec {
  return {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind,
    namespace,
    name,
    status: 'OutOfSync',
    health: { status: 'Degraded', message: 'h'.repeat(1024), lastTransitionTime: TIME },
    hook: false,
    requiresPruning: false,
    requiresDeletionConfirmation: false,
    syncWave: 0,
  };
}

function argoConditions(): Rec[] {
  return ['ErrorOccurred', 'ParametersGenerated', 'ResourcesUpToDate', 'RolloutProgressing'].map((type) => ({
    type,
    status: 'False',
    reason: 'ApplicationSetUpToDate',
    message: 'm'.repeat(32768),
    lastTransitionTime: TIME,
  }));
}

const bytes = (o: unknown): number => Buffer.byteLength(JSON.stringify(o), 'utf8');

/**
 * An ArtifactGenerator's largest status (source-watcher api v1beta1 ArtifactGeneratorStatus): one
 * ExternalArtifactReference per artifact (name, namespace, `sha256:` digest, `<adler32 decimal>.tar.gz`
 * file name), its conditions at maxLength, the observed sources digest.
 */
function generatorStatus(generator: Rec): Rec {
  return {
    lastHandledReconcileAt: TIME,
    conditions: ['Ready', 'Reconciling', 'Stalled'].map((type) => ({ type, status: 'False', reason: 'BuildFailed', message: 'm'.repeat(32768), lastTransitionTime: TIME, observedGeneration: 9_007_199_254_740_991 })),
    inventory: (generator.spec.artifacts as Rec[]).map((a) => ({ name: a.name, namespace: generator.metadata.namespace, digest: `sha256:${'d'.repeat(64)}`, filename: `${4_294_967_295}.tar.gz` })),
    observedSourcesDigest: `sha256:${'d'.repeat(64)}`,
  };
}

describe(`the wiring of ${N.toLocaleString('en')} runtimes`, () => {
  // Only the files that list runtimes or shards: every runtime's own files are kept (not rendered).
  const files = renderGitops(RUNTIMES, OPTIONS, new Set(RUNTIMES.map((r) => r.name)));
  const byShard = new Map<string, GitopsRuntime[]>();
  for (const r of RUNTIMES) {
    const id = shardOf(r.name, OPTIONS.shards);
    byShard.set(id, [...(byShard.get(id) ?? []), r]);
  }
  const sizes: Array<[string, number]> = [];

  it('spreads the runtimes over every one of the 256 shards, none fuller than a shard may be', () => {
    expect(byShard.size).toBe(256);
    const fullest = Math.max(...[...byShard.values()].map((l) => l.length));
    expect(fullest).toBeLessThanOrEqual(MAX_RUNTIMES_PER_SHARD);
    sizes.push(['runtimes in the fullest shard', fullest]);
  });

  it('Flux: the root a user bootstraps and every shard Kustomization stay under 1 MiB with their largest status', () => {
    const ns = OPTIONS.flux.namespace;
    const rootFiles = (files.get('gitops/flux/kustomization.yaml') as Rec).resources as string[];
    expect(rootFiles).toHaveLength(2 * 256);
    // The root (docs/applying.md, "Flux bootstrap"): its inventory lists the shard Kustomizations and ArtifactGenerators.
    const rootObjects = rootFiles.map((f) => files.get(`gitops/flux/${f}`) as Rec);
    const shardObjects = rootObjects.filter((o) => o.kind === 'Kustomization');
    expect(shardObjects).toHaveLength(256);
    const root = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'kyma-fleet', namespace: 'flux-system' },
      spec: { interval: '10m', sourceRef: OPTIONS.flux.sourceRef, path: './dist/gitops/flux', prune: true },
      status: fluxStatus(rootObjects.map((k) => ({ apiVersion: k.apiVersion, kind: k.kind, namespace: k.metadata.namespace, name: k.metadata.name }))),
    };
    sizes.push(['Flux root Kustomization', bytes(root)]);
    expect(bytes(root)).toBeLessThan(MiB);

    let largest = 0;
    for (const shard of shardObjects) {
      const id = shard.metadata.labels['kyma-fleet.dev/shard'] as string;
      const listed = (files.get(`gitops/flux/shards/${id}/kustomization.yaml`) as Rec).resources as string[];
      const mine = byShard.get(id)!;
      expect(listed).toHaveLength(mine.length * 3);
      const inventory = mine.flatMap((r) => (['skr', 'skr-config', 'kcp'] as const).map((t) => ({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', namespace: ns, name: gitopsObjectName(r.name, t) })));
      largest = Math.max(largest, bytes({ ...shard, status: fluxStatus(inventory) }));
    }
    sizes.push(['largest Flux shard Kustomization', largest]);
    expect(largest).toBeLessThan(MiB);

    let largestGenerator = 0;
    for (const gen of rootObjects.filter((o) => o.kind === 'ArtifactGenerator')) {
      expect(gen.spec.artifacts).toHaveLength(1 + byShard.get(gen.metadata.labels['kyma-fleet.dev/shard'])!.length);
      largestGenerator = Math.max(largestGenerator, bytes({ ...gen, status: generatorStatus(gen) }));
    }
    sizes.push(['largest Flux ArtifactGenerator', largestGenerator]);
    expect(largestGenerator).toBeLessThan(MiB);
  });

  it('Flux: the ArtifactGenerator of a full shard (999 runtimes) stays under 1 MiB with its largest status and within the CRD\'s 1000 artifacts', () => {
    const full = RUNTIMES.slice(0, MAX_RUNTIMES_PER_SHARD);
    const gen = fluxArtifactGenerator('fff', full, OPTIONS);
    expect(gen.spec).toBeDefined();
    expect(((gen.spec as Rec).artifacts as Rec[]).length).toBe(1000);
    const size = bytes({ ...gen, status: generatorStatus(gen) });
    sizes.push(['Flux ArtifactGenerator of a full shard', size]);
    expect(size).toBeLessThan(MiB);
  });

  it('Argo CD: the bootstrap Application, every shard Application and every ApplicationSet stay under 1 MiB with their largest status', () => {
    const listed = (files.get('gitops/argocd/kustomization.yaml') as Rec).resources as string[];
    expect(listed).toHaveLength(256);
    const shardApps = listed.map((f) => files.get(`gitops/argocd/${f}`) as Rec);
    const appStatus = (resources: Rec[]): Rec => ({
      resources,
      sync: { status: 'OutOfSync', revision: 'f'.repeat(40) },
      health: { status: 'Degraded', message: 'h'.repeat(1024) },
      conditions: argoConditions(),
    });
    const bootstrap = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'kyma-fleet', namespace: OPTIONS.argocd.namespace },
      spec: { project: 'default', source: { repoURL: OPTIONS.argocd.repoURL, targetRevision: 'main', path: 'dist/gitops/argocd' }, destination: { name: 'in-cluster' } },
      status: appStatus(shardApps.map((a) => resourceStatus('Application', a.metadata.namespace, a.metadata.name))),
    };
    sizes.push(['Argo CD bootstrap Application', bytes(bootstrap)]);
    expect(bytes(bootstrap)).toBeLessThan(MiB);

    const sets: Rec[] = [];
    let largestShardApp = 0;
    for (const app of shardApps) {
      const id = app.metadata.labels['kyma-fleet.dev/shard'] as string;
      const mine = ((files.get(`gitops/argocd/shards/${id}/kustomization.yaml`) as Rec).resources as string[]).map((f) => files.get(`gitops/argocd/shards/${id}/${f}`) as Rec);
      expect(mine).toHaveLength(3);
      sets.push(...mine);
      largestShardApp = Math.max(largestShardApp, bytes({ ...app, status: appStatus(mine.map((s) => resourceStatus('ApplicationSet', s.metadata.namespace, s.metadata.name))) }));
    }
    sizes.push(['largest Argo CD shard Application', largestShardApp]);
    expect(largestShardApp).toBeLessThan(MiB);

    let largest = 0;
    for (const set of sets) {
      const id = set.metadata.labels['kyma-fleet.dev/shard'] as string;
      const target = set.metadata.labels['kyma-fleet.dev/target'] as 'skr' | 'skr-config' | 'kcp';
      const apps = byShard.get(id)!.map((r) => resourceStatus('Application', OPTIONS.argocd.namespace, gitopsObjectName(r.name, target)));
      largest = Math.max(largest, bytes({ ...set, status: { conditions: argoConditions(), resources: apps, resourcesCount: apps.length } }));
    }
    sizes.push(['largest ApplicationSet', largest]);
    expect(largest).toBeLessThan(MiB);
    // For docs/performance.md ("Delivery"): the measured sizes of this run.
    console.log(sizes.map(([what, n]) => `${what}: ${n.toLocaleString('en')}${what.startsWith('runtimes') ? '' : ' bytes'}`).join('\n'));
  });
});
