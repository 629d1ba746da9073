// The hardened YAML gate: bytes of one fleet file in, plain data plus a position index out.
// Everything a hostile file can do to a YAML parser is stopped here, before the data reaches
// schema validation: bad encodings, control characters, deep nesting (which can abort V8),
// several documents, directives, tags, anchors, aliases, merge keys, duplicate and prototype keys,
// non-decimal numbers. Pure: no I/O, never throws.

import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Node as YamlNode,
  type Document,
} from 'yaml';
import { type Diagnostic, type DocPath, formatField, quote } from '../diagnostics';
import { fastParseYaml } from './fast-yaml';
import { PositionIndex, type SourcePos } from './positions';
import { checkEncoding, findForbiddenCharacters, MAX_DIAGNOSTICS_PER_FILE, measureNestingDepth } from './text-checks';

export { checkEncoding, findForbiddenCharacters, isForbiddenChar, MAX_DIAGNOSTICS_PER_FILE, measureNestingDepth } from './text-checks';

/** Files above this size are refused before reading (runtime files are a few KB). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Nesting above this depth is refused before the parser runs (H14). */
export const MAX_DEPTH = 64;

export interface ParsedYaml {
  /** The document as plain JSON-like data; undefined when the file could not be parsed. */
  readonly data: unknown;
  readonly positions: PositionIndex;
  readonly diagnostics: Diagnostic[];
}

const PARSE_OPTIONS = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: false, // duplicates are reported by walk() with both lines
  stringKeys: true,
  strict: true,
  resolveKnownTags: false,
  prettyErrors: false,
  logLevel: 'silent',
  keepSourceTokens: false,
} as const;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** A file refused with one error (every gate that refuses a file as a whole). */
function rejected(file: string, code: string, line: number, col: number, message: string): ParsedYaml {
  return { data: undefined, positions: new PositionIndex(), diagnostics: [{ severity: 'error', code, file, line, col, field: '', message }] };
}

/** Parses one fleet file. `file` is the display path used in diagnostics. */
export function parseFleetYaml(bytes: Uint8Array, file: string): ParsedYaml {
  const diagnostics: Diagnostic[] = [];
  const empty = new PositionIndex();

  if (bytes.length > MAX_FILE_BYTES) {
    return rejected(file, 'E_FILE_TOO_LARGE', 1, 1, `file is ${bytes.length} bytes; the limit is ${MAX_FILE_BYTES} bytes`);
  }
  const encoding = checkEncoding(bytes);
  if (encoding) return rejected(file, 'E_ENCODING', encoding.line, encoding.col, encoding.message);

  let text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes); // strips a UTF-8 BOM
  text = text.replace(/\r\n?/g, '\n');

  const bad = findForbiddenCharacters(text);
  if (bad.length > 0) {
    for (const b of bad.slice(0, MAX_DIAGNOSTICS_PER_FILE)) {
      diagnostics.push({ severity: 'error', code: 'E_CONTROL_CHAR', file, line: b.line, col: b.col, field: '', message: b.message });
    }
    return { data: undefined, positions: empty, diagnostics };
  }

  const depth = measureNestingDepth(text, MAX_DEPTH);
  if (depth.depth > MAX_DEPTH) {
    return rejected(file, 'E_TOO_DEEP', depth.line, depth.col, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
  }

  // The common shape is read by the fast path; anything else (and every error) by the `yaml` package.
  const fast = fastParseYaml(text);
  if (fast) return { data: fast.data, positions: fast.positions, diagnostics };
  return parseWithYamlPackage(text, file);
}

/**
 * The full path of the gate, after the encoding, character and depth checks: `yaml` parses the
 * text, and every construct the fleet format forbids is reported with its position. Exported for
 * the test that proves the fast path equal to it.
 */
