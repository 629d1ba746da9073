// Line and column of values in a JSON text (shard.json), so that a refusal points into the file
// like every other input error (`<file>:<line>:<col>:`). The text is scanned once, lazily, and only
// when a message needs a position; paths deeper than `maxDepth` fall back to their ancestor.

import type { DocPath } from '../../lib/diagnostics';
import type { SourcePos } from '../../lib/yaml/positions';

export class JsonPositions {
  private positions: Map<string, number> | undefined;
  private lineStarts: number[] | undefined;

  constructor(
    private readonly text: string,
    private readonly maxDepth = 3,
  ) {}

  /** Position of the value at `path`, or of its nearest ancestor that exists (1:1 at worst). */
  valueAt(path: DocPath): SourcePos {
    const positions = (this.positions ??= scan(this.text, this.maxDepth));
    for (let n = Math.min(path.length, this.maxDepth); n >= 0; n--) {
      const offset = positions.get(keyOf(path.slice(0, n)));
      if (offset !== undefined) return this.at(offset);
    }
    return { line: 1, col: 1 };
  }

  /** Position of a character offset (for JSON.parse errors that name one). */
  at(offset: number): SourcePos {
    const starts = (this.lineStarts ??= lineStartsOf(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  }
}

function keyOf(path: DocPath): string {
  let s = '';
  for (const seg of path) s += '\u0000' + String(seg);
  return s;
}

function lineStartsOf(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** Offsets of every value down to `maxDepth`, by path. Tolerant: stops where the text is not JSON. */
function scan(text: string, maxDepth: number): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return '';
    }
  };
  const value = (path: string, depth: number): void => {
    ws();
    if (depth <= maxDepth) out.set(path, i);
    const c = text[i];
    if (c === '"') {
      readString();
    } else if (c === '{') {
      i++;
      for (;;) {
        ws();
        if (i >= text.length || text[i] === '}') break;
        if (text[i] !== '"') return;
        const key = readString();
        ws();
        if (text[i] !== ':') return;
        i++;
        value(`${path}\u0000${key}`, depth + 1);
        ws();
        if (text[i] === ',') i++;
        else break;
      }
      i++;
    } else if (c === '[') {
      i++;
      for (let n = 0; ; n++) {
        ws();
        if (i >= text.length || text[i] === ']') break;
        value(`${path}\u0000${n}`, depth + 1);
        ws();
        if (text[i] === ',') i++;
        else break;
      }
      i++;
    } else {
      while (i < text.length && !',]} \n\r\t'.includes(text[i]!)) i++;
    }
  };
  value('', 0);
  return out;
}
