// What the Flux and the Argo CD wiring share: the resolved options, the runtime as the wiring sees
// it, object names, labels and paths. Pure: no I/O.

import { createHash } from 'node:crypto';
import { cmp } from '../lib/diagnostics';
import type { FluxArtifactMode, SourceKind } from './gitops-schema';
import type { ShardCount } from './shards';

/** The target folders of a runtime (render-runtime.ts Target); garden/ is never wired. */
export type GitopsTarget = 'skr' | 'skr-config' | 'kcp' | 'garden';
export const GITOPS_TARGETS: readonly GitopsTarget[] = ['skr', 'skr-config', 'kcp', 'garden'];
/** The targets Flux and Argo CD apply. */
export const WIRED_TARGETS: readonly GitopsTarget[] = ['skr', 'skr-config', 'kcp'];

/** `Fleet.spec.gitops` with every default applied. Optional fields stay unset when not written. */
export interface GitopsOptions {
  /** How many shards the runtimes are spread over (shards.ts). */
  readonly shards: ShardCount;
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
    /** What the runtime and shard Kustomizations read (gitops-schema.ts FLUX_ARTIFACT_MODES). */
    readonly artifacts: FluxArtifactMode;
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
    /** Name of a runtime's cluster Secret as `kyma-fleet register argocd` writes it. */
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

export const LABEL_RUNTIME = 'kyma-fleet.dev/runtime';
export const LABEL_TARGET = 'kyma-fleet.dev/target';
export const LABEL_SHARD = 'kyma-fleet.dev/shard';
/** On an Argo CD cluster Secret: the lowercase runtime ID whose cluster it registers. */
export const LABEL_RUNTIME_ID = 'kyma-fleet.dev/runtime-id';

/** Longest Kustomization / Application name: a label value (see gitopsObjectName). */
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

/** `base` + `/` + `rest`; base "." is the root: "./rest" for Flux, "rest" for Argo CD. */
export function joinPath(base: string, rest: string, rootPrefix: './' | ''): string {
  return base === '.' ? `${rootPrefix}${rest}` : `${base}/${rest}`;
}

export function wiredTargets(runtime: Pick<GitopsRuntime, 'targets'>): GitopsTarget[] {
  return WIRED_TARGETS.filter((t) => runtime.targets.includes(t));
}

/** A kustomize.config.k8s.io Kustomization listing these files, sorted. */
export function kustomizeFile(resources: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [...resources].sort(cmp),
  };
}
