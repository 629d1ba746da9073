// Observes runtimes from a folder of `kubectl get … -o yaml|json` dumps (PRODUCT.md "Status
// reporter"), laid out like dist/:
//
//   DIR/kcp/              Runtime and Kyma CRs of the Kyma Control Plane
//   DIR/garden/           Shoots
//   DIR/runtimes/<name>/  objects of that runtime's cluster: the Kyma CR kyma-system/default and the
//                         objects of the kinds the extensions' status hooks declare (skrKinds)
//
// Any file names (subfolders too), `.yaml`, `.yml` or `.json`; a file holds `List`s (kind List or
// *List with items) or single objects, YAML files may hold several documents. Objects are
// recognised by API group, kind, namespace and name: the Runtime and the KCP Kyma by the lowercase
// runtime ID in the runtime's KCP namespace, the Shoot by name and namespace, the SKR Kyma only as
// kyma-system/default.
//
// Dumps are treated as untrusted: YAML 1.2 core schema, no aliases, unique keys, bounded nesting and
// size. A bad item is a warning with its file and JSON pointer, never a crash; a file that cannot be
// read or parsed makes the objects of its cluster folder that were not found elsewhere InvalidData
// (not "missing"). Duplicate objects: a warning, and the one with the higher metadata.generation,
// then the higher metadata.resourceVersion, then the first in file order wins. Identity checks:
// the runtime-id label (and the shoot-name label of the SKR Kyma) and the Shoot's runtime-id
// annotation must match the fleet where present, else that cluster fails with IdentityMismatch.
// A missing folder is the read failure NotDumped; a dump folder that does not exist, cannot be
// listed or has none of the three folders is a global failure (exit 5).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { measureNestingDepth } from '../lib/yaml/parse-yaml';
import { EXTENSIONS } from '../extensions';
import { type SkrKind, statusSkrKinds } from '../extensions/status-hook';
import { cmp } from '../lib/diagnostics';
import type { ClusterRole, KubeObject, Observation, ObservationWarning, ObservedRuntime, ReadFailure, RuntimeRef } from './observed';
import { sanitizeMessage } from './sanitize';

/** Dump files above this size are not read (split a landscape's Shoots over several files). */
export const MAX_DUMP_FILE_BYTES = 256 * 1024 * 1024;
/** Nesting deeper than this is refused before parsing (Kubernetes objects nest about 15 levels). */
export const MAX_DUMP_DEPTH = 100;
/** Subfolders deeper than this are not read. */
const MAX_FOLDER_DEPTH = 8;

const RUNTIME_ID_LABEL = 'kyma-project.io/runtime-id';
const SHOOT_NAME_LABEL = 'kyma-project.io/shoot-name';
const SHOOT_RUNTIME_ID_ANNOTATION = 'infrastructuremanager.kyma-project.io/runtime-id';

type Rec = Record<string, unknown>;

/** An object found in a dump, with where it was found. */
interface Item {
  readonly obj: KubeObject;
  readonly group: string;
  readonly where: string;
  readonly pointer: string;
  /** Scan order, for the last tie-break of duplicates. */
  readonly seq: number;
}

interface FolderScan {
  readonly exists: boolean;
  readonly items: Item[];
  /** Files of the folder that could not be read or parsed: "<file>: <why>". */
  readonly broken: string[];
}

export interface DumpOptions {
  /** How the dump folder is shown in warnings (default: `dir` as given). */
  readonly display?: string;
  /** Kinds read from each runtime's folder (default: the skrKinds of the registered extensions' status hooks). */
  readonly skrKinds?: readonly SkrKind[];
}

