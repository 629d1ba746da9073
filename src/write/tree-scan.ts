// One pass over an existing dist/ that answers both questions a fresh CI runner asks of it (issue
// 28): is every file the index lists there with the bytes it lists (src/run/committed-record.ts
// trusts the committed record only then), and does dist/ hold anything the index does not list
// (inspect.ts refuses that, E_DIST_FOREIGN)? Every folder is listed once and every file read and
// hashed once; separately, the two cost 1.5x as much (a 10,000-runtime dist/: 130,000 files in
// 50,000 folders). For a large tree the runtime folders are split in ranges over worker threads
// (./tree-scan-worker.ts); the rest of dist/ (gitops/, the top level) is done here meanwhile.
// touchedSince, the cheaper question a plain synth asks, is split the same way. Both can be started
// and finished later (startScan, startTouched), so that the caller checks the fleet while the
// workers read dist/. Read only.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { INDEX_FILE, type IndexView } from '../lib/dist-index';
import { IndexChanged, LineCursor, type Lines, textDigest } from './index-lines';
import { compiledScript, startSyncTasks, startWarmWorkers, type WarmWorkers } from '../lib/sync-workers';
import { isSystemError } from './result';
import { below, FileHasher } from './file-hasher';

/** What a scan of dist/ found, compared with the index it was given. */
export interface TreeScan {
  /** The index text the files were compared with (inspect uses the scan only for this very index). */
  readonly indexText: string;
  /** Every folder, sorted. */
  readonly dirs: string[];
  /** How many regular files (the index file included). */
  readonly files: number;
  /** Regular files the index does not list, sorted. */
  readonly foreign: string[];
  /** Entries that are neither a regular file nor a folder (symlinks, sockets), sorted. */
  readonly others: string[];
  /** Runtime folders (by name) with a listed file that is missing, not a regular file, or has other bytes. */
  readonly editedRuntimes: Set<string>;
  /** A listed file outside every runtimes/<name>/ folder is missing, not a regular file, or has other bytes. */
  readonly editedOutside: boolean;
  /** Worker threads that scanned the runtime folders (0: this thread did). */
  readonly workers: number;
}

/** What one range of runtime folders asks of a worker. */
export interface ScanPartInput {
  readonly root: string;
  /** Runtime folder names, in the order of their paths (`runtimes/<name>/`). */
  readonly names: readonly string[];
  /** The index lines of the range (IndexView.linesOf): every listed path that sorts among these folders. */
  readonly lines: Lines;
}

export interface ScanPartResult {
  dirs: string[];
  others: string[];
  foreign: string[];
  files: number;
  edited: string[];
  /** Listed paths of the range that are in no runtimes/<name>/ folder (their files are the caller's). */
  stray: string[];
}

/** Runtime folders below which one thread is faster than starting workers. */
const MIN_FOLDERS_PER_WORKER = 1000;

/** How the work is split: workers per so many folders or files (tests make them small), and workers started ahead (startWarmWorkers). */
export interface Tuning {
  readonly perThread?: number;
  readonly perRange?: number;
  readonly warm?: WarmWorkers;
}

const RUNTIME_NAME = /^runtimes\/([^/]+)\//;

/** A scan or look started in worker threads: `finish` does this thread's share and waits for theirs. */
export interface Pending<T> {
  finish(): T;
  /** Stops the workers (the caller failed, or no longer needs the answer). */
  cancel(): void;
}

/**
 * Scans dist/ at `root` against its index. `threads`: at most this many worker threads (0 or 1:
 * this thread only), one per `perThread` runtime folders (tests make it small). Undefined when a
 * folder cannot be listed (the write's own inspection reports it).
 */
export function scanTree(root: string, view: IndexView, indexText: string, threads: number, tuning: Tuning = {}): TreeScan | undefined {
  return startScan(root, view, indexText, threads, tuning).finish();
}

/**
 * scanTree, started: the workers scan the runtime folders while the caller works on; `finish`
 * scans the rest of dist/ in this thread and waits for them.
 */
