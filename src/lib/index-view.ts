// dist/'s index entries as a sorted list (IndexView) or over the bytes of its canonical text
// (IndexBytes, outside the JS heap, for worker threads): lookups by binary search that gallop from
// the last answer, prefix ranges, and verbatim lines that a writer copies into the next index.

import { EMPTY_FILES, FILES_END, INDEX_HEAD, indexLine, indexParts, isLowerHex, NOT_CANONICAL, VERSION_END } from './index-text';

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
    // The inputs section after the files (src/run/committed-record.ts) is not read here.
    const parts = indexParts(text);
    if (!parts) return undefined;
    if (parts.filesEnd === EMPTY_FILES.length && text.startsWith(EMPTY_FILES)) return new IndexView([], [], text, new Int32Array(0));
    // No character JSON would have escaped (serializeIndex escapes them, so canonical text has no
    // backslash) and no control character other than the line breaks, checked once for the files.
    const files = parts.inputs === '' ? text : text.slice(0, parts.filesEnd);
    if (ours ? files.includes('\\') : NOT_CANONICAL.test(files)) return undefined;
    const rels: string[] = [];
    const starts: number[] = [];
    const end = parts.filesEnd;
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

  /** The relPaths inside folder `dir` as a set: for many lookups in no particular order (a search each gallops far). */
  relsIn(dir: string): Set<string> {
    const [from, to] = this.folder(dir);
    const out = new Set<string>();
    for (let i = from; i < to; i++) out.add(this.rels[i]!);
    return out;
  }

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
    const span = this.textSpan(from, to);
    if (span) return this.text!.slice(span[0], span[1]);
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(indexLine(this.rels[i]!, this.hashAt(i)));
    return out.join(',\n');
  }

  /**
   * How many entries from `from` on `lines` are: whole index lines, each followed by ",\n", that
   * are the canonical text at that entry byte for byte; 0 when they are not (or the view has no text).
   */
  sameLines(from: number, lines: string): number {
    const starts = this.lineStarts;
    if (this.text === undefined || starts === undefined || from >= starts.length || !this.text.startsWith(lines, starts[from]!)) return 0;
    // ",\n" is only between entries (a path has no line break): the lines end where an entry starts.
    const next = starts[from]! + lines.length;
    let lo = from + 1;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! < next) lo = mid + 1;
      else hi = mid;
    }
    return lo < starts.length && starts[lo] === next ? lo - from : 0;
  }

  /**
   * Where linesOf(from, to) lies in the canonical text (character offsets; byte offsets too when the
   * text is ASCII), or undefined for a view without text. from < to.
   */
  textSpan(from: number, to: number): readonly [number, number] | undefined {
    if (this.text === undefined || this.lineStarts === undefined) return undefined;
    const last = to - 1;
    return [this.lineStarts[from]!, this.lineStarts[last]! + 5 + this.rels[last]!.length + 4 + 64 + 1];
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
    const last = Buffer.from(VERSION_END);
    if (bytes.length < head.length + last.length || !bytes.subarray(bytes.length - last.length).equals(last)) return undefined;
    if (bytes.subarray(0, EMPTY_FILES.length).equals(Buffer.from(EMPTY_FILES))) return new IndexBytes(bytes, new Int32Array(0), new Int32Array(0));
    if (!bytes.subarray(0, head.length).equals(head)) return undefined;
    // The files end at the first FILES_END (a path has no line break); the inputs section after them is not read here.
    const end = bytes.indexOf(FILES_END, head.length - 1);
    if (end < 0) return undefined;
    // Escapes (a backslash) mean JSON.parse must read it; UTF-8 continuation bytes are never '"' or a line feed.
    if (bytes.subarray(0, end).includes(0x5c)) return undefined;
    const starts: number[] = [];
    const closes: number[] = [];
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
