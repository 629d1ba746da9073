// dist/gitops/: the wiring that makes Flux or Argo CD apply dist/runtimes/<name>/<target>/.
// Pure: options and runtimes in, a map of relPath (under dist/) -> object out; no I/O, no clock.
// Runtimes are spread over shards (./shards.ts) so that every object a user bootstraps and every
// inventory stays bounded at any fleet size; Flux in ./flux-wiring.ts, Argo CD in ./argocd-wiring.ts.
// Every choice of fields, with the upstream documents it was checked against: docs/architecture.md,
// "The GitOps wiring".

import { cmp } from '../lib/diagnostics';
import { isDNS1123Label } from '../lib/k8s-names';
import { argoListFiles, argoRuntimeData, argoRuntimeFile } from './argocd-wiring';
import { fluxGeneratorFile, fluxListFiles, fluxRuntimeFile, fluxRuntimeKustomization } from './flux-wiring';
import { FLUX_ARTIFACT_MODES, type FluxArtifactMode, GITOPS_DEFAULTS, type SourceKind } from './gitops-schema';
import { DEFAULT_SHARDS, groupByShard, SHARD_COUNTS, type ShardCount, shardOf } from './shards';
import {
  GITOPS_TARGETS,
  type GitopsOptions,
  type GitopsRuntime,
  gitopsObjectName,
  WIRED_TARGETS,
  wiredTargets,
} from './wiring-common';

