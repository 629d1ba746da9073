// The write stage: replaces dist/ with a new tree atomically. Flux and Argo CD apply whatever is
// committed in dist/, so a half-written tree, a stale file or a write through a symlink is a cluster
// change nobody reviewed (PRODUCT.md "Output"; hostile-inputs H43, H53, H56-H59).
//
// Protocol (every step below runs under the lock `<outDir>.lock`):
//   1. recover: `.dist.old-*` without dist/ -> rename it back; delete `.dist.tmp-*`, then `.dist.old-*`.
//   2. inspect dist/: refuse a symlink, a non-folder, a folder without index, foreign files.
//   3. no-op if the new tree equals dist/ byte for byte.
//   4. build `.dist.tmp-<id>/tree/` with open(…, 'wx') for every file whose content changed; files
//      (and whole folders) equal to the old tree are not written but listed in the journal
//      `.dist.tmp-<id>/moves.json`; make it durable (one syncfs, or an fsync per file and folder
//      where syncfs is unavailable), then write `.dist.tmp-<id>/.complete` (beside tree/).
//   5. rename dist/ -> `.dist.old-<id>`, move the journal's entries from it into tree/ (renames),
//      rename `.dist.tmp-<id>/tree` -> dist/ (the commit point), fsync the parent.
//   6. delete the tmp folder and the old tree (renamed to a tmp name first, so an `.old-*` name always
//      holds a whole tree, never a half-deleted one).
// Why a crash at any instant is safe: before the first rename dist/ is the old tree (plus garbage
// that step 1 deletes); between the first rename and the commit point dist/ is missing, and step 1
// moves the journal's entries back from the tmp tree (same <id>) and renames `.dist.old-<id>` back;
// after the commit point dist/ is the complete, durable new tree. Recovery only ever rolls back, so
// it never has to trust a tmp tree. Moving unchanged runtimes instead of rewriting them is what makes
// a one-runtime change cheap in a fleet of thousands;
// the marker is not what makes this safe, it records that tree/ was complete and fsynced before the
// swap (a leftover tmp can be told from a torn one) and would allow a roll-forward later.

import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { INDEX_FILE, isCode, loadIndex, serializeIndex, sha256, type DistIndex } from './index-file';
import { fsyncDir, fsyncFile } from './fsync';
import { acquireLock } from './lock';

export { INDEX_FILE, readDistIndex, readIndexText, type DistIndex } from './index-file';

export interface Problem {
  code: string;
  message: string;
  paths?: string[];
}

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
  const tree = planTree(req.files, req.reuse);
  const names = siblingNames(req.outDir);
  const steps = new CrashPoints();
  try {
    fs.mkdirSync(names.parent, { recursive: true });
    const lock = acquireLock(names.lock, names.display);
    if (!lock.ok) return refuse(lock.problem, 4);
    try {
      return writeLocked(req, tree, names, steps);
    } finally {
      lock.release();
    }
  } catch (e) {
    if (isErrno(e)) return refuse(ioProblem(e, names.display), 4);
    throw e;
  }
}

function writeLocked(req: WriteRequest, tree: Tree, names: Names, steps: CrashPoints): WriteResult {
  const recovery = recover(names);
  if (recovery) return refuse(recovery, 4);
  const trusted = req.verify === false ? req.trustedDirs : undefined;
  const existing = inspect(names, trusted);
  if ('code' in existing) return refuse(existing, 4);
  const previous = existing.kind === 'tree' ? existing.index : undefined;
  const refusal = req.guard?.(previous);
  if (refusal) return refuse(refusal, 1);
  const stale = [...tree.reused].filter(([rel, hash]) => previous?.files[rel] !== hash).map(([rel]) => rel);
  if (stale.length > 0) {
    return refuse(
      { code: 'E_DIST_CHANGED', message: `${names.display} changed while this run rendered (${stale.slice(0, 5).join(', ')}); run synth again`, paths: stale },
      4,
    );
  }
  if (existing.kind === 'tree' && sameTree(names.outDir, existing, tree, req.verify ?? true, trusted !== undefined && trusted.size > 0)) {
    return { ok: true, changed: false, written: 0, removed: 0, indexDigest: sha256(tree.indexText) };
  }
  const removed = previous ? Object.keys(previous.files).filter((rel) => !tree.files.has(rel) && !tree.reused.has(rel)).length : 0;
  const moves = previous ? planMoves(previous, tree, names.outDir, req.verify ?? true) : { dirs: [], files: [] };
  publish(names, tree, existing.kind !== 'missing', moves, steps);
  return { ok: true, changed: true, written: tree.files.size + tree.reused.size, removed, indexDigest: sha256(tree.indexText) };
}

