// Reading a dump folder (`kubectl get … -o yaml|json` output laid out as kcp/, garden/,
// runtimes/<name>/): walking its folders and parsing its files into objects with where they were
// found. Dumps are untrusted: YAML 1.2 core schema, no aliases, unique keys, bounded nesting, size
// and folder depth; symbolic links must stay inside the dump; a bad file or item is a warning with
// its file and JSON pointer, never a crash. Used by ./dump-source.ts (status) and
// ./object-reader.ts (the onboarding commands).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cmp } from '../lib/diagnostics';
import { measureNestingDepth } from '../lib/yaml/parse-yaml';
import type { KubeObject, ObservationWarning, RuntimeRef } from './observed';
import { sanitizeMessage } from './sanitize';

/** Dump files above this size are not read (split a landscape's Shoots over several files). */
export const MAX_DUMP_FILE_BYTES = 256 * 1024 * 1024;
/** Nesting deeper than this is refused before parsing (Kubernetes objects nest about 15 levels). */
export const MAX_DUMP_DEPTH = 100;
/** Subfolders deeper than this are not read. */
const MAX_FOLDER_DEPTH = 8;

type Rec = Record<string, unknown>;

/** An object found in a dump, with where it was found. */
export interface Item {
  readonly obj: KubeObject;
  readonly group: string;
  readonly where: string;
  readonly pointer: string;
  /** Scan order, for the last tie-break of duplicates. */
  readonly seq: number;
}

export interface FolderScan {
  readonly exists: boolean;
  readonly items: Item[];
  /** Files of the folder that could not be read or parsed: "<file>: <why>". */
  readonly broken: string[];
}

// --------------------------------------------------------------------------------------------- reading folders

export interface ScanContext {
  readonly root: string;
  readonly display: string;
  readonly warnings: ObservationWarning[];
  seq: number;
}

export class UnreadableFolder extends Error {}

/** Scans DIR/<rel>; `exists` is false when it is missing. A folder that cannot be listed is global. */
export function scanFolder(ctx: ScanContext, rel: string): FolderScan {
  const abs = path.join(ctx.root, rel);
  const scan: FolderScan = { exists: false, items: [], broken: [] };
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return scan;
    throw new UnreadableFolder(`${ctx.display}/${rel} cannot be read (${errCode(e)})`);
  }
  if (!st.isDirectory()) throw new UnreadableFolder(`${ctx.display}/${rel} is not a folder`);
  const result: FolderScan = { exists: true, items: [], broken: [] };
  walk(ctx, rel, 0, result, true);
  return result;
}

/** runtimes/<name>/ folders of the fleet's runtimes; undefined when runtimes/ is missing. */
export function scanRuntimes(ctx: ScanContext, refs: readonly RuntimeRef[]): Map<string, FolderScan> | undefined {
  const abs = path.join(ctx.root, 'runtimes');
  let entries: fs.Dirent[];
  try {
    if (!fs.statSync(abs).isDirectory()) throw new UnreadableFolder(`${ctx.display}/runtimes is not a folder`);
    entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => cmp(a.name, b.name));
  } catch (e) {
    if (e instanceof UnreadableFolder) throw e;
    if (isCode(e, 'ENOENT')) return undefined;
    throw new UnreadableFolder(`${ctx.display}/runtimes cannot be read (${errCode(e)})`);
  }
  const names = new Set(refs.map((r) => r.name));
  const out = new Map<string, FolderScan>();
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const where = `${ctx.display}/runtimes/${safeName(entry.name)}`;
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && insideDirectory(ctx.root, path.join(abs, entry.name)));
    if (!isDir) {
      ctx.warnings.push({ where, pointer: '', message: 'ignored: runtimes/ holds one folder per runtime' });
      continue;
    }
    if (!names.has(entry.name)) {
      ctx.warnings.push({ where: `${where}/`, pointer: '', message: `no runtime ${JSON.stringify(safeName(entry.name))} in the fleet; folder not read` });
      continue;
    }
    const scan: FolderScan = { exists: true, items: [], broken: [] };
    walk(ctx, `runtimes/${entry.name}`, 0, scan, false);
    out.set(entry.name, scan);
  }
  return out;
}

function insideDirectory(root: string, abs: string): boolean {
  try {
    const real = fs.realpathSync(abs);
    return isInside(root, real) && fs.statSync(real).isDirectory();
  } catch {
    return false;
  }
}

