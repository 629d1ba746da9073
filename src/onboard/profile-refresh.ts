// `kyma-fleet profile refresh` without the command line: for every extension with a snapshot hook
// (../extensions/snapshot-hook.ts) whose snapshot the Fleet names, the object read from the cluster
// becomes the new snapshot text; the fleet is resolved with the old and with the new snapshot (in
// memory, nothing written yet) to tell which runtimes' resolved settings change and which no longer
// validate; then the file is replaced atomically. The core never names an extension.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXTENSIONS } from '../extensions';
import type { SnapshotChange, SnapshotHook, SnapshotObject } from '../extensions/snapshot-hook';
import type { AuxFile, ExtensionPlugin } from '../extensions/types';
import { cmp, formatDiagnostic, type Diagnostic } from '../lib/diagnostics';
import type { KubeObject } from '../lib/kube-object';
import { type LoadedFleet, loadFleet } from '../load/load';
import { resolveFleet } from '../resolve/resolve';
import { checkResolved } from '../resolve/resolved-rules';
import { validateFleet } from '../validate/validate';
import { replaceFile } from './fleet-files';

/** An extension's snapshot the Fleet asks for. */
export interface SnapshotTarget {
  readonly extension: string;
  readonly hook: SnapshotHook;
  readonly object: SnapshotObject;
  /** Fleet-relative path of the snapshot file. */
  readonly relPath: string;
}

/** The snapshots `profile refresh` keeps, for the extensions whose options name one. */
export function snapshotTargets(fleetSpec: Readonly<Record<string, unknown>>, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): SnapshotTarget[] {
  const out: SnapshotTarget[] = [];
  for (const e of extensions) {
    const hook = e.snapshot;
    const relPath = hook?.path(fleetSpec);
    if (hook && relPath !== undefined) out.push({ extension: e.name, hook, object: hook.object(fleetSpec), relPath });
  }
  return out;
}

/** The Fleet.spec options that name snapshot files, for messages. */
export function snapshotOptions(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): string[] {
  return extensions.flatMap((e) => (e.snapshot ? [e.snapshot.option] : []));
}

/** How one runtime is affected by the new snapshot. */
export interface AffectedRuntime {
  readonly name: string;
  /** Resolved settings of the extension that change: `version: "1.0.0" -> "1.1.0"`. */
  readonly changes: readonly string[];
  /** Errors the runtime gets with the new snapshot that it did not have. */
  readonly newErrors: readonly string[];
}

export interface SnapshotRefresh {
  readonly target: SnapshotTarget;
  /** The snapshot file as shown in messages. */
  readonly file: string;
  readonly written: boolean;
  readonly changes: readonly SnapshotChange[];
  readonly affected: readonly AffectedRuntime[];
}

/**
 * Makes the new snapshot of `target` from `object`, works out what it changes, and (unless
 * `dryRun`) writes it. Throws FleetWriteError when the file cannot be written; returns the problems
 * when the object cannot be a snapshot.
 */
export function refreshSnapshot(fleetDir: string, cwd: string, target: SnapshotTarget, object: KubeObject, now: Date, dryRun: boolean): SnapshotRefresh | { problems: readonly string[] } {
  const made = target.hook.toSnapshot(object);
  if ('problems' in made) return { problems: made.problems };
  const loaded = loadFleet({ fleetDir, cwd });
  const abs = path.join(loaded.root, target.relPath);
  const file = `${loaded.displayRoot}/${target.relPath}`;
  let before: Uint8Array | undefined;
  try {
    before = fs.readFileSync(abs);
  } catch {
    before = undefined;
  }
  const ext = target.extension;
  const old = resolveWith(loaded, now, ext, undefined);
  const aux: AuxFile = { relPath: target.relPath, file, bytes: Buffer.from(made.text, 'utf8') };
  const neu = resolveWith(loaded, now, ext, aux);
  const runtimes = [...old.configs].map(([name, config]) => ({ name, config })).sort((a, b) => cmp(a.name, b.name));
  const changes = target.hook.describeChange(before, made.text, now, runtimes);
  const affected: AffectedRuntime[] = [];
  for (const name of [...new Set([...old.configs.keys(), ...neu.configs.keys()])].sort(cmp)) {
    const diff = leafChanges(old.configs.get(name), neu.configs.get(name));
    const had = new Set(old.errors.get(name) ?? []);
    const newErrors = (neu.errors.get(name) ?? []).filter((e) => !had.has(e));
    if (diff.length + newErrors.length > 0) affected.push({ name, changes: diff, newErrors });
  }
  const unchanged = before !== undefined && Buffer.from(before).toString('utf8') === made.text;
  const written = !dryRun && !unchanged && replaceFile(abs, made.text, file);
  return { target, file, written, changes, affected };
}

/**
 * The extension's resolved settings of every runtime that enables it, and each runtime's errors,
 * with the snapshot file replaced by `aux` (or as loaded).
 */
function resolveWith(loaded: LoadedFleet, now: Date, ext: string, aux: AuxFile | undefined): { configs: Map<string, Record<string, unknown>>; errors: Map<string, string[]> } {
  const files = new Map(loaded.files);
  if (aux) files.set(aux.relPath, aux);
  const validated = validateFleet({ ...loaded, files }, { now, allowEmpty: true });
  const configs = new Map<string, Record<string, unknown>>();
  const errors = new Map<string, string[]>();
  if (!validated.model) return { configs, errors };
  const add = (name: string, d: Diagnostic): void => {
    if (d.severity !== 'error') return;
    const list = errors.get(name) ?? [];
    list.push(formatDiagnostic(d));
    errors.set(name, list);
  };
  for (const r of resolveFleet(validated.model, EXTENSIONS).runtimes) {
    const e = r.settings.extensions[ext];
    if (e?.state === 'enabled') configs.set(r.runtime.name, e.config);
    if (validated.model.complete) for (const d of checkResolved(validated.model, [r], EXTENSIONS)) add(r.runtime.name, d);
  }
  return { configs, errors };
}

/** `path: old -> new` for every leaf of the two settings that differs (JSON values). */
function leafChanges(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): string[] {
  if (a === undefined && b === undefined) return [];
  if (a === undefined || b === undefined) return [a === undefined ? 'enabled only with the new snapshot' : 'no longer resolved with the new snapshot'];
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, at: string): void => {
    if (isRec(x) && isRec(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(cmp)) walk(x[k], y[k], at ? `${at}.${k}` : k);
      return;
    }
    const sx = JSON.stringify(x);
    const sy = JSON.stringify(y);
    if (sx !== sy) out.push(`${at}: ${sx ?? 'unset'} -> ${sy ?? 'unset'}`);
  };
  walk(a, b, '');
  return out;
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
