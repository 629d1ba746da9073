// The keep stage of synth (./synth.ts): what the write keeps of dist/ as it is, because the run
// record says these runtimes' inputs are those of the run that wrote it: their folders, their own
// GitOps files and the GitOps lists, as whole folders of dist/'s index or (the same runtimes as
// that run) all of it but what is rendered anew. Pure: the session checks the index is that run's.

import { type GitopsOptions, gitopsListFiles, runtimeGitopsFileCount, runtimeGitopsFiles } from '../gitops/gitops';
import { type IndexView, parseIndex } from '../lib/dist-index';
import type { UnchangedRuntime } from '../render/render-fleet';
import type { RunPlan } from './plan';
import { sameWiring } from './record';
import type { Rendered, RuntimeEntry } from './stages';

/** What the write keeps of dist/ as it is: runtime folders, their own GitOps files, and the GitOps lists. */
export interface Keeping {
  readonly folders: string[];
  readonly files: string[];
  /** Or, with the same runtimes and GitOps options as the run that wrote dist/: all of these folders of it but `except`. */
  readonly allBut?: {
    readonly folders: readonly string[];
    readonly except: readonly string[];
    /** The folders of the GitOps lists that hold no path of `except`: kept whole, like the kept runtimes' folders. */
    readonly wholeDirs: readonly string[];
  };
  /** Runtimes whose folders are not rendered in this thread, for the GitOps wiring (with allBut, only those not kept). */
  readonly unchanged: Map<string, UnchangedRuntime>;
  readonly lists: boolean;
}

/**
 * The keep stage: kept runtimes' folders stay as dist/'s index lists them (the index of the run that
 * rendered them); their own GitOps files too, while the GitOps options are the same. Undefined when
 * the record does not describe dist/ (a kept folder or GitOps file is not in it). With the runtimes,
 * their targets and the GitOps options of that run, everything but what is rendered anew (keepAllBut).
 */
export function keep(rendered: Rendered, planned: RunPlan): Keeping | undefined {
  const { model, entries } = rendered;
  const { trusted } = planned;
  const anyKept = entries.some((e) => e.kept);
  const previousView: IndexView | undefined = anyKept && planned.index ? parseIndex(planned.index.text, { ours: trusted !== undefined })?.view : undefined;
  const gitopsJson = JSON.stringify(model.options.gitops);
  const sameGitops = trusted?.gitops === gitopsJson;
  const listed = (rel: string): boolean => previousView!.find(rel) >= 0;
  const allBut = previousView && sameGitops && sameWiring(entries, trusted!) ? keepAllBut(entries, model.options.gitops, previousView) : undefined;
  if (allBut) return allBut;
  const unchanged = new Map<string, UnchangedRuntime>();
  const folders: string[] = [];
  const files: string[] = [];
  // Folders first, then GitOps files: the index is searched region by region, in order.
  for (const e of entries) {
    if (!e.kept) continue;
    const folder = `runtimes/${e.record.identity.name}`;
    if (!previousView?.hasFolder(folder)) return undefined;
    folders.push(folder);
  }
  for (const e of entries) {
    const { name, runtimeID } = e.record.identity;
    if (!e.kept) {
      unchanged.set(name, { runtimeID, targets: e.record.targets, waitFor: e.waitFor ?? [], keepGitops: e.gitopsStaged === true });
      continue;
    }
    const gitopsFiles = runtimeGitopsFiles({ name, runtimeID, targets: e.record.targets }, model.options.gitops);
    // Its own GitOps files stay as they are; they depend on what only its render knows (the CRDs
    // its skr-config/ needs), so where they cannot stay (other GitOps options, or not in dist/:
    // looked up below), everything is done anew.
    if (gitopsFiles.length > 0 && !sameGitops) return undefined;
    files.push(...gitopsFiles);
    unchanged.set(name, { runtimeID, targets: e.record.targets, keepGitops: gitopsFiles.length > 0 });
  }
  // The GitOps lists name every runtime and its targets: while those and the GitOps options are the
  // ones of the run that wrote dist/, the lists stay as they are (a 20,000-line list not rebuilt).
  const listFiles = gitopsListFiles(entries.map((e) => e.record.identity), model.options.gitops);
  const lists = previousView !== undefined && sameGitops && sameWiring(entries, trusted!) && listFiles.every(listed);
  if (lists) files.push(...listFiles);
  // In index order (shards first, not the runtimes' name order): each search gallops from the
  // last one, here and in the writer.
  files.sort();
  if (!files.every(listed)) return undefined;
  return { folders, files, unchanged, lists };
}

/**
 * keep() when every runtime and its targets and the GitOps options are those of the run that wrote
 * dist/ (whose index is the one planned: the session checks its digest): then dist/'s runtimes/ and
 * gitops/ are exactly what this run renders, but for the folders and own GitOps files of the runtimes
 * rendered anew, which are cut out of the kept ranges: no kept runtime named one by one (and its
 * GitOps files named and sorted: 30,000 at 10,000 runtimes). The index is checked to list exactly
 * these runtimes' folders and as many GitOps files as they and the lists make (undefined otherwise:
 * keep() then looks at each). The GitOps lists stay; only the runtimes rendered anew are named for
 * the wiring ('own' renders only theirs).
 */
function keepAllBut(entries: readonly RuntimeEntry[], gitops: GitopsOptions, view: IndexView): Keeping | undefined {
  if (!listsExactly(view, new Set(entries.map((e) => e.record.identity.name)))) return undefined;
  const lists = gitopsListFiles(entries.map((e) => e.record.identity), gitops);
  let gitopsFiles = lists.length;
  for (const e of entries) gitopsFiles += runtimeGitopsFileCount(e.record, gitops);
  const [from, to] = view.folder('gitops');
  if (to - from !== gitopsFiles || !lists.every((rel) => view.find(rel) >= 0)) return undefined;
  const unchanged = new Map<string, UnchangedRuntime>();
  const except: string[] = [];
  for (const e of entries) {
    if (e.kept) continue;
    const { name, runtimeID } = e.record.identity;
    unchanged.set(name, { runtimeID, targets: e.record.targets, waitFor: e.waitFor ?? [], keepGitops: e.gitopsStaged === true });
    except.push(`runtimes/${name}`, ...runtimeGitopsFiles({ name, runtimeID, targets: e.record.targets }, gitops));
  }
  const holding = new Set<string>();
  for (const rel of except) for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) holding.add(rel.slice(0, i));
  const wholeDirs = [...new Set(lists.map((rel) => rel.slice(0, rel.lastIndexOf('/'))))].filter((d) => !holding.has(d));
  return { folders: [], files: [], allBut: { folders: ['gitops', 'runtimes'], except, wholeDirs }, unchanged, lists: true };
}

/** True when the folders of runtimes/ that the index lists are exactly those of these runtimes (one pass over its entries). */
function listsExactly(view: IndexView, names: ReadonlySet<string>): boolean {
  const [from, to] = view.folder('runtimes');
  let folders = 0;
  let inside = '';
  for (let i = from; i < to; i++) {
    const rel = view.relAt(i);
    // The index is sorted: a folder's entries are next to each other.
    if (inside !== '' && rel.startsWith(inside)) continue;
    const slash = rel.indexOf('/', 'runtimes/'.length);
    if (slash < 0 || !names.has(rel.slice('runtimes/'.length, slash))) return false;
    inside = rel.slice(0, slash + 1);
    folders++;
  }
  return folders === names.size;
}
