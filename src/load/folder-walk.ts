// The folder walking of the loader (./load.ts): which names are editor litter, listing a folder
// sorted, looking names up without listing, walking rules/ with limits on depth and count, and the
// containment test that refuses paths leaving the fleet folder. File system reads only, no parsing.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { fileStamp } from '../lib/file-stamp';

/** Files that editors and operating systems leave behind; silently skipped. */
export function isLitter(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.endsWith('~') ||
    name.endsWith('.swp') ||
    name.endsWith('.swo') ||
    name.endsWith('.bak') ||
    name.endsWith('.orig') ||
    name.startsWith('#') ||
    name === 'Thumbs.db'
  );
}

const MAX_AUX_FILES = 10000;
const MAX_AUX_DEPTH = 16;

export function specOf(data: unknown): Record<string, unknown> {
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const spec = (data as Record<string, unknown>).spec;
    if (spec && typeof spec === 'object' && !Array.isArray(spec)) return spec as Record<string, unknown>;
  }
  return {};
}

export function listFolder(
  dir: string,
  problem: (code: string, abs: string, message: string, severity?: 'error' | 'warning') => void,
): fs.Dirent[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problem('E_READ', dir, `cannot read folder (${code})`);
    return [];
  }
  return entries.sort((a, b) => cmp(a.name, b.name));
}

/**
 * A folder as listFolder lists it, each regular file with its fileStamp: taken by another thread
 * (a warm worker, src/run/plan.ts) while the run reads its record, so that the loader neither lists
 * runtimes/ nor looks at its 10,000 files itself. `dir` is the folder's real path.
 */
export interface StampedListing {
  readonly dir: string;
  readonly names: string[];
  /** Per name: 'f' a regular file, 'd' a folder, 'o' anything else (as readdir's types say, links not followed). */
  readonly kinds: string;
  /** Per name: the regular file's fileStamp, '' when it has none (not settled at runStart). */
  readonly stamps: string[];
}

/** `runtimes/` of the fleet folder `fleetDir` listed and stamped; undefined when it cannot be (the loader then lists it and says why). */
export function listStamped(fleetDir: string, runStart: number): StampedListing | undefined {
  let dir: string;
  let entries: fs.Dirent[];
  try {
    dir = path.join(fs.realpathSync(fleetDir), 'runtimes');
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  entries.sort((a, b) => cmp(a.name, b.name));
  const names: string[] = [];
  const stamps: string[] = [];
  let kinds = '';
  const prefix = dir + path.sep;
  for (const e of entries) {
    names.push(e.name);
    const kind = e.isFile() ? 'f' : e.isDirectory() ? 'd' : 'o';
    kinds += kind;
    const st = kind === 'f' && !isLitter(e.name) ? fs.lstatSync(prefix + e.name, { throwIfNoEntry: false }) : undefined;
    stamps.push((st && fileStamp(st, runStart)) ?? '');
  }
  return { dir, names, kinds, stamps };
}

/** A StampedListing's entries, typed like readdir's. */
export function listedEntries(listing: StampedListing): Array<{ name: string; isFile(): boolean; isDirectory(): boolean }> {
  return listing.names.map((name, i) => new ListedEntry(name, listing.kinds.charCodeAt(i)));
}

const FILE = 'f'.charCodeAt(0);
const FOLDER = 'd'.charCodeAt(0);

class ListedEntry {
  constructor(
    readonly name: string,
    private readonly kind: number,
  ) {}

  isFile(): boolean {
    return this.kind === FILE;
  }

  isDirectory(): boolean {
    return this.kind === FOLDER;
  }
}

/** Entries of `dir` by name, typed like readdir's (a name that vanished is left out). */
export function namedEntries(dir: string, names: readonly string[]): Array<{ name: string; isFile(): boolean; isDirectory(): boolean }> {
  const out: Array<{ name: string; isFile(): boolean; isDirectory(): boolean }> = [];
  for (const name of [...names].sort(cmp)) {
    if (name.includes('/') || name.includes(path.sep) || name === '.' || name === '..') continue;
    try {
      const st = fs.lstatSync(path.join(dir, name));
      out.push({ name, isFile: () => st.isFile(), isDirectory: () => st.isDirectory() });
    } catch {
      // gone since the listing: nothing to load
    }
  }
  return out;
}

export function walkAux(
  dir: string,
  depth: number,
  add: (abs: string) => void,
  problem: (code: string, abs: string, message: string, severity?: 'error' | 'warning') => void,
  counter = { n: 0 },
): void {
  if (depth > MAX_AUX_DEPTH) {
    problem('E_TOO_DEEP', dir, `folders nested deeper than ${MAX_AUX_DEPTH} levels are not read`);
    return;
  }
  for (const entry of listFolder(dir, problem)) {
    if (entry.name.startsWith('.')) continue;
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) walkAux(abs, depth + 1, add, problem, counter);
    else if (entry.isFile() || entry.isSymbolicLink()) {
      if (++counter.n > MAX_AUX_FILES) {
        if (counter.n === MAX_AUX_FILES + 1) problem('E_TOO_MANY', dir, `more than ${MAX_AUX_FILES} files under rules/`);
        continue;
      }
      add(abs);
    }
  }
}

/** True when `child` is `parent` or below it (path.relative containment; never a string prefix test). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}
