// Step 1 of a write (docs/architecture.md, "Writing dist/"), under the lock: what a killed run
// left beside dist/ is rolled back (dist/ missing and an old tree there: its journal undone, the old
// tree renamed back) or deleted (staging trees, old trees). Recovery only ever rolls back.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { isCode } from '../lib/dist-index';
import { lexists } from '../lib/fs-exists';
import { fsyncDir } from './fsync';
import { JOURNAL, type Journal, type Moves, movesToOps, rootsOf, undoOps } from './journal';
import type { Names } from './paths';
import type { Problem } from './problem';

export function recover(names: Names): Problem | undefined {
  const siblings = fs.readdirSync(names.parent).sort(cmp);
  const olds = siblings.filter(names.isOld).map((n) => path.join(names.parent, n));
  if (!lexists(names.outDir) && olds.length > 0) {
    if (olds.length > 1) {
      return {
        code: 'E_DIST_RECOVERY',
        message: `${names.display} is missing and several earlier trees exist (${olds.join(', ')}); rename the one to keep to ${names.outDir}`,
        paths: olds,
      };
    }
    // The run died between its first rename and the commit point: move back what it had moved
    // into its tmp tree (same id), then the old tree.
    const old = olds.pop() as string;
    const tmp = names.at('tmp', names.idOf(path.basename(old)));
    try {
      const journal = JSON.parse(fs.readFileSync(path.join(tmp, JOURNAL), 'utf8')) as Journal | Moves;
      undoOps(rootsOf(old, tmp), 'ops' in journal ? journal.ops : movesToOps(journal));
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
    }
    fs.renameSync(old, names.outDir);
    fsyncDir(names.parent);
  }
  for (const n of siblings.filter(names.isTmp)) fs.rmSync(path.join(names.parent, n), { recursive: true, force: true });
  for (const old of olds) discard(names, old);
  return undefined;
}

/** Deletes an old tree; renamed to a tmp name first so a crash never leaves a half-deleted `.old-*`. */
export function discard(names: Names, old: string): void {
  const trash = names.fresh('tmp');
  fs.renameSync(old, trash);
  fs.rmSync(trash, { recursive: true, force: true });
}
