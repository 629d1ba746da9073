// The canonical text of dist/'s index (./dist-index.ts): its fixed head and tail, one line per
// entry, built in chunks with its digest as it grows, so a writer never formats or holds more than
// it must; after the files, optionally, the record of how each runtime was rendered (its `inputs`
// section, src/run/committed-record.ts), which readers of the files skip. Pure.

import { createHash } from 'node:crypto';
import { cmp } from './diagnostics';

export const INDEX_HEAD = '{\n  "files": {\n';
/** What follows the last entry line up to the optional inputs section, and what ends the index. */
export const FILES_END = '\n  },\n  "generator": "kyma-fleet",\n';
export const VERSION_END = '  "version": 1\n}\n';
export const INDEX_TAIL = FILES_END + VERSION_END;
/** An index without files up to the optional inputs section. */
export const EMPTY_FILES = '{\n  "files": {},\n  "generator": "kyma-fleet",\n';
export const EMPTY_INDEX = EMPTY_FILES + VERSION_END;

/**
 * Where the files part of index text ends (the offset of FILES_END, or of the end of EMPTY_FILES
 * for an index without files: `filesEnd`), where the part the inputs seal covers ends (`prefixEnd`)
 * and the inputs section between it and VERSION_END (`inputs`, '' when there is none). Undefined
 * when the text has neither shape. An entry line cannot hold FILES_END (a path has no line break),
 * so its first occurrence ends the files.
 */
export function indexParts(text: string): { readonly filesEnd: number; readonly prefixEnd: number; readonly inputs: string } | undefined {
  let filesEnd: number;
  let prefixEnd: number;
  if (text.startsWith(EMPTY_FILES)) {
    filesEnd = prefixEnd = EMPTY_FILES.length;
  } else {
    if (!text.startsWith(INDEX_HEAD)) return undefined;
    filesEnd = text.indexOf(FILES_END, INDEX_HEAD.length - 1);
    if (filesEnd < 0) return undefined;
    prefixEnd = filesEnd + FILES_END.length;
  }
  if (!text.endsWith(VERSION_END) || text.length - VERSION_END.length < prefixEnd) return undefined;
  const inputs = text.slice(prefixEnd, text.length - VERSION_END.length);
  if (inputs !== '' && !(inputs.startsWith(INPUTS_START) && inputs.endsWith(INPUTS_END))) return undefined;
  return { filesEnd, prefixEnd, inputs };
}

/** The inputs section opens and closes with these lines. */
export const INPUTS_START = '  "inputs": {\n';
export const INPUTS_END = '\n  },\n';
/** Characters canonical index text never holds: what JSON escapes (a backslash), controls other than line feeds, lone surrogates. */
export const NOT_CANONICAL = /[\\\u0000-\u0009\u000b-\u001f\ud800-\udfff]/;

/** True when the 64 characters at `at` are lower-case hex digits. */
export function isLowerHex(text: string, at: number): boolean {
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

  /**
   * The index text in chunks. `inputs`: the inputs section (INPUTS_START ... INPUTS_END), given the
   * sha256 of the text before it (what its seal covers).
   */
  finish(inputs?: (prefixDigest: string) => string): { readonly chunks: readonly string[]; readonly digest: string; readonly length: number } {
    this.push(this.pieces === 0 ? EMPTY_FILES : FILES_END);
    this.flush();
    if (inputs) this.push(inputs(this.hash.copy().digest('hex')));
    this.push(VERSION_END);
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
