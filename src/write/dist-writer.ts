// The write stage: replaces dist/ with a new tree atomically. Flux and Argo CD apply whatever is
// committed in dist/, so a half-written tree, a stale file or a write through a symlink is a cluster
// change nobody reviewed (PRODUCT.md "Output"; hostile-inputs H43, H53, H56-H59).
//
// Protocol (every step below runs under the lock `<outDir>.lock`; openDist does 1-2, the session's
// add() does 4 file by file as the renderer produces them, commit() does 3 and 5-7):
//   1. recover: `.dist.old-*` without dist/ -> undo its journal, rename it back; delete `.dist.tmp-*`,
//      then `.dist.old-*`.
//   2. inspect dist/: refuse a symlink, a non-folder, a folder without index, foreign files.
//   3. no-op if the new tree equals dist/ (byte for byte, or by the index when the caller trusts it).
//   4. write into `.dist.tmp-<id>/tree/` with open(…, 'wx') every file whose content changed; files
//      equal to the old tree are not written. Worker threads do this step for their files with a
//      Stager and report each file (hash, written or not) through addStaged.
//   5. plan the renames that produce the new tree and write them as the journal
//      `.dist.tmp-<id>/moves.json`: either `build` (the unchanged files and whole folders move from
//      the old tree into tree/, which becomes dist/) or, for a few changes in a large tree, `patch`
//      (the removed and changed entries of the old tree move to `.dist.tmp-<id>/trash/`, the written
//      ones move in from tree/, and the old tree becomes dist/ again); make everything durable (one
//      syncfs, or an fsync per file and folder where syncfs is unavailable), then write
//      `.dist.tmp-<id>/.complete` (beside tree/).
//   6. rename dist/ -> `.dist.old-<id>`, do the journal's renames, rename the new tree to dist/ (the
//      commit point), fsync the parent.
//   7. delete the tmp folder and (build) the old tree (renamed to a tmp name first, so an `.old-*`
//      name always holds a tree that recovery can roll back, never a half-deleted one).
// Why a crash at any instant is safe: before the first rename dist/ is the old tree (plus garbage
// that step 1 deletes); between the first rename and the commit point dist/ is missing, and step 1
// undoes the journal's renames that happened (last first; each rename is atomic) and renames
// `.dist.old-<id>` back; after the commit point dist/ is the complete, durable new tree. Recovery
// only ever rolls back, so it never has to trust a tmp tree. Not rewriting unchanged runtimes is
// what makes a one-runtime change cheap in a fleet of thousands; the marker is not what makes this
// safe, it records that the new files were complete and fsynced before the swap (a leftover tmp can
// be told from a torn one) and would allow a roll-forward later.

import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { type HashLookup, INDEX_FILE, indexLine, indexTextDigest, IndexTextBuilder, type IndexView, isCode, type KnownIndex, loadIndex, readIndexLookup, sha256, type DistIndex } from '../lib/dist-index';
import { fsyncDir, fsyncFile } from './fsync';
import { acquireLock } from './lock';
import { lexists } from '../lib/fs-exists';
import type { Problem } from './problem';

export { INDEX_FILE, readDistIndex, readIndexBytes, type DistIndex } from '../lib/dist-index';

export type { Problem };

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
}

export type WriteResult =
  | {
      ok: true;
      changed: boolean;
      written: number;
      removed: number /* files of the old tree not in the new one */;
      /** sha256 of the index text dist/ now holds. */
      indexDigest: string;
    }
  | { ok: false; problem: Problem; exitCode: 1 | 4 }; // 1 when the guard refused, 4 for lock/I/O/foreign files/symlink

/** The marker written into the tmp folder (beside tree/) once the new tree is complete and fsynced. */
const COMPLETE_MARKER = '.complete';
const MAX_LISTED = 20;

/**
 * Replaces outDir with exactly `files` plus the index. Synchronous. Refusals and I/O failures are
 * results (outDir unchanged); an invalid request (bad relPath, relative outDir) is a caller bug and
 * throws, as does a throwing guard (the lock is released either way). `written` counts the files of
 * `files` (the index not included); `removed` the files of the previous index not in `files`.
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
    return session.commit();
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

/** A backslash or NUL anywhere, or an empty, `.` or `..` segment. */
const BAD_PATH = /[\\\0]|(?:^|\/)\.{0,2}(?:\/|$)/;

function checkPath(rel: string): void {
  if (typeof rel !== 'string' || rel === INDEX_FILE || BAD_PATH.test(rel)) throw new Error(`writeDist: invalid output path ${JSON.stringify(rel)}`);
}