// ---------------------------------------------------------------------------------------------
// The planned tree

interface Tree {
  files: Map<string, string>; // with content (UTF-8 text), without the index
  hashes: Map<string, string>; // sha256 of every file of the new tree (content and reused)
  reused: Map<string, string>; // relPath -> sha256, kept from the old tree
  dirs: string[]; // every folder the files need, parents first
  indexText: string;
}

function planTree(files: ReadonlyMap<string, string>, reuse: ReadonlyMap<string, string> = new Map()): Tree {
  const out = new Map<string, string>();
  const dirs = new Set<string>();
  for (const rel of reuse.keys()) {
    if (files.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
  }
  // The default sort compares UTF-16 code units, as cmp does, without a comparator call per pair.
  const paths = [...files.keys(), ...reuse.keys()].sort();
  const hashes = new Map<string, string>();
  for (const rel of paths) {
    const content = files.get(rel);
    if (content !== undefined && typeof content !== 'string') throw new Error(`writeDist: content of ${JSON.stringify(rel)} is not a string`);
    const segments = rel.split('/');
    const bad = rel === INDEX_FILE || /[\\\0]/.test(rel) || segments.some((s) => s === '' || s === '.' || s === '..');
    if (bad) throw new Error(`writeDist: invalid output path ${JSON.stringify(rel)}`);
    // Parents until one is known (its own parents are then known too).
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = rel.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
    if (content !== undefined) {
      out.set(rel, content);
      hashes.set(rel, sha256(content));
    } else hashes.set(rel, reuse.get(rel)!);
  }
  for (const d of dirs) {
    if (out.has(d) || reuse.has(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
  }
  return { files: out, hashes, reused: new Map(reuse), dirs: [...dirs].sort(), indexText: serializeIndex(hashes) };
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
 * Every file whose hash is the same in both trees moves; so does every folder holding only such
 * files. With `verify`, a file moves only if its bytes on disk still have that hash (a hand-edited
 * or deleted file is written again); reused files always move (their content is not at hand).
 */
function planMoves(previous: DistIndex, tree: Tree, outDir: string, verify: boolean): Moves {
  const same = new Set<string>();
  for (const [rel, hash] of tree.hashes) {
    if (previous.files[rel] !== hash) continue;
    if (verify && !tree.reused.has(rel) && !onDiskHashIs(path.join(outDir, rel), hash)) continue;
    same.add(rel);
  }
  const oldCount = new Map<string, number>();
  const newCount = new Map<string, number>();
  const sameCount = new Map<string, number>();
  const count = (m: Map<string, number>, rel: string): void => {
    for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) {
      const d = rel.slice(0, i);
      m.set(d, (m.get(d) ?? 0) + 1);
    }
  };
  for (const rel of Object.keys(previous.files)) count(oldCount, rel);
  for (const rel of tree.hashes.keys()) count(newCount, rel);
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
      const moves = JSON.parse(fs.readFileSync(path.join(tmp, JOURNAL), 'utf8')) as Moves;
      undoMoves(old, path.join(tmp, 'tree'), moves);
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

function inspect(names: Names, trustedDirs: ReadonlySet<string> = new Set()): Existing | Problem {
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
  const read = loadIndex(outDir);
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
  const owned = (rel: string) => rel === INDEX_FILE || Object.hasOwn(read.index.files, rel);
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

/** True when dist/ holds exactly the planned files and folders (byte for byte when `verify`). */
function sameTree(outDir: string, existing: Existing & { kind: 'tree' }, tree: Tree, verify: boolean, partialWalk: boolean): boolean {
  if (existing.indexText !== tree.indexText) return false;
  if (partialWalk) return true; // trusted folders were not listed: the index vouches for them
  if (existing.files.length !== tree.hashes.size + 1) return false;
  if (existing.dirs.length !== tree.dirs.length || existing.dirs.some((d, i) => d !== tree.dirs[i])) return false;
  if (!verify) return true;
  for (const [rel, content] of tree.files) {
    let actual: Buffer;
    try {
      actual = fs.readFileSync(path.join(outDir, rel));
    } catch (e) {
      if (isCode(e, 'ENOENT')) return false;
      throw e;
    }
    if (actual.length !== Buffer.byteLength(content, 'utf8') || actual.toString('utf8') !== content) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Building the new tree and swapping it in

const JOURNAL = 'moves.json';

function publish(names: Names, tree: Tree, hadOld: boolean, moves: Moves, steps: CrashPoints): void {
  const id = names.freshId();
  const tmp = names.at('tmp', id);
  const treeDir = path.join(tmp, 'tree');
  // A folder is inside a moved folder when it or one of its ancestors is one (O(depth), not O(moves)).
  const movedDirs = new Set(moves.dirs);
  const movedDir = (d: string): boolean => {
    for (let p = d; p !== '' && p !== '.'; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') if (movedDirs.has(p)) return true;
    return false;
  };
  const moved = new Set(moves.files);
  try {
    fs.mkdirSync(tmp);
    fs.mkdirSync(treeDir);
    for (const d of tree.dirs) if (!movedDir(d)) fs.mkdirSync(path.join(treeDir, d));
    for (const [rel, content] of tree.files) {
      if (moved.has(rel) || movedDir(path.posix.dirname(rel))) continue;
      writeNewFile(path.join(treeDir, rel), content);
      steps.tick();
    }
    writeNewFile(path.join(treeDir, INDEX_FILE), tree.indexText);
    steps.tick();
    writeNewFile(path.join(tmp, JOURNAL), JSON.stringify(moves));
    makeDurable(tmp, treeDir, tree);
    writeNewFile(path.join(tmp, COMPLETE_MARKER), '');
    fsyncDir(tmp);
    steps.tick();
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }

  const old = names.at('old', id);
  try {
    if (hadOld) {
      fs.renameSync(names.outDir, old);
      steps.tick();
      try {
        for (const rel of [...moves.dirs, ...moves.files]) {
          fs.renameSync(path.join(old, rel), path.join(treeDir, rel));
          steps.tick();
        }
      } catch (e) {
        undoMoves(old, treeDir, moves);
        fs.renameSync(old, names.outDir);
        throw e;
      }
    }
    try {
      fs.renameSync(treeDir, names.outDir); // the commit point
    } catch (e) {
      if (hadOld) {
        try {
          undoMoves(old, treeDir, moves);
          fs.renameSync(old, names.outDir);
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
    if (hadOld) discard(names, old);
  } catch {
    // left for recovery
  }
}

function onDiskHashIs(file: string, hash: string): boolean {
  try {
    return sha256(fs.readFileSync(file)) === hash;
  } catch {
    return false;
  }
}

/** Moves the journal's entries back from the tmp tree into the old tree (where they are not yet). */
function undoMoves(old: string, treeDir: string, moves: Moves): void {
  for (const rel of [...moves.dirs, ...moves.files]) {
    const from = path.join(treeDir, rel);
    const to = path.join(old, rel);
    if (lexists(from) && !lexists(to)) {
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.renameSync(from, to);
    }
  }
}

/** Creates a file that must not exist yet ('wx' never follows a symlink) and writes it (UTF-8). */
function writeNewFile(file: string, content: string): void {
  const fd = withPath(file, () => fs.openSync(file, 'wx'));
  try {
    withPath(file, () => {
      const bytes = Buffer.from(content, 'utf8');
      for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off);
    });
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes the complete new tree durable before it is swapped in, so that even a power cut cannot
 * publish empty files. A killed process needs none of this (the page cache survives it). One
 * syncfs of the filesystem (`sync -f`, Linux) costs a few milliseconds where an fsync per file
 * costs seconds for a large fleet; elsewhere every file and folder is fsynced.
 */
function makeDurable(tmp: string, treeDir: string, tree: Tree): void {
  if (process.platform === 'linux') {
    const r = spawnSync('sync', ['-f', treeDir], { stdio: 'ignore', timeout: 120_000 });
    if (r.status === 0) return;
  }
  for (const rel of [...tree.files.keys(), INDEX_FILE]) {
    const file = path.join(treeDir, rel);
    if (lexists(file)) withPath(file, () => fsyncFile(file));
  }
  for (const d of [...tree.dirs].reverse()) {
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

function refuse(problem: Problem, exitCode: 1 | 4): WriteResult {
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

function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}
