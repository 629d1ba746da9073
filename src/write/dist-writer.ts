// The write stage: replaces dist/ with a new tree atomically. Flux and Argo CD apply whatever is
// committed in dist/, so a half-written tree, a stale file or a write through a symlink is a cluster
// change nobody reviewed (PRODUCT.md "Output"; hostile-inputs H43, H53, H56-H59). The protocol and
// why a crash at any instant is safe: docs/architecture.md, "Writing dist/". By concern:
// ./lock.ts (the lock), ./recover.ts (step 1), ./inspect.ts (step 2), ./stager.ts (step 4),
// ./session.ts (steps 3-7 in order), ./publish.ts (steps 5-7), ./journal.ts (renames to undo).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import type { DistIndex, KnownIndex } from '../lib/dist-index';
import { inspect } from './inspect';
import { CrashPoints } from './journal';
import { acquireLock } from './lock';
import { checkPath, dirsOf, removeMadeFolders, siblingNames } from './paths';
import type { Problem } from './problem';
import { recover } from './recover';
import { ioProblem, isErrno, type Refusal, refuse, type WriteResult } from './result';
import { type DistSession, Session } from './session';
import type { TreeScan } from './tree-scan';

export { INDEX_FILE, readDistIndex, readIndexBytes, type DistIndex } from '../lib/dist-index';
export type { Problem } from './problem';
export type { Refusal, WriteResult } from './result';
export type { DistPreview, DistSession } from './session';
export { Stager, type StagedFile, type StagingArea, stagingIndex } from './stager';

export interface WriteRequest {
  /** Absolute path of dist/. Its parent folder is created when missing. */
  outDir: string;
  /** relPath (forward slashes, no leading /, no '.' or '..' segments) -> UTF-8 content. */
  files: ReadonlyMap<string, string>;
  /**
   * Files to keep as they are in the current dist/: relPath -> sha256 that its index records (the
   * caller did not render them again because their inputs did not change). They are moved into the
   * new tree, never rewritten. A reused file the index does not list with that hash is refused.
   */
  reuse?: ReadonlyMap<string, string>;
  /**
   * Compare the existing files byte for byte before declaring "nothing changed" (default true).
   * False trusts the index, which makes an unchanged synth cheap; `synth --check` still compares.
   */
  verify?: boolean;
  /**
   * Folders of dist/ (relPaths) whose content the caller vouches for, because its files are all
   * reused as the index lists them: the search for foreign files checks that each is a real folder
   * but does not look inside. Only honoured with `verify: false`.
   */
  trustedDirs?: ReadonlySet<string>;
  /** Called with the previous index (undefined when dist/ does not exist yet) after the lock is taken
   *  and recovery ran, before anything is written; returning a Problem aborts with nothing changed. */
  guard?: (previous: DistIndex | undefined) => Problem | undefined;
  /** The index's inputs section (Session.commit), the record of how each runtime was rendered. */
  inputs?: (prefixDigest: string) => string;
}

/**
 * Replaces outDir with exactly `files` plus the index. Synchronous. Refusals and I/O failures are
 * results (outDir unchanged); an invalid request (bad relPath, relative outDir) is a caller bug and
 * throws, as does a throwing guard (the lock is released either way). `written` counts the files of
 * `files` whose content was written (those dist/ holds with the same bytes are not); `removed` the
 * files of the previous index not in `files`.
 */
export function writeDist(req: WriteRequest): WriteResult {
  const reuse = req.reuse ?? new Map<string, string>();
  checkRequest([...req.files.keys()], reuse);
  const opened = openDist(req);
  if (!opened.ok) return opened;
  const session = opened.session;
  try {
    const refusal = req.guard?.(session.previous);
    if (refusal) {
      session.abort();
      return refuse(refusal, 1);
    }
    for (const [rel, content] of [...req.files].sort((x, y) => cmp(x[0], y[0]))) session.add(rel, content);
    for (const [rel, hash] of reuse) session.reuse(rel, hash);
    return session.commit(undefined, req.inputs);
  } catch (e) {
    session.abort();
    throw e;
  }
}

/** The checks of a whole request before anything is written: paths, and files that are also folders. */
function checkRequest(paths: readonly string[], reuse: ReadonlyMap<string, string>): void {
  const all = new Set(paths);
  for (const rel of reuse.keys()) {
    if (all.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
    all.add(rel);
  }
  for (const rel of all) checkPath(rel);
  for (const d of dirsOf(all)) if (all.has(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
}

export interface OpenRequest {
  outDir: string;
  verify?: boolean;
  trustedDirs?: ReadonlySet<string>;
  /** dist/'s index as the caller read it before the lock; it is read again under the lock and compared. */
  knownIndex?: KnownIndex;
  /** A scan of dist/ made earlier in this run (./tree-scan.ts): it stands for the walk while the index is the one it was made against. */
  scanned?: TreeScan;
}

/** Takes the lock, recovers what a killed run left, inspects dist/ and creates the staging tree. */
export function openDist(req: OpenRequest): { ok: true; session: DistSession } | Refusal {
  const names = siblingNames(req.outDir);
  const steps = new CrashPoints();
  let lock: ReturnType<typeof acquireLock> | undefined;
  // The first folder on the way to dist/'s parent that this call creates (undefined: it existed).
  let made: string | undefined;
  try {
    made = fs.mkdirSync(names.parent, { recursive: true });
    lock = acquireLock(names.lock, names.display);
    if (!lock.ok) return refuse(lock.problem, 4);
    const recovery = recover(names);
    if (recovery) {
      lock.release();
      return refuse(recovery, 4);
    }
    const trusted = req.verify === false ? req.trustedDirs : undefined;
    const existing = inspect(names, trusted, req.knownIndex, req.scanned);
    if ('code' in existing) {
      lock.release();
      return refuse(existing, 4);
    }
    const id = names.freshId();
    const tmp = names.at('tmp', id);
    fs.mkdirSync(tmp);
    fs.mkdirSync(path.join(tmp, 'tree'));
    const session = new Session(names, lock, existing, id, req.verify ?? true, trusted !== undefined && trusted.size > 0, steps, made);
    made = undefined; // the session removes them when it closes
    return { ok: true, session };
  } catch (e) {
    if (lock?.ok) lock.release();
    if (isErrno(e)) return refuse(ioProblem(e, names.display), 4);
    throw e;
  } finally {
    removeMadeFolders(names.parent, made);
  }
}
