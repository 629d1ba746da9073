// The whole dist/ tree of a fleet as relPath -> content: every runtime's target folders with a
// kustomization.yaml each. Pure; the write stage puts it on disk atomically.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { cmp } from '../lib/diagnostics';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';
import { type GitopsRuntime, renderGitops, runtimeGitopsFiles } from '../gitops/gitops';
import { type Manifest, renderRuntime, type Target, TARGETS } from './render-runtime';
import { kustomizationFile, manifestFile } from './serialize';

/** A runtime rendered earlier whose inputs did not change: its target folders are reused as they are. */
export interface UnchangedRuntime {
  readonly runtimeID: string;
  readonly targets: readonly Target[];
  /** The CRDs its skr-config/ needs (RuntimeWiring); needed only when its own GitOps files are rendered. */
  readonly waitFor?: readonly string[];
  /** Its own GitOps files (runtimeGitopsFiles) are not rendered: they stay as dist/ has them (the GitOps options did not change), or a part wrote them. */
  readonly keepGitops?: boolean;
}

export interface RenderedFleet {
  /** dist-relative path -> file content, sorted by path (without the files of unchanged runtimes). */
  readonly files: Map<string, string>;
  /** Runtime names rendered. */
  readonly runtimes: readonly string[];
  /** The wiring of each runtime rendered here (not of the unchanged ones), by name. */
  readonly wiring: ReadonlyMap<string, RuntimeWiring>;
}

/** What the GitOps wiring of a runtime depends on besides its identity. */
export interface RuntimeWiring {
  readonly targets: Target[];
  /** The CRDs its skr-config/ objects need (sorted): what Flux waits for before applying them. */
  readonly waitFor: string[];
}

/** CRD names by the file-name prefix of a manifest (`<kind lowercased>-<name>.yaml`), from the extensions. */
function crdsByFilePrefix(extensions: readonly ExtensionPlugin<any>[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of extensions) for (const [kind, crd] of Object.entries(e.skrConfigCrds ?? {})) out.set(kind.toLowerCase(), crd);
  return out;
}

/** The CRDs that manifests of these kinds need (sorted, once each). */
function crdsOfKinds(kinds: Iterable<string>, extensions: readonly ExtensionPlugin<any>[]): string[] {
  const byPrefix = crdsByFilePrefix(extensions);
  const out = new Set<string>();
  for (const kind of kinds) {
    const crd = byPrefix.get(kind.toLowerCase());
    if (crd !== undefined) out.add(crd);
  }
  return [...out].sort(cmp);
}

/**
 * The wiring of each runtime among dist-relative paths (runtimes/<name>/<target>/<kind>-<name>.yaml),
 * by runtime name: its target folders, and the CRDs its skr-config/ files need.
 */