export function startScan(root: string, view: IndexView, indexText: string, threads: number, tuning: Tuning = {}): Pending<TreeScan | undefined> {
  // Byte offsets are the text's offsets when the text is ASCII (every index of ASCII paths).
  const file = path.join(root, INDEX_FILE);
  const ascii = Buffer.byteLength(indexText) === indexText.length;
  const linesOf = (from: number, to: number): Lines => {
    const span = ascii && from < to ? view.textSpan(from, to) : undefined;
    return span ? { file, start: span[0], end: span[1], sha256: textDigest(indexText, span[0], span[1]) } : view.linesOf(from, to);
  };
  let started: ReturnType<typeof startParts> | undefined;
  try {
    started = startParts(root, view, threads, tuning.perThread ?? MIN_FOLDERS_PER_WORKER, linesOf, tuning.warm);
  } catch (e) {
    if (!isSystemError(e)) throw e;
  }
  return {
    finish: () => {
      const parts = started;
      started = undefined;
      if (!parts) return undefined;
      try {
        return finishScan(root, view, indexText, parts);
      } catch (e) {
        parts.tasks?.cancel();
        // A folder that cannot be listed (gone, not a folder, no access), or an index that changed
        // under the scan; anything else is a bug.
        if (isSystemError(e) || e instanceof IndexChanged) return undefined;
        throw e;
      }
    },
    cancel: () => started?.tasks?.cancel(),
  };
}

/** The runtime folders in ranges, started in workers when there are several. */
function startParts(root: string, view: IndexView, threads: number, perThread: number, linesOf: (from: number, to: number) => Lines, warm: WarmWorkers | undefined) {
  const runtimes = fs.lstatSync(path.join(root, 'runtimes'), { throwIfNoEntry: false })?.isDirectory() ? fs.readdirSync(path.join(root, 'runtimes'), { withFileTypes: true }) : [];
  const names = runtimes.filter((e) => e.isDirectory()).map((e) => e.name).sort((a, b) => cmp(`${a}/`, `${b}/`));
  const [from, to] = view.folder('runtimes');
  const parts = partsOf(names, view, from, to, Math.min(threads, Math.floor(names.length / perThread)));
  const inputs = parts.map((p): ScanPartInput => ({ root, names: p.names, lines: linesOf(p.from, p.to) }));
  const script = inputs.length > 1 ? compiledScript(__dirname, 'tree-scan-worker.js') : undefined;
  const tasks = script ? startSyncTasks<ScanPartInput, ScanPartResult>(script, inputs, undefined, warm) : undefined;
  return { inputs, tasks, from, to };
}

function finishScan(root: string, view: IndexView, indexText: string, started: ReturnType<typeof startParts>): TreeScan {
  const { inputs, tasks, from, to } = started;
  const dirs: string[] = [];
  const others: string[] = [];
  const foreign: string[] = [];
  const hasher = new FileHasher(root);
  let files = 0;
  let editedOutside = false;
  let seenOutside = 0;
  // Everything but the runtime folders (runtimes/ itself is listed again: a folder of names).
  const outside: TreeVisitor = {
    dir: (rel) => {
      dirs.push(rel);
      return !rel.startsWith('runtimes/');
    },
    file: (rel) => {
      files++;
      if (rel === INDEX_FILE) return;
      const i = view.find(rel);
      if (i < 0) foreign.push(rel);
      else {
        seenOutside++;
        if (hasher.hash(rel) !== view.hashAt(i)) editedOutside = true;
      }
    },
    other: (rel) => void others.push(rel),
  };
  walkTree(root, '', outside);
  const answered = tasks?.wait();
  const results = answered ?? inputs.map((input) => scanPart(input));
  const editedRuntimes = new Set<string>();
  let stray = 0;
  for (const r of results) {
    // One at a time: a part of a 100,000-runtime tree lists more folders than a call takes arguments.
    for (const d of r.dirs) dirs.push(d);
    for (const o of r.others) others.push(o);
    for (const f of r.foreign) foreign.push(f);
    files += r.files;
    for (const name of r.edited) editedRuntimes.add(name);
    stray += r.stray.length;
  }
  // Every listed path outside the runtime folders was seen here, or it is missing.
  if (seenOutside !== from + (view.size - to) + stray) editedOutside = true;
  return { indexText, dirs: dirs.sort(cmp), files, foreign: foreign.sort(cmp), others: others.sort(cmp), editedRuntimes, editedOutside, workers: answered ? answered.length : 0 };
}

/** What walkTree hands on: folders (return false to not look inside), regular files, anything else. */
export interface TreeVisitor {
  dir(rel: string): boolean;
  file(rel: string): void;
  other(rel: string): void;
}

/**
 * Lists the folder `rel` of `root` ('' for root itself) and, as the visitor wants, every folder
 * below it, without following symlinks; paths are relative with forward slashes. The one walk of
 * dist/ (this scan, its parts, and inspect.ts).
 */
