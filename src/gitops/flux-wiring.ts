// dist/gitops/flux/: the Flux Kustomizations, in three levels so that no inventory grows with the
// fleet. The root a user bootstraps applies gitops/flux/ (per shard: one Kustomization and, with
// `flux.artifacts: per-runtime`, one ArtifactGenerator); each shard Kustomization applies
// gitops/flux/shards/<id>/ (the runtime Kustomizations of its runtimes); each runtime Kustomization
// applies one target folder of one runtime. With per-runtime artifacts, Flux's source-watcher cuts the
// source into one ExternalArtifact per runtime folder and one per shard list, each revised only when
// its files change, so a commit wakes the Kustomizations of the runtimes it changes and no others.
// Why each field is set as it is: docs/architecture.md, "The GitOps wiring". Pure: no I/O.

import { Kustomization, type KustomizationSpec, KustomizationSpecDeletionPolicy, KustomizationSpecSourceRefKind } from '../../imports/kustomize.toolkit.fluxcd.io';
import type { SourceKind } from './gitops-schema';
import {
  type GitopsOptions,
  type GitopsRuntime,
  type GitopsTarget,
  gitopsObjectName,
  joinPath,
  KUBECONFIG_KEY,
  kustomizeFile,
  LABEL_RUNTIME,
  LABEL_SHARD,
  LABEL_TARGET,
  skrKubeconfigSecretName,
  wiredTargets,
} from './wiring-common';

type Rec = Record<string, unknown>;

/** Flux's source kinds as the Kustomization CRD's enum: a source kind it does not know fails to compile. */
const FLUX_SOURCE_KIND: Record<SourceKind, KustomizationSpecSourceRefKind> = {
  GitRepository: KustomizationSpecSourceRefKind.GIT_REPOSITORY,
  OCIRepository: KustomizationSpecSourceRefKind.OCI_REPOSITORY,
  Bucket: KustomizationSpecSourceRefKind.BUCKET,
};

/**
 * Name of the Kustomization, the ArtifactGenerator and the wiring ExternalArtifact of one shard (never
 * ends in a target's name, so never a runtime Kustomization's).
 */
export function fluxShardName(shard: string): string {
  return `kyma-fleet-shard-${shard}`;
}

/**
 * Name of the ExternalArtifact holding one runtime's folder. The prefix differs from the shard's, so a
 * runtime and a shard never share one; 82 characters at most, within the 253 an object name may have.
 */
export function fluxRuntimeArtifactName(runtime: string): string {
  return `kyma-fleet-runtime-${runtime}`;
}

/** The alias of the fleet source inside each ArtifactGenerator. */
export const GENERATOR_SOURCE_ALIAS = 'fleet';

/** Path of an ArtifactGenerator file relative to dist/. */
export function fluxGeneratorFile(shard: string): string {
  return `gitops/flux/generator-${shard}.yaml`;
}

/** Path of a file of gitops/flux/ relative to dist/. */
export function fluxRuntimeFile(shard: string, runtime: string, target: GitopsTarget): string {
  return `gitops/flux/shards/${shard}/${runtime}-${target}.yaml`;
}

/** The fields every Kustomization of the wiring shares (the source aside). */
function commonSpec(options: GitopsOptions): Pick<KustomizationSpec, 'interval' | 'retryInterval' | 'timeout'> {
  const flux = options.flux;
  return {
    interval: flux.interval,
    ...(flux.retryInterval !== undefined && { retryInterval: flux.retryInterval }),
    ...(flux.timeout !== undefined && { timeout: flux.timeout }),
  };
}

/** The user's source, as every Kustomization reads it with `whole-source` artifacts. */
function wholeSourceRef(options: GitopsOptions): KustomizationSpec['sourceRef'] {
  const flux = options.flux;
  return { ...flux.sourceRef, kind: FLUX_SOURCE_KIND[flux.sourceRef.kind] };
}

/** An ExternalArtifact in the Kustomizations' own namespace (where the shard's ArtifactGenerator writes it). */
function artifactRef(name: string): KustomizationSpec['sourceRef'] {
  return { kind: KustomizationSpecSourceRefKind.EXTERNAL_ARTIFACT, name };
}

/** dist/ inside the source as a generator copy path: no leading "./", "" for the root. */
function generatorBase(options: GitopsOptions): string {
  const p = options.flux.path.replace(/^\.\//, '');
  return p === '.' ? '' : `${p}/`;
}

/** The Kustomization of one runtime and target. Built with the CRD's own types (imports/); `manifest()` writes the wire names. */
export function fluxRuntimeKustomization(runtime: GitopsRuntime, target: GitopsTarget, shard: string, options: GitopsOptions): Rec {
  const flux = options.flux;
  const waitFor = target === 'skr' && runtime.targets.includes('skr-config') ? (runtime.waitFor ?? []) : [];
  const skr = target === 'skr' || target === 'skr-config';
  return Kustomization.manifest({
    metadata: {
      name: gitopsObjectName(runtime.name, target),
      namespace: flux.namespace,
      labels: { [LABEL_RUNTIME]: runtime.name, [LABEL_SHARD]: shard, [LABEL_TARGET]: target },
    },
    spec: {
      ...commonSpec(options),
      ...(flux.artifacts === 'per-runtime'
        ? { sourceRef: artifactRef(fluxRuntimeArtifactName(runtime.name)), path: `./${runtime.name}/${target}` }
        : { sourceRef: wholeSourceRef(options), path: joinPath(flux.path, `runtimes/${runtime.name}/${target}`, './') }),
      prune: target === 'skr' ? false : flux.prune,
      deletionPolicy: KustomizationSpecDeletionPolicy.ORPHAN,
      ...(skr && { kubeConfig: { secretRef: { name: skrKubeconfigSecretName(runtime.runtimeID), key: KUBECONFIG_KEY } } }),
      ...(waitFor.length > 0 && { healthChecks: waitFor.map((name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })) }),
      ...(target === 'skr-config' && { dependsOn: [{ name: gitopsObjectName(runtime.name, 'skr') }] }),
    },
  }) as Rec;
}