export function parseWithYamlPackage(text: string, file: string): ParsedYaml {
  const diagnostics: Diagnostic[] = [];
  const empty = new PositionIndex();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter });
  const pos = (offset: number): SourcePos => {
    const lp = lineCounter.linePos(offset);
    return { line: lp.line, col: lp.col };
  };
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : [];
  if (!Array.isArray(docs)) {
    // An EmptyStream: only comments or whitespace.
    return rejected(file, 'E_EMPTY_FILE', 1, 1, 'file holds no YAML document (exactly one declaration per file is expected)');
  }
  if (list.length === 0) {
    return rejected(file, 'E_EMPTY_FILE', 1, 1, 'file holds no YAML document (exactly one declaration per file is expected)');
  }
  if (list.length > 1) {
    const second = list[1]!;
    const p = pos(second.range[0]);
    return rejected(file, 'E_MULTI_DOC', p.line, p.col, `file holds ${list.length} YAML documents; exactly one declaration per file is allowed`);
  }
  const doc = list[0]!;
  for (const e of [...doc.errors, ...doc.warnings]) {
    // The parser reports an indentation error at the start of the line; the user looks for the key.
    let offset = e.pos[0];
    if (e.code === 'BAD_INDENT') while (text[offset] === ' ') offset++;
    const p = pos(offset);
    const code = e.code === 'TAG_RESOLVE_FAILED' ? 'E_TAG_FORBIDDEN' : 'E_YAML_SYNTAX';
    const message = code === 'E_TAG_FORBIDDEN' ? 'YAML tags are not allowed' : yamlErrorInWords(e.code, firstLine(e.message));
    diagnostics.push({ severity: 'error', code, file, line: p.line, col: p.col, field: '', message });
  }
  if (diagnostics.length > 0) return { data: undefined, positions: empty, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE) };

  const directive = findDirective(text, doc);
  if (directive) {
    return rejected(file, 'E_DIRECTIVE_FORBIDDEN', directive.line, 1, `YAML directives are not allowed (found ${quote(directive.text)}); files are always read as YAML 1.2`);
  }

  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null && !doc.contents.anchor && !doc.contents.tag)) {
    return rejected(file, 'E_EMPTY_FILE', 1, 1, 'file holds an empty YAML document (exactly one declaration per file is expected)');
  }

  const positions = new PositionIndex();
  const walker = new Walker(file, positions, pos, diagnostics);
  const data = walker.walk(doc.contents as YamlNode, []);
  return { data: walker.failed ? undefined : data, positions, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE) };
}

class Walker {
  failed = false;
  constructor(
    private readonly file: string,
    private readonly positions: PositionIndex,
    private readonly pos: (offset: number) => SourcePos,
    private readonly diagnostics: Diagnostic[],
  ) {}

  private report(code: string, at: SourcePos, path: DocPath, message: string): void {
    this.failed = true;
    this.diagnostics.push({ severity: 'error', code, file: this.file, line: at.line, col: at.col, field: formatField(path), message });
  }

