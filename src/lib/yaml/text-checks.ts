// The checks of the YAML gate (./parse-yaml.ts) that run on the bytes and text before any YAML
// parser sees them: strict UTF-8 (UTF-16 and UTF-32 recognised and named), characters a fleet file
// must not hold (controls, lone surrogates, line and paragraph separators), and the nesting depth
// of flow and block collections, which could otherwise abort V8. Pure, never throws.

/** At most this many diagnostics are reported per file, so one broken file cannot flood CI. */
export const MAX_DIAGNOSTICS_PER_FILE = 50;

interface EncodingProblem {
  line: number;
  col: number;
  message: string;
}

/** Strict UTF-8 check with the position of the first bad byte; recognises UTF-16/32 files. */
export function checkEncoding(bytes: Uint8Array): EncodingProblem | undefined {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { line: 1, col: 1, message: 'file is UTF-16 encoded; save it as UTF-8' };
  }
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff) {
    return { line: 1, col: 1, message: 'file is UTF-32 encoded; save it as UTF-8' };
  }
  let line = 1;
  let col = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      if (b === 0x0a) {
        line++;
        col = 1;
      } else col++;
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return { line, col, message: `invalid UTF-8 byte 0x${b.toString(16).padStart(2, '0')} at byte offset ${i}; save the file as UTF-8` };
    }
    let cp = b & (0xff >> (need + 2));
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) {
        return { line, col, message: `invalid UTF-8 sequence at byte offset ${i}; save the file as UTF-8` };
      }
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return { line, col, message: `invalid UTF-8 sequence at byte offset ${i}; save the file as UTF-8` };
    }
    i += need + 1;
    col += cp > 0xffff ? 2 : 1;
  }
  return undefined;
}

interface BadChar {
  line: number;
  col: number;
  message: string;
}

const CHAR_NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x85: 'NEL (next line)',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x2060: 'WORD JOINER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (BOM)',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
};

export function isForbiddenChar(cp: number): boolean {
  if (cp < 0x20) return cp !== 0x09 && cp !== 0x0a;
  if (cp === 0x7f || (cp >= 0x80 && cp <= 0x9f)) return true;
  if (cp === 0x2028 || cp === 0x2029) return true;
  if (cp >= 0x200b && cp <= 0x200f) return true; // zero width, LRM, RLM
  if (cp >= 0x202a && cp <= 0x202e) return true; // bidi embeddings and overrides
  if (cp >= 0x2066 && cp <= 0x2069) return true; // bidi isolates
  if (cp === 0x061c || cp === 0x2060 || cp === 0xfeff) return true;
  return false;
}

/** Any character isForbiddenChar refuses (none of them is astral, so UTF-16 units suffice): a native pre-check. */
const ANY_FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\u061c\u2060\ufeff]/;

/** Control, bidi and zero-width characters anywhere in the file (Trojan-Source style input). */
export function findForbiddenCharacters(text: string): BadChar[] {
  if (!ANY_FORBIDDEN.test(text)) return [];
  const out: BadChar[] = [];
  let line = 1;
  let col = 1;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x0a) {
      line++;
      col = 1;
      continue;
    }
    if (isForbiddenChar(cp)) {
      const name = CHAR_NAMES[cp] ?? (cp >= 0x202a && cp <= 0x2069 ? 'bidirectional control' : 'control character');
      out.push({ line, col, message: `character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (${name}) is not allowed` });
      if (out.length >= MAX_DIAGNOSTICS_PER_FILE) break;
    }
    col += ch.length;
  }
  return out;
}

/**
 * A linear, quote- and comment-aware estimate of how deeply a YAML text nests: flow brackets,
 * block indentation levels and compact `- - -` runs. Runs before the parser so that hostile
 * nesting never reaches it (deep nesting can abort V8 inside the parser, uncatchably).
 */
export function measureNestingDepth(text: string, limit = Infinity): { depth: number; line: number; col: number } {
  const indents: number[] = [];
  let flow = 0;
  let inQuote: '"' | "'" | null = null;
  let best = { depth: 0, line: 1, col: 1 };
  let blockScalarIndent = -1;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n]!;
    let i = 0;
    while (i < raw.length && raw[i] === ' ') i++;
    const blank = i >= raw.length || raw[i] === '#';
    if (blockScalarIndent >= 0) {
      if (blank || i > blockScalarIndent) continue;
      blockScalarIndent = -1;
    }
    if (blank && inQuote === null) continue;
    let lineDepth = 0;
    if (inQuote === null && flow === 0) {
      while (indents.length > 0 && indents[indents.length - 1]! >= i) indents.pop();
      indents.push(i);
      // compact block sequences: "- - - x" nest one level per indicator
      let j = i;
      while (raw[j] === '-' && (raw[j + 1] === ' ' || j + 1 === raw.length)) {
        lineDepth++;
        j += 2;
        while (raw[j] === ' ') j++;
      }
    }
    // Quotes and brackets only count where a YAML node can start (line start, after "- ", ": ",
    // or inside a flow collection); inside a plain scalar ("note: it's [1") they are text.
    let nodeStart = inQuote === null;
    for (let k: number = inQuote === null ? i : 0; k < raw.length; k++) {
      const c: string = raw[k]!;
      if (inQuote !== null) {
        if (inQuote === '"' && c === '\\') k++;
        else if (c === inQuote) {
          if (inQuote === "'" && raw[k + 1] === "'") k++;
          else inQuote = null;
        }
        continue;
      }
      const next = raw[k + 1];
      const spaceNext = next === undefined || next === ' ' || next === '\t';
      if (c === ' ' || c === '\t') continue;
      if (c === '#' && (k === 0 || raw[k - 1] === ' ' || raw[k - 1] === '\t')) break;
      if (c === '"' || c === "'") {
        if (nodeStart) inQuote = c;
        nodeStart = false;
      } else if (c === '[' || c === '{') {
        if (nodeStart || flow > 0) {
          flow++;
          const d = indents.length + lineDepth + flow;
          if (d > best.depth) best = { depth: d, line: n + 1, col: k + 1 };
          if (d > limit) return best;
          nodeStart = true;
        } else nodeStart = false;
      } else if (c === ']' || c === '}') {
        if (flow > 0) flow--;
        nodeStart = false;
      } else if ((c === ',' && flow > 0) || (c === ':' && (spaceNext || (flow > 0 && /[,[\]{}]/.test(next!))))) {
        nodeStart = true;
      } else if ((c === '-' || c === '?') && spaceNext && nodeStart) {
        // block sequence entry or explicit key: a node may follow
      } else if ((c === '&' || c === '!') && nodeStart) {
        // anchor or tag property before a node: skip the token, a node still follows
        while (k + 1 < raw.length && raw[k + 1] !== ' ' && raw[k + 1] !== '\t') k++;
      } else {
        nodeStart = false;
      }
    }
    const d = indents.length + lineDepth + flow;
    if (d > best.depth) best = { depth: d, line: n + 1, col: i + 1 };
    if (d > limit) return best;
    if (inQuote === null && flow === 0 && /(^|[\s:-])[|>][0-9+-]*\s*(#.*)?$/.test(raw)) blockScalarIndent = i;
  }
  return best;
}
