// The ownership index `dist/.kyma-fleet-index.json`: which files in dist/ kyma-fleet wrote, with
// their sha256. It is what lets the writer delete stale output safely (only files it owns) and
// refuse a dist/ that holds anything else (hostile-inputs H43, H56). Its entries as a sorted list:
// ./index-view.ts; its canonical text: ./index-text.ts; here: reading and parsing it.

import { isAscii } from 'node:buffer';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256 } from './digest';
import { fileStamp, statStamp } from './file-stamp';
import { openForReading } from './open-for-reading';
import { cmp } from './diagnostics';
import { IndexBytes, IndexView } from './index-view';

export { IndexBytes, IndexView } from './index-view';
export { IndexTextBuilder, indexLine, serializeIndex } from './index-text';
export { sha256 };

export const INDEX_FILE = '.kyma-fleet-index.json';

export interface DistIndex {
  version: 1;
  generator: 'kyma-fleet';
  /** relPath -> sha256 hex of the file's bytes, keys sorted by code point (built on first use from `view`). */
  readonly files: Readonly<Record<string, string>>;
  /** The same entries as a sorted list: lookups, prefix ranges and verbatim text without a map of 110,000 keys. */
  readonly view: IndexView;
}

/** The last text parsed and its index: one run reads the same index in several stages. */
let memo: { text: string; index: DistIndex | undefined } | undefined;
/** The last index text digested, and its sha256. */
let digestMemo: { text: string; digest: string } | undefined;

/** sha256 of index text, remembered for the next call (a run checks the same 10 MB index at several stages). */
export function indexTextDigest(text: string): string {
  if (digestMemo?.text !== text) digestMemo = { text, digest: sha256(text) };
  return digestMemo.digest;
}

/**
 * Remembers `digest` as the sha256 of `text` without hashing it, and returns it: for an index read
 * with the very stamp the run that wrote it recorded with its digest (src/run/plan.ts).
 */
export function vouchedIndexDigest(text: string, digest: string): string {
  digestMemo = { text, digest };
  return digest;
}

/**
 * Parses index text; undefined when it is not a well-formed version-1 kyma-fleet index. The result
 * is shared between callers with the same text and must not be modified.
 */
export function parseIndex(text: string, options?: { readonly ours?: boolean }): DistIndex | undefined {
  if (memo?.text === text) return memo.index;
  const index = parseIndexText(text, options?.ours ?? false);
  memo = { text, index };
  return index;
}

function parseIndexText(text: string, ours: boolean): DistIndex | undefined {
  // What serializeIndex wrote (every index kyma-fleet writes) is read line by line; any other valid JSON goes through JSON.parse.
  const view = IndexView.fromCanonicalText(text, ours) ?? viewFromJson(text);
  return view ? indexOf(view) : undefined;
}

function viewFromJson(text: string): IndexView | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { version, generator, files } = data as Record<string, unknown>;
  if (version !== 1 || generator !== 'kyma-fleet') return undefined;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined;
  const record = files as Record<string, unknown>;
  // JSON.parse makes every key an own property, "__proto__" included.
  const keys = Object.keys(record).sort(cmp);
  const HASH = /^[0-9a-f]{64}$/;
  const hashes: string[] = [];
  for (const key of keys) {
    const hash = record[key];
    if (typeof hash !== 'string' || !HASH.test(hash)) return undefined;
    hashes.push(hash);
  }
  return IndexView.fromSorted(keys, hashes);
}

/** A DistIndex over a view; its `files` record is built when first asked for. */
export function indexOf(view: IndexView): DistIndex {
  let files: Record<string, string> | undefined;
  return {
    version: 1,
    generator: 'kyma-fleet',
    view,
    get files() {
      if (!files) {
        files = Object.create(null) as Record<string, string>;
        for (let i = 0; i < view.size; i++) files[view.relAt(i)] = view.hashAt(i);
      }
      return files;
    },
  };
}

export type IndexRead =
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'ok'; index: DistIndex; text: string };

/** dist/'s index as a caller read it earlier: its text and that text's indexTextDigest. */
export interface KnownIndex {
  readonly digest: string;
  readonly text: string;
  /** The file's stamp when the text was read, if it was settled then (src/lib/file-stamp.ts). */
  readonly stamp?: string;
}

/**
 * Reads `<outDir>/<INDEX_FILE>` without following a symlink in its place. I/O errors throw. With
 * `known`, bytes whose sha256 is the known digest give back the known text (so the parse and digest
 * memos answer at once): they are hashed a megabyte at a time, and the index of a 100,000-runtime
 * dist/ (200 MB) is neither held twice nor decoded again.
 */