export function observeDumps(dir: string, refs: readonly RuntimeRef[], options: DumpOptions = {}): Observation {
  const display = toSlash(options.display ?? dir).replace(/\/+$/, '') || '.';
  const skrKinds = options.skrKinds ?? statusSkrKinds(EXTENSIONS);
  const warnings: ObservationWarning[] = [];
  const empty = (reason: 'UnreadableDump', message: string): Observation => ({ runtimes: new Map(), global: { reason, message }, warnings: [] });

  let root: string;
  try {
    root = fs.realpathSync(dir);
    if (!fs.statSync(root).isDirectory()) return empty('UnreadableDump', `dump folder ${display} is not a folder`);
    fs.readdirSync(root);
  } catch (e) {
    return empty('UnreadableDump', `dump folder ${display} cannot be read (${errCode(e)})`);
  }

  const ctx: ScanContext = { root, display, warnings, seq: 0 };
  let kcp: FolderScan;
  let garden: FolderScan;
  let runtimeFolders: Map<string, FolderScan> | undefined;
  try {
    kcp = scanFolder(ctx, 'kcp');
    garden = scanFolder(ctx, 'garden');
    runtimeFolders = scanRuntimes(ctx, refs);
  } catch (e) {
    if (e instanceof UnreadableFolder) return empty('UnreadableDump', e.message);
    throw e;
  }
  if (!kcp.exists && !garden.exists && runtimeFolders === undefined) {
    return empty('UnreadableDump', `dump folder ${display} holds none of kcp/, garden/ and runtimes/; is --from the right folder?`);
  }

  // Index the objects of the shared folders that belong to a runtime of the fleet.
  const wantedKcp = new Set(refs.map((r) => `${r.kcpNamespace}/${r.runtimeID.toLowerCase()}`));
  const wantedShoots = new Set(refs.map((r) => `${r.shootNamespace}/${r.shootName}`));
  const kcpIndex = new DedupIndex(warnings);
  const ignoredKcp = new IgnoredKinds('kcp/', 'Runtime and Kyma objects of the Kyma Control Plane', warnings);
  for (const item of kcp.items) {
    const kind = item.obj.kind;
    const id = `${item.obj.metadata.namespace ?? ''}/${item.obj.metadata.name}`;
    if (kind === 'Runtime' && item.group === 'infrastructuremanager.kyma-project.io') {
      if (wantedKcp.has(id)) kcpIndex.add(`Runtime ${id}`, item);
    } else if (kind === 'Kyma' && item.group === 'operator.kyma-project.io') {
      if (wantedKcp.has(id)) kcpIndex.add(`Kyma ${id}`, item);
    } else ignoredKcp.add(item);
  }
  ignoredKcp.flush();
  const gardenIndex = new DedupIndex(warnings);
  const ignoredGarden = new IgnoredKinds('garden/', 'Shoots', warnings);
  for (const item of garden.items) {
    const id = `${item.obj.metadata.namespace ?? ''}/${item.obj.metadata.name}`;
    if (item.obj.kind === 'Shoot' && item.group === 'core.gardener.cloud') {
      if (wantedShoots.has(id)) gardenIndex.add(`Shoot ${id}`, item);
    } else ignoredGarden.add(item);
  }
  ignoredGarden.flush();

  const runtimes = new Map<string, ObservedRuntime>();
  for (const ref of refs) {
    const read = new Set<ClusterRole>();
    const failures: ReadFailure[] = [];
    const out: { runtimeCR?: KubeObject; kcpKyma?: KubeObject; shoot?: KubeObject; skrKyma?: KubeObject; skrObjects: ReadonlyMap<string, KubeObject[]> } = {
      skrObjects: new Map(),
    };
    const kcpId = `${ref.kcpNamespace}/${ref.runtimeID.toLowerCase()}`;

    // KCP
    if (!kcp.exists) failures.push({ cluster: 'kcp', reason: 'NotDumped', message: `the dump has no kcp/ folder` });
    else {
      const runtimeCR = kcpIndex.get(`Runtime ${kcpId}`);
      const kcpKyma = kcpIndex.get(`Kyma ${kcpId}`);
      const mismatch = runtimeIdMismatch(runtimeCR, ref, 'Runtime') ?? runtimeIdMismatch(kcpKyma, ref, 'Kyma');
      if (mismatch) failures.push({ cluster: 'kcp', reason: 'IdentityMismatch', message: mismatch });
      else if ((!runtimeCR || !kcpKyma) && kcp.broken.length > 0) failures.push({ cluster: 'kcp', reason: 'InvalidData', message: brokenMessage(kcp.broken) });
      else {
        read.add('kcp');
        if (runtimeCR) out.runtimeCR = runtimeCR;
        if (kcpKyma) out.kcpKyma = kcpKyma;
      }
    }

    // Garden
    if (!garden.exists) failures.push({ cluster: 'garden', reason: 'NotDumped', message: `the dump has no garden/ folder` });
    else {
      const shoot = gardenIndex.get(`Shoot ${ref.shootNamespace}/${ref.shootName}`);
      const annotated = shoot?.metadata.annotations?.[SHOOT_RUNTIME_ID_ANNOTATION];
      if (shoot && typeof annotated === 'string' && annotated.toLowerCase() !== ref.runtimeID.toLowerCase()) {
        failures.push({
          cluster: 'garden',
          reason: 'IdentityMismatch',
          message: `Shoot ${ref.shootNamespace}/${ref.shootName} belongs to runtime ${annotated} (annotation ${SHOOT_RUNTIME_ID_ANNOTATION}), the fleet says ${ref.runtimeID}`,
        });
      } else if (!shoot && garden.broken.length > 0) failures.push({ cluster: 'garden', reason: 'InvalidData', message: brokenMessage(garden.broken) });
      else {
        read.add('garden');
        if (shoot) out.shoot = shoot;
      }
    }

    // SKR
    const folder = runtimeFolders?.get(ref.name);
    if (runtimeFolders === undefined) failures.push({ cluster: 'skr', reason: 'NotDumped', message: 'the dump has no runtimes/ folder' });
    else if (!folder) failures.push({ cluster: 'skr', reason: 'NotDumped', message: `the dump has no runtimes/${ref.name}/ folder` });
    else if (folder.broken.length > 0) failures.push({ cluster: 'skr', reason: 'InvalidData', message: brokenMessage(folder.broken) });
    else {
      const skr = indexRuntimeFolder(folder, ref, skrKinds, warnings);
      const mismatch = skrMismatch(skr.kyma, ref);
      if (mismatch) failures.push({ cluster: 'skr', reason: 'IdentityMismatch', message: mismatch });
      else {
        read.add('skr');
        if (skr.kyma) out.skrKyma = skr.kyma;
        out.skrObjects = skr.skrObjects;
      }
    }

    runtimes.set(ref.name, {
      ref,
      ...out,
      read,
      failures: failures.map((f) => ({ ...f, message: sanitizeMessage(f.message) })),
    });
  }
  // Object names and kinds in messages come from the dump: one sanitised line each.
  const clean = warnings.map((w) => ({ where: w.where, pointer: sanitizeMessage(w.pointer, 200), message: sanitizeMessage(w.message) }));
  clean.sort((a, b) => cmp(a.where, b.where) || comparePointers(a.pointer, b.pointer) || cmp(a.message, b.message));
  return { runtimes, warnings: clean };
}

