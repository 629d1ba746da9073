// A fast path for the common shape of fleet files (issue 5: the `yaml` package's CST parse with
// positions was a quarter of a cold synth). It reads block mappings, block sequences (also
// `- key: value` items), single-line plain, single- and double-quoted scalars and empty `[]` / `{}`,
// and produces exactly what the hardened gate's walk of the `yaml` document produces: the same data
// and the same position index. Anything else, and anything the gate would report, makes it give up
// (undefined), and the caller parses with `yaml` as before; so errors, odd syntax and hostile input
// always take the full path. test/properties/fast-yaml.test.ts proves the equality on generated documents.
// Pure; runs after the encoding, control-character and depth gates.

import { PositionIndex } from './positions';

/** What the fast path understood: the document's data and where each value sits. */
export interface FastParse {
  readonly data: Record<string, unknown>;
  readonly positions: PositionIndex;
}

/** Gives up: the caller falls back to the full parser. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();

interface Line {
  /** Offset of the line's first character in the text. */
  readonly start: number;
  readonly end: number;
  readonly number: number;
  /** Column (0-based) where the content of this line starts; moved right for `- key: v` items. */
  indent: number;
}

// Plain keys the fast path accepts: no quoting, no flow or YAML indicators, not a core-schema
// null/bool/number (with stringKeys they would read differently), not a forbidden or merge key.
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.\/-]*$/;
const MAX_KEY = 1000;
const SPECIAL_KEYS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__', 'constructor', 'prototype']);
// Core-schema scalars that are not strings (YAML 1.2 core: null, bool, int in 3 bases, float).
const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
const BOOLS: Record<string, boolean> = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };
const CORE_NUMBER = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
// A plain scalar may not start with an indicator (the full parser reads those differently).
const INDICATOR_START = /^[&*!|>%@`{}[\],?#"':]|^-(?:$|[ ])/;

/** Parses `text` (LF line ends, gates passed) if it has the common shape; undefined otherwise. */
export function fastParseYaml(text: string): FastParse | undefined {
  if (text.includes('\t')) return undefined;
  const lines = contentLines(text);
  if (lines === undefined || lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  const parser = new Parser(text, lines);
  try {
    const data = parser.document();
    return { data, positions: parser.positions };
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

/** Non-blank, non-comment lines; undefined for document markers and directives. */
function contentLines(text: string): Line[] | undefined {
  const lines: Line[] = [];
  let start = 0;
  let number = 1;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let i = start;
    while (i < end && text.charCodeAt(i) === 32) i++;
    if (i < end && text.charCodeAt(i) !== 35 /* # */) {
      if (i === start) {
        const c = text.charCodeAt(i);
        // ---, ... and %directives: the full parser decides.
        if (c === 37 /* % */ || text.startsWith('---', i) || text.startsWith('...', i)) return undefined;
      }
      lines.push({ start, end, number, indent: i - start });
    }
    start = end + 1;
    number++;
  }
  return lines;
}

class Parser {
  readonly positions = new PositionIndex();
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly lines: Line[],
  ) {}

  document(): Record<string, unknown> {
    const first = this.lines[0]!;
    if (!this.isKeyLine(first)) throw GIVE_UP;
    const data = this.map(0, ''); // '' is the key of the root (keyOf([]))
    if (this.i < this.lines.length) throw GIVE_UP;
    return data;
  }

  private pos(line: Line, col: number): { line: number; col: number } {
    return { line: line.number, col: col + 1 };
  }

  /** Position of the key of a key line: the colon's offset in the text, or -1. */
  private keyEnd(line: Line): number {
    const from = line.start + line.indent;
    const colon = this.find(58 /* : */, from, line.end);
    if (colon < 0) return -1;
    const after = colon + 1;
    if (after < line.end && this.text.charCodeAt(after) !== 32) return -1;
    return colon;
  }

  private isKeyLine(line: Line): boolean {
    const colon = this.keyEnd(line);
    const start = line.start + line.indent;
    // YAML limits implicit keys to 1024 characters; long ones are the full parser's to report.
    return colon > start && colon - start <= MAX_KEY && PLAIN_KEY.test(this.text.slice(start, colon));
  }

  private isSeqLine(line: Line): boolean {
    return this.isDash(line.start + line.indent, line.end);
  }

  /** A `-` sequence indicator at `at`: followed by a space or the line end. */
  private isDash(at: number, end: number): boolean {
    return this.text.charCodeAt(at) === 45 /* - */ && (at + 1 === end || this.text.charCodeAt(at + 1) === 32);
  }

  /** A block mapping whose keys sit at column `indent`, starting at the current line. */
  private map(indent: number, at: string): Record<string, unknown> {
    const first = this.lines[this.i]!;
    this.positions.setAt(at, this.pos(first, first.indent));
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw GIVE_UP; // a continuation line or bad indentation
      if (!this.isKeyLine(line)) {
        if (this.isSeqLine(line)) break; // a sequence at the parent key's indentation ends here
        throw GIVE_UP;
      }
      const keyStart = line.start + line.indent;
      const colon = this.keyEnd(line);
      const key = this.text.slice(keyStart, colon);
      if (SPECIAL_KEYS.has(key) || seen.has(key)) throw GIVE_UP;
      seen.add(key);
      const childKey = `${at}\u0000${key}`;
      const keyAt = this.pos(line, line.indent);
      this.positions.setKeyAt(childKey, keyAt);
      const valueStart = this.skipSpaces(colon + 1, line.end);
      this.i++;
      if (valueStart < line.end && this.text.charCodeAt(valueStart) !== 35) {
        out[key] = this.scalar(line, valueStart, childKey);
        continue;
      }
      if (valueStart < line.end && this.text.charCodeAt(valueStart - 1) !== 32) throw GIVE_UP;
      const next = this.lines[this.i];
      if (next && next.indent > indent) {
        out[key] = this.isSeqLine(next) ? this.seq(next.indent, childKey) : this.nestedMap(next, childKey);
      } else if (next && next.indent === indent && this.isSeqLine(next)) {
        out[key] = this.seq(indent, childKey);
      } else {
        // `key:` with nothing after it: null, positioned right after the colon.
        if (valueStart < line.end) throw GIVE_UP; // `key: # comment`: leave it to the full parser
        this.positions.setAt(childKey, { line: line.number, col: colon - line.start + 2 });
        out[key] = null;
      }
    }
    return out;
  }

  private nestedMap(line: Line, at: string): Record<string, unknown> {
    if (!this.isKeyLine(line)) throw GIVE_UP;
    return this.map(line.indent, at);
  }

  /** A block sequence whose dashes sit at column `indent`. */
  private seq(indent: number, at: string): unknown[] {
    const first = this.lines[this.i]!;
    this.positions.setAt(at, this.pos(first, first.indent));
    const out: unknown[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent < indent) break;
      if (line.indent > indent || !this.isSeqLine(line)) {
        if (line.indent === indent && this.isKeyLine(line)) break; // back to the parent mapping
        throw GIVE_UP;
      }
      const itemKey = `${at}\u0000${out.length}`;
      const dash = line.start + line.indent;
      const itemStart = this.skipSpaces(dash + 1, line.end);
      // `-` alone, `- # comment` and `- - x` (a sequence in a sequence): the full parser's.
      if (itemStart >= line.end || this.text.charCodeAt(itemStart) === 35 || this.isDash(itemStart, line.end)) throw GIVE_UP;
      const itemCol = itemStart - line.start;
      line.indent = itemCol;
      if (this.isKeyLine(line)) {
        // `- key: value`: a mapping whose keys sit at the column of the first key.
        out.push(this.map(itemCol, itemKey));
      } else {
        line.indent = indent;
        this.i++;
        out.push(this.scalar(line, itemStart, itemKey));
      }
    }
    return out;
  }

  /** Offset of the first `code` in [from, end), or -1 (indexOf would scan past the line). */
  private find(code: number, from: number, end: number): number {
    for (let k = from; k < end; k++) if (this.text.charCodeAt(k) === code) return k;
    return -1;
  }

  private skipSpaces(from: number, end: number): number {
    let k = from;
    while (k < end && this.text.charCodeAt(k) === 32) k++;
    return k;
  }

  /** A scalar (or `[]` / `{}`) from `start` to the end of `line`, an optional comment after it. */
  private scalar(line: Line, start: number, at: string): unknown {
    this.positions.setAt(at, this.pos(line, start - line.start));
    const c = this.text.charCodeAt(start);
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const quote = this.text[start]!;
      let value = '';
      let k = start + 1;
      for (;;) {
        const q = this.find(c, k, line.end);
        if (q < 0) throw GIVE_UP; // multi-line quoted scalar
        const part = this.text.slice(k, q);
        if (quote === '"' && part.includes('\\')) throw GIVE_UP; // escapes: the full parser decodes them
        value += part;
        if (quote === "'" && this.text.charCodeAt(q + 1) === 39) {
          value += "'";
          k = q + 2;
          continue;
        }
        k = q + 1;
        break;
      }
      this.expectLineEnd(k, line.end);
      return value;
    }
    let end = line.end;
    for (let h = this.find(35 /* # */, start, end); h >= 0; h = this.find(35, h + 1, line.end)) {
      if (this.text.charCodeAt(h - 1) === 32) {
        end = h;
        break;
      }
    }
    while (end > start && this.text.charCodeAt(end - 1) === 32) end--;
    const raw = this.text.slice(start, end);
    if (raw === '[]' || raw === '{}') return raw === '[]' ? [] : {};
    if (INDICATOR_START.test(raw) || raw.includes(': ') || raw.endsWith(':')) throw GIVE_UP;
    if (NULLS.has(raw)) return null;
    const bool = BOOLS[raw];
    if (bool !== undefined) return bool;
    if (CORE_NUMBER.test(raw)) {
      if (!DECIMAL_NUMBER.test(raw)) throw GIVE_UP; // the gate reports other number forms
      const n = Number(raw);
      if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n)) || Object.is(n, -0)) throw GIVE_UP;
      this.positions.setNumberSourceAt(at, raw);
      return n;
    }
    return raw;
  }

  /** After a quoted scalar: only spaces and a comment may follow on the line. */
  private expectLineEnd(from: number, end: number): void {
    const k = this.skipSpaces(from, end);
    if (k < end && !(this.text.charCodeAt(k) === 35 && k > from)) throw GIVE_UP;
  }
}
