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
  let state: 'head' | 'entries' | 'done' = 'head';
  let headAt = 0;
  let last: string | undefined;
  let lastHadComma = true;
  const fail = (why: string): never => {
    throw new NotCanonicalIndex(`${file}: ${why}`);
  };
  for (const line of lines(file, chunkSize)) {
    if (state === 'head') {
      if (headAt === 1 && line === EMPTY_LINES[1]) {
        state = 'done';
        break;
      }
      if (line !== HEAD_LINES[headAt]) fail('not the head of a kyma-fleet index');
      if (++headAt === HEAD_LINES.length) state = 'entries';
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
    const close = body.length - 69;
    if (!body.startsWith('    "') || close < 5 || !body.startsWith('": "', close) || !body.endsWith('"') || !isLowerHex(body, close + 4)) fail('not an entry line');
    const rel = body.slice(5, close);
    if (rel.includes('"') || rel.includes('\\')) fail('an escaped path');
    if (last !== undefined && cmp(last, rel) >= 0) fail('entries out of order');
    last = rel;
    yield [rel, body.slice(close + 4, close + 68)];
  }
  if (state !== 'done') fail('cut off');
}

/** The lines of a file (UTF-8, split at \n), a chunk at a time. */
function lines(file: string, chunkSize: number): Generator<string> {
  return lineRange(file, 0, Infinity, undefined, chunkSize);
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
