// The index lines a scan's worker thread is given (./tree-scan.ts): its range of dist/'s index as
// text, or where that range lies in the index file, which the worker reads a megabyte at a time and
// takes only when its bytes are the ones the caller read (so 200 MB of index at 100,000 runtimes is
// neither copied into each worker nor held in shared memory while they work).

import { createHash } from 'node:crypto';
import { lineRange } from '../lib/index-stream';

/** Index lines as text (IndexView.linesOf), or where they lie in the index file (byte offsets) and the sha256 of those bytes as the caller read them. */
export type Lines = string | FileRange;

export interface FileRange {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly sha256: string;
}

/** A worker's range of the index file is not what the caller read: the index changed meanwhile. */
export class IndexChanged extends Error {}

/** sha256 of text[start, end) as UTF-8, a megabyte at a time (no copy of the whole range). */
export function textDigest(text: string, start: number, end: number): string {
  const hash = createHash('sha256');
  for (let at = start; at < end; at += 1 << 20) hash.update(text.slice(at, Math.min(end, at + (1 << 20))));
  return hash.digest('hex');
}

/**
 * The entries of Lines, read one at a time in order (a range of a 100,000-runtime
 * index holds 650,000 of them: they are not kept as arrays).
 */
export class LineCursor {
  rel: string | undefined;
  hash: string | undefined;
  private readonly read: () => string | undefined;
  constructor(lines: Lines) {
    if (typeof lines === 'string') {
      let at = 0;
      this.read = () => {
        if (at >= lines.length) return undefined;
        let stop = lines.indexOf(',\n', at);
        if (stop < 0) stop = lines.length;
        const line = lines.slice(at, stop);
        at = stop + 2;
        return line;
      };
    } else {
      const digest = createHash('sha256');
      const reader = lineRange(lines.file, lines.start, lines.end, (bytes) => void digest.update(bytes));
      let done = false;
      this.read = () => {
        if (done) return undefined;
        const step = reader.next();
        if (!step.done) return step.value.endsWith(',') ? step.value.slice(0, -1) : step.value;
        done = true;
        // The lines are taken only when they are the caller's bytes (the file is read here anew).
        if (digest.digest('hex') !== lines.sha256) throw new IndexChanged(`${lines.file}: bytes ${lines.start}..${lines.end} changed while dist/ was scanned`);
        return undefined;
      };
    }
    this.next();
  }

  next(): void {
    const line = this.read();
    if (line === undefined) {
      this.rel = this.hash = undefined;
      return;
    }
    if (line.includes('\\')) {
      // A path JSON had to escape: `    "<rel>": "<hash>"` as JSON.
      [[this.rel, this.hash]] = Object.entries(JSON.parse(`{${line}}`) as Record<string, string>) as [[string, string]];
    } else {
      const close = line.indexOf('"', 5);
      this.rel = line.slice(5, close);
      this.hash = line.slice(close + 4, line.length - 1);
    }
  }
}
