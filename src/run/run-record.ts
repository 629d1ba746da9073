// What the last successful synth of a fleet into an out folder knew, kept in the cache folder so
// the next synth only parses, validates, resolves and renders what changed (issue 5): per runtime
// file the digest of its bytes, its identity (for the checks across files), its diagnostics, the
// input digest of its render and the files (with hashes) that render produced. The record is only
// trusted when the fleet-wide inputs (code, fleet.yaml, groups, auxiliary files, options), the
// time epoch of time-dependent rules and dist/'s index are exactly as that run left them.
// Best effort: a missing, damaged or foreign record only means doing everything.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoadedLayers } from '../load/load';
import type { FleetModel, RuntimeIdentity } from '../validate/model';
import { EXTENSIONS } from '../extensions';
import { codeKey, type CodeKeyRecord } from '../lib/code-key';
import type { Diagnostic } from '../lib/diagnostics';
import type { Target } from '../render/render-runtime';
import { rolloutModelsBeside } from '../rollout/ring-resolve';
import { rolloutStateKey } from '../rollout/store';

export interface RuntimeRecord {
  /** sha256 of the runtime file's bytes. */
  readonly digest: string;
  /** The file's stamp when it was read (fleet/load.ts fileStamp), if it was settled then. */
  readonly stamp?: string;
  /** Identity without the file (display paths depend on the working folder, which is in the key). */
  readonly identity: Omit<RuntimeIdentity, 'file'>;
  /** Diagnostics of the file and of its resolved rules (warnings only: the run succeeded). */
  readonly diagnostics: readonly Diagnostic[];
  /** runtimeInputDigest of its last render. */
  readonly input: string;
  readonly targets: readonly Target[];
}

export interface RunRecord {
  readonly version: 4;
  /** Digest of the fleet-wide inputs (see layersKey). */
  readonly key: string;
  /** Instants (ms) at which time-dependent rules change their verdict (plugin timeThresholds). */
  readonly thresholds: readonly number[];
  /** How many thresholds had passed at that run's `now`. */
  readonly epoch: number;
  /** sha256 of dist/'s index text after that run (which lists the files of every runtime). */
  readonly index: string;
  /** The index file's stamp (src/lib/file-stamp.ts statStamp) as that run left it, taken under its lock. */
  readonly indexStamp?: string;
  /**
   * When that run had written dist/ (ms since the epoch, the real clock): a file of dist/ changed
   * or replaced later (by hand, an editor, a tool) has a newer mtime or ctime, so the record no
   * longer describes dist/ (see touchedSince in src/write/tree-scan.ts).
   */
  readonly settled: number;
  /** The program's key and the stamps of its files at that run (src/lib/code-key.ts): this program, not read again while they stand. */
  readonly code?: CodeKeyRecord;
  /** The GitOps options of that run (JSON), which a runtime's own GitOps files depend on. */
  readonly gitops: string;
  /** By runtime file relPath (runtimes/<name>.yaml). */
  readonly runtimes: Readonly<Record<string, RuntimeRecord>>;
}

/** The record file of one (working folder, fleet folder, out folder) triple. */
function recordFile(cacheDir: string, cwd: string, fleetRoot: string, outDir: string): string {
  const id = createHash('sha256').update(`${cwd}\0${fleetRoot}\0${outDir}`).digest('hex').slice(0, 16);
  return path.join(cacheDir, `run-${id}.json`);
}

/**
 * A runtime's identity as both records keep it, in cells of a row (the run record's rows below, the
 * committed record's lines in dist/'s index: ./committed-record.ts): name, runtime ID, Shoot name
 * and project, the six line and column numbers of `at`, and the labels (null without).
 */
export type IdentityCells = [name: string, runtimeID: string, shoot: string, project: string, at: number[], labels: Record<string, string> | null];

export function identityCells(identity: RuntimeRecord['identity']): IdentityCells {
  const { name, runtimeID, shoot, at, labels } = identity;
  return [name, runtimeID, shoot.name, shoot.project, [at.name.line, at.name.col, at.runtimeID.line, at.runtimeID.col, at.shootName.line, at.shootName.col], labels ?? null];
}

