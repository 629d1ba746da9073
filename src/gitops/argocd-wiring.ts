// dist/gitops/argocd/: in two levels, like Flux's, so that nothing grows with the fleet. The
// Application a user bootstraps applies gitops/argocd/ (one Application per shard); each shard
// Application applies gitops/argocd/shards/<id>/: one ApplicationSet per target, generating one
// Application per runtime from the generator files beside it (<runtime>.json). SKR Applications come from
// a matrix of that file and Argo CD's cluster generator, selecting the cluster Secret labelled with
// the runtime ID: an Application exists only once its runtime's cluster is registered (`kyma-fleet
// register argocd`). Every Application retries without end and picks up the newest revision on each
// retry (retry.refresh, Argo CD >= 3.2), so a revision that fails for good never blocks its fix, and
// only a commit that touches its own folder refreshes it (manifest-generate-paths). Why each field:
// docs/architecture.md, "The GitOps wiring". Pure: no I/O.

import type * as ArgoCD from '../../imports/argoproj.io';
import { compiledScript } from '../lib/sync-workers';
import {
  type GitopsOptions,
  type GitopsRuntime,
  type GitopsTarget,
  gitopsObjectName,
  joinPath,
  kustomizeFile,
  LABEL_RUNTIME,
  LABEL_RUNTIME_ID,
  LABEL_SHARD,
  LABEL_TARGET,
  WIRED_TARGETS,
  wiredTargets,
} from './wiring-common';

type Rec = Record<string, unknown>;

/**
 * The generated Argo CD API, loaded on first use: 3 MB that take ~33 ms to load, which a fleet
 * wired for Flux (and a run that renders no wiring) never needs. Run from the TypeScript sources
 * (tests), the compiled one in lib/, which the tests build first: require() loads no TypeScript.
 */
function argoCD(): typeof import('../../imports/argoproj.io') {
  return require(compiledScript(__dirname, '../../imports/argoproj.io.js') ?? '../../imports/argoproj.io') as typeof import('../../imports/argoproj.io');
}

/** Parameter of the generator JSON that holds the Application name of a target (a Go template identifier). */
function appParam(target: GitopsTarget): string {
  return `${target.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}App`;
}

/** Path of a runtime's generator file relative to dist/. */
export function argoRuntimeFile(shard: string, runtime: string): string {
  return `gitops/argocd/shards/${shard}/${runtime}.json`;
}

/** Name of the ApplicationSet of one target and shard. */
export function argoApplicationSetName(target: GitopsTarget, shard: string): string {
  return `kyma-fleet-${target}-${shard}`;
}

/** Sync options of every Application; the SKR's Kyma CR keeps the modules a person added with client-side kubectl apply. */
function syncOptions(target: GitopsTarget): string[] {
  return ['ServerSideApply=true', 'CreateNamespace=false', ...(target === 'skr' ? ['ClientSideApplyMigration=false'] : [])];
}

/** Built with the CRD's own types (wire names such as `repoURL` come from `manifest()`). */
function applicationSet(target: GitopsTarget, shard: string, options: GitopsOptions): Rec {
  const argo = options.argocd;
  const repoURL = argo.repoURL;
  if (repoURL === undefined) throw new Error('renderGitops: argocd.enabled needs argocd.repoURL (gitopsOptionProblems reports it)');
  const param = appParam(target);
  const files = {
    git: {
      repoUrl: repoURL,
      revision: argo.targetRevision,
      files: [{ path: joinPath(argo.path, `gitops/argocd/shards/${shard}/*.json`, '') }],
    },
    selector: { matchExpressions: [{ key: param, operator: 'Exists' }] },
  };
  // The kcp/ Applications patch the Runtime CR on the KCP, which needs no registration.
  const generators: ArgoCD.ApplicationSetSpecGenerators[] =
    target === 'kcp'
      ? [files]
      : [{ matrix: { generators: [files, { clusters: { selector: { matchLabels: { [LABEL_RUNTIME_ID]: '{{.runtimeID}}' } } } }] } }];
  const syncPolicy: ArgoCD.ApplicationSetSpecTemplateSpecSyncPolicy = {
    automated: { prune: target !== 'skr', selfHeal: true },
    syncOptions: syncOptions(target),
    // Until a runtime exists, its module has installed the CRDs and its webhook is up, applies fail:
    // retry without end, each time with the newest revision.
    retry: { limit: -1, refresh: true, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } },
  };
  return argoCD().ApplicationSet.manifest({
    metadata: {
      name: argoApplicationSetName(target, shard),
      namespace: argo.namespace,
      labels: { [LABEL_SHARD]: shard, [LABEL_TARGET]: target },
    },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators,
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: {
          name: `{{.${param}}}`,
          labels: { [LABEL_RUNTIME]: '{{.runtime}}', [LABEL_SHARD]: shard, [LABEL_TARGET]: target },
          annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
        },
        spec: {
          project: argo.project,
          source: {
            repoUrl: repoURL,
            targetRevision: argo.targetRevision,
            path: joinPath(argo.path, `runtimes/{{.runtime}}/${target}`, ''),
          },
          destination: target === 'kcp' ? { name: argo.kcpCluster } : { server: '{{.server}}' },
          syncPolicy,
        },
      },
    },
  }) as Rec;
}

