// The journal of a publish (docs/architecture.md, "Writing dist/"): the renames between the old
// tree, the staging tree and the trash, written before the first rename so that recovery can undo
// the ones that happened; and the test-only crash points between the steps.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { lexists } from '../lib/fs-exists';

export const JOURNAL = 'moves.json';

export interface Moves {
  /** Folders whose whole content is unchanged, moved with one rename (maximal ones only). */
  dirs: string[];
  /** Unchanged files outside those folders. */
  files: string[];
}

/** The three folders a journal's renames go between. */
export type Root = 'old' | 'tree' | 'trash';

/** One rename: root/rel -> root/rel. */
export type Op = readonly [Root, string, Root, string];

/** What recovery needs to roll a killed run back: its renames, in the order they are done. */
export interface Journal {
  readonly ops: readonly Op[];
}

export function rootsOf(old: string, tmp: string): Record<Root, string> {
  return { old, tree: path.join(tmp, 'tree'), trash: path.join(tmp, 'trash') };
}

/** The moves of a build (old tree -> new tree) as renames. */
export function movesToOps(moves: Moves): Op[] {
  return [...moves.dirs, ...moves.files].map((rel) => ['old', rel, 'tree', rel] as const);
}

/** Undoes the renames that happened, last first (a rename is atomic: each is done or not). */
export function undoOps(roots: Record<Root, string>, ops: readonly Op[]): void {
  for (let i = ops.length - 1; i >= 0; i--) {
    const [fromRoot, fromRel, toRoot, toRel] = ops[i]!;
    const from = path.join(roots[fromRoot], fromRel);
    const to = path.join(roots[toRoot], toRel);
    if (lexists(to) && !lexists(from)) {
      fs.mkdirSync(path.dirname(from), { recursive: true });
      fs.renameSync(to, from);
    }
  }
}

/** Does the renames in order; on a failure undoes the ones done and rethrows. */
export function doOps(roots: Record<Root, string>, ops: readonly Op[], steps: CrashPoints): void {
  try {
    for (const [fromRoot, fromRel, toRoot, toRel] of ops) {
      const from = path.join(roots[fromRoot], fromRel);
      const to = path.join(roots[toRoot], toRel);
      if (toRoot === 'trash') {
        // An owned file deleted by hand has nothing to move out (it is written again).
        if (!lexists(from)) continue;
        fs.mkdirSync(path.dirname(to), { recursive: true });
      }
      fs.renameSync(from, to);
      steps.tick();
    }
  } catch (e) {
    undoOps(roots, ops);
    throw e;
  }
}

/**
 * Test-only fault injection: with KYMA_FLEET_CRASH_AFTER_WRITES=N the process SIGKILLs itself after
 * its Nth write step. Steps, in order: each file of the new tree (index last), the marker, the rename
 * of the old dist/ away, the rename of the new tree into place, removal of the tmp folder.
 */
export class CrashPoints {
  private readonly limit: number | undefined;
  private count = 0;

  constructor() {
    const raw = process.env.KYMA_FLEET_CRASH_AFTER_WRITES;
    this.limit = raw !== undefined && /^[1-9][0-9]*$/.test(raw) ? Number(raw) : undefined;
  }

  tick(): void {
    if (this.limit !== undefined && ++this.count === this.limit) process.kill(process.pid, 'SIGKILL');
  }
}
