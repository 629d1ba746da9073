// What a synth would change in dist/: added, removed and changed files with unified diffs, as
// text for a terminal and JSON for tools (Markdown for a pull request comment: markdown-diff.ts). Pure.

import { cmp } from '../lib/diagnostics';

export interface TreeDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** Unified diff per added, removed or changed file. */
  readonly patches: ReadonlyMap<string, string>;
  /** Runtimes whose folder appears, disappears, or changes. */
  readonly runtimes: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly string[] };
  /**
   * Every runtime of dist/ before or after (what owns a file), and for each runtime the change
   * touches the names of its objects in kcp/ and garden/ (its Runtime CR is named by the runtime ID,
   * its Shoot by the Shoot name), in the order found: what sets one runtime's files apart from
   * another's, so that the same change reads the same. Empty when nothing changed.
   */
  readonly identifiers: ReadonlyMap<string, readonly string[]>;
  /**
   * The text before and after of every added, changed or removed manifest in a runtime's target
   * folders (kustomization.yaml aside): what the consequences of the change are read from
   * (consequences.ts). Absent before: the file is added; absent after: removed.
   */
  readonly manifests: ReadonlyMap<string, { readonly before?: string; readonly after?: string }>;
}

// runtimes/<name>/kcp|garden/<kind>-<object name>.yaml (manifestFileName in render-fleet.ts).
const OBJECT_FILE = /^runtimes\/([^/]+)\/(?:kcp|garden)\/[a-z0-9]+-(.+)\.yaml$/;
/** A manifest applied to a cluster: runtimes/<name>/<target>/<kind>-<name>.yaml (not the kustomization.yaml). */
const MANIFEST_FILE = /^runtimes\/[^/]+\/(?:skr|skr-config|kcp|garden)\/(?!kustomization\.yaml$)[^/]+\.yaml$/;

/**
 * The runtimes with a file among `files`; with `identifiers`, each is entered there, with the names of
 * its objects when it is one of `named` (those that own a changed file: 10,000 runtimes' names were
 * 68 ms of a check that changes one).
 */
function runtimesIn(files: Iterable<string>, identifiers?: Map<string, string[]>, named?: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  // Files come folder by folder: the runtime of the last file is looked up once per folder.
  let last: string | undefined;
  let ids: string[] | undefined;
  for (const f of files) {
    if (!f.startsWith('runtimes/')) continue;
    const slash = f.indexOf('/', 9);
    if (slash <= 9) continue;
    if (last === undefined || !(f.startsWith(last) && f.charCodeAt(last.length) === 0x2f)) {
      last = f.slice(0, slash);
      const r = last.slice(9);
      out.add(r);
      if (identifiers !== undefined) {
        ids = identifiers.get(r);
        if (ids === undefined) identifiers.set(r, (ids = []));
        if (named !== undefined && !named.has(r)) ids = undefined;
      }
    }
    if (ids === undefined || !f.endsWith('.yaml') || !(f.startsWith('/kcp/', slash) || f.startsWith('/garden/', slash))) continue;
    const object = OBJECT_FILE.exec(f)?.[2];
    if (object !== undefined && !ids.includes(object)) ids.push(object);
  }
  return out;
}

/**
 * The names a runtime that owns `file` outside the runtime folders could have (a runtime's own GitOps
 * file: gitops/flux/shards/<id>/<name>-<target>.yaml, gitops/argocd/shards/<id>/<name>.json): the
 * file's name without its extension, and each prefix of it that ends before a dash, longest first.
 */
export function ownerNames(file: string): string[] {
  const base = file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
  const out: string[] = [];
  for (let end = base.length; end > 0; end = base.lastIndexOf('-', end - 1)) out.push(base.slice(0, end));
  return out;
}

/** Every runtime that can own one of `files` (markdown-diff.ts ownerOf): those of its runtime folders, and the ownerNames of the others. */
function ownersAmong(files: readonly string[], inFolders: ReadonlySet<string>): Set<string> {
  const out = new Set(inFolders);
  for (const f of files) if (!f.startsWith('runtimes/')) for (const name of ownerNames(f)) out.add(name);
  return out;
}

