// Reads the Flux wiring kyma-fleet rendered as the controller will see it: starting at the one folder
// a user bootstraps (<flux.path>/gitops/flux), every Flux Kustomization its kustomize lists name, and,
// for each, the Kustomizations its own spec.path lists in turn (a shard level, when the render has
// one), down to the runtime Kustomizations, whose folders hold the objects. It follows the lists and
// paths, never file or object names, so the tests run unchanged on the flat layout (root -> runtime
// Kustomizations) and on the sharded one (root -> shard -> runtime). A Kustomization that reads an
// ExternalArtifact is followed into the folder the root's ArtifactGenerators copy into that artifact
// (`cp -r <folder> @artifact/`: the artifact holds the folder under its own name).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { generatorArtifactRoots } from '../flux/flux-wiring';

export type Obj = Record<string, any>;

export interface FluxNode {
  name: string;
  namespace: string;
  /** The file it comes from (absolute). */
  file: string;
  /** spec.path as written (relative to the root of the source it reads). */
  specPath: string;
  /** The folder it applies, in the repository (absolute). */
  dir: string;
  labels: Record<string, string>;
  /** kyma-fleet.dev/runtime and kyma-fleet.dev/target, '' on a level above the runtimes. */
  runtime: string;
  target: string;
  /** spec.kubeConfig.secretRef.name, when it targets another cluster. */
  kubeConfigSecret?: string;
  sourceRef: { kind: string; name: string; namespace: string };
  /** The ExternalArtifact it reads, when it reads one (sourceRef.name). */
  artifact?: string;
  doc: Obj;
  /** Kustomizations its folder lists (empty for a runtime Kustomization). */
  children: FluxNode[];
  /** The objects its folder renders that are not Flux Kustomizations. */
  objects: Obj[];
}

const isFluxKustomization = (o: Obj): boolean => o.apiVersion === 'kustomize.toolkit.fluxcd.io/v1' && o.kind === 'Kustomization';

/** The documents a kustomize folder lists (files and sub-folders of `resources`), with their files. */
export function folderDocuments(dir: string): Array<{ file: string; doc: Obj }> {
  const list = parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources?: string[] };
  const out: Array<{ file: string; doc: Obj }> = [];
  for (const rel of list.resources ?? []) {
    const target = path.join(dir, rel);
    if (fs.statSync(target).isDirectory()) {
      out.push(...folderDocuments(target));
      continue;
    }
    for (const d of parseAllDocuments(fs.readFileSync(target, 'utf8'))) {
      const doc = d.toJS() as Obj | null;
      if (doc) out.push({ file: target, doc });
    }
  }
  return out;
}

/** ExternalArtifact name -> the folder (relative to the source root) its artifact root stands for. */
type ArtifactRoots = Map<string, string>;

function node(sourceRoot: string, file: string, doc: Obj, seen: Set<string>, roots: ArtifactRoots): FluxNode {
  const labels = (doc.metadata?.labels ?? {}) as Record<string, string>;
  const namespace = doc.metadata.namespace as string;
  const specPath = doc.spec.path as string;
  const ref = doc.spec.sourceRef as { kind: string; name: string; namespace?: string };
  let base = '';
  if (ref.kind === 'ExternalArtifact') {
    const root = roots.get(`${ref.namespace ?? namespace}/${ref.name}`);
    if (root === undefined) throw new Error(`${file}: reads ExternalArtifact ${ref.name}, which no ArtifactGenerator of the root cuts`);
    base = root;
  }
  const dir = path.join(sourceRoot, base, specPath);
  const key = path.resolve(dir);
  if (seen.has(key)) throw new Error(`${file}: ${specPath} is reached twice in the Flux tree`);
  seen.add(key);
  const docs = fs.existsSync(path.join(dir, 'kustomization.yaml')) ? folderDocuments(dir) : [];
  return {
    name: doc.metadata.name,
    namespace,
    file,
    specPath,
    dir,
    labels,
    runtime: labels['kyma-fleet.dev/runtime'] ?? '',
    target: labels['kyma-fleet.dev/target'] ?? '',
    kubeConfigSecret: doc.spec.kubeConfig?.secretRef?.name,
    sourceRef: { kind: ref.kind, name: ref.name, namespace: ref.namespace ?? namespace },
    ...(ref.kind === 'ExternalArtifact' && { artifact: ref.name }),
    doc,
    children: docs.filter((d) => isFluxKustomization(d.doc)).map((d) => node(sourceRoot, d.file, d.doc, seen, roots)),
    objects: docs.filter((d) => !isFluxKustomization(d.doc)).map((d) => d.doc),
  };
}

