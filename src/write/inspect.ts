// Step 2 of a write (docs/architecture.md, "Writing dist/"): what the existing dist/ is. A symlink,
// a file, a folder without kyma-fleet's index or one holding files the index does not list is
// refused; otherwise its index, files and folders are what the new tree is planned against. A scan
// of dist/ made earlier in the run against this very index (./tree-scan.ts) stands for the walk.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { type DistIndex, INDEX_FILE, isCode, type KnownIndex, loadIndex } from '../lib/dist-index';
import type { Names } from './paths';
import type { Problem } from './problem';
import { type TreeScan, walkTree } from './tree-scan';

const MAX_LISTED = 20;

export type Existing =
  | { kind: 'missing' }
  | { kind: 'empty' } // an empty folder without index
  | { kind: 'tree'; index: DistIndex; indexText: string; files: number; /** The folders found, but trusted ones. */ dirs: string[] };

export function inspect(names: Names, trustedDirs: ReadonlySet<string> = new Set(), known?: KnownIndex, scanned?: TreeScan): Existing | Problem {
  const { outDir, display } = names;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(outDir);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return { kind: 'missing' };
    throw e;
  }
  if (st.isSymbolicLink()) {
    return {
      code: 'E_DIST_SYMLINK',
      message: `${display} is a symlink (to ${fs.readlinkSync(outDir)}); kyma-fleet never writes through a symlink: replace it with a folder`,
      paths: [outDir],
    };
  }
  if (!st.isDirectory()) {
    return { code: 'E_DIST_NOT_DIR', message: `${display} exists but is not a folder; move it away`, paths: [outDir] };
  }
  const read = loadIndex(outDir, known);
  const fromScan = scanned !== undefined && read.kind === 'ok' && read.text === scanned.indexText && trustedDirs.size === 0;
  const { files, dirs, others } = fromScan ? { files: [], dirs: scanned.dirs, others: scanned.others } : walk(outDir, trustedDirs);
  if (read.kind === 'invalid') {
    return { code: 'E_DIST_INDEX', message: `${display}${read.reason}; move ${display} away or empty it`, paths: [path.join(outDir, INDEX_FILE)] };
  }
  if (read.kind === 'missing') {
    if (files.length + dirs.length + others.length === 0) return { kind: 'empty' };
    return {
      code: 'E_DIST_NOT_OWNED',
      message: `${display} was not written by kyma-fleet (no ${INDEX_FILE}); move it away or empty it`,
      paths: [outDir],
    };
  }
  // Both lists are sorted: one merge finds the files the index does not list.
  const view = read.index.view;
  let j = 0;
  const owned = (rel: string): boolean => {
    if (rel === INDEX_FILE) return true;
    while (j < view.size && view.relAt(j) < rel) j++;
    return j < view.size && view.relAt(j) === rel;
  };
  const special = new Set(others);
  const foreign = [...(fromScan ? scanned.foreign : files.filter((rel) => !owned(rel))), ...others].sort(cmp);
  if (foreign.length > 0) {
    const shown = foreign
      .slice(0, MAX_LISTED)
      .map((rel) => display + rel + (special.has(rel) ? ' (symlink or special file)' : ''));
    const more = foreign.length > MAX_LISTED ? ` and ${foreign.length - MAX_LISTED} more` : '';
    return {
      code: 'E_DIST_FOREIGN',
      message: `${display} holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} kyma-fleet did not write (not in ${INDEX_FILE}): ${shown.join(', ')}${more}; move them out of ${display}`,
      paths: foreign.map((rel) => display + rel),
    };
  }
  return { kind: 'tree', index: read.index, indexText: read.text, files: fromScan ? scanned.files : files.length, dirs };
}

/** Lists a folder without following symlinks: regular files, folders, and everything else. */
function walk(root: string, trustedDirs: ReadonlySet<string>): { files: string[]; dirs: string[]; others: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const others: string[] = [];
  walkTree(root, '', {
    // A trusted folder is kept whole (every file of it reused): neither listed nor looked into.
    dir: (rel) => {
      if (trustedDirs.has(rel)) return false;
      dirs.push(rel);
      return true;
    },
    file: (rel) => void files.push(rel),
    other: (rel) => void others.push(rel),
  });
  return { files: files.sort(cmp), dirs: dirs.sort(cmp), others };
}
