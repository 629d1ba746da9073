// A revision: a content-addressed snapshot of the fleet-wide layers (fleet.yaml, groups/*.yaml,
// rules/** and the files extensions name, such as a profile snapshot), stored under
// fleet/rollout/revisions/<id>/ in the fleet's own layout, so the loader reads it like a fleet
// folder without runtimes and a revision is reproducible from the repo alone. The id is the first
// 16 hex digits of the sha256 of its file list (`<sha256 of the bytes>  <path>` lines, sorted by
// path, as sha256sum prints them): the same layers give the same id on every machine, and a file
// edited, added or removed by hand no longer matches its folder's name.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import type { LoadedLayers } from '../load/load';
import { fsyncDir } from '../write/fsync';

export interface LayerFile {
  /** Path relative to the fleet folder, forward slashes. */
  readonly relPath: string;
  readonly bytes: Uint8Array;
}

export interface Revision {
  readonly id: string;
  /** Sorted by relPath. */
  readonly files: readonly LayerFile[];
}

/** Files of a snapshot never exceed this (a fleet file's limit is 1 MiB; rules are small). */
const MAX_REVISION_FILES = 20000;

/** The revision of the layers a load read; undefined when a file changed since it was loaded. */
export function revisionOfLayers(layers: LoadedLayers): Revision | undefined {
  const files: LayerFile[] = [];
  const docs = [...(layers.fleet ? [layers.fleet] : []), ...layers.groups];
  for (const doc of docs) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.join(layers.root, ...doc.relPath.split('/')));
    } catch {
      return undefined;
    }
    if (sha256(bytes) !== doc.digest) return undefined;
    files.push({ relPath: doc.relPath, bytes });
  }
  for (const f of layers.files.values()) files.push({ relPath: f.relPath, bytes: f.bytes });
  return revisionOf(files);
}

export function revisionOf(files: readonly LayerFile[]): Revision {
  const sorted = [...files].sort((a, b) => cmp(a.relPath, b.relPath));
  return { id: sha256(manifestText(sorted)).slice(0, 16), files: sorted };
}

/** `<sha256>  <relPath>` per file, sorted by path. */
export function manifestText(files: readonly LayerFile[]): string {
  return files.map((f) => `${sha256(f.bytes)}  ${f.relPath}\n`).join('');
}

/** The paths whose content differs between two revisions (added, removed or changed), sorted. */
export function changedPaths(a: Revision, b: Revision): string[] {
  const digests = (r: Revision) => new Map(r.files.map((f) => [f.relPath, sha256(f.bytes)]));
  const da = digests(a);
  const db = digests(b);
  const out = new Set<string>();
  for (const [p, d] of da) if (db.get(p) !== d) out.add(p);
  for (const p of db.keys()) if (!da.has(p)) out.add(p);
  return [...out].sort(cmp);
}

/**
 * The files of a stored revision folder. A problem (a symlink, a folder that cannot be read, too
 * many files) is a string; the caller compares the id with the folder name.
 */
export function readRevisionFolder(dir: string): Revision | string {
  const files: LayerFile[] = [];
  const walk = (abs: string, rel: string): string | undefined => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      return `cannot read ${rel || '.'} (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
    }
    for (const entry of entries.sort((a, b) => cmp(a.name, b.name))) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const child = path.join(abs, entry.name);
      if (entry.isDirectory()) {
        const problem = walk(child, childRel);
        if (problem) return problem;
      } else if (entry.isFile()) {
        if (files.length >= MAX_REVISION_FILES) return `more than ${MAX_REVISION_FILES} files`;
        files.push({ relPath: childRel, bytes: fs.readFileSync(child) });
      } else return `${childRel} is not a regular file (kyma-fleet writes no links)`;
    }
    return undefined;
  };
  const problem = walk(dir, '');
  return problem ?? revisionOf(files);
}

/**
 * Stores a revision under `revisionsDir/<id>/` unless it is there: written into a temporary
 * folder beside it, each file fsynced, then renamed into place, so a killed run leaves either
 * no folder of that name or the whole one (plus, at worst, a temporary folder the next run removes).
 */
export function storeRevision(revisionsDir: string, revision: Revision, step: (what: string) => void = () => {}): void {
  const target = path.join(revisionsDir, revision.id);
  if (fs.existsSync(target)) return;
  fs.mkdirSync(revisionsDir, { recursive: true });
  const tmp = path.join(revisionsDir, `.tmp-${revision.id}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const folders = new Set<string>();
    for (const f of revision.files) {
      const abs = path.join(tmp, ...f.relPath.split('/'));
      const dir = path.dirname(abs);
      if (!folders.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        folders.add(dir);
      }
      const fd = fs.openSync(abs, 'wx', 0o644);
      try {
        for (let off = 0; off < f.bytes.length; ) off += fs.writeSync(fd, f.bytes, off);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      step(`revision file ${f.relPath} written`);
    }
    for (const dir of [...folders].sort((a, b) => b.length - a.length)) fsyncDir(dir);
    fsyncDir(tmp);
    step('revision folder complete');
    fs.renameSync(tmp, target);
    fsyncDir(revisionsDir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
