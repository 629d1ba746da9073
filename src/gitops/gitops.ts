// dist/gitops/: the wiring that makes Flux or Argo CD apply dist/runtimes/<name>/<target>/.
// Pure: options and runtimes in, a map of relPath (under dist/) -> object out; no I/O, no clock.
// One Flux Kustomization or Argo CD Application per runtime and target (no inventory grows with
// the fleet); every choice of fields, with the upstream documents they were checked against:
// docs/architecture.md, "The GitOps wiring".

import { createHash } from 'node:crypto';
import * as ArgoCD from '../../imports/argoproj.io';
import { Kustomization, KustomizationSpecDeletionPolicy, KustomizationSpecSourceRefKind } from '../../imports/kustomize.toolkit.fluxcd.io';
import { cmp } from '../lib/diagnostics';
import { isDNS1123Label } from '../lib/k8s-names';
import { expandClusterName } from './gitops-rules';
import { GITOPS_DEFAULTS, type SourceKind } from './gitops-schema';

export { GITOPS_DEFAULTS, GITOPS_OPTIONS_SCHEMA, type SourceKind } from './gitops-schema';
export { gitopsOptionProblems, type GitopsOptionProblem } from './gitops-rules';

/** The target folders of a runtime (render-runtime.ts Target); garden/ is never wired. */
export type GitopsTarget = 'skr' | 'skr-config' | 'kcp' | 'garden';
export const GITOPS_TARGETS: readonly GitopsTarget[] = ['skr', 'skr-config', 'kcp', 'garden'];
/** The targets Flux and Argo CD apply. */
const WIRED_TARGETS: readonly GitopsTarget[] = ['skr', 'skr-config', 'kcp'];

/** `Fleet.spec.gitops` with every default applied. Optional fields stay unset when not written. */
export interface GitopsOptions {
  readonly flux: {
    readonly enabled: boolean;
    readonly namespace: string;
    readonly sourceRef: { readonly kind: SourceKind; readonly name: string; readonly namespace?: string };
    /** Without a trailing "/"; "." is the source root. */
    readonly path: string;
    readonly interval: string;
    readonly retryInterval?: string;
    readonly timeout?: string;
    readonly prune: boolean;
  };
  readonly argocd: {
    readonly enabled: boolean;
    readonly namespace: string;
    readonly project: string;
    /** Required when enabled (gitopsOptionProblems reports it missing). */
    readonly repoURL?: string;
    readonly targetRevision: string;
    /** Without a trailing "/"; "." is the repository root. */
    readonly path: string;
    readonly skrClusterName: string;
    readonly kcpCluster: string;
  };
}

