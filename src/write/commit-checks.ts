// What a session's commit checks of the tree it holds (./session.ts): the entries kept from dist/'s
// index as ranges of it, against the files the session adds, and whether dist/ already is the new
// tree. Pure.

import type { IndexView } from '../lib/dist-index';
import { indexParts, VERSION_END } from '../lib/index-text';
import type { Existing } from './inspect';

/** Ranges [from, to) of an index view. */
export type KeptRanges = ReadonlyArray<readonly [number, number]>;

/**
 * The kept ranges in order (sorted in place), after checking that none overlaps another and that no
 * added or reused file (`added`) lies among them, is a folder of them, or sits below a kept file or
 * inside a kept folder (caller bugs).
 */
export function checkKept(kept: Array<readonly [number, number]>, view: IndexView | undefined, added: Iterable<string>, keptFolders: ReadonlySet<string>): KeptRanges {
  kept.sort((a, b) => a[0] - b[0]);
  if (kept.length === 0 || !view) return kept;
  for (let i = 1; i < kept.length; i++) {
    if (kept[i]![0] < kept[i - 1]![1]) throw new Error(`writeDist: ${JSON.stringify(view.relAt(kept[i]![0]))} is kept twice`);
  }
  const isKept = (rel: string): boolean => {
    const i = view.find(rel);
    return i >= 0 && keptWithin(kept, i, i + 1);
  };
  for (const rel of added) {
    if (isKept(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
    const [from, to] = view.folder(rel);
    if (from < to && keptWithin(kept, from, to)) throw new Error(`writeDist: output path ${JSON.stringify(rel)} is both a file and a folder`);
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = rel.slice(0, i);
      if (keptFolders.has(d)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused (inside the kept folder ${d})`);
      if (isKept(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
    }
  }
  return kept;
}

/** True when some of the sorted kept ranges intersects [from, to). */
export function keptWithin(kept: KeptRanges, from: number, to: number): boolean {
  let lo = 0;
  let hi = kept.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (kept[mid]![1] <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < kept.length && kept[lo]![0] < to;
}

/** Index text without its inputs section (what a write without one would write for the same files). */
export function withoutInputs(text: string): string {
  const parts = indexParts(text);
  return parts && parts.inputs !== '' ? text.slice(0, parts.prefixEnd) + VERSION_END : text;
}

/** True when dist/ already is the new tree: same index, and (when the walk saw everything) the same files and folders. */
export function unchanged(indexText: string, index: { readonly chunks: readonly string[]; readonly length: number }, files: number, existing: Existing & { kind: 'tree' }, dirs: readonly string[], partialWalk: boolean): boolean {
  if (indexText.length !== index.length) return false;
  let at = 0;
  for (const chunk of index.chunks) {
    if (!indexText.startsWith(chunk, at)) return false;
    at += chunk.length;
  }
  if (partialWalk) return true; // trusted folders were not listed: the index vouches for them
  if (existing.files !== files + 1) return false;
  return existing.dirs.length === dirs.length && existing.dirs.every((d, i) => d === dirs[i]);
}

/** Two sorted lists of distinct strings as one sorted list. */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (a.length === 0) return [...b];
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