/** Every folder the paths need (their parents, grandparents...). */
function dirsOf(paths: Iterable<string>): Set<string> {
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

export interface OpenRequest {
  outDir: string;
  verify?: boolean;
  trustedDirs?: ReadonlySet<string>;
  /** dist/'s index as the caller read it before the lock; it is read again under the lock and compared. */
  knownIndex?: KnownIndex;
}

/**
 * A write of dist/ in progress, holding the lock: files are added one by one and written into the
 * staging tree at once (so a large render never holds the whole tree in memory); commit() swaps the
 * new tree in, or finds that nothing changed; abort() leaves dist/ as it was.
 */
export interface DistSession {
  /** The index of the current dist/ (undefined when there is none yet). */
  readonly previous: DistIndex | undefined;
  /** A file of the new tree. Written into the staging tree now unless dist/ holds it with the same bytes. */
  add(rel: string, content: string): void;
  /** A file kept from the current dist/ as its index lists it (moved, never rewritten). */
  reuse(rel: string, hash: string): void;
  /**
   * Keeps entries of the current dist/ as its index lists them without naming each file (one
   * unchanged runtime in a fleet of thousands is one folder, not a dozen reuse calls): every file
   * inside each of `folders`, and each of `files`. `indexDigest` is the sha256 of the index text the
   * caller planned with; when dist/'s index is another one, or a folder is empty or a file not
   * listed in it, commit refuses (E_DIST_CHANGED) and nothing changes.
   */
  keep(folders: readonly string[], files: readonly string[], indexDigest: string): void;
  /** Publishes the new tree (or nothing, when it equals dist/) and releases the lock. */
  commit(guard?: (previous: DistIndex | undefined) => Problem | undefined): WriteResult;
  /** Deletes the staging tree and releases the lock; dist/ is untouched. */
  abort(): void;
  /**
   * What commit would change, without publishing anything (synth --check, diff): the session stays
   * open, so the contents of both trees can be read, until abort(). Kept entries are not supported.
   */
  preview(): ({ ok: true } & DistPreview) | { ok: false; problem: Problem; exitCode: 1 | 4 };
  /**
   * Where other threads may write files of the new tree themselves (with a Stager), so that writing
   * 100,000 files is spread over the cores; they hand back what they did with addStaged.
   */
  stagingArea(): StagingArea;
  /** Files another thread wrote into the staging tree, or found equal in dist/, with a Stager. */
  addStaged(files: readonly StagedFile[]): void;
}

/** The difference between dist/ and the tree a session holds (relPaths in code-point order). */
export interface DistPreview {
  /** Files the new tree adds, changes (other bytes, or listed by the index but gone) and removes. */
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  /** Every file dist/'s index lists, and every file of the new tree. */
  readonly before: readonly string[];
  readonly after: readonly string[];
  /** A file's text in the new tree (added or changed) or in dist/ (changed or removed); '' when unreadable. */
  newText(rel: string): string;
  oldText(rel: string): string;
}

/** What a thread needs to write files into an open session's staging tree (structured-clone safe). */
export interface StagingArea {
  readonly treeDir: string;
  readonly outDir: string;
  readonly verify: boolean;
  /** sha256 of the text of dist/'s index as the session read it (undefined: no previous tree). */
  readonly indexDigest: string | undefined;
}

/** The index a staging area's session planned with, as a worker thread reads it; throws when dist/'s index changed since. */
export function stagingIndex(area: StagingArea): HashLookup | undefined {
  if (area.indexDigest === undefined) return undefined;
  const lookup = readIndexLookup(area.outDir, area.indexDigest);
  if (!lookup) throw new Error(`writeDist: the index of ${area.outDir} changed while this run wrote`);
  return lookup;
}

/** One file of the new tree as staged: its hash, and whether it was written (else dist/ holds it already). */
export type StagedFile = readonly [rel: string, hash: string, written: boolean];

/**
 * Writes files into a session's staging tree from any thread, deciding per file exactly as the
 * session's add() does. Throws on I/O errors (the caller abandons the session).
 */
export class Stager {
  private readonly made = new Set<string>();

  /**
   * `previous`: dist/'s index (undefined when there is none). A worker thread reads it with
   * stagingIndex(area), as bytes outside its heap: the index of a 100,000-runtime dist/ is over
   * 100 MB, more than a worker's heap holds as text.
   */
  constructor(
    private readonly area: StagingArea,
    private readonly previous: HashLookup | undefined,
  ) {}

  stage(rel: string, content: string): StagedFile {
    checkPath(rel);
    const hash = sha256(content);
    const old = this.previous?.hashOf(rel);
    if (old === hash && (!this.area.verify || onDiskBytesAre(path.join(this.area.outDir, rel), content))) return [rel, hash, false];
    const slash = rel.lastIndexOf('/');
    if (slash > 0) makeDirOnce(this.area.treeDir, rel.slice(0, slash), this.made);
    writeNewFile(path.join(this.area.treeDir, rel), content);
    return [rel, hash, true];
  }
}

/** Creates treeDir/dir (and its parents) unless `made` says it exists; records it and its ancestors. */
function makeDirOnce(treeDir: string, dir: string, made: Set<string>): void {
  if (made.has(dir)) return;
  fs.mkdirSync(path.join(treeDir, dir), { recursive: true });
  for (let d = dir; d !== ''; d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '') made.add(d);
}

/** Takes the lock, recovers what a killed run left, inspects dist/ and creates the staging tree. */
export function openDist(req: OpenRequest): { ok: true; session: DistSession } | { ok: false; problem: Problem; exitCode: 1 | 4 } {
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
    const existing = inspect(names, trusted, req.knownIndex);
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

/**
 * Removes the folders from `made` down to `parent` that openDist created, when they are empty again
 * (a session that never published: synth --check, diff, a refused or failed write), deepest first.
 */
function removeMadeFolders(parent: string, made: string | undefined): void {
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

class Session implements DistSession {
  readonly previous: DistIndex | undefined;
  private readonly tmp: string;
  private readonly treeDir: string;
  /** sha256 of every file of the new tree (added and reused). */
  private readonly hashes = new Map<string, string>();
  private readonly reused = new Map<string, string>();
  /** Files written into the staging tree. */
  private readonly written: string[] = [];
  /** Files equal in dist/ (moved at commit, alone or with their whole folder). */
  private readonly same = new Set<string>();
  private readonly stager: Stager;
  /** Entries of the previous index kept by keep(), as ranges [from, to) of its view. */
  private kept: Array<readonly [number, number]> = [];
  /** The folders keep() was given (their entries are among `kept`). */
  private keptFolders = new Set<string>();
  /** What keep() was asked to keep that dist/'s index does not hold. */
  private readonly keptStale: string[] = [];
  /** Written files when the last early flush started. */
  private flushedAt = 0;
  private failure: NodeJS.ErrnoException | undefined;
  private closed = false;

  constructor(
    private readonly names: Names,
    private readonly lock: { release(): void },
    private readonly existing: Existing & { kind: 'missing' | 'empty' | 'tree' },
    private readonly id: string,
    private readonly verify: boolean,
    private readonly partialWalk: boolean,
    private readonly steps: CrashPoints,
    /** The first folder on the way to dist/'s parent that openDist created, if any. */
    private readonly madeFolders: string | undefined,
  ) {
    this.previous = existing.kind === 'tree' ? existing.index : undefined;
    this.tmp = names.at('tmp', id);
    this.treeDir = path.join(this.tmp, 'tree');
    this.stager = new Stager({ treeDir: this.treeDir, outDir: names.outDir, verify, indexDigest: undefined }, this.previous?.view);
  }

  add(rel: string, content: string): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    checkPath(rel);
    if (typeof content !== 'string') throw new Error(`writeDist: content of ${JSON.stringify(rel)} is not a string`);
    if (this.hashes.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is added twice`);
    if (this.failure) {
      this.hashes.set(rel, '');
      return;
    }
    try {
      this.addStaged([this.stager.stage(rel, content)]);
    } catch (e) {
      if (!isErrno(e)) throw e;
      this.hashes.set(rel, '');
      this.failure = e;
    }
  }

  stagingArea(): StagingArea {
    const existing = this.existing;
    return { treeDir: this.treeDir, outDir: this.names.outDir, verify: this.verify, indexDigest: existing.kind === 'tree' ? this.indexDigest() : undefined };
  }

  addStaged(files: readonly StagedFile[]): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    for (const [rel, hash, written] of files) {
      checkPath(rel);
      if (this.hashes.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is added twice`);
      this.hashes.set(rel, hash);
      if (!written) {
        this.same.add(rel);
        continue;
      }
      this.written.push(rel);
      this.steps.tick();
    }
    if (this.written.length >= this.flushedAt + EARLY_FLUSH_FILES) {
      this.flushedAt = this.written.length;
      startEarlyFlush(this.treeDir);
    }
  }

  reuse(rel: string, hash: string): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    checkPath(rel);
    if (this.hashes.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
    this.hashes.set(rel, hash);
    this.reused.set(rel, hash);
    this.same.add(rel);
  }

  keep(folders: readonly string[], files: readonly string[], indexDigest: string): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    const existing = this.existing;
    if (existing.kind !== 'tree' || this.indexDigest() !== indexDigest) {
      this.keptStale.push(...folders.map((d) => `${d}/`), ...files);
      return;
    }
    const view = existing.index.view;
    for (const dir of folders) {
      checkPath(dir);
      const [from, to] = view.folder(dir);
      if (from === to) this.keptStale.push(`${dir}/`);
      else {
        this.kept.push([from, to]);
        this.keptFolders.add(dir);
      }
    }
    for (const rel of files) {
      checkPath(rel);
      const i = view.find(rel);
      if (i < 0) this.keptStale.push(rel);
      else this.kept.push([i, i + 1]);
    }
  }

  /** sha256 of the current index text (dist/'s), once computed. */
  private digest: string | undefined;

  private indexDigest(): string | undefined {
    if (this.existing.kind !== 'tree') return undefined;
    return (this.digest ??= indexTextDigest(this.existing.indexText));
  }

  commit(guard?: (previous: DistIndex | undefined) => Problem | undefined): WriteResult {
    if (this.closed) throw new Error('writeDist: the session is closed');
    try {
      return this.finish(guard);
    } catch (e) {
      if (isErrno(e)) return refuse(ioProblem(e, this.names.display), 4);
      throw e;
    } finally {
      this.close();
    }
  }

  abort(): void {
    if (!this.closed) this.close();
  }

  preview(): ({ ok: true } & DistPreview) | { ok: false; problem: Problem; exitCode: 1 | 4 } {
    if (this.closed) throw new Error('writeDist: the session is closed');
    if (this.kept.length > 0 || this.keptStale.length > 0 || this.reused.size > 0) throw new Error('writeDist: preview() of a session with kept or reused entries');
    if (this.failure) return refuse(ioProblem(this.failure, this.names.display), 4);
    const view = this.previous?.view;
    const before: string[] = [];
    if (view) for (let i = 0; i < view.size; i++) before.push(view.relAt(i));
    // The default sort compares UTF-16 code units, as cmp does.
    const after = [...this.hashes.keys()].sort();
    const added: string[] = [];
    const changed: string[] = [];
    for (const rel of [...this.written].sort()) (view && view.find(rel) >= 0 ? changed : added).push(rel);
    const removed = before.filter((rel) => !this.hashes.has(rel));
    const read = (file: string): string => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    };
    return {
      ok: true,
      added,
      changed,
      removed,
      before,
      after,
      newText: (rel) => read(path.join(this.treeDir, ...rel.split('/'))),
      oldText: (rel) => read(path.join(this.names.outDir, ...rel.split('/'))),
    };
  }

  private close(): void {
    this.closed = true;
    try {
      fs.rmSync(this.tmp, { recursive: true, force: true });
    } catch {
      // left for the next run's recovery
    }
    this.lock.release();
    removeMadeFolders(this.names.parent, this.madeFolders);
  }

  private finish(guard?: (previous: DistIndex | undefined) => Problem | undefined): WriteResult {
    if (this.failure) throw this.failure;
    const { names, previous, existing } = this;
    if (this.keptStale.length > 0) return refuse(distChanged(names.display, this.keptStale), 4);
    const view = previous?.view;
    let kept = this.checkKept();
    let keptCount = 0;
    for (const [from, to] of kept) keptCount += to - from;
    let inOld = 0;
    if (view) for (const rel of this.hashes.keys()) if (view.find(rel) >= 0) inOld++;
    const removed = view ? view.size - keptCount - inOld : 0;
    const total = this.hashes.size + keptCount;
    // Patching touches each changed entry twice; building moves every unchanged folder and file.
    const patch = view !== undefined && (this.written.length + removed) * 4 <= total;
    // Kept ranges stay ranges only where they are never listed one by one: a patch over a walk
    // that did not descend into them. Anything else lists them as reused files.
    if (kept.length > 0 && !(patch && this.partialWalk)) {
      this.materializeKept(kept);
      kept = [];
    }
    const refusal = guard?.(previous);
    if (refusal) return refuse(refusal, 1);
    const stale = [...this.reused].filter(([rel, hash]) => view?.hashOf(rel) !== hash).map(([rel]) => rel);
    if (stale.length > 0) return refuse(distChanged(names.display, stale), 4);

    const dirs = dirsOf(this.hashes.keys());
    for (const d of dirs) if (this.hashes.has(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
    // The folders kept entries need: each kept folder with its parents, the parents of each kept file.
    if (view && kept.length > 0) {
      for (const d of dirsOf([...this.keptFolders].map((f) => `${f}/`))) dirs.add(d);
      for (const [from, to] of kept) if (to - from === 1) for (const d of dirsOf([view.relAt(from)])) dirs.add(d);
    }
    // The default sort compares UTF-16 code units, as cmp does, without a comparator call per pair.
    const sorted = [...this.hashes.keys()].sort();
    const index = newIndexText(view, kept, sorted, this.hashes);
    const indexDigest = index.digest;
    const sortedDirs = kept.length > 0 ? [] : [...dirs].sort(cmp);
    if (existing.kind === 'tree' && this.written.length === 0 && unchanged(existing, index, total, sortedDirs, this.partialWalk)) {
      return { ok: true, changed: false, written: 0, removed: 0, indexDigest };
    }
    const plan: Plan =
      patch && view
        ? { mode: 'patch', ops: patchOps(view, kept, this.keptFolders, this.hashes, dirs, this.written, existing.kind === 'tree' ? existing.dirs : []) }
        : { mode: 'build', moves: previous ? planMoves(previous, this.hashes, this.same) : { dirs: [], files: [] }, dirs: sortedDirs };
    publish(names, this.id, plan, this.written, index.chunks, existing.kind !== 'missing', this.steps);
    return { ok: true, changed: true, written: total, removed, indexDigest };
  }

  /**
   * The kept ranges in order, after checking that none overlaps another and that no added or
   * reused file lies among them, is a folder of them, or sits below a kept file (caller bugs).
   */
  private checkKept(): ReadonlyArray<readonly [number, number]> {
    const kept = this.kept.sort((a, b) => a[0] - b[0]);
    if (kept.length === 0) return kept;
    const view = this.previous!.view;
    for (let i = 1; i < kept.length; i++) {
      if (kept[i]![0] < kept[i - 1]![1]) throw new Error(`writeDist: ${JSON.stringify(view.relAt(kept[i]![0]))} is kept twice`);
    }
    /** True when some kept range intersects [from, to). */
    const keptWithin = (from: number, to: number): boolean => {
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (kept[mid]![1] <= from) lo = mid + 1;
        else hi = mid;
      }
      return lo < kept.length && kept[lo]![0] < to;
    };
    const isKept = (rel: string): boolean => {
      const i = view.find(rel);
      return i >= 0 && keptWithin(i, i + 1);
    };
    for (const rel of this.hashes.keys()) {
      if (isKept(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
      const [from, to] = view.folder(rel);
      if (from < to && keptWithin(from, to)) throw new Error(`writeDist: output path ${JSON.stringify(rel)} is both a file and a folder`);
      for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
        const d = rel.slice(0, i);
        if (this.keptFolders.has(d)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused (inside the kept folder ${d})`);
        if (isKept(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
      }
    }
    return kept;
  }

  /** Lists the kept ranges as reused files, one by one. */
  private materializeKept(kept: ReadonlyArray<readonly [number, number]>): void {
    const view = this.previous!.view;
    this.kept = [];
    this.keptFolders = new Set();
    for (const [from, to] of kept) for (let i = from; i < to; i++) this.reuse(view.relAt(i), view.hashAt(i));
  }
}

function distChanged(display: string, stale: readonly string[]): Problem {
  return { code: 'E_DIST_CHANGED', message: `${display} changed while this run rendered (${stale.slice(0, 5).join(', ')}); run synth again`, paths: [...stale] };
}

/**
 * The new index text, in chunks, of the added entries (`added`, sorted, hashes in `hashes`) and the
 * kept ranges of `view`: the lines of kept ranges are copied as they are, so a run that keeps 10,000
 * runtimes does not format 100,000 lines. Equal to serializeIndex of all the entries (added ones
 * never fall inside a kept range: keep() ranges are single files or whole folders, and checkKept
 * refuses an added file inside one).
 */
function newIndexText(
  view: IndexView | undefined,
  kept: ReadonlyArray<readonly [number, number]>,
  added: readonly string[],
  hashes: ReadonlyMap<string, string>,
): ReturnType<IndexTextBuilder['finish']> {
  const b = new IndexTextBuilder();
  let a = 0;
  for (const [from, to] of kept) {
    const first = view!.relAt(from);
    for (; a < added.length && added[a]! < first; a++) b.add(indexLine(added[a]!, hashes.get(added[a]!)!));
    b.add(view!.linesOf(from, to));
  }
  for (; a < added.length; a++) b.add(indexLine(added[a]!, hashes.get(added[a]!)!));
  return b.finish();
}

/** True when dist/ already is the new tree: same index, and (when the walk saw everything) the same files and folders. */
function unchanged(existing: Existing & { kind: 'tree' }, index: { readonly chunks: readonly string[]; readonly length: number }, files: number, dirs: readonly string[], partialWalk: boolean): boolean {
  if (existing.indexText.length !== index.length) return false;
  let at = 0;
  for (const chunk of index.chunks) {
    if (!existing.indexText.startsWith(chunk, at)) return false;
    at += chunk.length;
  }
  if (partialWalk) return true; // trusted folders were not listed: the index vouches for them
  if (existing.files.length !== files + 1) return false;
  return existing.dirs.length === dirs.length && existing.dirs.every((d, i) => d === dirs[i]);
}

// ---------------------------------------------------------------------------------------------
// Moves: what the new tree takes over from the old one instead of writing it

interface Moves {
  /** Folders whose whole content is unchanged, moved with one rename (maximal ones only). */
  dirs: string[];
  /** Unchanged files outside those folders. */
  files: string[];
}

/**
 * Every file the new tree has with the same bytes as dist/ (`same`: checked when it was added)
 * moves; so does every folder holding only such files, with one rename.
 */
function planMoves(previous: DistIndex, hashes: ReadonlyMap<string, string>, same: ReadonlySet<string>): Moves {
  const oldCount = new Map<string, number>();
  const newCount = new Map<string, number>();
  const sameCount = new Map<string, number>();
  const count = (m: Map<string, number>, rel: string): void => {
    for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) {
      const d = rel.slice(0, i);
      m.set(d, (m.get(d) ?? 0) + 1);
    }
  };
  for (let i = 0; i < previous.view.size; i++) count(oldCount, previous.view.relAt(i));
  for (const rel of hashes.keys()) count(newCount, rel);
  for (const rel of same) count(sameCount, rel);
  const whole = (d: string): boolean => {
    const n = sameCount.get(d) ?? 0;
    return n > 0 && n === oldCount.get(d) && n === newCount.get(d);
  };
  const parentOf = (rel: string): string => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
  const dirs = [...sameCount.keys()].filter((d) => whole(d) && !(parentOf(d) !== '' && whole(parentOf(d)))).sort(cmp);
  const inMovedDir = (rel: string): boolean => {
    for (let d = parentOf(rel); d !== ''; d = parentOf(d)) if (whole(d)) return true;
    return false;
  };
  const files = [...same].filter((rel) => !inMovedDir(rel)).sort(cmp);
  return { dirs, files };
}

// ---------------------------------------------------------------------------------------------
// Names next to outDir: the lock, tmp trees, old trees

interface Names {
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

function siblingNames(outDir: string): Names {
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

// ---------------------------------------------------------------------------------------------
// Recovery: finish what a killed run left behind

function recover(names: Names): Problem | undefined {
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
function discard(names: Names, old: string): void {
  const trash = names.fresh('tmp');
  fs.renameSync(old, trash);
  fs.rmSync(trash, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Inspection of the existing dist/

type Existing =
  | { kind: 'missing' }
  | { kind: 'empty' } // an empty folder without index
  | { kind: 'tree'; index: DistIndex; indexText: string; files: string[]; dirs: string[] };

function inspect(names: Names, trustedDirs: ReadonlySet<string> = new Set(), known?: KnownIndex): Existing | Problem {
  const { outDir, display } = names;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(outDir);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return { kind: 'missing' };
    throw e;
  }
  if (st.isSymbolicLink()) {
    return {
      code: 'E_DIST_SYMLINK',
      message: `${display} is a symlink (to ${fs.readlinkSync(outDir)}); kyma-fleet never writes through a symlink: replace it with a folder`,
      paths: [outDir],
    };
  }
  if (!st.isDirectory()) {
    return { code: 'E_DIST_NOT_DIR', message: `${display} exists but is not a folder; move it away`, paths: [outDir] };
  }
  const { files, dirs, others } = walk(outDir, trustedDirs);
  const read = loadIndex(outDir, known);
  if (read.kind === 'invalid') {
    return { code: 'E_DIST_INDEX', message: `${display}${read.reason}; move ${display} away or empty it`, paths: [path.join(outDir, INDEX_FILE)] };
  }
  if (read.kind === 'missing') {
    if (files.length + dirs.length + others.length === 0) return { kind: 'empty' };
    return {
      code: 'E_DIST_NOT_OWNED',
      message: `${display} was not written by kyma-fleet (no ${INDEX_FILE}); move it away or empty it`,
      paths: [outDir],
    };
  }
  // Both lists are sorted: one merge finds the files the index does not list.
  const view = read.index.view;
  let j = 0;
  const owned = (rel: string): boolean => {
    if (rel === INDEX_FILE) return true;
    while (j < view.size && view.relAt(j) < rel) j++;
    return j < view.size && view.relAt(j) === rel;
  };
  const special = new Set(others);
  const foreign = [...files.filter((rel) => !owned(rel)), ...others].sort(cmp);
  if (foreign.length > 0) {
    const shown = foreign
      .slice(0, MAX_LISTED)
      .map((rel) => display + rel + (special.has(rel) ? ' (symlink or special file)' : ''));
    const more = foreign.length > MAX_LISTED ? ` and ${foreign.length - MAX_LISTED} more` : '';
    return {
      code: 'E_DIST_FOREIGN',
      message: `${display} holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} kyma-fleet did not write (not in ${INDEX_FILE}): ${shown.join(', ')}${more}; move them out of ${display}`,
      paths: foreign.map((rel) => display + rel),
    };
  }
  return { kind: 'tree', index: read.index, indexText: read.text, files, dirs };
}

/** Lists a folder without following symlinks: regular files, folders, and everything else. */
function walk(root: string, trustedDirs: ReadonlySet<string>): { files: string[]; dirs: string[]; others: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const others: string[] = [];
  const visit = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        dirs.push(child);
        if (!trustedDirs.has(child)) visit(child);
      } else if (entry.isFile()) files.push(child);
      else others.push(child);
    }
  };
  visit('');
  return { files: files.sort(cmp), dirs: dirs.sort(cmp), others };
}

// ---------------------------------------------------------------------------------------------
// Building the new tree and swapping it in

const JOURNAL = 'moves.json';

/**
 * How the new tree is put together. `build`: the staging tree gets every folder, the unchanged
 * entries of dist/ are moved into it, and it becomes dist/. `patch` (few changes in a large tree):
 * dist/ (renamed away) gets the changed entries swapped in and the removed ones moved out, and
 * becomes dist/ again. Either way dist/ is missing only between two renames, and the journal of
 * renames lets recovery roll a killed run back.
 */
type Plan = { readonly mode: 'build'; readonly moves: Moves; readonly dirs: readonly string[] } | { readonly mode: 'patch'; readonly ops: readonly Op[] };

function publish(names: Names, id: string, plan: Plan, written: readonly string[], indexText: readonly string[], hadOld: boolean, steps: CrashPoints): void {
  const tmp = names.at('tmp', id);
  const old = names.at('old', id);
  const roots = rootsOf(old, tmp);
  const treeDir = roots.tree;
  const ops: readonly Op[] = plan.mode === 'build' ? movesToOps(plan.moves) : plan.ops;
  try {
    if (plan.mode === 'build') {
      // A folder is inside a moved folder when it or one of its ancestors is one (O(depth), not O(moves)).
      const movedDirs = new Set(plan.moves.dirs);
      const movedDir = (d: string): boolean => {
        for (let p = d; p !== '' && p !== '.'; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (movedDirs.has(p)) return true;
        return false;
      };
      // Folders of the new tree that no written file created and no moved folder brings along.
      for (const d of plan.dirs) if (!movedDir(d) && !lexists(path.join(treeDir, d))) fs.mkdirSync(path.join(treeDir, d));
    }
    writeNewFile(path.join(treeDir, INDEX_FILE), indexText);
    steps.tick();
    writeNewFile(path.join(tmp, JOURNAL), JSON.stringify({ ops } satisfies Journal));
    makeDurable(tmp, treeDir, written, plan.mode === 'build' ? plan.dirs : []);
    writeNewFile(path.join(tmp, COMPLETE_MARKER), '');
    fsyncDir(tmp);
    steps.tick();
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  // The tree that becomes dist/ at the commit point.
  const next = plan.mode === 'build' ? treeDir : old;
  try {
    if (hadOld) {
      fs.renameSync(names.outDir, old);
      steps.tick();
      try {
        doOps(roots, ops, steps);
      } catch (e) {
        fs.renameSync(old, names.outDir);
        throw e;
      }
    }
    try {
      fs.renameSync(next, names.outDir); // the commit point
    } catch (e) {
      if (hadOld) {
        try {
          undoOps(roots, ops);
          if (plan.mode === 'build') fs.renameSync(old, names.outDir);
          else if (!lexists(names.outDir)) fs.renameSync(old, names.outDir);
        } catch {
          throw Object.assign(e as Error, { stranded: old }); // the next run's recovery moves it back
        }
      }
      throw e;
    }
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  // Tidying: the new tree is in place, so nothing below may report failure; whatever is left
  // here, the next run's recovery deletes.
  try {
    fsyncDir(names.parent);
    steps.tick();
    fs.rmSync(tmp, { recursive: true, force: true });
    steps.tick();
    if (hadOld && plan.mode === 'build') discard(names, old);
  } catch {
    // left for recovery
  }
}

/**
 * The renames that turn dist/ (renamed to old) into the new tree: removed and changed entries go
 * to the trash first (a folder the new tree does not have goes as a whole), then written entries
 * come in from the staging tree (a folder dist/ does not have comes as a whole), then the index.
 * Entries in `kept` ranges (and folders the walk found inside kept folders) stay where they are.
 */
function patchOps(
  previous: IndexView,
  kept: ReadonlyArray<readonly [number, number]>,
  keptFolders: ReadonlySet<string>,
  hashes: ReadonlyMap<string, string>,
  newDirs: ReadonlySet<string>,
  written: readonly string[],
  strayDirs: readonly string[],
): Op[] {
  /** The highest ancestor of rel (or rel) that `has` says is missing, below one it has. */
  const topmostMissing = (rel: string, has: (dir: string) => boolean): string => {
    let top = rel;
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = rel.slice(0, i);
      if (has(d)) break;
      top = d;
    }
    return top;
  };
  const inNew = (d: string): boolean => newDirs.has(d);
  const inOld = (d: string): boolean => previous.hasFolder(d);
  const ops: Op[] = [];
  const seen = new Set<string>();
  const once = (op: Op): void => {
    const key = `${op[0]}\0${op[1]}`;
    if (!seen.has(key)) {
      seen.add(key);
      ops.push(op);
    }
  };
  // Old entries outside the kept ranges that the new tree does not have.
  let next = 0;
  for (const [from, to] of [...kept, [previous.size, previous.size] as const]) {
    for (let i = next; i < from; i++) {
      const rel = previous.relAt(i);
      if (hashes.has(rel)) continue;
      const top = topmostMissing(rel, inNew);
      once(['old', top, 'trash', top]);
    }
    next = to;
  }
  // Folders the walk found that the new tree does not have (left empty by hand): out as well.
  const insideKept = (d: string): boolean => {
    for (let i = d.lastIndexOf('/'); i > 0; i = d.lastIndexOf('/', i - 1)) if (keptFolders.has(d.slice(0, i))) return true;
    return false;
  };
  for (const d of strayDirs) {
    if (!newDirs.has(d) && !insideKept(d)) {
      const top = topmostMissing(d, inNew);
      once(['old', top, 'trash', top]);
    }
  }
  for (const rel of written) if (previous.find(rel) >= 0) once(['old', rel, 'trash', rel]);
  for (const rel of written) {
    const top = topmostMissing(rel, inOld);
    once(['tree', top, 'old', top]);
  }
  once(['old', INDEX_FILE, 'trash', INDEX_FILE]);
  once(['tree', INDEX_FILE, 'old', INDEX_FILE]);
  return ops;
}

/** True when `file` (not followed through a symlink) holds exactly `content` as UTF-8. */
function onDiskBytesAre(file: string, content: string): boolean {
  try {
    if (!fs.lstatSync(file).isFile()) return false;
    const actual = fs.readFileSync(file);
    return actual.length === Buffer.byteLength(content, 'utf8') && actual.toString('utf8') === content;
  } catch {
    return false;
  }
}

/** The three folders a journal's renames go between. */
type Root = 'old' | 'tree' | 'trash';
/** One rename: root/rel -> root/rel. */
type Op = readonly [Root, string, Root, string];

/** What recovery needs to roll a killed run back: its renames, in the order they are done. */
interface Journal {
  readonly ops: readonly Op[];
}

function rootsOf(old: string, tmp: string): Record<Root, string> {
  return { old, tree: path.join(tmp, 'tree'), trash: path.join(tmp, 'trash') };
}

/** The moves of a build (old tree -> new tree) as renames. */
function movesToOps(moves: Moves): Op[] {
  return [...moves.dirs, ...moves.files].map((rel) => ['old', rel, 'tree', rel] as const);
}

/** Undoes the renames that happened, last first (a rename is atomic: each is done or not). */
function undoOps(roots: Record<Root, string>, ops: readonly Op[]): void {
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
function doOps(roots: Record<Root, string>, ops: readonly Op[], steps: CrashPoints): void {
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

/** Creates a file that must not exist yet ('wx' never follows a symlink) and writes it (UTF-8; a large one as chunks). */
function writeNewFile(file: string, content: string | readonly string[]): void {
  const fd = withPath(file, () => fs.openSync(file, 'wx'));
  try {
    withPath(file, () => {
      for (const chunk of typeof content === 'string' ? [content] : content) {
        const bytes = Buffer.from(chunk, 'utf8');
        for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off);
      }
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** Files written between two early flushes of a large staging tree. */
const EARLY_FLUSH_FILES = 20_000;

/**
 * Starts writing a large staging tree back to disk while the run goes on rendering (`sync -f` in
 * the background, not waited for): the flush that makes the tree durable before the swap then
 * has little left to do, and the disk works while the CPU renders. Best effort: nothing depends
 * on it, and makeDurable still flushes everything.
 */
function startEarlyFlush(treeDir: string): void {
  if (process.platform !== 'linux') return;
  try {
    const child = spawn('sync', ['-f', treeDir], { stdio: 'ignore', detached: false });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no sync binary: makeDurable falls back to fsync
  }
}

/** Up to this many written files, makeDurable fsyncs them one by one instead of syncing the filesystem. */
const FSYNC_EACH_MAX = 64;

/**
 * Makes the complete new tree durable before it is swapped in, so that even a power cut cannot
 * publish empty files. A killed process needs none of this (the page cache survives it). For a
 * large write one syncfs of the filesystem (`sync -f`, Linux) costs a few milliseconds where an
 * fsync per file costs seconds; for a few files (one runtime changed) an fsync each is cheaper than
 * starting `sync`, and does not wait for what other programs left dirty on the same filesystem.
 * Elsewhere every file and folder is fsynced.
 */
function makeDurable(tmp: string, treeDir: string, written: readonly string[], dirs: readonly string[]): void {
  if (process.platform === 'linux' && written.length > FSYNC_EACH_MAX) {
    const r = spawnSync('sync', ['-f', treeDir], { stdio: 'ignore', timeout: 120_000 });
    if (r.status === 0) return;
  }
  for (const rel of [...written, INDEX_FILE]) {
    const file = path.join(treeDir, rel);
    if (lexists(file)) withPath(file, () => fsyncFile(file));
  }
  // The folders of the new tree, deepest first: the given ones, else those holding written files.
  const folders = new Set(dirs);
  if (folders.size === 0) for (const rel of written) for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) folders.add(rel.slice(0, i));
  for (const d of [...folders].sort(cmp).reverse()) {
    const dir = path.join(treeDir, d);
    if (lexists(dir)) fsyncDir(dir);
  }
  fsyncDir(treeDir);
  fsyncFile(path.join(tmp, JOURNAL));
}

/**
 * Test-only fault injection: with KYMA_FLEET_CRASH_AFTER_WRITES=N the process SIGKILLs itself after
 * its Nth write step. Steps, in order: each file of the new tree (index last), the marker, the rename
 * of the old dist/ away, the rename of the new tree into place, removal of the tmp folder.
 */
class CrashPoints {
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

// ---------------------------------------------------------------------------------------------
// Errors

function refuse(problem: Problem, exitCode: 1 | 4): { ok: false; problem: Problem; exitCode: 1 | 4 } {
  return { ok: false, problem, exitCode };
}

function isErrno(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}

function withPath<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isErrno(e) && e.path === undefined) e.path = file;
    throw e;
  }
}

function ioProblem(e: NodeJS.ErrnoException, display: string): Problem {
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
