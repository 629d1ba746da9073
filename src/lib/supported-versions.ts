// The versions kyma-fleet's output is made for and tested against: Kubernetes and the Flux and
// Argo CD APIs it writes (here), and per extension the upstream code that judges its output (each
// plug-in's testedAgainst, in its own folder). Shipped with the package, never read from test/ at
// run time; `kyma-fleet version` prints it, the README's "Supported versions" says the same, and
// test/package/supported-versions.test.ts checks it against the test cluster
// (test/cluster/tools.ts), the Flux apply tests (test/flux-apply/go.mod) and the oracle's go.mod files.

/** Upstream Go modules, pinned in a test program, that judge an extension's output. */
export interface UpstreamPin {
  /** What they judge, e.g. 'Shoot entries, by the extension admission'. */
  readonly judges: string;
  /** The go.mod of the test program that pins them (repository-relative; documentation only). */
  readonly goMod: string;
  /** Module path -> version. */
  readonly modules: Readonly<Record<string, string>>;
}

export interface PlatformVersions {
  readonly kubernetes: {
    /** The kube-apiserver release the tests run against (built from source, with etcd below). */
    readonly testedWith: string;
    readonly etcd: string;
  };
  readonly flux: {
    readonly api: string;
    readonly kind: string;
    /** Flux Go modules the apply tests run (the kustomize-controller's API and the fluxcd/pkg libraries). */
    readonly testedWith: Readonly<Record<string, string>>;
  };
  readonly argocd: {
    readonly api: string;
    readonly kind: string;
    /** ApplicationSet fields the output relies on beyond the basic ones. */
    readonly fieldsUsed: readonly string[];
    /** Where the schema the output is checked against comes from. */
    readonly schema: string;
    /** What is known about the Argo CD releases that have these fields. */
    readonly releases: string;
  };
}

export const PLATFORM_VERSIONS: PlatformVersions = {
  kubernetes: { testedWith: 'v1.34.4', etcd: 'v3.6.16' },
  flux: {
    api: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    testedWith: {
      'github.com/fluxcd/kustomize-controller/api': 'v1.9.6',
      'github.com/fluxcd/pkg/ssa': 'v0.78.0',
      'github.com/fluxcd/pkg/kustomize': 'v1.41.0',
      'github.com/fluxcd/pkg/runtime': 'v0.117.0',
      'github.com/fluxcd/pkg/apis/meta': 'v1.33.0',
      'github.com/fluxcd/cli-utils': 'v1.3.0',
    },
  },
  argocd: {
    api: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    fieldsUsed: [
      'spec.goTemplate',
      'spec.goTemplateOptions',
      'spec.generators[].git.files',
      'spec.generators[].matrix.generators[].git.files',
      'spec.generators[].matrix.generators[].clusters.selector',
      'spec.generators[].matrix.generators[].selector',
      'spec.generators[].selector',
      'spec.syncPolicy.preserveResourcesOnDeletion',
      'spec.template.spec.syncPolicy.syncOptions',
      'spec.template.spec.syncPolicy.retry',
      'spec.template.spec.syncPolicy.retry.refresh',
    ],
    schema: 'the ApplicationSet CRD of argoproj/argo-cd at commit 37ee009 (manifests/crds/applicationset-crd.yaml)',
    releases:
      'Argo CD 3.2 or later: retry.refresh (a retry syncs the newest revision) came with 3.2 (argo-cd#23038), and ' +
      'ClientSideApplyMigration=false with 3.1; the generators, templates and sync engine of argo-cd v3.2.12 run in the tests. ' +
      'The shard Applications (kind Application, same API) apply the ApplicationSets; templatePatch is not used',
  },
};

export interface SupportedVersions extends PlatformVersions {
  /** Per extension that declares them, the upstream pins that judge its output. */
  readonly extensions: readonly { readonly name: string; readonly testedAgainst: readonly UpstreamPin[] }[];
}

export function supportedVersions(extensions: readonly { readonly name: string; readonly testedAgainst?: readonly UpstreamPin[] }[]): SupportedVersions {
  return {
    ...PLATFORM_VERSIONS,
    extensions: extensions.flatMap((e) => (e.testedAgainst && e.testedAgainst.length > 0 ? [{ name: e.name, testedAgainst: e.testedAgainst }] : [])),
  };
}
