// The ownership index `dist/.kyma-fleet-index.json`: which files in dist/ kyma-fleet wrote, with
// their sha256. It is what lets the writer delete stale output safely (only files it owns) and
// refuse a dist/ that holds anything else (hostile-inputs H43, H56).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from './diagnostics';
import { sha256 } from './digest';

export const INDEX_FILE = '.kyma-fleet-index.json';

export interface DistIndex {
  version: 1;
  generator: 'kyma-fleet';
  /** relPath -> sha256 hex of the file's bytes, keys sorted by code point (built on first use from `view`). */
  readonly files: Readonly<Record<string, string>>;
  /** The same entries as a sorted list: lookups, prefix ranges and verbatim text without a map of 110,000 keys. */
  readonly view: IndexView;
}

/**
 * The entries of an index in code-point order, searchable by binary search. When the index text is
 * canonical (what serializeIndex writes) the view also knows where each entry's line is, so a
 * writer can copy runs of unchanged entries into the next index as they are.
 */
export class IndexView {
  private constructor(
    /** relPaths, strictly increasing. */
    private readonly rels: readonly string[],
    /** sha256 per entry, or undefined when they are read from `text` at `hashAt`. */
    private readonly hashes: readonly string[] | undefined,
    /** The canonical text the entries were read from, and the offset of each entry's line in it. */
    private readonly text: string | undefined,
    private readonly lineStarts: Int32Array | undefined,
  ) {}

  static fromSorted(rels: readonly string[], hashes: readonly string[]): IndexView {
    return new IndexView(rels, hashes, undefined, undefined);
  }

  /**
   * Reads canonical index text (as serializeIndex writes it, sorted); undefined for any other text.
   * `ours`: the caller knows kyma-fleet wrote this very text (its digest is in the run record), so
   * the checks that only a foreign or damaged text fails (hash digits, order, stray characters) are
   * skipped; the line structure is still checked, and any backslash still means "not canonical".
   */
  static fromCanonicalText(text: string, ours = false): IndexView | undefined {
    if (text === EMPTY_INDEX) return new IndexView([], [], text, new Int32Array(0));
    if (!text.startsWith(INDEX_HEAD) || !text.endsWith(INDEX_TAIL)) return undefined;
    // No character JSON would have escaped (serializeIndex escapes them, so canonical text has no
    // backslash) and no control character other than the line breaks, checked once for the whole text.
    if (ours ? text.includes('\\') : NOT_CANONICAL.test(text)) return undefined;
    const rels: string[] = [];
    const starts: number[] = [];
    const end = text.length - INDEX_TAIL.length;
    let at = INDEX_HEAD.length;
    for (;;) {
      // `    "<rel>": "<64 hex>"`, then ",\n" or the end of the files object.
      if (!text.startsWith('    "', at)) return undefined;
      const close = text.indexOf('"', at + 5);
      if (close < 0) return undefined;
      const rel = text.slice(at + 5, close);
      if (rel.includes('\n') || !text.startsWith('": "', close) || text.charCodeAt(close + 68) !== 0x22) return undefined;
      if (!ours && (!isLowerHex(text, close + 4) || (rels.length > 0 && !(rels[rels.length - 1]! < rel)))) return undefined;
      rels.push(rel);
      starts.push(at);
      at = close + 69;
      if (at === end) break;
      if (text.charCodeAt(at) !== 0x2c || text.charCodeAt(at + 1) !== 0x0a || at > end) return undefined; // ",\n"
      at += 2;
    }
    return new IndexView(rels, undefined, text, Int32Array.from(starts));
  }

  get size(): number {
    return this.rels.length;
  }

  relAt(i: number): string {
    return this.rels[i]!;
  }

  hashAt(i: number): string {
    if (this.hashes) return this.hashes[i]!;
    // `    "<rel>": "<hash>"`: the hash starts 4 characters after the rel's closing quote.
    const from = this.lineStarts![i]! + 5 + this.rels[i]!.length + 4;
    return this.text!.slice(from, from + 64);
  }

  /** The first entry whose relPath is >= rel (size when none is), searched from the last answer (gallop). */
  lowerBound(rel: string): number {
    const rels = this.rels;
    this.hint = gallop(rels.length, this.hint, (i) => rels[i]! < rel);
    return this.hint;
  }

  /** The last answer of lowerBound, where the next search starts. */
  private hint = 0;

  /** The position of rel, or -1. */
  find(rel: string): number {
    const i = this.lowerBound(rel);
    return i < this.rels.length && this.rels[i] === rel ? i : -1;
  }

  hashOf(rel: string): string | undefined {
    const i = this.find(rel);
    return i < 0 ? undefined : this.hashAt(i);
  }