export interface GitopsRuntime {
  /** metadata.name of the KymaRuntime: the folder name under dist/runtimes/. */
  readonly name: string;
  readonly runtimeID: string;
  /** The target folders written for this runtime. */
  readonly targets: ReadonlyArray<GitopsTarget>;
  /** The CRDs the objects of its skr-config/ need (names, sorted): what `<runtime>-skr` waits for. */
  readonly waitFor?: readonly string[];
}

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
    flux: {
      enabled: typeof f.enabled === 'boolean' ? f.enabled : d.flux.enabled,
      namespace: optString(f.namespace) ?? kcpNamespace,
      sourceRef,
      path: normalizePath(optString(f.path) ?? d.flux.path),
      interval: optString(f.interval) ?? d.flux.interval,
      ...(retryInterval !== undefined ? { retryInterval } : {}),
      ...(timeout !== undefined ? { timeout } : {}),
      prune: typeof f.prune === 'boolean' ? f.prune : d.flux.prune,
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

/** Longest Kustomization / Application name: a label value (see the header). */
export const GITOPS_NAME_MAX_LENGTH = 63;
const HASH_LENGTH = 8;

/**
 * Name of the Flux Kustomization and the Argo CD Application of one runtime and target:
 * `<name>-<target>` when it fits in 63 characters, else
 * `<name cut to 63 - |target| - 10 characters, trailing "-" dropped>-<sha256(name)[0:8]>-<target>`.
 * Deterministic, keeps the target visible, and distinct for distinct runtime names (up to a
 * 32-bit hash collision between names that share the kept prefix, which renderGitops rejects).
 */
export function gitopsObjectName(runtimeName: string, target: GitopsTarget): string {
  const full = `${runtimeName}-${target}`;
  if (full.length <= GITOPS_NAME_MAX_LENGTH) return full;
  const hash = createHash('sha256').update(runtimeName, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const keep = GITOPS_NAME_MAX_LENGTH - target.length - HASH_LENGTH - 2;
  const prefix = runtimeName.slice(0, keep).replace(/-+$/, '');
  return `${prefix}-${hash}-${target}`;
}

/** The SKR kubeconfig Secret KIM writes in the KCP namespace (data key `config`). */
export function skrKubeconfigSecretName(runtimeID: string): string {
  return `kubeconfig-${runtimeID.toLowerCase()}`;
}

/** Data key of the kubeconfig in the SKR Secret (KIM). */
export const KUBECONFIG_KEY = 'config';

const LABEL_RUNTIME = 'kyma-fleet.dev/runtime';
const LABEL_TARGET = 'kyma-fleet.dev/target';

/** `base` + `/` + `rest`; base "." is the root: "./rest" for Flux, "rest" for Argo CD. */
function joinPath(base: string, rest: string, rootPrefix: './' | ''): string {
  return base === '.' ? `${rootPrefix}${rest}` : `${base}/${rest}`;
}

function wiredTargets(runtime: GitopsRuntime): GitopsTarget[] {
  return WIRED_TARGETS.filter((t) => runtime.targets.includes(t));
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

function kustomizeFile(resources: string[]): Rec {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [...resources].sort(cmp),
  };
}

/** Flux's source kinds as the Kustomization CRD's enum: a source kind it does not know fails to compile. */
const FLUX_SOURCE_KIND: Record<SourceKind, KustomizationSpecSourceRefKind> = {
  GitRepository: KustomizationSpecSourceRefKind.GIT_REPOSITORY,
  OCIRepository: KustomizationSpecSourceRefKind.OCI_REPOSITORY,
  Bucket: KustomizationSpecSourceRefKind.BUCKET,
};

/** Built with the CRD's own types (imports/, `npm run import`); `manifest()` writes the wire names, fields sorted. */
function fluxKustomization(runtime: GitopsRuntime, target: GitopsTarget, options: GitopsOptions): Rec {
  const flux = options.flux;
  const waitFor = target === 'skr' && runtime.targets.includes('skr-config') ? (runtime.waitFor ?? []) : [];
  const skr = target === 'skr' || target === 'skr-config';
  return Kustomization.manifest({
    metadata: {
      name: gitopsObjectName(runtime.name, target),
      namespace: flux.namespace,
      labels: { [LABEL_RUNTIME]: runtime.name, [LABEL_TARGET]: target },
    },
    spec: {
      interval: flux.interval,
      ...(flux.retryInterval !== undefined && { retryInterval: flux.retryInterval }),
      ...(flux.timeout !== undefined && { timeout: flux.timeout }),
      sourceRef: { ...flux.sourceRef, kind: FLUX_SOURCE_KIND[flux.sourceRef.kind] },
      path: joinPath(flux.path, `runtimes/${runtime.name}/${target}`, './'),
      prune: target === 'skr' ? false : flux.prune,
      deletionPolicy: KustomizationSpecDeletionPolicy.ORPHAN,
      ...(skr && { kubeConfig: { secretRef: { name: skrKubeconfigSecretName(runtime.runtimeID), key: KUBECONFIG_KEY } } }),
      ...(waitFor.length > 0 && { healthChecks: waitFor.map((name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })) }),
      ...(target === 'skr-config' && { dependsOn: [{ name: gitopsObjectName(runtime.name, 'skr') }] }),
    },
  }) as Rec;
}

/** Parameter of the generator JSON that holds the Application name of a target (a Go template identifier). */
function appParam(target: GitopsTarget): string {
  return `${target.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}App`;
}

/** Built with the CRD's own types like the Flux Kustomization (wire names such as `repoURL` come from `manifest()`). */
function applicationSet(target: GitopsTarget, options: GitopsOptions): Rec {
  const argo = options.argocd;
  const repoURL = argo.repoURL;
  if (repoURL === undefined) throw new Error('renderGitops: argocd.enabled needs argocd.repoURL (gitopsOptionProblems reports it)');
  const destination = target === 'kcp' ? '{{.kcpCluster}}' : '{{.skrCluster}}';
  const syncPolicy: ArgoCD.ApplicationSetSpecTemplateSpecSyncPolicy = {
    automated: { prune: target !== 'skr', selfHeal: true },
    syncOptions: ['ServerSideApply=true', 'CreateNamespace=false'],
    // Until the module enabled in skr/ has installed the CRD, the apply of a config object fails: retry.
    ...(target === 'skr-config' && { retry: { limit: -1, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } } }),
  };
  return ArgoCD.ApplicationSet.manifest({
    metadata: {
      name: `kyma-fleet-${target}`,
      namespace: argo.namespace,
      labels: { [LABEL_TARGET]: target },
    },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [
        {
          git: {
            repoUrl: repoURL,
            revision: argo.targetRevision,
            files: [{ path: joinPath(argo.path, 'gitops/argocd/runtimes/*.json', '') }],
          },
          selector: { matchExpressions: [{ key: appParam(target), operator: 'Exists' }] },
        },
      ],
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: {
          name: `{{.${appParam(target)}}}`,
          labels: { [LABEL_RUNTIME]: '{{.name}}', [LABEL_TARGET]: target },
        },
        spec: {
          project: argo.project,
          source: {
            repoUrl: repoURL,
            targetRevision: argo.targetRevision,
            path: joinPath(argo.path, `runtimes/{{.name}}/${target}`, ''),
          },
          destination: { name: destination },
          syncPolicy,
        },
      },
    },
  }) as Rec;
}