// --------------------------------------------------------------------------------------------- identity

function runtimeIdMismatch(obj: KubeObject | undefined, ref: RuntimeRef, kind: string): string | undefined {
  const label = obj?.metadata.labels?.[RUNTIME_ID_LABEL];
  if (obj && typeof label === 'string' && label.toLowerCase() !== ref.runtimeID.toLowerCase()) {
    return `${kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name} has ${RUNTIME_ID_LABEL}=${label}, the fleet says ${ref.runtimeID}`;
  }
  return undefined;
}

function skrMismatch(kyma: KubeObject | undefined, ref: RuntimeRef): string | undefined {
  if (!kyma) return undefined;
  const id = kyma.metadata.labels?.[RUNTIME_ID_LABEL];
  if (typeof id === 'string' && id.toLowerCase() !== ref.runtimeID.toLowerCase()) {
    return `runtimes/${ref.name}/ holds the Kyma CR of runtime ${id} (label ${RUNTIME_ID_LABEL}), the fleet says ${ref.runtimeID}: a dump of the wrong cluster`;
  }
  const shoot = kyma.metadata.labels?.[SHOOT_NAME_LABEL];
  if (typeof shoot === 'string' && shoot !== ref.shootName) {
    return `runtimes/${ref.name}/ holds the Kyma CR of Shoot ${shoot} (label ${SHOOT_NAME_LABEL}), the fleet says ${ref.shootName}: a dump of the wrong cluster`;
  }
  return undefined;
}

function brokenMessage(broken: readonly string[]): string {
  return `${broken.length} file${broken.length === 1 ? '' : 's'} of the dump could not be read: ${broken.join('; ')}`;
}

function indexRuntimeFolder(
  folder: FolderScan,
  ref: RuntimeRef,
  skrKinds: readonly SkrKind[],
  warnings: ObservationWarning[],
): { kyma?: KubeObject; skrObjects: Map<string, KubeObject[]> } {
  const index = new DedupIndex(warnings);
  const holds = ['the Kyma CR kyma-system/default', ...skrKinds.map((k) => `${k.kind}s`)];
  const ignored = new IgnoredKinds(`runtimes/${ref.name}/`, holds.length > 1 ? `${holds.slice(0, -1).join(', ')} and ${holds.at(-1)}` : holds[0]!, warnings);
  for (const item of folder.items) {
    const { kind, metadata } = item.obj;
    const id = `${metadata.namespace ?? ''}/${metadata.name}`;
    if (kind === 'Kyma' && item.group === 'operator.kyma-project.io') {
      if (id === 'kyma-system/default') index.add(`Kyma ${id}`, item);
      else warnings.push({ where: item.where, pointer: item.pointer, message: `Kyma ${id} ignored: the Kyma CR of a runtime is kyma-system/default` });
    } else if (skrKinds.some((k) => k.kind === kind && k.group === item.group)) {
      if (metadata.namespace === undefined || metadata.namespace === '') {
        warnings.push({ where: item.where, pointer: item.pointer, message: `${kind} ${metadata.name} ignored: it has no namespace` });
      } else index.add(`${kind} ${id}`, item);
    } else ignored.add(item);
  }
  ignored.flush();
  const keys = index.keys().sort(cmp);
  const skrObjects = new Map<string, KubeObject[]>();
  for (const k of skrKinds) skrObjects.set(k.kind, keys.filter((key) => key.startsWith(`${k.kind} `)).map((key) => index.get(key)!));
  return { kyma: index.get('Kyma kyma-system/default'), skrObjects };
}

