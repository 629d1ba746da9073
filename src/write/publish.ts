// Steps 5-7 of a write (docs/architecture.md, "Writing dist/"): plan the renames that produce the
// new tree (build: unchanged entries move into the staging tree; patch: few changes swap into the
// old tree), write the index and the journal, make everything durable, then swap the new tree in
// with a rename (the commit point) and tidy up.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { type DistIndex, INDEX_FILE, indexLine, IndexTextBuilder, type IndexView } from '../lib/dist-index';
import { lexists } from '../lib/fs-exists';
import { writeNewFile } from './files';
import { fsyncDir, fsyncFile } from './fsync';
import { type CrashPoints, doOps, JOURNAL, type Journal, type Moves, movesToOps, type Op, rootsOf, undoOps } from './journal';
import type { Names } from './paths';
import { discard } from './recover';
import { withPath } from './result';

/** The marker written into the tmp folder (beside tree/) once the new tree is complete and fsynced. */
const COMPLETE_MARKER = '.complete';

/**
 * How the new tree is put together. `build`: the staging tree gets every folder, the unchanged
 * entries of dist/ are moved into it, and it becomes dist/. `patch` (few changes in a large tree):
 * dist/ (renamed away) gets the changed entries swapped in and the removed ones moved out, and
 * becomes dist/ again. Either way dist/ is missing only between two renames, and the journal of
 * renames lets recovery roll a killed run back.
 */
export type Plan = { readonly mode: 'build'; readonly moves: Moves; readonly dirs: readonly string[] } | { readonly mode: 'patch'; readonly ops: readonly Op[] };