export function loadIndex(outDir: string, known?: KnownIndex): IndexRead {
  const file = path.join(outDir, INDEX_FILE);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return { kind: 'missing' };
    throw e;
  }
  if (!st.isFile()) return { kind: 'invalid', reason: `${INDEX_FILE} is not a regular file` };
  // The file the caller read, unchanged since (its settled stamp), or bytes with the known digest.
  const same = known !== undefined && ((known.stamp !== undefined && statStamp(st) === known.stamp) || fileDigest(file) === known.digest);
  const text = same ? known.text : fs.readFileSync(file, 'utf8');
  const index = parseIndex(text);
  return index ? { kind: 'ok', index, text } : { kind: 'invalid', reason: `${INDEX_FILE} is not a valid kyma-fleet index` };
}

/** sha256 of a file's bytes, read a megabyte at a time. */
function fileDigest(file: string): string {
  const hash = crypto.createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = fs.openSync(file, 'r');
  try {
    for (let n = fs.readSync(fd, chunk, 0, chunk.length, null); n > 0; n = fs.readSync(fd, chunk, 0, chunk.length, null)) hash.update(chunk.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * The bytes of dist/'s index (not followed through a symlink), or undefined when there is none or it
 * is unreadable.
 */
export function readIndexBytes(outDir: string): Buffer | undefined {
  return readIndexFile(outDir)?.bytes;
}

/**
 * The bytes of dist/'s index (not followed through a symlink) and, with `runStart`, its stamp after
 * they were read if it was settled then (src/lib/file-stamp.ts); undefined when there is none or it
 * is unreadable.
 */
export function readIndexFile(outDir: string, runStart?: number): { readonly bytes: Buffer; readonly stamp?: string } | undefined {
  const file = path.join(outDir, INDEX_FILE);
  let fd: number;
  try {
    if (!fs.lstatSync(file).isFile()) return undefined;
    fd = openForReading(file, fs.constants.O_NOFOLLOW ?? 0);
  } catch {
    return undefined;
  }
  try {
    const bytes = fs.readFileSync(fd);
    // Taken after the read: a write during it leaves a later ctime than this stamp.
    const stamp = runStart === undefined ? undefined : fileStamp(fs.fstatSync(fd), runStart);
    return stamp === undefined ? { bytes } : { bytes, stamp };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * readIndexFile as text. The bytes are dropped here, still young: a scavenge frees them. Held by
 * the caller until it decoded them, they outlived two scavenges and stayed until the next full
 * collection (a 21 MB Buffer through a whole check at 10,000 runtimes, 200 MB at 100,000).
 */
export function readIndexText(outDir: string, runStart?: number): { readonly text: string; readonly stamp?: string } | undefined {
  const read = readIndexFile(outDir, runStart);
  if (!read) return undefined;
  // An index of ASCII paths (every one in practice) decodes as Latin-1, the same text: a copy, not a UTF-8 decode (21 MB at 10,000 runtimes).
  const text = isAscii(read.bytes) ? read.bytes.toString('latin1') : read.bytes.toString('utf8');
  return read.stamp === undefined ? { text } : { text, stamp: read.stamp };
}

/** dist/'s index file as it is now (not followed through a symlink), undefined when there is none or it cannot be looked at. */
function indexFileStat(outDir: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(path.join(outDir, INDEX_FILE), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The size in bytes of dist/'s index file, 0 when there is none (what the plan starts workers by, before it reads the file). */
export function indexFileBytes(outDir: string): number {
  return indexFileStat(outDir)?.size ?? 0;
}

/** The stamp of dist/'s index as it is now (statStamp), or undefined when there is none or it cannot be looked at. */
export function indexFileStamp(outDir: string): string | undefined {
  const st = indexFileStat(outDir);
  return st && statStamp(st);
}

/** Looking up a file's hash in an index: what the staging of a file and the transition rules need. */
export type HashLookup = Pick<IndexView, 'hashOf'>;

/**
 * dist/'s index as a lookup, read as bytes (IndexBytes: outside the JS heap, for worker threads), or
 * undefined when there is none or it is not a valid index. `digest`: undefined also when the bytes'
 * sha256 is another one (the index changed since the caller read it).
 */
export function readIndexLookup(outDir: string, digest?: string): HashLookup | undefined {
  const bytes = readIndexBytes(outDir);
  if (bytes === undefined || (digest !== undefined && sha256(bytes) !== digest)) return undefined;
  // Canonical bytes (every index kyma-fleet writes); any other valid JSON through parseIndex.
  return IndexBytes.fromCanonicalBytes(bytes) ?? parseIndex(bytes.toString('utf8'))?.view;
}

/** The index of an existing dist/, or undefined when there is none (or it is unreadable or invalid). */
export function readDistIndex(outDir: string): DistIndex | undefined {
  try {
    const r = loadIndex(outDir);
    return r.kind === 'ok' ? r.index : undefined;
  } catch {
    return undefined;
  }
}

export function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as NodeJS.ErrnoException).code === code;
}
