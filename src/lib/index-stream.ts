// The entries of an index file read a megabyte at a time, without holding its text: the base
// branch's index in `check --base` (src/run/base-diff.ts) is only merged with dist/'s, once or
// twice, and at 100,000 runtimes it is 200 MB, which the check's peak memory cannot hold beside
// dist/'s own. Only canonical text (what serializeIndex writes) is read; anything else throws
// NotCanonicalIndex, and the caller reads the index the careful way (./dist-index.ts loadIndex).

import * as fs from 'node:fs';
import { cmp } from './diagnostics';
import { EMPTY_FILES, INDEX_HEAD, isLowerHex } from './index-text';

export class NotCanonicalIndex extends Error {}

const CHUNK = 1 << 20;
const HEAD_LINES = INDEX_HEAD.split('\n').slice(0, -1);
const EMPTY_LINES = EMPTY_FILES.split('\n').slice(0, 2);
const FILES_CLOSE = '  },';

/**
 * The [relPath, sha256] entries of the index file, in order; throws NotCanonicalIndex for other
 * text, I/O errors as they are. `chunkSize`: bytes read at a time (tests make it small).
 */
export function* indexEntries(file: string, chunkSize = CHUNK): Generator<readonly [string, string]> {
  for (const run of indexRuns(file, undefined, chunkSize)) if (typeof run !== 'number') yield run;
}

/** The first block of lines offered to `same`, in characters; it doubles while blocks are the same, up to MAX_RUN. */
const MIN_RUN = 256;
const MAX_RUN = 1 << 20;

/**
 * indexEntries, where runs of lines the caller already has are skipped: `same(lines)` is offered
 * whole entry lines of the file (each with its ",\n") and answers how many entries they are when
 * they are, byte for byte, the lines the caller expects next, else 0; such a run is yielded as
 * that count instead of its entries. The base branch's index mostly repeats dist/'s (a pull request
 * changes a few runtimes), so most of it is compared a block at a time (src/run/base-diff.ts): a
 * block that differs is halved until the first line that differs, which is read as an entry.
 */
export function* indexRuns(file: string, same: ((lines: string) => number) | undefined, chunkSize = CHUNK): Generator<readonly [string, string] | number> {
  let state: 'head' | 'entries' | 'done' = 'head';
  let headAt = 0;
  let last: string | undefined;
  let lastHadComma = true;
  let window = MIN_RUN;
  const fail = (why: string): never => {
    throw new NotCanonicalIndex(`${file}: ${why}`);
  };
  // `    "<rel>": "<64 hex>"` (no comma): its rel.
  const relOf = (body: string): string => {
    const close = body.length - 69;
    if (!body.startsWith('    "') || close < 5 || !body.startsWith('": "', close) || !body.endsWith('"') || !isLowerHex(body, close + 4)) fail('not an entry line');
    const rel = body.slice(5, close);
    if (rel.includes('"') || rel.includes('\\')) fail('an escaped path');
    return rel;
  };
  for (const text of lineChunks(file, chunkSize)) {
    let at = 0;
    while (at < text.length && state !== 'done') {
      if (state === 'entries' && same && lastHadComma) {
        // Whole lines from `at`, at most `window` characters, ending with ",\n".
        const end = text.lastIndexOf(',\n', Math.min(text.length, at + window) - 2);
        if (end > at) {
          const lines = text.slice(at, end + 2);
          const n = same(lines);
          if (n > 0) {
            // The caller vouches for the lines; their order after the last entry read is checked here.
            const first = relOf(lines.slice(0, lines.indexOf(',\n')));
            if (last !== undefined && cmp(last, first) >= 0) fail('entries out of order');
            last = relOf(text.slice(text.lastIndexOf('\n', end - 1) + 1, end));
            yield n;
            at = end + 2;
            window = Math.min(window * 2, MAX_RUN);
            continue;
          }
          if (window > MIN_RUN) {
            window = Math.max(MIN_RUN, window >> 1);
            continue;
          }
        }
      }
      let nl = text.indexOf('\n', at);
      if (nl < 0) nl = text.length;
      const line = text.slice(at, nl);
      at = nl + 1;
      if (state === 'head') {
        if (headAt === 1 && line === EMPTY_LINES[1]) state = 'done';
        else if (line !== HEAD_LINES[headAt]) fail('not the head of a kyma-fleet index');
        else if (++headAt === HEAD_LINES.length) state = 'entries';
        continue;
      }
      if (line === FILES_CLOSE) {
        if (lastHadComma && last !== undefined) fail('a comma after the last entry');
        state = 'done';
        break;
      }
      if (!lastHadComma) fail('entries without a comma between them');
      // `    "<rel>": "<64 hex>"` and a comma unless it is the last.
      lastHadComma = line.endsWith(',');
      const body = lastHadComma ? line.slice(0, -1) : line;
      const rel = relOf(body);
      if (last !== undefined && cmp(last, rel) >= 0) fail('entries out of order');
      last = rel;
      yield [rel, body.slice(body.length - 65, body.length - 1)];
    }
    if (state === 'done') return;
  }
  fail('cut off');
}

/** The text of a file (UTF-8) in pieces of whole lines (the last piece as far as the file goes), a chunk at a time. */
function* lineChunks(file: string, chunkSize: number): Generator<string> {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const chunk = Buffer.allocUnsafe(chunkSize);
    let rest = Buffer.alloc(0);
    for (let n = fs.readSync(fd, chunk, 0, chunkSize, null); n > 0; n = fs.readSync(fd, chunk, 0, chunkSize, null)) {
      const data = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      // A line break is never inside a UTF-8 character: the text up to the last one decodes alone.
      const cut = data.lastIndexOf(0x0a) + 1;
      if (cut > 0) yield data.toString('utf8', 0, cut);
      rest = Buffer.from(data.subarray(cut));
    }
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The lines of bytes [start, end) of a file (UTF-8, split at \n; the last one as far as the range
 * reaches), a chunk at a time; `seen` is given every byte of the range as it is read. A file that
 * ends early ends the lines there. A symlink is not followed (ELOOP).
 */
export function* lineRange(file: string, start: number, end: number, seen?: (bytes: Buffer) => void, chunkSize = CHUNK): Generator<string> {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const chunk = Buffer.allocUnsafe(chunkSize);
    let rest = Buffer.alloc(0);
    let at = start;
    const read = (): number => (at >= end ? 0 : fs.readSync(fd, chunk, 0, Math.min(chunkSize, end - at), at));
    for (let n = read(); n > 0; n = read()) {
      at += n;
      seen?.(chunk.subarray(0, n));
      const data = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let from = 0;
      for (let nl = data.indexOf(0x0a, from); nl >= 0; nl = data.indexOf(0x0a, from)) {
        yield data.toString('utf8', from, nl);
        from = nl + 1;
      }
      rest = Buffer.from(data.subarray(from));
    }
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
