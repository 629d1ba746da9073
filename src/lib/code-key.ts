// A digest of the program itself (package version plus the compiled code of src/, charts/ and
// imports/), so caches written by another build of kyma-fleet are never trusted. Read once per
// process; about 90 files.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageVersion } from './version';

let key: string | undefined;

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

export function codeKey(): string {
  if (key !== undefined) return key;
  const h = createHash('sha256').update(packageVersion());
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
      else if (/\.(js|ts|json)$/.test(e.name) && !e.name.endsWith('.d.ts')) h.update(`${rel}${e.name}\0`).update(fs.readFileSync(p)).update('\0');
    }
  };
  for (const r of roots()) visit(r, `${path.basename(r)}/`);
  key = h.digest('hex');
  return key;
}
