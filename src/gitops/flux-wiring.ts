// dist/gitops/flux/: the Flux Kustomizations, in three levels so that no inventory grows with the
// fleet. The root a user bootstraps applies gitops/flux/ (one Kustomization per shard); each shard
// Kustomization applies gitops/flux/shards/<id>/ (the runtime Kustomizations of its runtimes); each
// runtime Kustomization applies one target folder of one runtime. Why each field is set as it is:
// docs/architecture.md, "The GitOps wiring". Pure: no I/O.

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

/** Name of the Kustomization of one shard (never ends in a target's name, so never a runtime's). */
export function fluxShardName(shard: string): string {
  return `kyma-fleet-shard-${shard}`;
}

/** Path of a file of gitops/flux/ relative to dist/. */
export function fluxRuntimeFile(shard: string, runtime: string, target: GitopsTarget): string {
  return `gitops/flux/shards/${shard}/${runtime}-${target}.yaml`;
}

/** The fields every Kustomization of the wiring shares. */
function commonSpec(options: GitopsOptions): Pick<KustomizationSpec, 'interval' | 'retryInterval' | 'timeout' | 'sourceRef'> {
  const flux = options.flux;
  return {
    interval: flux.interval,
    ...(flux.retryInterval !== undefined && { retryInterval: flux.retryInterval }),
    ...(flux.timeout !== undefined && { timeout: flux.timeout }),
    sourceRef: { ...flux.sourceRef, kind: FLUX_SOURCE_KIND[flux.sourceRef.kind] },
  };
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
      path: joinPath(flux.path, `runtimes/${runtime.name}/${target}`, './'),
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
      path: joinPath(flux.path, `gitops/flux/shards/${shard}`, './'),
      prune: true,
    },
  }) as Rec;
}

/** The files of gitops/flux/ that list runtimes or shards: the root's list, the shard Kustomizations and each shard's list. */
export function fluxListFiles(shards: ReadonlyMap<string, readonly GitopsRuntime[]>, options: GitopsOptions): [string, Rec][] {
  const files: [string, Rec][] = [];
  const shardFiles: string[] = [];
  for (const [shard, runtimes] of shards) {
    shardFiles.push(`shard-${shard}.yaml`);
    files.push([`gitops/flux/shard-${shard}.yaml`, fluxShardKustomization(shard, options)]);
    const listed = runtimes.flatMap((r) => wiredTargets(r).map((t) => `${r.name}-${t}.yaml`));
    files.push([`gitops/flux/shards/${shard}/kustomization.yaml`, kustomizeFile(listed)]);
  }
  files.push(['gitops/flux/kustomization.yaml', kustomizeFile(shardFiles)]);
  return files;
}