/** The identity of IdentityCells; undefined when a cell is not what it must be. */
export function identityOfCells(cells: readonly unknown[]): RuntimeRecord['identity'] | undefined {
  const [name, runtimeID, shoot, project, at, labels] = cells;
  if (typeof name !== 'string' || typeof runtimeID !== 'string' || typeof shoot !== 'string' || typeof project !== 'string') return undefined;
  if (!Array.isArray(at) || at.length !== 6 || !at.every((n) => Number.isInteger(n)) || typeof labels !== 'object') return undefined;
  const n = at as number[];
  const identity: Mutable<RuntimeRecord['identity']> = {
    name,
    runtimeID,
    shoot: { name: shoot, project },
    at: { name: { line: n[0]!, col: n[1]! }, runtimeID: { line: n[2]!, col: n[3]! }, shootName: { line: n[4]!, col: n[5]! } },
  };
  // Assigned, not spread into the literal: 10,000 rows at every run.
  if (labels !== null) identity.labels = labels as Record<string, string>;
  return identity;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A runtime's record as the file keeps it: a row, not an object with keys (at 10,000 runtimes the
 * file is a third smaller and parses in 25 ms instead of 65; it is written in 14 ms instead of 38).
 */
type Row = [relPath: string, digest: string, stamp: string, input: string, targets: Target[], ...identity: IdentityCells, diagnostics: Diagnostic[]];

function rowOf(relPath: string, r: RuntimeRecord): Row {
  return [relPath, r.digest, r.stamp ?? '', r.input, [...r.targets], ...identityCells(r.identity), [...r.diagnostics]];
}

/** The record of a row; undefined for anything else (a damaged record only means doing everything). */
function recordOfRow(row: unknown): RuntimeRecord | undefined {
  if (!Array.isArray(row) || row.length !== 12) return undefined;
  const [relPath, digest, stamp, input, targets] = row as unknown[];
  const identity = identityOfCells(row.slice(5, 11));
  const diagnostics = row[11] as unknown;
  if (!identity || typeof relPath !== 'string' || typeof digest !== 'string' || typeof stamp !== 'string' || typeof input !== 'string' || !Array.isArray(targets) || !Array.isArray(diagnostics)) return undefined;
  const record: Mutable<RuntimeRecord> = { digest, identity, diagnostics: diagnostics as Diagnostic[], input, targets: targets as Target[] };
  if (stamp !== '') record.stamp = stamp;
  return record;
}

/**
 * The text of each row as the record file holds it, by the record the row was read into: a save
 * writes a runtime's row as it was read when its record is that very object (the record of a file
 * not read again), instead of serializing 10,000 rows anew for one changed runtime.
 */
const rowTexts = new WeakMap<RuntimeRecord, { readonly relPath: string; readonly text: string }>();

/** Where the rows of a record file start: after the first line break (JSON strings hold none), one row a line. */
const ROWS_START = ',"runtimes":[\n';

export function loadRunRecord(cacheDir: string, cwd: string, fleetRoot: string, outDir: string): RunRecord | undefined {
  try {
    const text = fs.readFileSync(recordFile(cacheDir, cwd, fleetRoot, outDir), 'utf8');
    // A row a line (what saveRunRecord writes): each line parsed on its own, so that its text is
    // known to be its row's. Any other layout of valid JSON is read whole, without row texts.
    const firstBreak = text.indexOf('\n');
    const byLine = firstBreak >= 0 && text.startsWith(ROWS_START, firstBreak - ROWS_START.length + 1);
    const parsed = JSON.parse(byLine ? `${text.slice(0, firstBreak)}]}` : text) as Omit<RunRecord, 'runtimes'> & { runtimes: unknown };
    if (parsed.version !== 4 || typeof parsed.key !== 'string' || !Array.isArray(parsed.runtimes)) return undefined;
    if (!Array.isArray(parsed.thresholds) || typeof parsed.epoch !== 'number' || typeof parsed.index !== 'string' || typeof parsed.gitops !== 'string') return undefined;
    if (typeof parsed.settled !== 'number' || !Number.isFinite(parsed.settled)) return undefined;
    if (parsed.indexStamp !== undefined && typeof parsed.indexStamp !== 'string') return undefined;
    if (parsed.code !== undefined && (typeof parsed.code?.key !== 'string' || typeof parsed.code.files !== 'string')) return undefined;
    const runtimes: Record<string, RuntimeRecord> = Object.create(null) as Record<string, RuntimeRecord>;
    const add = (row: unknown, rowText?: string): boolean => {
      const r = recordOfRow(row);
      if (!r) return false;
      const relPath = (row as Row)[0];
      runtimes[relPath] = r;
      if (rowText !== undefined) rowTexts.set(r, { relPath, text: rowText });
      return true;
    };
    if (!byLine) {
      for (const row of parsed.runtimes as unknown[]) if (!add(row)) return undefined;
      return { ...parsed, runtimes };
    }
    if ((parsed.runtimes as unknown[]).length !== 0) return undefined;
    // Lines `<row>,` and the last `<row>`, then `]}` on a line of its own at the end (right after the head without rows).
    if (!text.endsWith('\n]}')) return undefined;
    const end = text.length - 3;
    for (let at = firstBreak + 1; at <= end; ) {
      const lineEnd = text.indexOf('\n', at);
      const last = lineEnd === end;
      if (!last && text.charCodeAt(lineEnd - 1) !== 0x2c) return undefined;
      const rowText = text.slice(at, last ? lineEnd : lineEnd - 1);
      if (!add(JSON.parse(rowText), rowText)) return undefined;
      at = lineEnd + 1;
    }
    return { ...parsed, runtimes };
  } catch {
    return undefined;
  }
}