/** Parameters of one runtime for its ApplicationSets (flat: selectors see top-level strings only; no `name`, which the cluster generator sets). */
export function argoRuntimeData(runtime: GitopsRuntime): Rec {
  const targets = wiredTargets(runtime);
  // Keys in code-point order, so a writer that sorts keys changes nothing.
  const data: Rec = {};
  if (targets.includes('kcp')) data.kcpApp = gitopsObjectName(runtime.name, 'kcp');
  data.runtime = runtime.name;
  data.runtimeID = runtime.runtimeID.toLowerCase();
  if (targets.includes('skr')) data.skrApp = gitopsObjectName(runtime.name, 'skr');
  if (targets.includes('skr-config')) data.skrConfigApp = gitopsObjectName(runtime.name, 'skr-config');
  return data;
}

/** Name of the Application of one shard. */
export function argoShardName(shard: string): string {
  return `kyma-fleet-shard-${shard}`;
}

/**
 * The Application of one shard: applies the shard's ApplicationSets to the cluster Argo CD runs in
 * (they must live in its namespace) and prunes those of a shard that emptied; their Applications go
 * with them, what those synced stays (preserveResourcesOnDeletion).
 */
function shardApplication(shard: string, options: GitopsOptions): Rec {
  const argo = options.argocd;
  // The Application CRD is not among the imported ones; an ApplicationSet's template is an
  // Application's metadata and spec, typed and written with the wire names by the same functions.
  const spec: ArgoCD.ApplicationSetSpecTemplateSpec = {
    project: argo.project,
    source: { repoUrl: argo.repoURL!, targetRevision: argo.targetRevision, path: joinPath(argo.path, `gitops/argocd/shards/${shard}`, '') },
    destination: { server: 'https://kubernetes.default.svc', namespace: argo.namespace },
    syncPolicy: {
      automated: { prune: true, selfHeal: true },
      syncOptions: ['ServerSideApply=true', 'CreateNamespace=false'],
      retry: { limit: -1, refresh: true, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } },
    },
  };
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: argoShardName(shard),
      namespace: argo.namespace,
      // Pruned from the root (the shard emptied), it takes its ApplicationSets with it; their
      // Applications go too, and what those synced stays (preserveResourcesOnDeletion).
      finalizers: ['resources-finalizer.argocd.argoproj.io'],
      ...argoCD().toJson_ApplicationSetSpecTemplateMetadata({ labels: { [LABEL_SHARD]: shard }, annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' } }),
    },
    spec: argoCD().toJson_ApplicationSetSpecTemplateSpec(spec),
  };
}

/** The shard Applications, each shard's ApplicationSets and list, and the list a user bootstraps. */
export function argoListFiles(shards: Iterable<string>, options: GitopsOptions): [string, Rec][] {
  if (options.argocd.repoURL === undefined) throw new Error('renderGitops: argocd.enabled needs argocd.repoURL (gitopsOptionProblems reports it)');
  const files: [string, Rec][] = [];
  const shardFiles: string[] = [];
  for (const shard of shards) {
    shardFiles.push(`shard-${shard}.yaml`);
    files.push([`gitops/argocd/shard-${shard}.yaml`, shardApplication(shard, options)]);
    const listed: string[] = [];
    for (const t of WIRED_TARGETS) {
      listed.push(`applicationset-${t}.yaml`);
      files.push([`gitops/argocd/shards/${shard}/applicationset-${t}.yaml`, applicationSet(t, shard, options)]);
    }
    files.push([`gitops/argocd/shards/${shard}/kustomization.yaml`, kustomizeFile(listed)]);
  }
  files.push(['gitops/argocd/kustomization.yaml', kustomizeFile(shardFiles)]);
  return files;
}