function walk(ctx: ScanContext, rel: string, depth: number, scan: FolderScan, top: boolean): void {
  const abs = path.join(ctx.root, rel);
  const where = `${ctx.display}/${toSlash(rel).split('/').map(safeName).join('/')}`;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => cmp(a.name, b.name));
  } catch (e) {
    if (top) throw new UnreadableFolder(`${where} cannot be read (${errCode(e)})`);
    scan.broken.push(`${where}/: cannot be read (${errCode(e)})`);
    ctx.warnings.push({ where: `${where}/`, pointer: '', message: `folder cannot be read (${errCode(e)})` });
    return;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const childRel = `${rel}/${entry.name}`;
    const childAbs = path.join(ctx.root, childRel);
    const childWhere = `${where}/${safeName(entry.name)}`;
    let real = childAbs;
    let st: fs.Stats;
    try {
      if (entry.isSymbolicLink()) {
        real = fs.realpathSync(childAbs);
        if (!isInside(ctx.root, real)) {
          ctx.warnings.push({ where: childWhere, pointer: '', message: 'symbolic link points outside the dump folder; not read' });
          continue;
        }
      }
      st = fs.statSync(real);
    } catch (e) {
      ctx.warnings.push({ where: childWhere, pointer: '', message: `cannot be read (${errCode(e)})` });
      if (/\.(ya?ml|json)$/i.test(entry.name)) scan.broken.push(`${childWhere}: cannot be read (${errCode(e)})`);
      continue;
    }
    if (st.isDirectory()) {
      if (entry.isSymbolicLink()) {
        ctx.warnings.push({ where: childWhere, pointer: '', message: 'symbolic link to a folder; not followed' });
      } else if (depth + 1 > MAX_FOLDER_DEPTH) {
        ctx.warnings.push({ where: childWhere, pointer: '', message: `folders nested deeper than ${MAX_FOLDER_DEPTH} levels are not read` });
      } else walk(ctx, childRel, depth + 1, scan, false);
      continue;
    }
    const ext = path.extname(entry.name).toLowerCase();
    if (!st.isFile() || !['.yaml', '.yml', '.json'].includes(ext)) {
      ctx.warnings.push({ where: childWhere, pointer: '', message: 'ignored: only .yaml, .yml and .json files are read' });
      continue;
    }
    if (st.size > MAX_DUMP_FILE_BYTES) {
      const why = `file is ${st.size} bytes; the limit is ${MAX_DUMP_FILE_BYTES}`;
      ctx.warnings.push({ where: childWhere, pointer: '', message: `${why}; not read` });
      scan.broken.push(`${childWhere}: ${why}`);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(real);
    } catch (e) {
      ctx.warnings.push({ where: childWhere, pointer: '', message: `cannot be read (${errCode(e)})` });
      scan.broken.push(`${childWhere}: cannot be read (${errCode(e)})`);
      continue;
    }
    const parsed = parseDumpFile(bytes, ext === '.json');
    if ('error' in parsed) {
      ctx.warnings.push({ where: childWhere, pointer: '', message: parsed.error });
      scan.broken.push(`${childWhere}: ${parsed.error}`);
      continue;
    }
    const several = parsed.documents.length > 1;
    parsed.documents.forEach((doc, i) => {
      if (doc === null || doc === undefined) return; // an empty document (a trailing ---)
      collectItems(ctx, doc, several ? `${childWhere} (document ${i + 1})` : childWhere, scan);
    });
  }
}

// --------------------------------------------------------------------------------------------- parsing

const YAML_OPTIONS = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: true,
  strict: true,
  prettyErrors: false,
  logLevel: 'silent',
  keepSourceTokens: false,
  resolveKnownTags: false, // !!binary, !!set, !!timestamp … stay unresolved: a warning, so the file is refused
} as const;