  walk(node: YamlNode | null, path: (string | number)[]): unknown {
    if (node === null) return null;
    const at = this.pos(node.range?.[0] ?? 0);
    this.positions.set(path, at);
    if (isAlias(node)) {
      this.report('E_ALIAS_FORBIDDEN', at, path, `YAML aliases are not allowed (found *${node.source})`);
      return undefined;
    }
    if (node.anchor) this.report('E_ANCHOR_FORBIDDEN', at, path, `YAML anchors are not allowed (found &${node.anchor})`);
    if (node.tag) this.report('E_TAG_FORBIDDEN', at, path, `YAML tags are not allowed (found ${node.tag.replace('tag:yaml.org,2002:', '!!')})`);

    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const keyAt = keyNode && keyNode.range ? this.pos(keyNode.range[0]) : at;
        if (!isScalar(keyNode) || keyNode.tag || keyNode.anchor) {
          if (isAlias(keyNode)) this.report('E_ALIAS_FORBIDDEN', keyAt, path, 'YAML aliases are not allowed as keys');
          else this.report('E_YAML_SYNTAX', keyAt, path, 'mapping keys must be plain strings');
          continue;
        }
        const key = String(keyNode.value);
        const childPath = [...path, key];
        if (key === '<<' && keyNode.type === 'PLAIN') {
          this.report('E_MERGE_KEY_FORBIDDEN', keyAt, childPath, 'YAML merge keys (<<) are not allowed');
          continue;
        }
        if (FORBIDDEN_KEYS.has(key)) {
          this.report('E_FORBIDDEN_KEY', keyAt, childPath, `key ${quote(key)} is not allowed`);
          continue;
        }
        const first = seen.get(key);
        if (first !== undefined) {
          this.report('E_DUPLICATE_KEY', keyAt, childPath, `duplicate key ${quote(key)} (first defined at line ${first})`);
          continue;
        }
        seen.set(key, keyAt.line);
        this.positions.setKey(childPath, keyAt);
        const value = pair.value as YamlNode | null;
        if (value === null) {
          // `key:` with nothing after it: position it right after the key.
          this.positions.set(childPath, keyAt);
          out[key] = null;
        } else {
          out[key] = this.walk(value, childPath);
        }
      }
      return out;
    }
    if (isSeq(node)) {
      return node.items.map((item, i) => this.walk(item as YamlNode | null, [...path, i]));
    }
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'number') {
        const src = node.source ?? String(v);
        this.positions.setNumberSource(path, src);
        if (!DECIMAL_NUMBER.test(src)) {
          this.report('E_NUMBER_FORMAT', at, path, `numbers must be written in plain decimal (got ${src}); quote the value if it is text`);
        } else if (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v))) {
          this.report('E_NUMBER_RANGE', at, path, `number ${src} is out of the safe range`);
        }
      }
      if (typeof v === 'string') {
        const bad = findForbiddenCharacters(v)[0];
        if (bad) this.report('E_CONTROL_CHAR', at, path, bad.message.replace(' is not allowed', ' is not allowed in values'));
      }
      if (typeof v === 'bigint') {
        this.report('E_NUMBER_RANGE', at, path, `number ${String(v)} is out of the safe range`);
        return undefined;
      }
      return v;
    }
    this.report('E_YAML_SYNTAX', at, path, 'unsupported YAML node');
    return undefined;
  }
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** Finds a `%YAML`/`%TAG` directive of the document, if any. */
function findDirective(text: string, doc: Document.Parsed): { line: number; text: string } | undefined {
  const tags = Object.keys(doc.directives?.tags ?? {}).filter((t) => t !== '!!');
  if (!doc.directives?.yaml.explicit && tags.length === 0 && !/^%/m.test(text)) return undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith('%')) return { line: i + 1, text: lines[i]!.trim() };
  }
  return { line: 1, text: '%' };
}

/**
 * A parser error in plain words (issue 26): what is wrong and how to fix it, without the parser's
 * code (BAD_INDENT); the parser's own sentence for the rare ones without words here.
 */
export function yamlErrorInWords(code: string, parserMessage: string): string {
  switch (code) {
    case 'BAD_INDENT':
      return 'this key is indented differently from the keys before it in the same map: indent it like them (with spaces)';
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return 'a value runs on into the next line, which YAML then reads as a key: check the indentation of the next line, or quote a value that contains ": "';
    case 'MISSING_CHAR':
      return /quote/i.test(parserMessage) ? 'a quoted value is not closed: add the closing quote' : `${parserMessage.replace(/\.$/, '')}: add it`;
    case 'TAB_AS_INDENT':
      return 'a tab is used for indentation: indent with spaces';
    case 'UNEXPECTED_TOKEN':
      return `unexpected text here (${parserMessage.replace(/\.$/, '')}): check the line's indentation and quoting`;
    case 'KEY_OVER_1024_CHARS':
      return 'a key is longer than 1024 characters (or a line YAML reads as a key runs on): shorten it, or check the indentation and quoting';
    case 'DUPLICATE_KEY':
      return 'a key appears twice in one map: keep one of them';
    default:
      return parserMessage;
  }
}
