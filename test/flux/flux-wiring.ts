// Reads the Flux wiring that kyma-fleet generated (dist/gitops/flux/: the root list of shard
// Kustomizations, each shard's list of one Kustomization file per runtime and target) and the objects of the folders they apply, so that the
// apply tests follow exactly the generated wiring (names, paths, dependsOn) instead of a copy of it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export interface FluxKustomization {
  /** Absolute path of the Kustomization's YAML file. */
  file: string;
  name: string;
  namespace: string;
  /** kyma-fleet.dev/runtime and kyma-fleet.dev/target labels. */
  runtime: string;
  target: string;
  /**
   * The folder it applies, relative to the source root (the folder holding dist/): spec.path, or, for
   * a Kustomization that reads an ExternalArtifact, spec.path inside the folder the root's
   * ArtifactGenerator copies into that artifact (`cp -r <folder> @artifact/`).
   */
  specPath: string;
  /** The folder, relative to the source root, that spec.path is relative to: "." or the ExternalArtifact's folder. */
  sourceBase: string;
  prune: boolean;
  dependsOn: string[];
  healthChecks: Array<{ apiVersion?: string; kind: string; name: string; namespace?: string }>;
  /** The whole parsed document. */
  doc: Record<string, any>;
}

/**
 * Every runtime Kustomization the wiring creates, in the listed order: <distDir>/gitops/flux/kustomization.yaml
 * lists the shard Kustomizations (label kyma-fleet.dev/shard), each of which applies the list in
 * gitops/flux/shards/<id>/; a listed runtime Kustomization (label kyma-fleet.dev/runtime) is taken as it is.
 */
export function readFluxWiring(distDir: string): FluxKustomization[] {
  const fluxDir = path.join(distDir, 'gitops', 'flux');
  const listed = (dir: string): string[] => (parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources.map((rel) => path.join(dir, rel));
  const rootFiles = listed(fluxDir);
  // ExternalArtifact name -> the folder its root stands for (the generators the root applies)
  const artifactRoots = new Map<string, string>();
  const kustomizationFiles: string[] = [];
  for (const file of rootFiles) {
    const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
    if (doc.kind !== 'ArtifactGenerator') {
      kustomizationFiles.push(file);
      continue;
    }
    for (const [name, root] of generatorArtifactRoots(doc)) artifactRoots.set(name, root);
  }
  const read = (file: string): FluxKustomization => {
    const k = readKustomizationFile(file);
    if (k.doc.spec.sourceRef.kind !== 'ExternalArtifact') return k;
    const root = artifactRoots.get(k.doc.spec.sourceRef.name);
    if (root === undefined) throw new Error(`${file}: reads ExternalArtifact ${k.doc.spec.sourceRef.name}, which no ArtifactGenerator of the root cuts`);
    return { ...k, specPath: `./${path.posix.join(root, k.specPath)}`, sourceBase: root };
  };
  return kustomizationFiles.flatMap((file) => {
    const k = read(file);
    const shard = (k.doc.metadata.labels ?? {})['kyma-fleet.dev/shard'] as string | undefined;
    return k.runtime === '' && shard !== undefined ? listed(path.join(fluxDir, 'shards', shard)).map(read) : [k];
  });
}

/**
 * ExternalArtifact name -> the folder, relative to the source root, that the artifact's root stands
 * for: kyma-fleet's generators copy one folder per artifact (`cp -r <folder> @artifact/`), so the
 * artifact holds `<folder's name>/…` and its root is the folder's parent.
 */
export function generatorArtifactRoots(generator: Record<string, any>): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of generator.spec.artifacts as Array<{ name: string; copy: Array<{ from: string }> }>) {
    const from = a.copy[0]!.from;
    out.set(a.name, path.posix.dirname(from.slice(from.indexOf('/') + 1)));
  }
  return out;
}

export function readKustomizationFile(file: string): FluxKustomization {
  const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
  if (doc.kind !== 'Kustomization' || doc.apiVersion !== 'kustomize.toolkit.fluxcd.io/v1') throw new Error(`${file}: not a Flux Kustomization`);
  const labels = (doc.metadata.labels ?? {}) as Record<string, string>;
  return {
    file,
    name: doc.metadata.name,
    namespace: doc.metadata.namespace,
    runtime: labels['kyma-fleet.dev/runtime'] ?? '',
    target: labels['kyma-fleet.dev/target'] ?? '',
    specPath: doc.spec.path,
    sourceBase: '.',
    prune: doc.spec.prune === true,
    dependsOn: ((doc.spec.dependsOn ?? []) as Array<{ name: string; namespace?: string }>).map((d) => `${d.namespace ?? doc.metadata.namespace}/${d.name}`),
    healthChecks: doc.spec.healthChecks ?? [],
    doc,
  };
}

/** The Kustomizations grouped by runtime label, each group in the listed order. */
export function byRuntime(all: readonly FluxKustomization[]): Map<string, FluxKustomization[]> {
  const out = new Map<string, FluxKustomization[]>();
  for (const k of all) {
    const group = out.get(k.runtime) ?? [];
    group.push(k);
    out.set(k.runtime, group);
  }
  return out;
}

/**
 * The Kustomizations in an order where every one comes after those it dependsOn (a stable topological
 * order over the listed order). Throws on a dependency that is not in the list or on a cycle.
 */
export function dependsOnOrder(ks: readonly FluxKustomization[]): FluxKustomization[] {
  const byId = new Map(ks.map((k) => [`${k.namespace}/${k.name}`, k]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: FluxKustomization[] = [];
  const visit = (k: FluxKustomization): void => {
    const id = `${k.namespace}/${k.name}`;
    if (done.has(id)) return;
    if (visiting.has(id)) throw new Error(`dependsOn cycle through ${id}`);
    visiting.add(id);
    for (const dep of k.dependsOn) {
      const target = byId.get(dep);
      if (!target) throw new Error(`${id} dependsOn ${dep}, which the wiring does not define`);
      visit(target);
    }
    visiting.delete(id);
    done.add(id);
    out.push(k);
  };
  for (const k of ks) visit(k);
  return out;
}

/** The objects a target folder renders: the documents of the files its kustomization.yaml lists. */
export function renderedObjects(sourceRoot: string, specPath: string): Array<Record<string, any>> {
  const dir = path.join(sourceRoot, specPath);
  const list = parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources?: string[] };
  const out: Array<Record<string, any>> = [];
  for (const rel of list.resources ?? []) {
    for (const d of parseAllDocuments(fs.readFileSync(path.join(dir, rel), 'utf8'))) {
      const obj = d.toJS() as Record<string, any> | null;
      if (obj) out.push(obj);
    }
  }
  return out;
}

/** The inventory id Flux gives an object: `<namespace>_<name>_<group>_<kind>`. */
export function inventoryId(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): string {
  const group = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '';
  return `${obj.metadata.namespace ?? ''}_${obj.metadata.name}_${group}_${obj.kind}`;
}
