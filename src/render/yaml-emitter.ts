// A fast YAML emitter for the JSON-like data of our manifests whose output is byte-identical to
// `yaml.stringify(value, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false, indentSeq: true })`
// (yaml 2.9.1), i.e. to `toYaml` in ./serialize.ts, at a small fraction of its cost. Its domain,
// its fallback to yaml and how it is kept faithful: docs/architecture.md, "The YAML emitter".
// Scalars are in ./yaml-scalars.ts; here: collections and documents.

import { stringify as yamlStringify } from 'yaml';
import { isSimplePlain, numberString, scalarString } from './yaml-scalars';

export { isSimplePlain, YAML11_TAG_TESTS } from './yaml-scalars';

/** The options of `toYaml` (src/render/serialize.ts); only used for the fallback. */
const YAML_OPTIONS = { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false, indentSeq: true } as const;

export interface EmitterStats {
  /** emitYaml calls. */
  documents: number;
  /** Calls that were handed to yaml.stringify because the value left the JSON domain. */
  fallbackDocuments: number;
}

const stats: EmitterStats = { documents: 0, fallbackDocuments: 0 };

export function getEmitterStats(): EmitterStats {
  return { ...stats };
}

export function resetEmitterStats(): void {
  stats.documents = 0;
  stats.fallbackDocuments = 0;
}

// ---------------------------------------------------------------------------------------------
// Collections (stringifyCollection / stringifyPair, block style, indentSeq: true, indent step 2)

/** Thrown (never escapes) when a value is outside the JSON domain; emitYaml then falls back. */
const UNSUPPORTED: unique symbol = Symbol('unsupported');

let out = '';

const ARRAY_ITERATOR = Array.prototype[Symbol.iterator];

/** An array yaml would write item by item (it iterates, and honours toJSON). */
function isPlainArray(v: unknown[]): boolean {
  return Object.getPrototypeOf(v) === Array.prototype && v[Symbol.iterator] === ARRAY_ITERATOR && (v as { toJSON?: unknown }).toJSON === undefined;
}

/** An object yaml would write as a mapping of its own enumerable string keys. */
function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !(Symbol.iterator in v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Value string of a scalar (not a collection) at content indent `indent`. */
function scalarValue(v: unknown, indent: string): string {
  switch (typeof v) {
    case 'string':
      return isSimplePlain(v) ? v : scalarString(v, indent, false);
    case 'number':
      return numberString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      break;
    default:
  }
  throw UNSUPPORTED;
}

// Indentation strings by depth (depth d = 2*d spaces), built once so that appending them never
// allocates: INDENT[d], NL[d] = '\n' + INDENT[d], COLON_NL[d] = ':\n' + INDENT[d].
const INDENT: string[] = [];
const NL: string[] = [];
const COLON_NL: string[] = [];

function growIndents(depth: number): void {
  for (let d = INDENT.length; d <= depth; d++) {
    const ind = '  '.repeat(d);
    INDENT.push(ind);
    NL.push('\n' + ind);
    COLON_NL.push(':\n' + ind);
  }
}
growIndents(32);

/**
 * Writes a block mapping whose pairs sit at depth `d` (their keys and scalar values are at
 * ctx.indent = INDENT[d + 1]); returns the number of pairs (0 -> nothing written).
 */
function writeMap(obj: Record<string, unknown>, d: number): number {
  const keys = Object.keys(obj);
  const c = d + 1;
  if (c >= INDENT.length) growIndents(c + 1);
  let n = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = obj[key];
    if (v === undefined) continue;
    if (n++ > 0) out += NL[d]!;
    const ks = isSimplePlain(key) ? key : scalarString(key, INDENT[c]!, true);
    if (ks.length > 1024) {
      // stringifyPair: over-long implicit keys become explicit `? key` / `: value`.
      out += '? ' + ks + NL[d]! + ': ';
      writeItem(v, c);
      continue;
    }
    out += ks;
    if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) {
        if (!isPlainArray(v)) throw UNSUPPORTED;
        if (v.length === 0) out += ': []';
        else {
          out += COLON_NL[c]!;
          writeSeq(v, c);
        }
        continue;
      }
      if (!isPlainObject(v)) throw UNSUPPORTED;
      const mark = out.length;
      out += COLON_NL[c]!;
      if (writeMap(v as Record<string, unknown>, c) === 0) out = out.slice(0, mark) + ': {}';
      continue;
    }
    out += ': ';
    out += scalarValue(v, INDENT[c]!);
  }
  return n;
}

/** Writes a non-empty block sequence whose `- ` markers sit at depth `d` (items at depth d + 1). */
function writeSeq(arr: readonly unknown[], d: number): void {
  const c = d + 1;
  if (c >= INDENT.length) growIndents(c + 1);
  for (let i = 0; i < arr.length; i++) {
    out += i > 0 ? NL[d]! + '- ' : '- ';
    writeItem(arr[i], c);
  }
}

/** A node written right after `- ` or `? k\n: `, with content at depth `d` (ctx.indent INDENT[d]). */
function writeItem(v: unknown, d: number): void {
  if (v === undefined) {
    out += 'null';
    return;
  }
  if (typeof v === 'object' && v !== null) {
    if (Array.isArray(v)) {
      if (!isPlainArray(v)) throw UNSUPPORTED;
      if (v.length === 0) out += '[]';
      else writeSeq(v, d);
      return;
    }
    if (!isPlainObject(v)) throw UNSUPPORTED;
    const mark = out.length;
    if (writeMap(v as Record<string, unknown>, d) === 0) out = out.slice(0, mark) + '{}';
    return;
  }
  out += scalarValue(v, INDENT[d]!);
}

function emitDocument(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const outer = out; // re-entrancy (a getter calling emitYaml) must not clobber the buffer
    out = '';
    try {
      writeItem(value, 0);
      return out + '\n';
    } finally {
      out = outer;
    }
  }
  if (typeof value === 'string') return scalarString(value, '', false) + '\n';
  if (value === undefined) throw UNSUPPORTED;
  return scalarValue(value, '') + '\n';
}

/**
 * YAML for one document, byte-identical to `toYaml(value)` (yaml.stringify with version 1.1,
 * lineWidth 0, no aliases, indentSeq).
 */
export function emitYaml(value: unknown): string {
  stats.documents++;
  try {
    return emitDocument(value);
  } catch (e) {
    if (e !== UNSUPPORTED) throw e;
    stats.fallbackDocuments++;
    return yamlStringify(value, YAML_OPTIONS) as string;
  }
}