export function walkTree(root: string, rel: string, visitor: TreeVisitor): void {
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (visitor.dir(child)) walkTree(root, child, visitor);
    } else if (entry.isFile()) visitor.file(child);
    else visitor.other(child);
  }
}

/** Contiguous ranges of the runtime folders and of the index lines that sort among them, one per thread. */
function partsOf(names: readonly string[], view: IndexView, from: number, to: number, threads: number): Array<{ names: readonly string[]; from: number; to: number }> {
  const count = Math.max(1, threads);
  const parts: Array<{ names: readonly string[]; from: number; to: number }> = [];
  let at = from;
  for (let k = 0; k < count; k++) {
    const first = Math.floor((names.length * k) / count);
    const next = Math.floor((names.length * (k + 1)) / count);
    const end = k === count - 1 ? to : view.lowerBound(`runtimes/${names[next]}/`);
    parts.push({ names: names.slice(first, next), from: at, to: end });
    at = end;
  }
  return parts;
}

/** One range of runtime folders: listed, their files hashed and merged with the index lines of the range. */
export function scanPart(input: ScanPartInput, beat: () => void = () => {}): ScanPartResult {
  const listed = new LineCursor(input.lines);
  const hasher = new FileHasher(input.root);
  const out: ScanPartResult = { dirs: [], others: [], foreign: [], files: 0, edited: [], stray: [] };
  const edited = new Set<string>();
  const missing = (): void => {
    const name = RUNTIME_NAME.exec(listed.rel!)?.[1];
    if (name === undefined) out.stray.push(listed.rel!);
    else edited.add(name);
    listed.next();
  };
  for (const name of input.names) {
    const folder = `runtimes/${name}`;
    const prefix = `${folder}/`;
    while (listed.rel !== undefined && listed.rel < prefix) missing();
    const found: string[] = [];
    walkTree(input.root, folder, {
      dir: (rel) => {
        out.dirs.push(rel);
        return true;
      },
      file: (rel) => void found.push(rel),
      other: (rel) => void out.others.push(rel),
    });
    found.sort(cmp);
    out.files += found.length;
    for (const rel of found) {
      // Listed paths between the last file and this one are missing (they all lie in this folder).
      while (listed.rel !== undefined && listed.rel < rel) missing();
      if (listed.rel === rel) {
        if (hasher.hash(rel) !== listed.hash) edited.add(name);
        listed.next();
      } else out.foreign.push(rel);
    }
    beat();
  }
  while (listed.rel !== undefined) missing();
  out.edited = [...edited];
  return out;
}

/**
 * What a worker of touchedSince is given: the index in ranges, which the workers and the caller
 * claim one at a time, and whether any listed file was touched after `settled`.
 */
export interface TouchedPartInput {
  readonly root: string;
  /** The index lines of each range of this worker's block (IndexView.linesOf). */
  readonly ranges: readonly Lines[];
  readonly settled: number;
  /** Shared with the caller and the other workers: [0] 1 once a touched file was found, [slot] the next range of this block to claim. */
  readonly claims: SharedArrayBuffer;
  readonly slot: number;
}

/** Listed files below which one thread is faster than starting workers. */
const MIN_FILES_PER_WORKER = 20000;
/** Listed files of a range claimed at a time: the caller, once it asks for the answer, waits at most for one range a worker has claimed. */
const FILES_PER_RANGE = 2048;

/**
 * True when a file the index lists is missing, not a regular file, or has an mtime or ctime after
 * `settled` (ms), in worker threads by ranges of the index for a large tree. Why (issue 26, "dist/
 * edited by hand"): a plain synth trusts its run record and dist/'s index instead of reading every
 * file, and `synth --check` compares every byte; both must agree on whether dist/ is current. A file
 * edited, replaced or removed since the run that wrote it has a newer time than the record's
 * `settled` (or is gone), so one lstat per listed file tells a synth to verify dist/ byte for byte,
 * which restores what was edited. Files with a newer time but the same bytes (a `git stash pop`,
 * `touch`) only cost that one verifying run.
 */
export function touchedSince(root: string, view: IndexView, settled: number, threads: number, tuning: Tuning = {}): boolean {
  return startTouched(root, view, settled, threads, tuning).finish();
}

/**
 * touchedSince, started: one worker fewer than `threads` looks while the caller works on (on two
 * cores, a second worker only took CPU from the caller); `finish` claims the ranges of each worker's
 * block it has not claimed yet and looks at them in this thread, then waits for the workers.
 */
