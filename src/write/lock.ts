// The write lock `<outDir>.lock` (hostile-inputs H57): two renders on one workspace must not
// interleave. Created with open(…, 'wx') so exactly one process wins; a lock whose holder is a
// dead process on this host is taken over, anything else is reported and left alone.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { isCode } from '../lib/dist-index';
import type { Problem } from './problem';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

/** How long an empty lock file may stay empty before it counts as left by a killed run. */
const EMPTY_LOCK_GRACE_MS = 200;

export type LockResult = { ok: true; release: () => void } | { ok: false; problem: Problem };

/** Takes the lock or says who holds it. I/O errors other than "exists" throw. */
export function acquireLock(lockPath: string, display: string): LockResult {
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  let waited = false;
  // A few rounds: the holder may release, or a stale lock may be taken over, between our steps.
  for (let round = 0; round < 4; round++) {
    if (create(lockPath, text)) return { ok: true, release: () => release(lockPath, text) };
    const held = readText(lockPath);
    if (held === undefined) continue; // released meanwhile
    if (held === '') {
      // Creating and filling the lock are two steps; a lock still empty after a grace period is
      // what a run killed between them leaves behind.
      if (!waited) sleep(EMPTY_LOCK_GRACE_MS);
      else takeOver(lockPath, held);
      waited = true;
      continue;
    }
    const holder = parseLock(held);
    if (!holder) {
      return refuse(lockPath, `${display} is locked, but the lock file ${lockPath} is unreadable; delete it if no kyma-fleet run is active`);
    }
    const since = `${display} is locked by pid ${holder.pid} on ${holder.host} since ${holder.startedAt}`;
    if (holder.host !== mine.host) {
      return refuse(lockPath, `${since}; a lock of another host is never taken over: delete ${lockPath} if that run is gone`);
    }
    if (isAlive(holder.pid)) return refuse(lockPath, `${since} (lock file ${lockPath})`);
    takeOver(lockPath, held);
  }
  return refuse(lockPath, `${display} is locked: the lock file ${lockPath} keeps changing hands`);
}

function create(lockPath: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'wx');
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    throw e;
  }
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(lockPath, { force: true });
    throw Object.assign(e as Error, { path: lockPath });
  }
  fs.closeSync(fd);
  return true;
}

/** Removes the lock only if it is still ours; never fails (a leftover lock of a dead pid is stale). */
function release(lockPath: string, text: string): void {
  try {
    if (readText(lockPath) === text) fs.unlinkSync(lockPath);
  } catch {
    // the next run takes the lock over once this process is gone
  }
}

/**
 * Removes a stale lock. Renaming is atomic, so of several processes taking over the same stale
 * lock only one moves it; if what we moved turns out to be a fresh lock of another process
 * (it replaced the stale one between our read and rename), we put it back.
 */
function takeOver(lockPath: string, staleText: string): void {
  const moved = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(lockPath, moved);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return;
    throw e;
  }
  if (readText(moved) !== staleText) {
    try {
      fs.linkSync(moved, lockPath);
    } catch {
      // someone created a new lock meanwhile; theirs stands
    }
  }
  fs.rmSync(moved, { force: true });
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (Number.isSafeInteger(v.pid) && (v.pid as number) > 0 && typeof v.host === 'string' && typeof v.startedAt === 'string') {
      return v as LockInfo;
    }
  } catch {
    // falls through
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return !isCode(e, 'ESRCH'); // EPERM: alive, owned by another user
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return undefined;
    throw e;
  }
}

function refuse(lockPath: string, message: string): LockResult {
  return { ok: false, problem: { code: 'E_DIST_LOCKED', message, paths: [lockPath] } };
}
