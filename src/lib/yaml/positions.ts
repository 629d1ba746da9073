// Where each value of a parsed file sits in its source text. Kept instead of the YAML AST so that
// a fleet of 10,000 files does not hold 10,000 syntax trees in memory.

import type { DocPath } from '../diagnostics';

export interface SourcePos {
  readonly line: number;
  readonly col: number;
}

/** The index key of a path: '\u0000' before every segment. */
export function keyOf(path: DocPath): string {
  let s = '';
  for (const seg of path) s += '\u0000' + String(seg);
  return s;
}

export interface SerializedPositions {
  readonly v: ReadonlyArray<[string, number, number]>;
  readonly k: ReadonlyArray<[string, number, number]>;
  readonly n: ReadonlyArray<[string, string]>;
}

export class PositionIndex {
  private readonly values = new Map<string, SourcePos>();
  private readonly keys = new Map<string, SourcePos>();
  private readonly numberSources = new Map<string, string>();

  /** set/setKey/setNumberSource by a key already built as keyOf builds it (the fast YAML path builds keys as it descends). */
  setAt(key: string, pos: SourcePos): void {
    this.values.set(key, pos);
  }

  setKeyAt(key: string, pos: SourcePos): void {
    this.keys.set(key, pos);
  }

  setNumberSourceAt(key: string, source: string): void {
    this.numberSources.set(key, source);
  }

  set(path: DocPath, pos: SourcePos): void {
    this.values.set(keyOf(path), pos);
  }

  setKey(path: DocPath, pos: SourcePos): void {
    this.keys.set(keyOf(path), pos);
  }

  /** Position of the value at `path`, or of its nearest existing ancestor. */
  valueAt(path: DocPath): SourcePos {
    for (let n = path.length; n >= 0; n--) {
      const p = this.values.get(keyOf(path.slice(0, n)));
      if (p) return p;
    }
    return { line: 1, col: 1 };
  }

  /** Position of the key that names `path` (falls back to the value, then to ancestors). */
  keyAt(path: DocPath): SourcePos {
    return this.keys.get(keyOf(path)) ?? this.valueAt(path);
  }

  /** Remembers how a number was written (`1.10` reads as 1.1), for type-error hints. */
  setNumberSource(path: DocPath, source: string): void {
    this.numberSources.set(keyOf(path), source);
  }

  numberSourceAt(path: DocPath): string | undefined {
    return this.numberSources.get(keyOf(path));
  }

  /** A compact JSON form for the parse cache. */
  toJSON(): SerializedPositions {
    const flat = (m: Map<string, SourcePos>): Array<[string, number, number]> => [...m].map(([k, p]) => [k, p.line, p.col]);
    return { v: flat(this.values), k: flat(this.keys), n: [...this.numberSources] };
  }

  static fromJSON(json: SerializedPositions): PositionIndex {
    const index = new PositionIndex();
    for (const [k, line, col] of json.v) index.values.set(k, { line, col });
    for (const [k, line, col] of json.k) index.keys.set(k, { line, col });
    for (const [k, src] of json.n) index.numberSources.set(k, src);
    return index;
  }

  has(path: DocPath): boolean {
    return this.values.has(keyOf(path));
  }
}