export function wiringByRuntime(paths: Iterable<string>, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Map<string, RuntimeWiring> {
  const found = new Map<string, { targets: Set<string>; kinds: Set<string> }>();
  for (const rel of paths) {
    const m = /^runtimes\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(rel);
    if (!m) continue;
    const entry = found.get(m[1]!) ?? { targets: new Set<string>(), kinds: new Set<string>() };
    entry.targets.add(m[2]!);
    if (m[2] === 'skr-config') entry.kinds.add(m[3]!.slice(0, Math.max(0, m[3]!.indexOf('-'))));
    found.set(m[1]!, entry);
  }
  return new Map([...found].map(([name, e]) => [name, { targets: TARGETS.filter((t) => e.targets.has(t)), waitFor: crdsOfKinds(e.kinds, extensions) }]));
}

/** The text of a file of dist/gitops/: pretty JSON for the Argo CD generator's data, YAML otherwise. */
export function gitopsFileText(file: string, content: Record<string, unknown>): string {
  return file.endsWith('.json') ? JSON.stringify(content, null, 2) + '\n' : manifestFile(content);
}

/**
 * The GitOps files of these runtimes alone (runtimeGitopsFiles: their Flux Kustomizations, their Argo
 * CD generator file), without the lists of every runtime. A part renders them for its runtimes.
 */
export function ownGitopsFiles(model: FleetModel, wiring: ReadonlyArray<GitopsRuntime>): Array<[string, string]> {
  const own = new Set(wiring.flatMap((w) => runtimeGitopsFiles(w, model.options.gitops)));
  const out: Array<[string, string]> = [];
  for (const [file, content] of renderGitops(wiring, model.options.gitops)) if (own.has(file)) out.push([file, gitopsFileText(file, content)]);
  return out;
}

/** File name of a manifest inside its target folder: <kind>-<name>.yaml. */
export function manifestFileName(m: Manifest): string {
  return `${m.kind.toLowerCase()}-${m.metadata.name}.yaml`;
}

/**
 * Renders `runtimes` except those named in `unchanged`; the runtimes of `unchanged` (whether or not
 * they are also in `runtimes`) keep their files as they are in dist/, and only the GitOps wiring,
 * which lists all runtimes, is rendered for them.
 */
export function renderFleet(
  model: FleetModel,
  runtimes: readonly ResolvedRuntime[],
  extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS,
  unchanged: ReadonlyMap<string, UnchangedRuntime> = new Map(),
  /**
   * False leaves out dist/gitops/ (it lists every runtime; a caller rendering a part adds it later);
   * 'own' renders only the own GitOps files of the runtimes rendered or not kept (the caller keeps
   * the lists, gitopsListFiles, because the set of runtimes and targets is the same as before).
   */
  withGitops: boolean | 'own' = true,
): RenderedFleet {
  const files = new Map<string, string>();
  const names: string[] = [];
  const wiring: GitopsRuntime[] = [];
  const renderedWiring = new Map<string, RuntimeWiring>();
  for (const [name, kept] of unchanged) {
    names.push(name);
    wiring.push({ name, runtimeID: kept.runtimeID, targets: [...kept.targets], waitFor: [...(kept.waitFor ?? [])] });
  }
  for (const resolved of [...runtimes].sort((a, b) => cmp(a.runtime.name, b.runtime.name))) {
    if (unchanged.has(resolved.runtime.name)) continue;
    const rendered = renderRuntime(model, resolved, extensions);
    names.push(rendered.name);
    const own: RuntimeWiring = {
      targets: TARGETS.filter((t) => rendered.targets[t].length > 0),
      waitFor: crdsOfKinds(rendered.targets['skr-config'].map((m) => m.kind), extensions),
    };
    renderedWiring.set(rendered.name, own);
    wiring.push({ name: rendered.name, runtimeID: resolved.runtime.runtimeID, targets: [...own.targets], waitFor: [...own.waitFor] });
    for (const target of TARGETS) {
      const manifests = rendered.targets[target];
      if (manifests.length === 0) continue;
      const dir = `runtimes/${rendered.name}/${target}`;
      const listed: string[] = [];
      // Derived names are unique per runtime: the extensions' rules refuse collisions (E_OUTPUT_COLLISION).
      for (const m of manifests) {
        const file = manifestFileName(m);
        listed.push(file);
        files.set(`${dir}/${file}`, manifestFile(m));
      }
      files.set(`${dir}/kustomization.yaml`, kustomizationFile([...listed].sort(cmp)));
    }
  }
  const keptGitops = new Set([...unchanged].filter(([, u]) => u.keepGitops).map(([name]) => name));
  for (const [file, content] of withGitops ? renderGitops(wiring, model.options.gitops, keptGitops, withGitops !== 'own') : []) files.set(file, gitopsFileText(file, content));
  const sorted = new Map([...files.entries()].sort(([a], [b]) => cmp(a, b)));
  return { files: sorted, runtimes: names.sort(cmp), wiring: renderedWiring };
}