/**
 * The Kustomization of one shard: applies the runtime Kustomizations of its runtimes and prunes those
 * that left. Its own deletion (the shard emptied, or the root was deleted) deletes them too; they
 * orphan what they applied (deletionPolicy: Orphan). It never waits for them: a shard is Ready when
 * its list is applied, so one runtime that cannot reconcile holds no one else up.
 */
export function fluxShardKustomization(shard: string, options: GitopsOptions): Rec {
  const flux = options.flux;
  return Kustomization.manifest({
    metadata: { name: fluxShardName(shard), namespace: flux.namespace, labels: { [LABEL_SHARD]: shard } },
    spec: {
      ...commonSpec(options),
      ...(flux.artifacts === 'per-runtime'
        ? { sourceRef: artifactRef(fluxShardName(shard)), path: `./${shard}` }
        : { sourceRef: wholeSourceRef(options), path: joinPath(flux.path, `gitops/flux/shards/${shard}`, './') }),
      prune: true,
    },
  }) as Rec;
}

/**
 * The ArtifactGenerator of one shard (source.extensions.fluxcd.io/v1beta1, run by Flux's
 * source-watcher): from the user's source it cuts the shard's list folder and each runtime's folder
 * into their own ExternalArtifacts. source-watcher revises an ExternalArtifact (`latest@sha256:<digest
 * of its files>`) only when its files change, and kustomize-controller skips a Ready Kustomization
 * whose source revision it has applied, so a commit wakes only what it changed. Each copy takes the
 * whole folder (`cp -r` semantics: the artifact holds `<name>/…`); `originRevision` carries the
 * source's commit into `lastAppliedOriginRevision`. At most 1000 artifacts (the CRD's MaxItems): the
 * shard list and MAX_RUNTIMES_PER_SHARD runtimes.
 */
export function fluxArtifactGenerator(shard: string, runtimes: readonly GitopsRuntime[], options: GitopsOptions): Rec {
  const flux = options.flux;
  const base = generatorBase(options);
  const from = (folder: string) => [{ from: `@${GENERATOR_SOURCE_ALIAS}/${base}${folder}`, to: '@artifact/' }];
  return {
    apiVersion: 'source.extensions.fluxcd.io/v1beta1',
    kind: 'ArtifactGenerator',
    metadata: { name: fluxShardName(shard), namespace: flux.namespace, labels: { [LABEL_SHARD]: shard } },
    spec: {
      sources: [
        {
          alias: GENERATOR_SOURCE_ALIAS,
          kind: flux.sourceRef.kind,
          name: flux.sourceRef.name,
          ...(flux.sourceRef.namespace !== undefined && { namespace: flux.sourceRef.namespace }),
        },
      ],
      artifacts: [
        { name: fluxShardName(shard), originRevision: `@${GENERATOR_SOURCE_ALIAS}`, copy: from(`gitops/flux/shards/${shard}`) },
        ...runtimes.map((r) => ({
          name: fluxRuntimeArtifactName(r.name),
          originRevision: `@${GENERATOR_SOURCE_ALIAS}`,
          copy: from(`runtimes/${r.name}`),
        })),
      ],
    },
  };
}

/** The files of gitops/flux/ that list runtimes or shards: the root's list, the shard Kustomizations and generators, and each shard's list. */
export function fluxListFiles(shards: ReadonlyMap<string, readonly GitopsRuntime[]>, options: GitopsOptions): [string, Rec][] {
  const files: [string, Rec][] = [];
  const shardFiles: string[] = [];
  for (const [shard, runtimes] of shards) {
    shardFiles.push(`shard-${shard}.yaml`);
    files.push([`gitops/flux/shard-${shard}.yaml`, fluxShardKustomization(shard, options)]);
    if (options.flux.artifacts === 'per-runtime') {
      shardFiles.push(fluxGeneratorFile(shard).slice('gitops/flux/'.length));
      files.push([fluxGeneratorFile(shard), fluxArtifactGenerator(shard, runtimes, options)]);
    }
    const listed = runtimes.flatMap((r) => wiredTargets(r).map((t) => `${r.name}-${t}.yaml`));
    files.push([`gitops/flux/shards/${shard}/kustomization.yaml`, kustomizeFile(listed)]);
  }
  files.push(['gitops/flux/kustomization.yaml', kustomizeFile(shardFiles)]);
  return files;
}