  /** The entries inside folder `dir` (relPaths starting with `dir/`) as [from, to). */
  folder(dir: string): readonly [number, number] {
    let range = this.folders.get(dir);
    if (!range) {
      // '/' is U+002F and '0' U+0030: every path below dir/ sorts before `${dir}0`.
      range = [this.lowerBound(`${dir}/`), this.lowerBound(`${dir}0`)];
      this.folders.set(dir, range);
    }
    return range;
  }

  /** folder() answers: synth asks for every kept runtime's folder, then the writer again. */
  private readonly folders = new Map<string, readonly [number, number]>();

  /** True when some entry lies inside folder `dir`. */
  hasFolder(dir: string): boolean {
    const [from, to] = this.folder(dir);
    return from < to;
  }

  /**
   * The index lines of entries [from, to) joined by ",\n", as serializeIndex writes them (copied
   * from the canonical text when the view has it).
   */
  linesOf(from: number, to: number): string {
    if (from >= to) return '';
    if (this.text !== undefined && this.lineStarts !== undefined) {
      const last = to - 1;
      return this.text.slice(this.lineStarts[from]!, this.lineStarts[last]! + 5 + this.rels[last]!.length + 4 + 64 + 1);
    }
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(indexLine(this.rels[i]!, this.hashAt(i)));
    return out.join(',\n');
  }
}

/**
 * The hashes of canonical index text held as bytes (a Buffer, outside the JS heap), for a worker
 * thread: the index of a 100,000-runtime dist/ is over 100 MB, more than a worker's heap holds as a
 * string, and a worker only looks up the files it writes. Only the line structure is checked: the
 * caller has compared the bytes' digest with the index the main thread parsed and checked.
 */
export class IndexBytes {
  private constructor(
    private readonly bytes: Buffer,
    /** Byte offset of each entry's line, and of the closing quote of its relPath. */
    private readonly starts: Int32Array,
    private readonly closes: Int32Array,
  ) {}

  /** Canonical index bytes (as serializeIndex writes them); undefined for anything else. */
  static fromCanonicalBytes(bytes: Buffer): IndexBytes | undefined {
    const head = Buffer.from(INDEX_HEAD);
    const tail = Buffer.from(INDEX_TAIL);
    if (bytes.equals(Buffer.from(EMPTY_INDEX))) return new IndexBytes(bytes, new Int32Array(0), new Int32Array(0));
    if (bytes.length < head.length + tail.length || !bytes.subarray(0, head.length).equals(head) || !bytes.subarray(bytes.length - tail.length).equals(tail)) return undefined;
    // Escapes (a backslash) mean JSON.parse must read it; UTF-8 continuation bytes are never '"' or a line feed.
    if (bytes.includes(0x5c)) return undefined;
    const starts: number[] = [];
    const closes: number[] = [];
    const end = bytes.length - tail.length;
    let at = head.length;
    for (;;) {
      // `    "<rel>": "<64 hex>"`, then ",\n" or the end of the files object.
      if (bytes.readUInt32BE(at) !== 0x20202020 || bytes[at + 4] !== 0x22) return undefined;
      const close = bytes.indexOf(0x22, at + 5);
      if (close < 0 || close + 69 > end) return undefined;
      const lf = bytes.indexOf(0x0a, at + 5);
      if (lf >= 0 && lf < close) return undefined;
      if (bytes.readUInt32BE(close) !== 0x223a2022 || bytes[close + 68] !== 0x22) return undefined; // `": "`
      starts.push(at);
      closes.push(close);
      at = close + 69;
      if (at === end) break;
      if (bytes[at] !== 0x2c || bytes[at + 1] !== 0x0a) return undefined; // ",\n"
      at += 2;
    }
    return new IndexBytes(bytes, Int32Array.from(starts), Int32Array.from(closes));
  }

  get size(): number {
    return this.starts.length;
  }

  relAt(i: number): string {
    return this.bytes.toString('utf8', this.starts[i]! + 5, this.closes[i]!);
  }

  /** The hash of rel, or undefined, searched from the last answer (gallop). */
  hashOf(rel: string): string | undefined {
    const n = this.starts.length;
    const lo = (this.hint = gallop(n, this.hint, (i) => this.relAt(i) < rel));
    if (lo >= n || this.relAt(lo) !== rel) return undefined;
    const from = this.closes[lo]! + 4;
    return this.bytes.toString('latin1', from, from + 64);
  }

  private hint = 0;
}

/**
 * The first position in [0, n) whose entry is not `before` the searched key (n when there is none),
 * for entries sorted so that `before` holds for a prefix of them. Callers mostly ask in sorted order
 * (runtime after runtime), so the search gallops outward from the last answer `hint` before it
 * bisects: a few comparisons per question instead of 17 over 110,000 entries.
 */