// --------------------------------------------------------------------------------------------- duplicates

class DedupIndex {
  private readonly map = new Map<string, Item>();
  constructor(private readonly warnings: ObservationWarning[]) {}

  add(key: string, item: Item): void {
    const prev = this.map.get(key);
    if (!prev) {
      this.map.set(key, item);
      return;
    }
    const { winner, why } = better(prev, item);
    this.map.set(key, winner);
    const loser = winner === prev ? item : prev;
    this.warnings.push({
      where: item.where,
      pointer: item.pointer,
      message: `duplicate ${key} (also at ${location(prev)}); using the one at ${location(winner)} (${why}), ignoring ${location(loser)}`,
    });
  }

  get(key: string): KubeObject | undefined {
    return this.map.get(key)?.obj;
  }

  keys(): string[] {
    return [...this.map.keys()];
  }
}

function location(item: Item): string {
  return item.pointer === '' ? item.where : `${item.where}#${item.pointer}`;
}

function better(a: Item, b: Item): { winner: Item; why: string } {
  const ga = a.obj.metadata.generation;
  const gb = b.obj.metadata.generation;
  if (ga !== undefined && gb !== undefined && ga !== gb) return { winner: ga > gb ? a : b, why: 'higher metadata.generation' };
  if ((ga === undefined) !== (gb === undefined)) return { winner: ga !== undefined ? a : b, why: 'it has a metadata.generation' };
  const ra = resourceVersion(a.obj);
  const rb = resourceVersion(b.obj);
  if (ra !== undefined && rb !== undefined && ra !== rb) {
    const numeric = /^[0-9]{1,30}$/.test(ra) && /^[0-9]{1,30}$/.test(rb);
    const aWins = numeric ? BigInt(ra) > BigInt(rb) : cmp(ra, rb) > 0;
    return { winner: aWins ? a : b, why: 'higher metadata.resourceVersion' };
  }
  return { winner: a.seq <= b.seq ? a : b, why: 'the same generation and resourceVersion; the first in file order' };
}

function resourceVersion(obj: KubeObject): string | undefined {
  const rv = (obj.metadata as Rec).resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** Objects of kinds a folder does not hold: one warning per file and kind. */
class IgnoredKinds {
  private readonly seen = new Map<string, { item: Item; count: number }>();
  constructor(
    private readonly folder: string,
    private readonly holds: string,
    private readonly warnings: ObservationWarning[],
  ) {}

  add(item: Item): void {
    const key = `${item.where}\u0000${item.obj.apiVersion}\u0000${item.obj.kind}`;
    const entry = this.seen.get(key);
    if (entry) entry.count++;
    else this.seen.set(key, { item, count: 1 });
  }

  flush(): void {
    for (const { item, count } of this.seen.values()) {
      const what = `${count === 1 ? 'an object' : `${count} objects`} of kind ${item.obj.kind} (${item.obj.apiVersion})`;
      this.warnings.push({ where: item.where, pointer: item.pointer, message: `${what} ignored: ${this.folder} is read for ${this.holds}` });
    }
    this.seen.clear();
  }
}

// --------------------------------------------------------------------------------------------- reading folders

interface ScanContext {
  readonly root: string;
  readonly display: string;
  readonly warnings: ObservationWarning[];
  seq: number;
}

class UnreadableFolder extends Error {}

/** Scans DIR/<rel>; `exists` is false when it is missing. A folder that cannot be listed is global. */
function scanFolder(ctx: ScanContext, rel: string): FolderScan {
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
function scanRuntimes(ctx: ScanContext, refs: readonly RuntimeRef[]): Map<string, FolderScan> | undefined {
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
function safeName(name: string): string {
  return sanitizeMessage(name, 255) || '?';
}

/** Orders JSON pointers with numeric segments as numbers (/items/2 before /items/10). */
function comparePointers(a: string, b: string): number {
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

function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}

function isCode(e: unknown, code: string): boolean {
  return e instanceof Error && (e as NodeJS.ErrnoException).code === code;
}

function errCode(e: unknown): string {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' ? (e as NodeJS.ErrnoException).code! : 'error';
}
