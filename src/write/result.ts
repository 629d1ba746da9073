// What a write of dist/ returns, and how its failures become results: a refusal names a code, a
// message and the paths concerned (./problem.ts); an I/O error says where it happened and what
// state dist/ was left in. Shared by the session, the publisher and the facade (./dist-writer.ts).

import type { Problem } from './problem';

export type WriteResult =
  | {
      ok: true;
      changed: boolean;
      /** Files whose content this write put on disk (new or changed); files kept or moved as they were are not counted, nor is the index. */
      written: number;
      removed: number /* files of the old tree not in the new one */;
      /** sha256 of the index text dist/ now holds. */
      indexDigest: string;
      /** The index file's stamp (src/lib/file-stamp.ts statStamp), taken under the lock: no other run replaced it since. */
      indexStamp: string | undefined;
    }
  | Refusal;

/** A refused write: 1 when the guard refused, 4 for lock, I/O, foreign files, a symlink. */
export type Refusal = { ok: false; problem: Problem; exitCode: 1 | 4 };

export function refuse(problem: Problem, exitCode: 1 | 4): Refusal {
  return { ok: false, problem, exitCode };
}

export function isErrno(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}

/** An error of a system call (it names the call): not Node's own ERR_* codes, which are bugs. */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return isErrno(e) && e.syscall !== undefined;
}

export function withPath<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isErrno(e) && e.path === undefined) e.path = file;
    throw e;
  }
}

export function ioProblem(e: NodeJS.ErrnoException, display: string): Problem {
  const what = e.message.split(',')[0]; // "ENOSPC: no space left on device"
  const where = e.path ?? '(unknown path)';
  const stranded = (e as { stranded?: string }).stranded;
  const state = stranded
    ? `${display} is now at ${stranded}; the next run moves it back`
    : `${display} was left unchanged`;
  return {
    code: 'E_DIST_IO',
    message: `${what} at ${where}${e.syscall ? ` (${e.syscall})` : ''}; ${state}`,
    paths: [where],
  };
}

/** dist/ changed between the plan and the commit (E_DIST_CHANGED). */
export function distChanged(display: string, stale: readonly string[]): Problem {
  return { code: 'E_DIST_CHANGED', message: `${display} changed while this run rendered (${stale.slice(0, 5).join(', ')}); run synth again`, paths: [...stale] };
}
