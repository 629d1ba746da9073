// Names and paths around dist/: the checks of a relPath of the new tree, the folders paths need,
// and the siblings of outDir (the lock, `.dist.tmp-<id>` staging trees, `.dist.old-<id>` old trees).

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEX_FILE } from '../lib/dist-index';

/** A backslash or NUL anywhere, or an empty, `.` or `..` segment. */
const BAD_PATH = /[\\\0]|(?:^|\/)\.{0,2}(?:\/|$)/;

export function checkPath(rel: string): void {
  if (typeof rel !== 'string' || rel === INDEX_FILE || BAD_PATH.test(rel)) throw new Error(`writeDist: invalid output path ${JSON.stringify(rel)}`);
}

/** Every folder the paths need (their parents, grandparents...). */
export function dirsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const rel of paths) {
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = rel.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}

export interface Names {
  outDir: string;
  parent: string;
  display: string; // `dist/`
  lock: string;
  isTmp: (name: string) => boolean;
  isOld: (name: string) => boolean;
  fresh: (kind: 'tmp' | 'old') => string;
  /** A new `<pid>-<rand>` id; the tmp and old trees of one run share it. */
  freshId: () => string;
  at: (kind: 'tmp' | 'old', id: string) => string;
  /** The id of a tmp or old sibling name. */
  idOf: (name: string) => string;
}

export function siblingNames(outDir: string): Names {
  if (typeof outDir !== 'string' || !path.isAbsolute(outDir)) {
    throw new Error(`writeDist: outDir must be an absolute path, got ${JSON.stringify(outDir)}`);
  }
  const resolved = path.resolve(outDir);
  const parent = path.dirname(resolved);
  const base = path.basename(resolved);
  if (base === '' || resolved === parent) throw new Error(`writeDist: outDir cannot be ${JSON.stringify(outDir)}`);
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = (kind: string) => new RegExp(`^\\.${escaped}\\.${kind}-\\d+-[0-9a-f]{8}$`);
  const tmp = pattern('tmp');
  const old = pattern('old');
  return {
    outDir: resolved,
    parent,
    display: `${base}/`,
    lock: `${resolved}.lock`,
    isTmp: (n) => tmp.test(n),
    isOld: (n) => old.test(n),
    fresh: (kind) => path.join(parent, `.${base}.${kind}-${process.pid}-${randomBytes(4).toString('hex')}`),
    freshId: () => `${process.pid}-${randomBytes(4).toString('hex')}`,
    at: (kind, id) => path.join(parent, `.${base}.${kind}-${id}`),
    idOf: (name) => name.slice(name.lastIndexOf('.') + 1).replace(/^(tmp|old)-/, ''),
  };
}

/**
 * Removes the folders from `made` down to `parent` that openDist created, when they are empty again
 * (a session that never published: synth --check, diff, a refused or failed write), deepest first.
 */
export function removeMadeFolders(parent: string, made: string | undefined): void {
  if (made === undefined) return;
  for (let d = parent; ; d = path.dirname(d)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return; // not empty (dist/ is in it), or gone
    }
    if (d === made || path.dirname(d) === d) return;
  }
}