export { FLUX_ARTIFACT_MODES, type FluxArtifactMode, GITOPS_DEFAULTS, GITOPS_OPTIONS_SCHEMA, type SourceKind } from './gitops-schema';
export { gitopsOptionProblems, type GitopsOptionProblem } from './gitops-rules';
export {
  GITOPS_NAME_MAX_LENGTH,
  GITOPS_TARGETS,
  type GitopsOptions,
  type GitopsRuntime,
  type GitopsTarget,
  gitopsObjectName,
  KUBECONFIG_KEY,
  LABEL_RUNTIME_ID,
  skrKubeconfigSecretName,
} from './wiring-common';
export { MAX_RUNTIMES_PER_SHARD, overfullShard, SHARD_COUNTS, type ShardCount, shardCountThatFits, shardOf } from './shards';

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function normalizePath(p: string): string {
  if (p === './') return '.';
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * Applies the defaults to `Fleet.spec.gitops` as written (already schema-validated; anything of
 * the wrong type is treated as unset). `kcpNamespace` is the default of flux.namespace.
 */
export function resolveGitopsOptions(written: unknown, kcpNamespace: string): GitopsOptions {
  const w = isRec(written) ? written : {};
  const f = isRec(w.flux) ? w.flux : {};
  const a = isRec(w.argocd) ? w.argocd : {};
  const d = GITOPS_DEFAULTS;

  const src = isRec(f.sourceRef) ? f.sourceRef : undefined;
  const sourceRef =
    src && typeof src.kind === 'string' && typeof src.name === 'string'
      ? {
          kind: src.kind as SourceKind,
          name: src.name,
          ...(typeof src.namespace === 'string' ? { namespace: src.namespace } : {}),
        }
      : { kind: d.flux.sourceRef.kind, name: d.flux.sourceRef.name };

  const retryInterval = optString(f.retryInterval);
  const timeout = optString(f.timeout);
  const repoURL = optString(a.repoURL);
  return {
    shards: (SHARD_COUNTS as readonly unknown[]).includes(w.shards) ? (w.shards as ShardCount) : DEFAULT_SHARDS,
    flux: {
      enabled: typeof f.enabled === 'boolean' ? f.enabled : d.flux.enabled,
      namespace: optString(f.namespace) ?? kcpNamespace,
      sourceRef,
      path: normalizePath(optString(f.path) ?? d.flux.path),
      interval: optString(f.interval) ?? d.flux.interval,
      ...(retryInterval !== undefined ? { retryInterval } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
      prune: typeof f.prune === 'boolean' ? f.prune : d.flux.prune,
      artifacts: (FLUX_ARTIFACT_MODES as readonly unknown[]).includes(f.artifacts) ? (f.artifacts as FluxArtifactMode) : d.flux.artifacts,
    },
    argocd: {
      enabled: typeof a.enabled === 'boolean' ? a.enabled : d.argocd.enabled,
      namespace: optString(a.namespace) ?? d.argocd.namespace,
      project: optString(a.project) ?? d.argocd.project,
      ...(repoURL !== undefined ? { repoURL } : {}),
      targetRevision: optString(a.targetRevision) ?? d.argocd.targetRevision,
      path: normalizePath(optString(a.path) ?? d.argocd.path),
      skrClusterName: optString(a.skrClusterName) ?? d.argocd.skrClusterName,
      kcpCluster: optString(a.kcpCluster) ?? d.argocd.kcpCluster,
    },
  };
}

function checkRuntimes(runtimes: readonly GitopsRuntime[]): GitopsRuntime[] {
  const sorted = [...runtimes].sort((a, b) => cmp(a.name, b.name));
  for (let i = 0; i < sorted.length; i++) {
    const r = sorted[i]!;
    if (!isDNS1123Label(r.name)) throw new Error(`renderGitops: runtime name ${JSON.stringify(r.name)} is not a DNS-1123 label`);
    if (i > 0 && sorted[i - 1]!.name === r.name) throw new Error(`renderGitops: runtime ${JSON.stringify(r.name)} is listed twice`);
    if (typeof r.runtimeID !== 'string' || r.runtimeID === '') throw new Error(`renderGitops: runtime ${JSON.stringify(r.name)} has no runtimeID`);
    for (const t of r.targets) {
      if (!GITOPS_TARGETS.includes(t)) throw new Error(`renderGitops: runtime ${JSON.stringify(r.name)} has unknown target ${JSON.stringify(t)}`);
    }
  }
  return sorted;
}

/**
 * The files of dist/gitops/ that list runtimes or shards, or hold fleet-wide settings (the root lists,
 * the shard Kustomizations and lists, the ApplicationSets): they change only when the options or the
 * set of runtimes and their targets change.
 */
export function gitopsListFiles(runtimes: readonly { readonly name: string }[], options: GitopsOptions): string[] {
  const shards = [...new Set(runtimes.map((r) => shardOf(r.name, options.shards)))].sort(cmp);
  const out: string[] = [];
  if (options.flux.enabled) {
    out.push('gitops/flux/kustomization.yaml');
    for (const s of shards) {
      out.push(`gitops/flux/shard-${s}.yaml`, `gitops/flux/shards/${s}/kustomization.yaml`);
      if (options.flux.artifacts === 'per-runtime') out.push(fluxGeneratorFile(s));
    }
  }
  if (options.argocd.enabled) {
    out.push('gitops/argocd/kustomization.yaml');
    for (const s of shards) {
      out.push(`gitops/argocd/shard-${s}.yaml`, `gitops/argocd/shards/${s}/kustomization.yaml`);
      for (const t of WIRED_TARGETS) out.push(`gitops/argocd/shards/${s}/applicationset-${t}.yaml`);
    }
  }
  return out.sort(cmp);
}

/**
 * The files of dist/gitops/ that belong to one runtime alone (its Flux Kustomizations and its Argo CD
 * generator file): what renderGitops leaves out for a `kept` runtime, whose files stay as they are.
 */
export function runtimeGitopsFiles(runtime: GitopsRuntime, options: GitopsOptions): string[] {
  const shard = shardOf(runtime.name, options.shards);
  const out: string[] = [];
  if (options.flux.enabled) for (const t of wiredTargets(runtime)) out.push(fluxRuntimeFile(shard, runtime.name, t));
  if (options.argocd.enabled) out.push(argoRuntimeFile(shard, runtime.name));
  return out;
}

/** How many files runtimeGitopsFiles names for this runtime (without naming them). */
export function runtimeGitopsFileCount(runtime: Pick<GitopsRuntime, 'targets'>, options: GitopsOptions): number {
  return (options.flux.enabled ? wiredTargets(runtime).length : 0) + (options.argocd.enabled ? 1 : 0);
}

/** The own files (runtimeGitopsFiles) of these runtimes, rendered. */
function ownFiles(runtimes: readonly GitopsRuntime[], options: GitopsOptions): [string, Rec][] {
  const files: [string, Rec][] = [];
  for (const r of checkRuntimes(runtimes)) {
    const shard = shardOf(r.name, options.shards);
    if (options.flux.enabled) for (const t of wiredTargets(r)) files.push([fluxRuntimeFile(shard, r.name, t), fluxRuntimeKustomization(r, t, shard, options)]);
    if (options.argocd.enabled) files.push([argoRuntimeFile(shard, r.name), argoRuntimeData(r)]);
  }
  return files;
}

/**
 * Renders dist/gitops/. Runtimes named in `kept` take part in every list and name check, but their
 * own files (runtimeGitopsFiles) are not rendered: the caller keeps them from the previous render.
 * Keys are paths relative to dist/ (always "/"), in code-point order; values are manifests, except
 * gitops/argocd/shards/<id>/*.json (plain data for the Argo CD generator, to be written as pretty
 * JSON). Throws only on input the validators must have refused (invalid or duplicate runtime names,
 * missing required options, a name collision).
 */
export function renderGitops(
  runtimes: readonly GitopsRuntime[],
  options: GitopsOptions,
  kept: ReadonlySet<string> = new Set(),
  /** False: only the own files of the runtimes not kept; the caller keeps the lists (gitopsListFiles) as they are. */
  lists = true,
): Map<string, Record<string, unknown>> {
  const files = ownFiles(runtimes.filter((r) => !kept.has(r.name)), options);
  if (lists) files.push(...listFiles(runtimes, options));
  files.sort((a, b) => cmp(a[0], b[0]));
  return new Map(files);
}

/** The files that list runtimes or shards (gitopsListFiles), after the name checks across all runtimes. */
function listFiles(runtimes: readonly GitopsRuntime[], options: GitopsOptions): [string, Rec][] {
  const sorted = checkRuntimes(runtimes);
  // Kustomizations share a namespace, Applications too: one name per runtime and target across the fleet.
  const names = new Map<string, string>();
  for (const r of sorted) {
    for (const t of wiredTargets(r)) {
      const name = gitopsObjectName(r.name, t);
      const other = names.get(name);
      if (other !== undefined) throw new Error(`renderGitops: Kustomization and Application name ${name} is shared by ${other} and ${r.name}/${t}`);
      names.set(name, `${r.name}/${t}`);
    }
  }
  const shards = groupByShard(sorted, options.shards);
  const files: [string, Rec][] = [];
  if (options.flux.enabled) files.push(...fluxListFiles(shards, options));
  if (options.argocd.enabled) files.push(...argoListFiles(shards.keys(), options));
  return files;
}
