// A write of dist/ in progress (docs/architecture.md, "Writing dist/"): it holds the lock, takes
// the new tree's files one by one (written into the staging tree at once, so a large render never
// holds the whole tree in memory) and the entries kept from dist/, and at commit decides between
// nothing changed, a build and a patch, and publishes (./publish.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { type DistIndex, indexFileStamp, indexTextDigest } from '../lib/dist-index';
import { EARLY_FLUSH_FILES, startEarlyFlush } from './files';
import type { Existing } from './inspect';
import type { CrashPoints } from './journal';
import { checkPath, dirsOf, type Names, removeMadeFolders } from './paths';
import type { Problem } from './problem';
import { newIndexText, patchOps, type Plan, planMoves, publish } from './publish';
import { distChanged, ioProblem, isErrno, type Refusal, refuse, type WriteResult } from './result';
import { Stager, type StagedFile, type StagingArea } from './stager';
import { checkKept, keptWithin, mergeSorted, unchanged, withoutInputs } from './commit-checks';

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
  /**
   * Keeps every entry inside `folders` but those inside or equal to an `except` path (which the
   * caller adds anew, or which go): the complement of a few changed runtimes, as a few ranges.
   * Another index than `indexDigest` makes commit refuse (E_DIST_CHANGED).
   */
  keepAllBut(folders: readonly string[], except: readonly string[], indexDigest: string): void;
  /**
   * Publishes the new tree (or nothing, when it equals dist/) and releases the lock. `inputs`: the
   * index's inputs section (IndexTextBuilder.finish), the record of how each runtime was rendered.
   */
  commit(guard?: (previous: DistIndex | undefined) => Problem | undefined, inputs?: (prefixDigest: string) => string): WriteResult;
  /**
   * Everything commit does short of publishing, done now: the guard and the checks of what is
   * kept, and the new index (with `inputs`) built and hashed. A caller that still has to learn
   * whether it may publish (synth, while its workers look at dist/) prepares meanwhile, then
   * calls commit() without arguments, or abort().
   */
  prepare(guard?: (previous: DistIndex | undefined) => Problem | undefined, inputs?: (prefixDigest: string) => string): void;
  /** Deletes the staging tree and releases the lock; dist/ is untouched. */
  abort(): void;
  /**
   * What commit would change, without publishing anything (synth --check, diff): the session stays
   * open, so the contents of both trees can be read, until abort(). Kept entries change nothing.
   */
  preview(): ({ ok: true } & DistPreview) | Refusal;
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