export function startTouched(root: string, view: IndexView, settled: number, threads: number, tuning: Tuning = {}): Pending<boolean> {
  const perRange = tuning.perRange ?? FILES_PER_RANGE;
  const count = Math.min(threads - 1, Math.floor(view.size / (tuning.perThread ?? MIN_FILES_PER_WORKER)));
  const script = count > 0 ? compiledScript(__dirname, 'tree-scan-worker.js') : undefined;
  const bounds: number[] = [];
  for (let i = 0; i < view.size; i += perRange) bounds.push(i);
  bounds.push(view.size);
  // A block of ranges per worker (each is given only its block's lines, as many as before all together).
  const ranges = bounds.length - 1;
  const blocks = script ? Array.from({ length: count }, (_, w) => [Math.floor((ranges * w) / count), Math.floor((ranges * (w + 1)) / count)] as const) : [];
  const claims = new SharedArrayBuffer(4 * (1 + blocks.length));
  const inputs = blocks.map(([first, end], w): TouchedPartInput => ({ root, settled, ranges: bounds.slice(first + 1, end + 1).map((to, k) => view.linesOf(bounds[first + k]!, to)), claims, slot: 1 + w }));
  const tasks = script ? startSyncTasks<TouchedPartInput, boolean>(script, inputs, undefined, tuning.warm) : undefined;
  const prefix = below(root);
  return {
    finish: () => {
      if (tasks) {
        const shared = new Int32Array(claims);
        let found = false;
        blocks.forEach(([first, end], w) => {
          for (let k = Atomics.add(shared, 1 + w, 1); first + k < end && !found && Atomics.load(shared, 0) === 0; k = Atomics.add(shared, 1 + w, 1)) {
            for (let i = bounds[first + k]!; i < bounds[first + k + 1]! && !found; i++) found = touched(prefix, view.relAt(i), settled);
          }
        });
        if (found) Atomics.store(shared, 0, 1);
        const answered = tasks.wait();
        if (answered) return found || answered.some(Boolean);
        // A worker failed or stalled (its range is unknown): everything in this thread.
      }
      for (let i = 0; i < view.size; i++) if (touched(prefix, view.relAt(i), settled)) return true;
      return false;
    },
    cancel: () => tasks?.cancel(),
  };
}

/** Bytes an index line takes at least: 76 and a path, which for kyma-fleet's files is longer than 14. */
const MIN_LINE_BYTES = 90;

/**
 * The workers a look at dist/ will want when its index file has `indexBytes` bytes (as many as
 * touchedSince starts for that many lines at most; the scan for the committed record starts one more),
 * started now: the plan starts them before it reads the run record and the index, which takes
 * as long as a worker's start-up on another core. Undefined for a dist/ too small for workers.
 */
export function warmWorkers(indexBytes: number, threads: number, prelude?: RuntimesListingInput): WarmWorkers | undefined {
  const count = Math.min(threads - 1, Math.floor(indexBytes / (MIN_FILES_PER_WORKER * MIN_LINE_BYTES)));
  const script = count > 0 ? compiledScript(__dirname, 'tree-scan-worker.js') : undefined;
  return script ? startWarmWorkers(script, count, prelude) : undefined;
}

/** The prelude of the first warm worker: the fleet's runtimes/ listed and stamped (src/load/folder-walk.ts listStamped). */
export interface RuntimesListingInput {
  readonly fleetDir: string;
  readonly runStart: number;
}

/** touchedSince in a worker: the ranges of its block it claims, until none is left or a touched file was found. */
export function touchedPart(input: TouchedPartInput): boolean {
  const prefix = below(input.root);
  const shared = new Int32Array(input.claims);
  for (let k = Atomics.add(shared, input.slot, 1); k < input.ranges.length && Atomics.load(shared, 0) === 0; k = Atomics.add(shared, input.slot, 1)) {
    for (const listed = new LineCursor(input.ranges[k]!); listed.rel !== undefined; listed.next()) {
      if (touched(prefix, listed.rel, input.settled)) {
        Atomics.store(shared, 0, 1);
        return true;
      }
    }
  }
  return false;
}

function touched(prefix: string, rel: string, settled: number): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(prefix + rel, { throwIfNoEntry: false });
  } catch {
    return true;
  }
  // Whole milliseconds: `settled` is Date.now(), truncated, while file times have nanoseconds,
  // so a file written in the very millisecond the record was taken is not newer than it.
  return !st || !st.isFile() || Math.floor(st.mtimeMs) > settled || Math.floor(st.ctimeMs) > settled;
}
