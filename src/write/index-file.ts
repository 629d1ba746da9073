// The ownership index `dist/.kyma-fleet-index.json`: which files in dist/ kyma-fleet wrote, with
// their sha256. It is what lets the writer delete stale output safely (only files it owns) and
// refuse a dist/ that holds anything else (hostile-inputs H43, H56).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';

export const INDEX_FILE = '.kyma-fleet-index.json';

export interface DistIndex {
  version: 1;
  generator: 'kyma-fleet';
  /** relPath -> sha256 hex of the file's bytes, keys sorted by code point. */
  files: Record<string, string>;
}

export { sha256 } from '../lib/digest';

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
  const body = entries.map(([rel, hash]) => `    ${NEEDS_ESCAPE.test(rel) ? JSON.stringify(rel) : `"${rel}"`}: ${NEEDS_ESCAPE.test(hash) ? JSON.stringify(hash) : `"${hash}"`}`);
  const filesText = body.length === 0 ? '{}' : `{\n${body.join(',\n')}\n  }`;
  return `{\n  "files": ${filesText},\n  "generator": "kyma-fleet",\n  "version": 1\n}\n`;
}

/** Characters JSON.stringify writes differently from themselves inside a string. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The last text parsed and its index: one run reads the same index in several stages. */
let memo: { text: string; index: DistIndex | undefined } | undefined;

/**
 * Parses index text; undefined when it is not a well-formed version-1 kyma-fleet index. The result
 * is shared between callers with the same text and must not be modified.
 */
export function parseIndex(text: string): DistIndex | undefined {
  if (memo?.text === text) return memo.index;
  const index = parseIndexText(text);
  memo = { text, index };
  return index;
}

function parseIndexText(text: string): DistIndex | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { version, generator, files } = data as Record<string, unknown>;
  if (version !== 1 || generator !== 'kyma-fleet') return undefined;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined;
  const record = files as Record<string, unknown>;
  const keys = Object.keys(record);
  const HASH = /^[0-9a-f]{64}$/;
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const hash = record[keys[i]!];
    if (typeof hash !== 'string' || hash.length !== 64 || !HASH.test(hash)) return undefined;
    if (i > 0 && sorted && !(keys[i - 1]! < keys[i]!)) sorted = false;
  }
  // The index is written sorted (JSON.parse keeps that order, and makes every key an own property,
  // "__proto__" included); only a hand-edited one needs copying in order.
  if (sorted) return { version: 1, generator: 'kyma-fleet', files: record as Record<string, string> };
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of keys.sort(cmp)) out[key] = record[key] as string;
  return { version: 1, generator: 'kyma-fleet', files: out };
}

export type IndexRead =
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'ok'; index: DistIndex; text: string };

/** Reads `<outDir>/<INDEX_FILE>` without following a symlink in its place. I/O errors throw. */
export function loadIndex(outDir: string): IndexRead {
  const file = path.join(outDir, INDEX_FILE);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT') || isCode(e, 'ENOTDIR')) return { kind: 'missing' };
    throw e;
  }
  if (!st.isFile()) return { kind: 'invalid', reason: `${INDEX_FILE} is not a regular file` };
  const text = fs.readFileSync(file, 'utf8');
  const index = parseIndex(text);
  return index ? { kind: 'ok', index, text } : { kind: 'invalid', reason: `${INDEX_FILE} is not a valid kyma-fleet index` };
}

/** The raw text of dist/'s index (not followed through a symlink), or undefined when there is none or it is unreadable. */
export function readIndexText(outDir: string): string | undefined {
  try {
    const file = path.join(outDir, INDEX_FILE);
    if (!fs.lstatSync(file).isFile()) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The index of an existing dist/, or undefined when there is none (or it is unreadable or invalid). */
export function readDistIndex(outDir: string): DistIndex | undefined {
  try {
    const r = loadIndex(outDir);
    return r.kind === 'ok' ? r.index : undefined;
  } catch {
    return undefined;
  }
}

export function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as NodeJS.ErrnoException).code === code;
}