/** The documents of one dump file, or why it cannot be used. Never throws. */
export function parseDumpFile(bytes: Uint8Array, json: boolean): { documents: unknown[] } | { error: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { error: 'not UTF-8 text; not read' };
  }
  // kubectl -o json output (also when saved as .yaml) takes the fast path: JSON.parse is ~10x faster
  // than the YAML parser on a landscape's worth of Shoots.
  if (json || /^\s*[{[]/.test(text.slice(0, 256))) {
    const depth = jsonDepth(text, MAX_DUMP_DEPTH);
    if (depth > MAX_DUMP_DEPTH) return { error: `nesting deeper than ${MAX_DUMP_DEPTH} levels; not read` };
    try {
      return { documents: [JSON.parse(text)] };
    } catch (e) {
      if (json) return { error: `not valid JSON: ${sanitizeMessage((e instanceof Error ? e.message : String(e)).split('\n')[0], 200)}; not read` };
      // a YAML flow collection that is not JSON: the YAML parser below decides
    }
  }
  const depth = measureNestingDepth(text, MAX_DUMP_DEPTH);
  if (depth.depth > MAX_DUMP_DEPTH) return { error: `nesting deeper than ${MAX_DUMP_DEPTH} levels at line ${depth.line}; not read` };
  try {
    const docs = parseAllDocuments(text, YAML_OPTIONS);
    if (!Array.isArray(docs)) return { documents: [] }; // only comments
    const documents: unknown[] = [];
    for (const doc of docs) {
      const problem = doc.errors[0] ?? doc.warnings[0];
      if (problem) return { error: `not valid YAML: ${sanitizeMessage(problem.message.split('\n')[0], 200)}; not read` };
      documents.push(doc.toJS({ maxAliasCount: 0 }));
    }
    return { documents };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { error: `not valid YAML: ${sanitizeMessage(message.split('\n')[0], 200)}; not read` };
  }
}

/** Deepest bracket nesting of a JSON text (strings skipped); stops counting past `limit`. */
function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** A List's items or a single object; anything else is a warning. */
function collectItems(ctx: ScanContext, value: unknown, where: string, scan: FolderScan): void {
  if (!isRec(value)) {
    ctx.warnings.push({ where, pointer: '', message: `not a Kubernetes object or List (${typeName(value)}); not read` });
    return;
  }
  if (isListKind(value.kind)) {
    const items = value.items;
    if (items === undefined || items === null) {
      ctx.warnings.push({ where, pointer: '/items', message: `${sanitizeMessage(value.kind, 100)} without items; nothing read` });
      return;
    }
    if (!Array.isArray(items)) {
      ctx.warnings.push({ where, pointer: '/items', message: `items of the ${sanitizeMessage(value.kind, 100)} is not a list (${typeName(items)}); nothing read` });
      return;
    }
    items.forEach((item, i) => {
      const pointer = `/items/${i}`;
      if (isRec(item) && isListKind(item.kind)) {
        ctx.warnings.push({ where, pointer, message: 'a List inside a List is not read' });
        return;
      }
      addItem(ctx, item, where, pointer, scan);
    });
    return;
  }
  addItem(ctx, value, where, '', scan);
}

function isListKind(kind: unknown): kind is string {
  return typeof kind === 'string' && (kind === 'List' || /^[A-Z][A-Za-z0-9]*List$/.test(kind));
}

function addItem(ctx: ScanContext, value: unknown, where: string, pointer: string, scan: FolderScan): void {
  const warn = (message: string, at = pointer): void => void ctx.warnings.push({ where, pointer: at, message });
  if (!isRec(value)) return warn(`item is not an object (${typeName(value)}); not read`);
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '') return warn('item has no apiVersion; not read', `${pointer}/apiVersion`);
  if (typeof value.kind !== 'string' || value.kind === '') return warn('item has no kind; not read', `${pointer}/kind`);
  const meta = value.metadata;
  if (!isRec(meta)) return warn('item has no metadata; not read', `${pointer}/metadata`);
  if (typeof meta.name !== 'string' || meta.name === '') return warn(`${sanitizeMessage(value.kind, 100)} without metadata.name; not read`, `${pointer}/metadata/name`);
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string') return warn('metadata.namespace is not a string; not read', `${pointer}/metadata/namespace`);
  let generation: number | undefined;
  if (meta.generation !== undefined) {
    if (typeof meta.generation === 'number' && Number.isSafeInteger(meta.generation) && meta.generation >= 0) generation = meta.generation;
    else warn('metadata.generation is not a non-negative integer; ignored', `${pointer}/metadata/generation`);
  }
  const metadata: Rec = {
    name: meta.name,
    ...(typeof meta.namespace === 'string' && meta.namespace !== '' ? { namespace: meta.namespace } : {}),
    ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
    ...(generation !== undefined ? { generation } : {}),
    ...(typeof meta.resourceVersion === 'string' ? { resourceVersion: meta.resourceVersion } : {}),
    ...(typeof meta.deletionTimestamp === 'string' ? { deletionTimestamp: meta.deletionTimestamp } : {}),
  };
  for (const field of ['labels', 'annotations'] as const) {
    const raw = meta[field];
    if (raw === undefined || raw === null) continue;
    if (!isRec(raw)) {
      warn(`metadata.${field} is not a map; ignored`, `${pointer}/metadata/${field}`);
      continue;
    }
    const clean: Record<string, string> = Object.create(null);
    for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') clean[k] = v;
    metadata[field] = clean;
  }
  const obj = { ...value, metadata } as unknown as KubeObject;
  const apiVersion = value.apiVersion;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  scan.items.push({ obj, group, where, pointer, seq: ctx.seq++ });
}

// --------------------------------------------------------------------------------------------- helpers

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return `a ${typeof v}`;
}

/** File names are shown in warnings: no control characters. */
export function safeName(name: string): string {
  return sanitizeMessage(name, 255) || '?';
}

/** Orders JSON pointers with numeric segments as numbers (/items/2 before /items/10). */
export function comparePointers(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    if (/^[0-9]+$/.test(x) && /^[0-9]+$/.test(y)) return Number(x) - Number(y);
    return cmp(x, y);
  }
  return pa.length - pb.length;
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}

function isCode(e: unknown, code: string): boolean {
  return e instanceof Error && (e as NodeJS.ErrnoException).code === code;
}

export function errCode(e: unknown): string {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' ? (e as NodeJS.ErrnoException).code! : 'error';
}

/** Opens a dump folder: its real path and the scan context, or why it cannot be read (a global failure). */
export function openDump(dir: string, display: string): { ctx: ScanContext } | { problem: string } {
  const shown = toSlash(display).replace(/\/+$/, '') || '.';
  try {
    const root = fs.realpathSync(dir);
    if (!fs.statSync(root).isDirectory()) return { problem: `dump folder ${shown} is not a folder` };
    fs.readdirSync(root);
    return { ctx: { root, display: shown, warnings: [], seq: 0 } };
  } catch (e) {
    return { problem: `dump folder ${shown} cannot be read (${errCode(e)})` };
  }
}