export function publish(names: Names, id: string, plan: Plan, written: readonly string[], indexText: readonly string[], hadOld: boolean, steps: CrashPoints): void {
  const tmp = names.at('tmp', id);
  const old = names.at('old', id);
  const roots = rootsOf(old, tmp);
  const treeDir = roots.tree;
  const ops: readonly Op[] = plan.mode === 'build' ? movesToOps(plan.moves) : plan.ops;
  try {
    if (plan.mode === 'build') {
      // A folder is inside a moved folder when it or one of its ancestors is one (O(depth), not O(moves)).
      const movedDirs = new Set(plan.moves.dirs);
      const movedDir = (d: string): boolean => {
        for (let p = d; p !== '' && p !== '.'; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (movedDirs.has(p)) return true;
        return false;
      };
      // Folders of the new tree that no written file created and no moved folder brings along.
      for (const d of plan.dirs) if (!movedDir(d) && !lexists(path.join(treeDir, d))) fs.mkdirSync(path.join(treeDir, d));
    }
    writeNewFile(path.join(treeDir, INDEX_FILE), indexText);
    steps.tick();
    writeNewFile(path.join(tmp, JOURNAL), JSON.stringify({ ops } satisfies Journal));
    makeDurable(tmp, treeDir, written, plan.mode === 'build' ? plan.dirs : []);
    writeNewFile(path.join(tmp, COMPLETE_MARKER), '');
    fsyncDir(tmp);
    steps.tick();
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  // The tree that becomes dist/ at the commit point.
  const next = plan.mode === 'build' ? treeDir : old;
  try {
    if (hadOld) {
      fs.renameSync(names.outDir, old);
      steps.tick();
      try {
        doOps(roots, ops, steps);
      } catch (e) {
        fs.renameSync(old, names.outDir);
        throw e;
      }
    }
    try {
      fs.renameSync(next, names.outDir); // the commit point
    } catch (e) {
      if (hadOld) {
        try {
          undoOps(roots, ops);
          if (plan.mode === 'build') fs.renameSync(old, names.outDir);
          else if (!lexists(names.outDir)) fs.renameSync(old, names.outDir);
        } catch {
          throw Object.assign(e as Error, { stranded: old }); // the next run's recovery moves it back
        }
      }
      throw e;
    }
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  // Tidying: the new tree is in place, so nothing below may report failure; whatever is left
  // here, the next run's recovery deletes.
  try {
    fsyncDir(names.parent);
    steps.tick();
    fs.rmSync(tmp, { recursive: true, force: true });
    steps.tick();
    if (hadOld && plan.mode === 'build') discard(names, old);
  } catch {
    // left for recovery
  }
}

/**
 * The renames that turn dist/ (renamed to old) into the new tree: removed and changed entries go
 * to the trash first (a folder the new tree does not have goes as a whole), then written entries
 * come in from the staging tree (a folder dist/ does not have comes as a whole), then the index.
 * Entries in `kept` ranges (and folders the walk found inside kept folders) stay where they are.
 */
export function patchOps(
  previous: IndexView,
  kept: ReadonlyArray<readonly [number, number]>,
  keptFolders: ReadonlySet<string>,
  hashes: ReadonlyMap<string, string>,
  /** Whether the new tree has the folder (a parent of an added file or of a kept entry). */
  inNew: (dir: string) => boolean,
  written: readonly string[],
  strayDirs: readonly string[],
): Op[] {
  /** The highest ancestor of rel (or rel) that `has` says is missing, below one it has. */
  const topmostMissing = (rel: string, has: (dir: string) => boolean): string => {
    let top = rel;
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = rel.slice(0, i);
      if (has(d)) break;
      top = d;
    }
    return top;
  };
  const inOld = (d: string): boolean => previous.hasFolder(d);
  const ops: Op[] = [];
  const seen = new Set<string>();
  const once = (op: Op): void => {
    const key = `${op[0]}\0${op[1]}`;
    if (!seen.has(key)) {
      seen.add(key);
      ops.push(op);
    }
  };
  // Old entries outside the kept ranges that the new tree does not have.
  let next = 0;
  for (const [from, to] of [...kept, [previous.size, previous.size] as const]) {
    for (let i = next; i < from; i++) {
      const rel = previous.relAt(i);
      if (hashes.has(rel)) continue;
      const top = topmostMissing(rel, inNew);
      once(['old', top, 'trash', top]);
    }
    next = to;
  }
  // Folders the walk found that the new tree does not have (left empty by hand): out as well.
  const insideKept = (d: string): boolean => {
    for (let i = d.lastIndexOf('/'); i > 0; i = d.lastIndexOf('/', i - 1)) if (keptFolders.has(d.slice(0, i))) return true;
    return false;
  };
  for (const d of strayDirs) {
    if (!inNew(d) && !insideKept(d)) {
      const top = topmostMissing(d, inNew);
      once(['old', top, 'trash', top]);
    }
  }
  for (const rel of written) if (previous.find(rel) >= 0) once(['old', rel, 'trash', rel]);
  for (const rel of written) {
    const top = topmostMissing(rel, inOld);
    once(['tree', top, 'old', top]);
  }
  once(['old', INDEX_FILE, 'trash', INDEX_FILE]);
  once(['tree', INDEX_FILE, 'old', INDEX_FILE]);
  return ops;
}

/**
 * Every file the new tree has with the same bytes as dist/ (`same`: checked when it was added)
 * moves; so does every folder holding only such files, with one rename.
 */
export function planMoves(previous: DistIndex, hashes: ReadonlyMap<string, string>, same: ReadonlySet<string>): Moves {
  const oldCount = new Map<string, number>();
  const newCount = new Map<string, number>();
  const sameCount = new Map<string, number>();
  const count = (m: Map<string, number>, rel: string): void => {
    for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) {
      const d = rel.slice(0, i);
      m.set(d, (m.get(d) ?? 0) + 1);
    }
  };
  for (let i = 0; i < previous.view.size; i++) count(oldCount, previous.view.relAt(i));
  for (const rel of hashes.keys()) count(newCount, rel);
  for (const rel of same) count(sameCount, rel);
  const whole = (d: string): boolean => {
    const n = sameCount.get(d) ?? 0;
    return n > 0 && n === oldCount.get(d) && n === newCount.get(d);
  };
  const parentOf = (rel: string): string => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
  const dirs = [...sameCount.keys()].filter((d) => whole(d) && !(parentOf(d) !== '' && whole(parentOf(d)))).sort(cmp);
  const inMovedDir = (rel: string): boolean => {
    for (let d = parentOf(rel); d !== ''; d = parentOf(d)) if (whole(d)) return true;
    return false;
  };
  const files = [...same].filter((rel) => !inMovedDir(rel)).sort(cmp);
  return { dirs, files };
}

/**
 * The new index text, in chunks, of the added entries (`added`, sorted, hashes in `hashes`) and the
 * kept ranges of `view`: the lines of kept ranges are copied as they are, so a run that keeps 10,000
 * runtimes does not format 100,000 lines. Equal to serializeIndex of all the entries (added ones
 * never fall inside a kept range: keep() ranges are single files or whole folders, and checkKept
 * refuses an added file inside one).
 */
export function newIndexText(
  view: IndexView | undefined,
  kept: ReadonlyArray<readonly [number, number]>,
  added: readonly string[],
  hashes: ReadonlyMap<string, string>,
  inputs?: (prefixDigest: string) => string,
): ReturnType<IndexTextBuilder['finish']> {
  const b = new IndexTextBuilder();
  let a = 0;
  for (let k = 0; k < kept.length; ) {
    const from = kept[k]![0];
    let to = kept[k]![1];
    const first = view!.relAt(from);
    for (; a < added.length && added[a]! < first; a++) b.add(indexLine(added[a]!, hashes.get(added[a]!)!));
    // Ranges that meet, with no added entry between them, are copied as one piece: one changed
    // runtime of 10,000 leaves a few pieces, not 40,000 (each a string and a separator to join).
    for (k++; k < kept.length && kept[k]![0] === to && !(a < added.length && added[a]! < view!.relAt(to)); k++) to = kept[k]![1];
    b.add(view!.linesOf(from, to));
  }
  for (; a < added.length; a++) b.add(indexLine(added[a]!, hashes.get(added[a]!)!));
  return b.finish(inputs);
}

/** Up to this many written files, makeDurable fsyncs them one by one instead of syncing the filesystem. */
const FSYNC_EACH_MAX = 64;

/**
 * Makes the complete new tree durable before it is swapped in, so that even a power cut cannot
 * publish empty files. A killed process needs none of this (the page cache survives it). For a
 * large write one syncfs of the filesystem (`sync -f`, Linux) costs a few milliseconds where an
 * fsync per file costs seconds; for a few files (one runtime changed) an fsync each is cheaper than
 * starting `sync`, and does not wait for what other programs left dirty on the same filesystem.
 * Elsewhere every file and folder is fsynced.
 */
function makeDurable(tmp: string, treeDir: string, written: readonly string[], dirs: readonly string[]): void {
  if (process.platform === 'linux' && written.length > FSYNC_EACH_MAX) {
    const r = spawnSync('sync', ['-f', treeDir], { stdio: 'ignore', timeout: 120_000 });
    if (r.status === 0) return;
  }
  for (const rel of [...written, INDEX_FILE]) {
    const file = path.join(treeDir, rel);
    if (lexists(file)) withPath(file, () => fsyncFile(file));
  }
  // The folders of the new tree, deepest first: the given ones, else those holding written files.
  const folders = new Set(dirs);
  if (folders.size === 0) for (const rel of written) for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) folders.add(rel.slice(0, i));
  for (const d of [...folders].sort(cmp).reverse()) {
    const dir = path.join(treeDir, d);
    if (lexists(dir)) fsyncDir(dir);
  }
  fsyncDir(treeDir);
  fsyncFile(path.join(tmp, JOURNAL));
}