export class Session implements DistSession {
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
    this.mustTake();
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
    this.mustTake();
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
    this.mustTake();
    checkPath(rel);
    if (this.hashes.has(rel)) throw new Error(`writeDist: ${JSON.stringify(rel)} is both written and reused`);
    this.hashes.set(rel, hash);
    this.reused.set(rel, hash);
    this.same.add(rel);
  }

  keep(folders: readonly string[], files: readonly string[], indexDigest: string): void {
    this.mustTake();
    const existing = this.existing;
    if (existing.kind !== 'tree' || this.indexDigest() !== indexDigest) {
      this.keptStale.push(...folders.map((d) => `${d}/`), ...files);
      return;
    }
    const view = existing.index.view;
    for (const dir of folders) {
      // A folder the index lists is a valid path: only one it does not list is checked.
      const [from, to] = view.folder(dir);
      if (from === to) {
        checkPath(dir);
        this.keptStale.push(`${dir}/`);
      } else {
        this.kept.push([from, to]);
        this.keptFolders.add(dir);
      }
    }
    for (const rel of files) {
      const i = view.find(rel);
      if (i >= 0) this.kept.push([i, i + 1]);
      else {
        checkPath(rel);
        this.keptStale.push(rel);
      }
    }
  }

  keepAllBut(folders: readonly string[], except: readonly string[], indexDigest: string): void {
    this.mustTake();
    const existing = this.existing;
    if (existing.kind !== 'tree' || this.indexDigest() !== indexDigest) {
      this.keptStale.push(...folders.map((d) => `${d}/`));
      return;
    }
    const view = existing.index.view;
    const cuts: Array<readonly [number, number]> = [];
    for (const rel of except) {
      const inside = view.folder(rel);
      if (inside[0] < inside[1]) cuts.push(inside);
      const i = view.find(rel);
      if (i >= 0) cuts.push([i, i + 1]);
    }
    cuts.sort((a, b) => a[0] - b[0]);
    for (const dir of folders) {
      const [from, to] = view.folder(dir);
      let at = from;
      for (const [cutFrom, cutTo] of cuts) {
        if (cutTo <= at || cutFrom >= to) continue;
        if (cutFrom > at) this.kept.push([at, cutFrom]);
        at = cutTo;
      }
      if (at < to) this.kept.push([at, to]);
    }
  }

  /** Throws unless the session still takes files (open, not prepared). */
  private mustTake(): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    if (this.prepared) throw new Error('writeDist: the session is prepared; it takes no more files');
  }

  /** sha256 of the current index text (dist/'s), once computed. */
  private digest: string | undefined;
  /** What commit will do, once decided (prepare). */
  private prepared: Decision | undefined;

  private indexDigest(): string | undefined {
    if (this.existing.kind !== 'tree') return undefined;
    return (this.digest ??= indexTextDigest(this.existing.indexText));
  }

  prepare(guard?: (previous: DistIndex | undefined) => Problem | undefined, inputs?: (prefixDigest: string) => string): void {
    if (this.closed) throw new Error('writeDist: the session is closed');
    if (this.prepared) throw new Error('writeDist: the session is prepared already');
    try {
      this.prepared = this.decide(guard, inputs);
    } catch (e) {
      if (!isErrno(e)) throw e;
      this.prepared = { result: refuse(ioProblem(e, this.names.display), 4) };
    }
  }

  commit(guard?: (previous: DistIndex | undefined) => Problem | undefined, inputs?: (prefixDigest: string) => string): WriteResult {
    if (this.closed) throw new Error('writeDist: the session is closed');
    try {
      const decided = this.prepared ?? this.decide(guard, inputs);
      if ('result' in decided) return decided.result;
      const { names } = this;
      publish(names, this.id, decided.plan, this.written, decided.index.chunks, this.existing.kind !== 'missing', this.steps);
      return { ok: true, changed: true, written: this.written.length, removed: decided.removed, indexDigest: decided.index.digest, indexStamp: indexFileStamp(names.outDir) };
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

  preview(): ({ ok: true } & DistPreview) | Refusal {
    if (this.closed) throw new Error('writeDist: the session is closed');
    if (this.reused.size > 0) throw new Error('writeDist: preview() of a session with reused entries');
    if (this.failure) return refuse(ioProblem(this.failure, this.names.display), 4);
    if (this.keptStale.length > 0) return refuse(distChanged(this.names.display, this.keptStale), 4);
    const view = this.previous?.view;
    const before: string[] = [];
    if (view) for (let i = 0; i < view.size; i++) before.push(view.relAt(i));
    // Kept entries are in both trees, unchanged (checkKept: no added file among them).
    const kept = checkKept(this.kept, view, this.hashes.keys(), this.keptFolders);
    const keptRels: string[] = [];
    const keptAt = new Uint8Array(before.length);
    for (const [from, to] of kept) for (let i = from; i < to; i++) {
      keptAt[i] = 1;
      keptRels.push(before[i]!);
    }
    // keptRels are in index order; the session's own files, sorted, are merged in (the default sort
    // compares UTF-16 code units, as cmp does).
    const after = mergeSorted([...this.hashes.keys()].sort(), keptRels);
    const added: string[] = [];
    const changed: string[] = [];
    for (const rel of [...this.written].sort()) (view && view.find(rel) >= 0 ? changed : added).push(rel);
    const removed = before.filter((rel, i) => keptAt[i] === 0 && !this.hashes.has(rel));
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

  /** What commit does: return a result (a refusal, or nothing changed) or publish a plan with the new index. */
  private decide(guard?: (previous: DistIndex | undefined) => Problem | undefined, inputs?: (prefixDigest: string) => string): Decision {
    if (this.failure) throw this.failure;
    const { names, previous, existing } = this;
    if (this.keptStale.length > 0) return { result: refuse(distChanged(names.display, this.keptStale), 4) };
    const view = previous?.view;
    let kept = checkKept(this.kept, view, this.hashes.keys(), this.keptFolders);
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
    if (refusal) return { result: refuse(refusal, 1) };
    const stale = [...this.reused].filter(([rel, hash]) => view?.hashOf(rel) !== hash).map(([rel]) => rel);
    if (stale.length > 0) return { result: refuse(distChanged(names.display, stale), 4) };

    const dirs = dirsOf(this.hashes.keys());
    for (const d of dirs) if (this.hashes.has(d)) throw new Error(`writeDist: output path ${JSON.stringify(d)} is both a file and a folder`);
    // A folder of the new tree holds an added file or a kept entry (one search, not a set of 20,000 folders).
    const inNew = (d: string): boolean => dirs.has(d) || (view !== undefined && keptWithin(kept, ...view.folder(d)));
    // The default sort compares UTF-16 code units, as cmp does, without a comparator call per pair.
    const sorted = [...this.hashes.keys()].sort();
    const index = newIndexText(view, kept, sorted, this.hashes, inputs);
    const indexDigest = index.digest;
    const sortedDirs = kept.length > 0 ? [] : [...dirs].sort(cmp);
    // A write without an inputs section leaves an unchanged dist/ alone, its section included (the
    // seal ties that section to these very files: src/run/committed-record.ts).
    if (existing.kind === 'tree' && this.written.length === 0 && unchanged(inputs ? existing.indexText : withoutInputs(existing.indexText), index, total, existing, sortedDirs, this.partialWalk)) {
      return { result: { ok: true, changed: false, written: 0, removed: 0, indexDigest: inputs ? indexDigest : indexTextDigest(existing.indexText), indexStamp: indexFileStamp(names.outDir) } };
    }
    const plan: Plan =
      patch && view
        ? { mode: 'patch', ops: patchOps(view, kept, this.keptFolders, this.hashes, inNew, this.written, existing.kind === 'tree' ? existing.dirs : []) }
        : { mode: 'build', moves: previous ? planMoves(previous, this.hashes, this.same) : { dirs: [], files: [] }, dirs: sortedDirs };
    return { plan, index, removed };
  }

  /** Lists the kept ranges as reused files, one by one. */
  private materializeKept(kept: ReadonlyArray<readonly [number, number]>): void {
    const view = this.previous!.view;
    this.kept = [];
    this.keptFolders = new Set();
    for (const [from, to] of kept) for (let i = from; i < to; i++) this.reuse(view.relAt(i), view.hashAt(i));
  }
}

/** What a commit does: return `result`, or publish `plan` and `index`, which removes `removed` files. */
type Decision = { readonly result: WriteResult } | { readonly plan: Plan; readonly index: ReturnType<typeof newIndexText>; readonly removed: number };