/** The changes between two trees held in memory (relPath -> text). */
export function diffTrees(current: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>): TreeDiff {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [file, content] of next) {
    const old = current.get(file);
    if (old === undefined) added.push(file);
    else if (old !== content) changed.push(file);
  }
  for (const file of current.keys()) if (!next.has(file)) removed.push(file);
  return diffOfChanges({ added, changed, removed, before: current.keys(), after: next.keys() }, (f) => current.get(f) ?? '', (f) => next.get(f) ?? '');
}

/** What changed, as lists, and every file before and after. */
export interface Changes {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  readonly before: Iterable<string>;
  readonly after: Iterable<string>;
}

/**
 * The diff of known changes: only the touched files' texts are asked for (`oldText` of changed
 * and removed files, `newText` of added and changed ones), so a fleet of 100,000 files with two
 * changes reads four.
 */
export function diffOfChanges(c: Changes, oldText: (file: string) => string, newText: (file: string) => string): TreeDiff {
  const patches = new Map<string, string>();
  // git-style headers: no "===" separator line, no tab after the file names.
  // The diff package loads on first use: synth imports this module but only --check and diff need patches.
  const patch = (file: string, before: string, after: string): string =>
    (require('diff') as typeof import('diff')).createTwoFilesPatch(before === '' ? '/dev/null' : `a/${file}`, after === '' ? '/dev/null' : `b/${file}`, before, after, undefined, undefined, { context: 3 })
      .replace(/^=+\n/, '')
      .replace(/^(---|\+\+\+) (.*?)\t?$/gm, '$1 $2');
  const manifests = new Map<string, { before?: string; after?: string }>();
  const both = (file: string, before: string | undefined, after: string | undefined): void => {
    patches.set(file, patch(file, before ?? '', after ?? ''));
    if (MANIFEST_FILE.test(file)) manifests.set(file, { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) });
  };
  for (const file of c.added) both(file, undefined, newText(file));
  for (const file of c.changed) both(file, oldText(file), newText(file));
  for (const file of c.removed) both(file, oldText(file), undefined);
  // Nothing changed: no patch to group, no runtime's identifiers to mask (two lists of every file not walked).
  const anyChange = c.added.length + c.changed.length + c.removed.length > 0;
  const identifiers = new Map<string, string[]>();
  const changedFiles = [...c.added, ...c.removed, ...c.changed];
  const touchedSet = runtimesIn(changedFiles);
  const named = ownersAmong(changedFiles, touchedSet);
  const before = anyChange ? runtimesIn(c.before, identifiers, named) : new Set<string>();
  const after = anyChange ? runtimesIn(c.after, identifiers, named) : new Set<string>();
  const touched = [...touchedSet].sort(cmp);
  return {
    added: [...c.added].sort(cmp),
    removed: [...c.removed].sort(cmp),
    changed: [...c.changed].sort(cmp),
    patches: new Map([...patches].sort(([a], [b]) => cmp(a, b))),
    runtimes: {
      added: touched.filter((r) => !before.has(r)),
      removed: touched.filter((r) => !after.has(r)),
      changed: touched.filter((r) => before.has(r) && after.has(r)),
    },
    identifiers: new Map([...identifiers].sort(([a], [b]) => cmp(a, b))),
    manifests,
  };
}

export function isEmptyDiff(d: TreeDiff): boolean {
  return d.added.length + d.removed.length + d.changed.length === 0;
}

/** One line: how many files and runtimes change. */
export function diffSummary(d: TreeDiff): string {
  const r = d.runtimes;
  return `${d.added.length} added, ${d.changed.length} changed, ${d.removed.length} removed files; runtimes: ${r.added.length} new, ${r.changed.length} changed, ${r.removed.length} removed`;
}

/** The unified diff and the summary line; `beforeSummary` (lines, e.g. the consequences) goes between them. */
export function formatDiffText(d: TreeDiff, outDir: string, beforeSummary = ''): string {
  if (isEmptyDiff(d)) return `${outDir}/ is up to date\n`;
  let out = '';
  for (const p of d.patches.values()) out += p;
  return out + beforeSummary + `${diffSummary(d)}\n`;
}

export function formatDiffJson(d: TreeDiff): string {
  return JSON.stringify({ upToDate: isEmptyDiff(d), added: d.added, changed: d.changed, removed: d.removed, runtimes: d.runtimes, patches: Object.fromEntries(d.patches) }, null, 2) + '\n';
}
