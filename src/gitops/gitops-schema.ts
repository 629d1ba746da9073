// `Fleet.spec.gitops`: how dist/ is wired into Flux and Argo CD. The JSON Schema (draft-07, ajv
// strict: shape, types and input caps only, no `pattern`s), its defaults, and the format rules
// (names, durations, paths, URLs, placeholders; ./gitops-rules.ts) with messages that say what to
// write instead. The Fleet schema holds GITOPS_OPTIONS_SCHEMA as `spec.gitops`; validation reports
// gitopsOptionProblems() through the fleet rule reporter. Pure: no I/O.


/** Caps against hostile input (every string and list is bounded). */
export const MAX_NAME_LENGTH = 253;
export const MAX_NAMESPACE_LENGTH = 63;
export const MAX_DURATION_LENGTH = 32;
export const MAX_PATH_LENGTH = 512;
export const MAX_URL_LENGTH = 2048;
export const MAX_REVISION_LENGTH = 255;

export const SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/**
 * What each runtime Kustomization reads (`gitops.flux.artifacts`): `per-runtime`, an ExternalArtifact
 * of that runtime's folder cut from the source by Flux's source-watcher (one ArtifactGenerator per
 * shard), or `whole-source`, the whole source. docs/architecture.md, "The GitOps wiring".
 */
export const FLUX_ARTIFACT_MODES = ['per-runtime', 'whole-source'] as const;
export type FluxArtifactMode = (typeof FLUX_ARTIFACT_MODES)[number];

/** Placeholders `argocd.skrClusterName` may use. `{{runtimeID}}` is the lowercase runtime ID. */
export const CLUSTER_NAME_PLACEHOLDERS = ['name', 'runtimeID'] as const;

/**
 * Defaults of every option that has one. `flux.namespace` defaults to the fleet's kcpNamespace
 * (resolveGitopsOptions); `argocd.repoURL` has none and is required when Argo CD is enabled.
 */
export const GITOPS_DEFAULTS = {
  flux: {
    enabled: true,
    sourceRef: { kind: 'GitRepository', name: 'kyma-fleet' },
    path: './dist',
    interval: '10m',
    prune: true,
    artifacts: 'per-runtime',
  },
  argocd: {
    enabled: false,
    namespace: 'argocd',
    project: 'default',
    targetRevision: 'HEAD',
    path: 'dist',
    skrClusterName: 'kyma-{{runtimeID}}',
    kcpCluster: 'in-cluster',
  },
} as const;

/** Flux: "The minimum value should be 60 seconds" (kustomizations.md, Interval). */
export const MIN_INTERVAL_NS = 60_000_000_000n;

function str(maxLength: number, description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'string', maxLength, description, ...extra };
}

function duration(description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return str(MAX_DURATION_LENGTH, `${description} A Go duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m".`, extra);
}

