// A digest of the program itself (package version plus the compiled code of src/, charts/ and
// imports/), so caches written by another build of kyma-fleet are never trusted. Read once per
// process (about 240 files), or taken from the run record while every file has the stamp it had.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileStamp } from './file-stamp';
import { packageVersion } from './version';

let key: string | undefined;
/** Digest of the program files' names and stamps (./file-stamp.ts) when every one was settled, with the key. */
let files: string | undefined;

/** What an earlier process found: the key, and the digest of the stamps of the files it was made from. */
export interface CodeKeyRecord {
  readonly key: string;
  readonly files: string;
}

/** The roots of the program: src/ (this file's parent's parent), and charts/ and imports/ beside it. */
function roots(): string[] {
  let src = path.join(__dirname, '..');
  // Run from its TypeScript sources (vitest), the program is their compiled lib/ all the same: the
  // worker threads of a large synth run lib/ (parallel/pool.ts), and this thread must come to the
  // same key as they do or it refuses their parts. The tests build lib/ first (pretest).
  const built = path.join(__dirname, '..', '..', 'lib', 'src');
  if (__filename.endsWith('.ts') && fs.existsSync(built)) src = built;
  return [src, path.join(src, '..', 'charts'), path.join(src, '..', 'imports')];
}

/** The program's files in key order, by absolute path and name in the key. */
function programFiles(): Array<{ readonly abs: string; readonly rel: string }> {
  const out: Array<{ abs: string; rel: string }> = [];
  const visit = (dir: string, rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) visit(p, `${rel}${e.name}/`);
      else if (/\.(js|ts|json)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push({ abs: p, rel: `${rel}${e.name}` });
    }
  };
  for (const r of roots()) visit(r, `${path.basename(r)}/`);
  return out;
}

/**
 * The key of this program. With `known` (what a run record kept): when every program file has a
 * settled stamp and their digest is the known one, the files are those the known key was made from,
 * and they are not read again (7 MB, 20 ms of every run); any rebuild, edit or reinstall changes a
 * stamp. The first call decides for the whole process.
 */
export function codeKey(known?: CodeKeyRecord): string {
  if (key !== undefined) return key;
  const list = programFiles();
  const version = packageVersion();
  const runStart = Date.now();
  const stamps = createHash('sha256').update(version).update('\0');
  let settled = true;
  for (const f of list) {
    const st = fs.lstatSync(f.abs, { throwIfNoEntry: false });
    const stamp = st && fileStamp(st, runStart);
    if (stamp === undefined) settled = false;
    stamps.update(`${f.rel}\0${stamp ?? '-'}\0`);
  }
  files = settled ? stamps.digest('hex') : undefined;
  if (known !== undefined && files !== undefined && known.files === files) return (key = known.key);
  const h = createHash('sha256').update(version);
  for (const f of list) h.update(`${f.rel}\0`).update(fs.readFileSync(f.abs)).update('\0');
  key = h.digest('hex');
  return key;
}

/** The key and the digest of the stamps it stands for, for a run record; undefined while a program file is not settled. */
export function codeKeyRecord(): CodeKeyRecord | undefined {
  const k = codeKey();
  return files === undefined ? undefined : { key: k, files };
}