/** The record with this stamp, or without one (a file not settled when it was read). */
export function withStamp(r: RuntimeRecord, stamp: string | undefined): RuntimeRecord {
  const out: Mutable<RuntimeRecord> = { digest: r.digest, identity: r.identity, diagnostics: r.diagnostics, input: r.input, targets: r.targets };
  if (stamp !== undefined) out.stamp = stamp;
  return out;
}

/**
 * The record with the stamps its runtime files have now (`files`, as a check reused them) when one
 * of them has another since (a file read by its digest that settled meanwhile, or touched without
 * a change); undefined when none has. A run that writes nothing saves it, so that the next one does
 * not read those files again.
 */
export function restamped(record: RunRecord, files: readonly { readonly relPath: string; readonly stamp?: string }[]): RunRecord | undefined {
  let runtimes: Record<string, RuntimeRecord> | undefined;
  for (const f of files) {
    const r = record.runtimes[f.relPath];
    if (!r || f.stamp === undefined || r.stamp === f.stamp) continue;
    runtimes ??= Object.assign(Object.create(null) as Record<string, RuntimeRecord>, record.runtimes);
    runtimes[f.relPath] = withStamp(r, f.stamp);
  }
  return runtimes ? { ...record, runtimes } : undefined;
}

export function saveRunRecord(cacheDir: string, cwd: string, fleetRoot: string, outDir: string, record: RunRecord): void {
  const file = recordFile(cacheDir, cwd, fleetRoot, outDir);
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    const { runtimes, ...head } = record;
    const rows: string[] = [];
    for (const rel in runtimes) {
      const r = runtimes[rel]!;
      const read = rowTexts.get(r);
      rows.push(read !== undefined && read.relPath === rel ? read.text : JSON.stringify(rowOf(rel, r)));
    }
    // The head without its closing brace, then a row a line (loadRunRecord).
    fs.writeFileSync(tmp, `${JSON.stringify(head).slice(0, -1)}${ROWS_START}${rows.join(',\n')}${rows.length > 0 ? '\n' : ''}]}`);
    fs.renameSync(tmp, file);
  } catch {
    // best effort: a read-only cache folder only costs time
  }
}

/** Digest of everything above the runtime files: the program, fleet.yaml, groups, auxiliary files and options. */
export function layersKey(layers: LoadedLayers, options: Readonly<Record<string, unknown>>): string {
  const h = createHash('sha256').update(codeKey()).update('\0').update(JSON.stringify(options)).update('\0');
  h.update(`fleet.yaml\0${layers.fleet?.digest ?? '-'}\0`);
  // Which revision of the layers each rollout ring renders (src/rollout/store.ts rolloutStateKey).
  h.update(`rollout\0${rolloutStateKey(layers.root)}\0`);
  for (const g of layers.groups) h.update(`${g.relPath}\0${g.digest}\0`);
  for (const rel of [...layers.files.keys()].sort()) h.update(`${rel}\0`).update(layers.files.get(rel)!.bytes).update('\0');
  return h.digest('hex');
}

/** How many of `thresholds` lie strictly before `now` (rules compare `expiresAt < now`). */
export function epochOf(thresholds: readonly number[], now: Date): number {
  const t = now.getTime();
  return thresholds.filter((x) => x < t).length;
}

/** Instants at which the extensions' time-dependent rules change their verdict (sorted). */
export function timeThresholds(model: FleetModel): number[] {
  // With rollout rings, the time-dependent rules of every ring's revision (src/rollout/ring-resolve.ts).
  const models = [model, ...rolloutModelsBeside(model)];
  return models.flatMap((m) => EXTENSIONS.flatMap((e) => (e.timeThresholds ? [...e.timeThresholds(m.extensionState.get(e.name) as never)] : []))).sort((a, b) => a - b);
}

/** A runtime's diagnostics as a record keeps them: its own file as '' (display paths depend on the working folder). */
export function recordedDiagnostics(diagnostics: readonly Diagnostic[], file: string): Diagnostic[] {
  return diagnostics.map((d) => (d.file === file ? { ...d, file: '' } : d));
}

/** Recorded diagnostics of a runtime, shown for its file as it is displayed in this run. */
export function shownDiagnostics(diagnostics: readonly Diagnostic[], file: string): Diagnostic[] {
  return diagnostics.map((d) => (d.file === '' ? { ...d, file } : d));
}