function gallop(n: number, hint: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  if (hint < n && before(hint)) {
    // The answer lies after hint: probe hint+1, hint+2, hint+4, ... until an entry is not before.
    lo = hint + 1;
    for (let step = 1; hint + step < n; step *= 2) {
      if (before(hint + step)) lo = hint + step + 1;
      else {
        hi = hint + step;
        break;
      }
    }
  } else {
    // The answer is at most hint: probe hint-1, hint-2, hint-4, ... until an entry is before.
    hi = Math.min(hint, n);
    for (let step = 1; hi - step >= 0; step *= 2) {
      if (before(hi - step)) {
        lo = hi - step + 1;
        break;
      }
      hi -= step;
    }
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const INDEX_HEAD = '{\n  "files": {\n';
const INDEX_TAIL = '\n  },\n  "generator": "kyma-fleet",\n  "version": 1\n}\n';
const EMPTY_INDEX = '{\n  "files": {},\n  "generator": "kyma-fleet",\n  "version": 1\n}\n';
/** Characters canonical index text never holds: what JSON escapes (a backslash), controls other than line feeds, lone surrogates. */
const NOT_CANONICAL = /[\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/** True when the 64 characters at `at` are lower-case hex digits. */
function isLowerHex(text: string, at: number): boolean {
  for (let i = at; i < at + 64; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** The line serializeIndex writes for one entry (without the separator). */
export function indexLine(rel: string, hash: string): string {
  return `    ${NEEDS_ESCAPE.test(rel) ? JSON.stringify(rel) : `"${rel}"`}: ${NEEDS_ESCAPE.test(hash) ? JSON.stringify(hash) : `"${hash}"`}`;
}

/**
 * Index text built piece by piece into chunks of about a megabyte, with its sha256: the index of a
 * 100,000-runtime dist/ is over 100 MB, and one string of it (plus its bytes to hash and to write)
 * would triple that. The chunks joined are exactly serializeIndex's text of the same entries.
 */
export class IndexTextBuilder {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private pendingLength = 0;
  private readonly hash = createHash('sha256');
  private pieces = 0;

  /** One line (indexLine) or a run of lines joined by ",\n". */
  add(piece: string): void {
    this.push(this.pieces++ === 0 ? `{\n  "files": {\n${piece}` : `,\n${piece}`);
  }

  finish(): { readonly chunks: readonly string[]; readonly digest: string; readonly length: number } {
    this.push(this.pieces === 0 ? EMPTY_INDEX : INDEX_TAIL);
    this.flush();
    let length = 0;
    for (const c of this.chunks) length += c.length;
    return { chunks: this.chunks, digest: this.hash.digest('hex'), length };
  }

  private push(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.hash.update(chunk, 'utf8');
    this.chunks.push(chunk);
    this.pending = [];
    this.pendingLength = 0;
  }
}


export { sha256 };

/**
 * Canonical text of an index: keys sorted at every level, 2-space indent, trailing newline.
 * Written by hand because JSON.stringify puts integer-like keys (a file named `10`) first.
 */
export function serializeIndex(files: Iterable<readonly [string, string]>): string {
  const entries = [...files];
  let sorted = true;
  for (let i = 1; i < entries.length && sorted; i++) sorted = entries[i - 1]![0] < entries[i]![0];
  if (!sorted) entries.sort((a, b) => cmp(a[0], b[0]));
  // Paths without characters JSON escapes (all of them, in practice) skip JSON.stringify: 110,000 calls each.
  const b = new IndexTextBuilder();
  for (const [rel, hash] of entries) b.add(indexLine(rel, hash));
  return b.finish().chunks.join('');
}

/** Characters JSON.stringify writes differently from themselves inside a string. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

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

/** dist/'s index as a caller read it earlier: its bytes and their text. */
export interface KnownIndex {
  readonly bytes: Buffer;
  readonly text: string;
}

/**
 * Reads `<outDir>/<INDEX_FILE>` without following a symlink in its place. I/O errors throw. With
 * `known`, bytes equal to the known ones give back the known text (so the parse and digest memos
 * answer at once, and 14 MB are not decoded again at 10,000 runtimes).
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
  const bytes = fs.readFileSync(file);
  const text = known !== undefined && bytes.equals(known.bytes) ? known.text : bytes.toString('utf8');
  const index = parseIndex(text);
  return index ? { kind: 'ok', index, text } : { kind: 'invalid', reason: `${INDEX_FILE} is not a valid kyma-fleet index` };
}

/** The bytes of dist/'s index (not followed through a symlink), or undefined when there is none or it is unreadable. */
export function readIndexBytes(outDir: string): Buffer | undefined {
  try {
    const file = path.join(outDir, INDEX_FILE);
    if (!fs.lstatSync(file).isFile()) return undefined;
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
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
