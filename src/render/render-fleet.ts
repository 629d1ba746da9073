// The whole dist/ tree of a fleet as relPath -> content: every runtime's target folders with a
// kustomization.yaml each. Pure; the write stage puts it on disk atomically.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { cmp } from '../lib/diagnostics';
import type { FleetModel } from '../fleet/model';
import type { ResolvedRuntime } from '../fleet/resolve';
import { renderGitops, runtimeGitopsFiles } from './gitops';
import { type Manifest, renderRuntime, type Target, TARGETS } from './render-runtime';
import { kustomizationFile, manifestFile } from './serialize';

/** A runtime rendered earlier whose inputs did not change: its target folders are reused as they are. */
export interface UnchangedRuntime {
  readonly runtimeID: string;
  readonly targets: readonly Target[];
  /** Its own GitOps files (runtimeGitopsFiles) are not rendered: they stay as dist/ has them (the GitOps options did not change), or a part wrote them. */
  readonly keepGitops?: boolean;
}

export interface RenderedFleet {
  /** dist-relative path -> file content, sorted by path (without the files of unchanged runtimes). */
  readonly files: Map<string, string>;
  /** Runtime names rendered. */
  readonly runtimes: readonly string[];
}

/** The target folders of each runtime among dist-relative paths (runtimes/<name>/<target>/...), by runtime name. */
export function targetsByRuntime(paths: Iterable<string>): Map<string, Target[]> {
  const found = new Map<string, Set<string>>();
  for (const rel of paths) {
    const m = /^runtimes\/([^/]+)\/([^/]+)\//.exec(rel);
    if (!m) continue;
    const set = found.get(m[1]!) ?? new Set<string>();
    set.add(m[2]!);
    found.set(m[1]!, set);
  }
  return new Map([...found].map(([name, set]) => [name, TARGETS.filter((t) => set.has(t))]));
}

/** The text of a file of dist/gitops/: pretty JSON for the Argo CD generator's data, YAML otherwise. */
export function gitopsFileText(file: string, content: Record<string, unknown>): string {
  return file.endsWith('.json') ? JSON.stringify(content, null, 2) + '\n' : manifestFile(content);
}

/**
 * The GitOps files of these runtimes alone (runtimeGitopsFiles: their Flux Kustomizations, their Argo
 * CD generator file), without the lists of every runtime. A part renders them for its runtimes.
 */
export function ownGitopsFiles(model: FleetModel, wiring: ReadonlyArray<{ name: string; runtimeID: string; targets: Target[] }>): Array<[string, string]> {
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
  const wiring: Array<{ name: string; runtimeID: string; targets: Target[] }> = [];
  for (const [name, kept] of unchanged) {
    names.push(name);
    wiring.push({ name, runtimeID: kept.runtimeID, targets: [...kept.targets] });
  }
  for (const resolved of [...runtimes].sort((a, b) => cmp(a.runtime.name, b.runtime.name))) {
    if (unchanged.has(resolved.runtime.name)) continue;
    const rendered = renderRuntime(model, resolved, extensions);
    names.push(rendered.name);
    wiring.push({ name: rendered.name, runtimeID: resolved.runtime.runtimeID, targets: TARGETS.filter((t) => rendered.targets[t].length > 0) });
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
  return { files: sorted, runtimes: names.sort(cmp) };
}