/** JSON Schema of `Fleet.spec.gitops`. */
export const GITOPS_OPTIONS_SCHEMA: Record<string, unknown> = {
  type: 'object',
  title: 'GitOps wiring',
  description:
    'How dist/ is wired into Flux and Argo CD: one Flux Kustomization, or one Argo CD Application ' +
    '(from an ApplicationSet), per runtime and target, in shards, written under dist/gitops/.',
  additionalProperties: false,
  properties: {
    shards: {
      type: 'integer',
      enum: [1, 16, 256, 4096],
      default: 256,
      description:
        'How many shards the runtimes are spread over (by the SHA-256 of their name, so a runtime never moves ' +
        'while this stays the same). Flux: one Kustomization per shard between the root and the runtime ' +
        'Kustomizations; Argo CD: one Application per shard between the root and three ApplicationSets. Keeps every object a user ' +
        'bootstraps and every inventory bounded; at most 999 runtimes may share a shard. Changing it moves ' +
        'runtimes between shards (their objects on the clusters stay: docs/applying.md). @default 256',
    },
    flux: {
      type: 'object',
      additionalProperties: false,
      description:
        'Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1) in dist/gitops/flux/: one per shard, and one per ' +
        'runtime and target under dist/gitops/flux/shards/. Point one bootstrap Kustomization at ' +
        '<path>/gitops/flux to create them all.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Write dist/gitops/flux/. @default true' },
        namespace: str(
          MAX_NAMESPACE_LENGTH,
          'Namespace of the Kustomizations. Kustomizations that reach a runtime must live where KIM writes ' +
            'the kubeconfig-<runtimeID> Secrets, because kubeConfig.secretRef is namespace-local. ' +
            '@default the fleet kcpNamespace (kcp-system)',
          { examples: ['kcp-system'] },
        ),
        sourceRef: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'name'],
          description:
            'The Flux source that holds this repository. @default {kind: GitRepository, name: kyma-fleet}',
          default: { kind: 'GitRepository', name: 'kyma-fleet' },
          properties: {
            kind: {
              type: 'string',
              maxLength: 32,
              enum: [...SOURCE_KINDS],
              description: 'Kind of the Flux source.',
            },
            name: str(MAX_NAME_LENGTH, 'Name of the Flux source object.', { examples: ['kyma-fleet', 'flux-system'] }),
            namespace: str(
              MAX_NAMESPACE_LENGTH,
              'Namespace of the source when it is not the Kustomizations\' namespace (a cross-namespace ' +
                'reference; refused by kustomize-controller started with --no-cross-namespace-refs).',
              { examples: ['flux-system'] },
            ),
          },
        },
        path: str(
          MAX_PATH_LENGTH,
          'Path of dist/ inside the source, relative, with "/" separators; segments of letters, digits, ' +
            '".", "_" and "-" only. @default ./dist',
          { default: './dist', examples: ['./dist', './clusters/kcp/dist'] },
        ),
        interval: duration('How often Flux reconciles each Kustomization (at least 1m). @default 10m', {
          default: '10m',
        }),
        retryInterval: duration('How soon Flux retries a failed reconciliation. Flux uses interval when unset.', {
          examples: ['2m'],
        }),
        timeout: duration('Timeout of each build, apply and health check. Flux uses interval when unset.', {
          examples: ['5m'],
        }),
        artifacts: {
          type: 'string',
          maxLength: 32,
          enum: [...FLUX_ARTIFACT_MODES],
          default: 'per-runtime',
          description:
            'What each Kustomization reads. per-runtime: one ArtifactGenerator per shard (Flux source-watcher, ' +
            'Flux 2.7 or later, kustomize-controller started with --feature-gates=ExternalArtifact=true) cuts the ' +
            'source into one ExternalArtifact per runtime folder and one per shard list, each revised only when its ' +
            'content changes, so a commit wakes only the Kustomizations of the runtimes it changes. whole-source: ' +
            'every Kustomization reads the whole source, so every commit wakes every Kustomization of the fleet ' +
            '(for Flux without source-watcher; docs/applying.md). @default per-runtime',
        },
        prune: {
          type: 'boolean',
          default: true,
          description:
            'Delete objects that disappeared from a runtime folder. Runtime and Kyma CRs are never pruned ' +
            '(they carry kustomize.toolkit.fluxcd.io/prune: disabled), and deleting a runtime orphans its ' +
            'objects (deletionPolicy: Orphan). Garden Kustomizations never prune. @default true',
        },
      },
    },
    argocd: {
      type: 'object',
      additionalProperties: false,
      description:
        'Argo CD ApplicationSets (argoproj.io/v1alpha1) in dist/gitops/argocd/, one per shard and target, ' +
        'generating one Application per runtime from dist/gitops/argocd/shards/<id>/<name>.json; SKR ' +
        'Applications only for runtimes whose cluster is registered (kyma-fleet register argocd). Argo CD 3.2 or later.',
      properties: {
        enabled: { type: 'boolean', default: false, description: 'Write dist/gitops/argocd/. @default false' },
        namespace: str(MAX_NAMESPACE_LENGTH, 'Namespace of the ApplicationSets (where Argo CD runs). @default argocd', {
          default: 'argocd',
        }),
        project: str(MAX_NAME_LENGTH, 'Argo CD AppProject of the generated Applications. @default default', {
          default: 'default',
        }),
        repoURL: str(
          MAX_URL_LENGTH,
          'Git repository that holds dist/, as Argo CD knows it (https://, ssh:// or git@host:path). No ' +
            'credentials in the URL: configure repository credentials in Argo CD. Required when enabled.',
          { examples: ['https://github.com/acme/kyma-fleet.git'] },
        ),
        targetRevision: str(MAX_REVISION_LENGTH, 'Branch, tag or commit to sync. @default HEAD', {
          default: 'HEAD',
          examples: ['main'],
        }),
        path: str(
          MAX_PATH_LENGTH,
          'Path of dist/ inside the repository, relative, without a leading "./" (it is also a generator ' +
            'glob); segments of letters, digits, ".", "_" and "-" only. @default dist',
          { default: 'dist' },
        ),
        skrClusterName: str(
          MAX_NAME_LENGTH,
          'Argo CD cluster name of each runtime: the name `kyma-fleet register argocd` gives its cluster Secret. Placeholders: {{name}} ' +
            '(runtime name) and {{runtimeID}} (lowercase runtime ID); at least one is required. ' +
            '@default kyma-{{runtimeID}}',
          { default: 'kyma-{{runtimeID}}', examples: ['kyma-{{runtimeID}}', 'skr-{{name}}'] },
        ),
        kcpCluster: str(MAX_NAME_LENGTH, 'Argo CD cluster name of the Kyma Control Plane, destination of kcp/ apps. @default in-cluster', {
          default: 'in-cluster',
        }),
      },
    },
    garden: {
      type: 'object',
      additionalProperties: false,
      description:
        'No longer supported: dist/runtimes/*/garden is never wired into Flux or Argo CD. Shoot.spec.extensions ' +
        'is an atomic list that KIM also writes, so an applier of the whole list wipes its entries; ' +
        '`kyma-fleet apply garden` writes the fleet\'s entries by read-modify-write instead. Only `enabled: false` is accepted.',
      properties: {
        enabled: { type: 'boolean', description: 'Must be false (or left out): the garden/ folders are applied by `kyma-fleet apply garden`.' },
        kubeConfigSecret: str(MAX_NAME_LENGTH, 'Unused since garden/ is applied by `kyma-fleet apply garden`; accepted so existing fleets still load.'),
      },
    },
  },
  examples: [
    {
      flux: { sourceRef: { kind: 'GitRepository', name: 'kyma-fleet', namespace: 'flux-system' }, interval: '10m' },
      argocd: { enabled: true, repoURL: 'https://github.com/acme/kyma-fleet.git', targetRevision: 'main' },
    },
  ],
};