/** Parameters of one runtime for the ApplicationSets (flat: selectors see top-level strings only). */
function argoRuntimeData(runtime: GitopsRuntime, targets: readonly GitopsTarget[], options: GitopsOptions): Rec {
  const skrCluster = expandClusterName(options.argocd.skrClusterName, runtime);
  if (skrCluster === undefined) {
    throw new Error(`renderGitops: argocd.skrClusterName ${JSON.stringify(options.argocd.skrClusterName)} is invalid (gitopsOptionProblems reports it)`);
  }
  // Keys in code-point order, so a writer that sorts keys changes nothing.
  const data: Rec = {};
  if (targets.includes('kcp')) data.kcpApp = gitopsObjectName(runtime.name, 'kcp');
  data.kcpCluster = options.argocd.kcpCluster;
  data.name = runtime.name;
  data.runtimeID = runtime.runtimeID.toLowerCase();
  if (targets.includes('skr')) data.skrApp = gitopsObjectName(runtime.name, 'skr');
  data.skrCluster = skrCluster;
  if (targets.includes('skr-config')) data.skrConfigApp = gitopsObjectName(runtime.name, 'skr-config');
  return data;
}

/**
 * The files of dist/gitops/ that list every runtime or hold fleet-wide settings (the Flux and Argo CD
 * kustomizations, the ApplicationSets): they change only when the options or the set of runtimes
 * and their targets change.
 */
export function gitopsListFiles(options: GitopsOptions): string[] {
  const out: string[] = [];
  if (options.flux.enabled) out.push('gitops/flux/kustomization.yaml');
  if (options.argocd.enabled) {
    for (const t of WIRED_TARGETS) out.push(`gitops/argocd/applicationset-${t}.yaml`);
    out.push('gitops/argocd/kustomization.yaml');
  }
  return out.sort(cmp);
}

/** The own files (runtimeGitopsFiles) of these runtimes, rendered: their Flux Kustomizations and Argo CD generator files. */
function ownFiles(runtimes: readonly GitopsRuntime[], options: GitopsOptions): [string, Rec][] {
  const files: [string, Rec][] = [];
  for (const r of checkRuntimes(runtimes)) {
    const wired = wiredTargets(r);
    if (options.flux.enabled) for (const t of wired) files.push([`gitops/flux/${r.name}-${t}.yaml`, fluxKustomization(r, t, options)]);
    if (options.argocd.enabled) files.push([`gitops/argocd/runtimes/${r.name}.json`, argoRuntimeData(r, wired, options)]);
  }
  return files;
}

/**
 * The files of dist/gitops/ that belong to one runtime alone (its Flux Kustomizations and its Argo CD
 * generator file): what renderGitops leaves out for a `kept` runtime, whose files stay as they are.
 */
export function runtimeGitopsFiles(runtime: GitopsRuntime, options: GitopsOptions): string[] {
  const out: string[] = [];
  if (options.flux.enabled) for (const t of wiredTargets(runtime)) out.push(`gitops/flux/${runtime.name}-${t}.yaml`);
  if (options.argocd.enabled) out.push(`gitops/argocd/runtimes/${runtime.name}.json`);
  return out;
}

/**
 * Renders dist/gitops/. Runtimes named in `kept` take part in every list and name check, but their
 * own files (runtimeGitopsFiles) are not rendered: the caller keeps them from the previous render. Keys are paths relative to dist/ (always "/"), in code-point order;
 * values are manifests, except gitops/argocd/runtimes/*.json (plain data for the Argo CD
 * generator, to be written as pretty JSON). Throws only on input the validators must have
 * refused (invalid or duplicate runtime names, missing required options, a name collision).
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

/** The files that list every runtime (gitopsListFiles), after the name checks across all runtimes. */
function listFiles(runtimes: readonly GitopsRuntime[], options: GitopsOptions): [string, Rec][] {
  const sorted = checkRuntimes(runtimes);
  const files: [string, Rec][] = [];

  if (options.flux.enabled) {
    const names = new Map<string, string>();
    const listed: string[] = [];
    for (const r of sorted) {
      for (const t of wiredTargets(r)) {
        const name = gitopsObjectName(r.name, t);
        const other = names.get(name);
        if (other !== undefined) throw new Error(`renderGitops: Kustomization name ${name} is shared by ${other} and ${r.name}/${t}`);
        names.set(name, `${r.name}/${t}`);
        listed.push(`${r.name}-${t}.yaml`);
      }
    }
    files.push(['gitops/flux/kustomization.yaml', kustomizeFile(listed)]);
  }

  if (options.argocd.enabled) {
    const appNames = new Map<string, string>();
    for (const r of sorted) {
      for (const t of wiredTargets(r)) {
        const name = gitopsObjectName(r.name, t);
        const other = appNames.get(name);
        if (other !== undefined) throw new Error(`renderGitops: Application name ${name} is shared by ${other} and ${r.name}/${t}`);
        appNames.set(name, `${r.name}/${t}`);
      }
    }
    const listed: string[] = [];
    for (const t of WIRED_TARGETS) {
      const file = `applicationset-${t}.yaml`;
      listed.push(file);
      files.push([`gitops/argocd/${file}`, applicationSet(t, options)]);
    }
    files.push(['gitops/argocd/kustomization.yaml', kustomizeFile(listed)]);
  }
  return files;
}
