// The lock of a status folder: two `kyma-fleet status` runs on the same folder must not interleave
// their reads of the previous status and their writes (one run's SUMMARY.md describing the other
// run's runtime files). The lock is the one synth takes for dist/ (../write/lock.ts: created with
// O_EXCL, holder pid/host/time inside, a lock of a dead process on this host taken over), on the
// file `<status folder>.lock` beside the folder, as `dist.lock` sits beside `dist/`.
//
// A run holds it from before its first cluster read until its last write, so the previous status it
// builds on is the one it replaces. A second run does not wait: it fails at once (exit 4,
// E_STATUS_LOCKED) naming the lock file and its holder, before it contacts any cluster. Status runs
// are scheduled jobs; the next one picks up what this one skipped.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { acquireLock } from '../write/lock';
import type { StatusProblem } from './write-status';

export type StatusLock = { readonly ok: true; readonly lockPath: string; release(): void } | { readonly ok: false; readonly problem: StatusProblem };

/** The lock file of a status folder: `<folder>.lock` beside it (fleet/status → fleet/status.lock). */
export function statusLockPath(statusDir: string): string {
  const resolved = path.resolve(statusDir);
  return `${resolved}.lock`;
}

/**
 * Takes the lock of `statusDir` (creating its parent folder when missing) or says who holds it.
 * `display` names the folder in messages (e.g. `fleet/status/`). Never throws for I/O problems:
 * they are E_STATUS_WRITE.
 */
export function lockStatusDir(statusDir: string, display: string): StatusLock {
  const lockPath = statusLockPath(statusDir);
  try {
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    const lock = acquireLock(lockPath, display);
    if (lock.ok) return { ok: true, lockPath, release: lock.release };
    return {
      ok: false,
      problem: {
        code: 'E_STATUS_LOCKED',
        message: `${lock.problem.message}; another kyma-fleet status run is reading the clusters and writing this folder: nothing was read or written, run again when it has finished`,
      },
    };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, problem: { code: 'E_STATUS_WRITE', message: `cannot create the lock file ${lockPath} (${code})` } };
  }
}