export interface FluxTree {
  /** spec.path of the root a user bootstraps, e.g. `./dist/gitops/flux`. */
  rootPath: string;
  /** The Kustomizations the root's folder lists. */
  top: FluxNode[];
  /** Every Kustomization below the root, depth first. */
  all: FluxNode[];
  /** Those without child Kustomizations: the runtime Kustomizations (…-kcp, -skr, -skr-config). */
  leaves: FluxNode[];
  /** The one source every Kustomization reads, itself or through the ArtifactGenerators. */
  sourceRef: { kind: string; name: string; namespace: string };
  /** The ArtifactGenerators the root's folder lists. */
  generators: Obj[];
}

/** The tree below `<distDir>/gitops/flux`, with paths relative to `sourceRoot` (the artifact's root). */
export function readFluxTree(sourceRoot: string, distDir: string): FluxTree {
  const fluxDir = path.join(distDir, 'gitops', 'flux');
  const rootPath = `./${path.relative(sourceRoot, fluxDir).split(path.sep).join('/')}`;
  const seen = new Set<string>([path.resolve(fluxDir)]);
  const listed = folderDocuments(fluxDir);
  const generators = listed.filter((d) => d.doc.kind === 'ArtifactGenerator').map((d) => d.doc);
  const roots: ArtifactRoots = new Map();
  const sources = new Set<string>();
  for (const g of generators) {
    for (const s of g.spec.sources as Obj[]) sources.add(JSON.stringify({ kind: s.kind, name: s.name, namespace: s.namespace ?? g.metadata.namespace }));
    for (const [name, root] of generatorArtifactRoots(g)) roots.set(`${g.metadata.namespace}/${name}`, root);
  }
  const top = listed.filter((d) => isFluxKustomization(d.doc)).map((d) => node(sourceRoot, d.file, d.doc, seen, roots));
  const all: FluxNode[] = [];
  const visit = (n: FluxNode): void => {
    all.push(n);
    n.children.forEach(visit);
  };
  top.forEach(visit);
  if (all.length === 0) throw new Error(`${fluxDir} lists no Flux Kustomization`);
  for (const n of all) if (n.sourceRef.kind !== 'ExternalArtifact') sources.add(JSON.stringify(n.sourceRef));
  if (sources.size !== 1) throw new Error(`the Flux tree reads several sources: ${[...sources].join(', ')}`);
  return { rootPath, top, all, leaves: all.filter((n) => n.children.length === 0), sourceRef: JSON.parse([...sources][0]!), generators };
}

/** The runtime ID a runtime's SKR Kustomizations reach through their `kubeconfig-<runtimeID>` Secret. */
export function runtimeIdOf(tree: FluxTree, runtime: string): string {
  const secret = tree.leaves.find((n) => n.runtime === runtime && n.kubeConfigSecret)?.kubeConfigSecret;
  if (!secret?.startsWith('kubeconfig-')) throw new Error(`runtime ${runtime} has no SKR Kustomization with a kubeconfig-<runtimeID> Secret`);
  return secret.slice('kubeconfig-'.length);
}

/** The Kustomization objects of the render as kustomize-controller reads them (namespace/name). */
export function kustomizationKey(n: { namespace: string; name: string }): string {
  return `${n.namespace}/${n.name}`;
}
