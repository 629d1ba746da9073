// The synth pipeline end to end: load → validate → resolve → render (cdk8s) → write (atomic).
// Shared by `kyma-fleet synth`, `kyma-fleet diff` and the cdk8s app entry (src/main.ts).

import * as path from 'node:path';
import { checkFleet } from './fleet/check';
import type { LoadedLayers, RuntimePlan } from './fleet/load';
import { type FleetModel, identityOf } from './fleet/model';
import { EXTENSIONS } from './extensions';
import type { ResolvedRuntime } from './fleet/resolve';
import { type Diagnostic, ExitCode, normalizeDiagnostics } from './lib/diagnostics';
import { fleetInputDigest, runtimeInputDigest } from './render/input-digest';
import { runtimeGitopsFiles } from './render/gitops';
import { renderFleet, type UnchangedRuntime } from './render/render-fleet';
import { type Target, TARGETS } from './render/render-runtime';
import { diffTrees, type TreeDiff } from './render/tree-diff';
import { type DistIndex, type Problem, readIndexText, writeDist } from './write/dist-writer';
import { parseIndex, sha256 } from './write/index-file';
import { epochOf, layersKey, loadRunRecord, type RunRecord, type RuntimeRecord, saveRunRecord } from './write/run-record';
import { readCurrentDist } from './write/read-dist';

export interface SynthOptions {
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly allowMassRemoval?: boolean;
  /** Parse cache folder (see fleet/parse-cache.ts); undefined parses every file. */
  readonly cacheDir?: string;
}

export interface Rendering {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly files?: ReadonlyMap<string, string>;
  readonly runtimes?: number;
  readonly maxRemovalShare?: number;
}

/** Validates and renders in memory; `files` is set only when the fleet is valid. */
export function renderOnly(options: SynthOptions): Rendering {
  const checked = checkFleet({ fleetDir: options.fleetDir, cwd: options.cwd, now: options.now, allowEmpty: options.allowEmpty, previousDist: options.outDir, cacheDir: options.cacheDir });
  if (!checked.ok || !checked.model) return { exitCode: ExitCode.InvalidInput, diagnostics: checked.diagnostics };
  const rendered = renderFleet(checked.model, checked.runtimes);
  const diagnostics = [...checked.diagnostics, ...rendered.diagnostics];
  if (rendered.diagnostics.some((d) => d.severity === 'error')) return { exitCode: ExitCode.InvalidInput, diagnostics };
  return { exitCode: ExitCode.Ok, diagnostics, files: rendered.files, runtimes: rendered.runtimes.length, maxRemovalShare: checked.model.options.maxRemovalShare };
}

/** Runtime folder names listed in an index. */
function runtimesOf(files: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const m = /^runtimes\/([^/]+)\//.exec(f);
    if (m) out.add(m[1]!);
  }
  return out;
}

/**
 * Refuses to remove more than `maxShare` of the previously rendered runtimes at once (a wrong
 * --fleet path or a bad merge must not orphan half a landscape); removing one is always allowed.
 */
export function massRemovalProblem(previous: DistIndex | undefined, next: ReadonlyMap<string, unknown> | ReadonlySet<string>, maxShare: number): Problem | undefined {
  if (!previous) return undefined;
  const before = runtimesOf(Object.keys(previous.files));
  // A map holds the files of the new tree; a set, the names of its runtimes.
  const after = next instanceof Map ? runtimesOf(next.keys()) : (next as ReadonlySet<string>);
  const removed = [...before].filter((r) => !after.has(r)).sort();
  if (removed.length < 2 || removed.length <= maxShare * before.size) return undefined;
  const shown = removed.slice(0, 10).join(', ') + (removed.length > 10 ? `, … (${removed.length - 10} more)` : '');
  return {
    code: 'E_MASS_REMOVAL',
    message: `synth would remove ${removed.length} of ${before.size} runtimes from dist/ (${shown}), more than the allowed share of ${Math.round(maxShare * 100)}% (Fleet spec.removalGuard.maxShare); if that is intended, run again with --allow-mass-removal`,
    paths: removed.map((r) => `runtimes/${r}/`),
  };
}

export type SynthResult = Rendering & { readonly problem?: Problem; readonly changed?: boolean; readonly written?: number; readonly removed?: number; readonly rendered?: number };

const GITOPS = '\0gitops';

/** Index entries by runtime folder name (files under runtimes/<name>/), and the gitops/ ones under GITOPS. */
function filesByRuntime(files: Readonly<Record<string, string>>): Map<string, Array<[string, string]>> {
  const out = new Map<string, Array<[string, string]>>();
  for (const [rel, hash] of Object.entries(files)) {
    const name = rel.startsWith('gitops/') ? GITOPS : /^runtimes\/([^/]+)\//.exec(rel)?.[1];
    if (name === undefined) continue;
    const list = out.get(name);
    if (list) list.push([rel, hash]);
    else out.set(name, [[rel, hash]]);
  }
  return out;
}

/**
 * Renders and writes dist/. With a cache folder the run is incremental (see write/run-record.ts):
 * runtime files unchanged since the last successful synth are not parsed, validated or resolved
 * again (their identities still take part in the checks across files, their warnings are reported
 * again), and runtimes whose input digest matches their last render are not rendered again; their
 * files are moved into the new tree as they are. Without a cache folder everything is done anew.
 */
export function synth(options: SynthOptions): SynthResult {
  const outDir = path.resolve(options.cwd, options.outDir);
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const cacheDir = options.cacheDir;
  const record = cacheDir ? loadRunRecord(cacheDir, options.cwd, fleetRoot, outDir) : undefined;
  const indexText = cacheDir ? readIndexText(outDir) : undefined;
  const indexDigest = indexText === undefined ? undefined : sha256(indexText);
  // The record describes dist/ only while dist/'s index is the one that run wrote.
  const trusted = record && indexDigest === record.index ? record : undefined;
  const keyOptions = { allowEmpty: options.allowEmpty ?? false };

  let reusable: RunRecord | undefined;
  let currentKey = '';
  const plan = (layers: LoadedLayers): RuntimePlan => {
    currentKey = layersKey(layers, keyOptions);
    if (!trusted || trusted.key !== currentKey || epochOf(trusted.thresholds, options.now) !== trusted.epoch) return {};
    reusable = trusted;
    return { reuse: (rel, digest) => trusted.runtimes[rel]?.digest === digest };
  };
  const byName = new Map<string, RuntimeRecord>();
  for (const r of Object.values(trusted?.runtimes ?? {})) byName.set(r.identity.name, r);

  // A runtime is unchanged when its input digest equals the one of its last render.
  let fleetDigest: string | undefined;
  const digests = new Map<string, string>();
  const isUnchanged = (model: FleetModel, r: ResolvedRuntime): boolean => {
    if (!cacheDir) return false;
    fleetDigest ??= fleetInputDigest(model);
    const name = r.runtime.name;
    const digest = digests.get(name) ?? runtimeInputDigest(fleetDigest, r);
    digests.set(name, digest);
    return byName.get(name)?.input === digest;
  };

  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    previousDist: options.outDir,
    cacheDir,
    unchangedSincePrevious: isUnchanged,
    runtimes: cacheDir
      ? { plan, identities: (reused) => reused.map((f) => ({ ...reusable!.runtimes[f.relPath]!.identity, file: f.file })) }
      : undefined,
  });
  const reusedFiles = checked.reusedRuntimes;
  const diagnostics = normalizeDiagnostics([
    ...checked.diagnostics,
    ...reusedFiles.flatMap((f) => reusable!.runtimes[f.relPath]!.diagnostics.map((d) => (d.file === '' ? { ...d, file: f.file } : d))),
  ]);
  if (!checked.ok || !checked.model) return { exitCode: ExitCode.InvalidInput, diagnostics };
  const model = checked.model;

  // Nothing parsed and every file of the record still there: dist/ is exactly what that run wrote.
  if (reusable && checked.runtimes.length === 0 && reusedFiles.length === Object.keys(reusable.runtimes).length) {
    return { exitCode: ExitCode.Ok, diagnostics, runtimes: reusedFiles.length, rendered: 0, changed: false, written: 0, removed: 0 };
  }

  // Kept: reused files (not even parsed) and parsed runtimes whose render inputs did not change.
  const keptRecords = new Map<string, RuntimeRecord>();
  for (const f of reusedFiles) {
    const rec = reusable!.runtimes[f.relPath]!;
    keptRecords.set(rec.identity.name, rec);
  }
  for (const r of checked.runtimes) if (isUnchanged(model, r)) keptRecords.set(r.runtime.name, byName.get(r.runtime.name)!);
  // Their files (and hashes) are the ones dist/'s index lists, which is the index that run wrote.
  const previousFiles = keptRecords.size > 0 && indexText !== undefined ? filesByRuntime(parseIndex(indexText)?.files ?? {}) : new Map<string, Array<[string, string]>>();
  const gitopsIndex = new Map(previousFiles.get(GITOPS) ?? []);
  const gitopsJson = JSON.stringify(model.options.gitops);
  const unchanged = new Map<string, UnchangedRuntime>();
  const reuse = new Map<string, string>();
  for (const [name, rec] of keptRecords) {
    const own = previousFiles.get(name) ?? [];
    if (own.length === 0) continue; // not in dist/ after all: render it
    for (const [rel, hash] of own) reuse.set(rel, hash);
    const wiring = { name, runtimeID: rec.identity.runtimeID, targets: rec.targets };
    const gitopsFiles = trusted?.gitops === gitopsJson ? runtimeGitopsFiles(wiring, model.options.gitops) : [];
    const keepGitops = gitopsFiles.length > 0 && gitopsFiles.every((rel) => gitopsIndex.has(rel));
    if (keepGitops) for (const rel of gitopsFiles) reuse.set(rel, gitopsIndex.get(rel)!);
    unchanged.set(name, { runtimeID: rec.identity.runtimeID, targets: rec.targets, keepGitops });
  }
  // A reused file that is not in dist/ cannot be kept: parse it after all (rare; dist/ was trusted).
  if (reusedFiles.some((f) => !unchanged.has(reusable!.runtimes[f.relPath]!.identity.name))) {
    return synth({ ...options, cacheDir: undefined });
  }

  const rendered = renderFleet(model, checked.runtimes, undefined, unchanged);
  const base = { exitCode: ExitCode.Ok, diagnostics, files: rendered.files, runtimes: rendered.runtimes.length, rendered: rendered.runtimes.length - unchanged.size };
  const files = rendered.files;
  const result = writeDist({
    outDir,
    files,
    reuse,
    // Trusting the index keeps an unchanged synth cheap; --no-cache compares every byte.
    verify: !cacheDir,
    trustedDirs: new Set([...unchanged.keys()].map((name) => `runtimes/${name}`)),
    guard: options.allowMassRemoval ? undefined : (previous) => massRemovalProblem(previous, new Set(rendered.runtimes), model.options.maxRemovalShare),
  });
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };

  if (cacheDir) {
    const produced = new Map<string, Target[]>();
    for (const rel of files.keys()) {
      const m = /^runtimes\/([^/]+)\/([^/]+)\//.exec(rel);
      if (!m) continue;
      const targets = produced.get(m[1]!) ?? [];
      if (!targets.includes(m[2] as Target)) targets.push(m[2] as Target);
      produced.set(m[1]!, targets);
    }
    const runtimes: Record<string, RuntimeRecord> = {};
    for (const f of reusedFiles) runtimes[f.relPath] = reusable!.runtimes[f.relPath]!;
    fleetDigest ??= fleetInputDigest(model);
    for (const r of checked.runtimes) {
      const name = r.runtime.name;
      const loaded = checked.runtimeFiles.get(r.runtime.file);
      if (!loaded) continue;
      const kept = unchanged.has(name) ? keptRecords.get(name) : undefined;
      const { file: _file, ...identity } = identityOf(r.runtime);
      runtimes[loaded.relPath] = {
        digest: loaded.digest,
        identity,
        // The runtime's own file is stored as '' (display paths are re-derived on reuse).
        diagnostics: (checked.runtimeDiagnostics.get(r.runtime.file) ?? []).map((d) => (d.file === r.runtime.file ? { ...d, file: '' } : d)),
        input: digests.get(name) ?? runtimeInputDigest(fleetDigest, r),
        targets: kept ? kept.targets : TARGETS.filter((t) => produced.get(name)?.includes(t)),
      };
    }
    const thresholds = EXTENSIONS.flatMap((e) => (e.timeThresholds ? [...e.timeThresholds(model.extensionState.get(e.name) as never)] : [])).sort((a, b) => a - b);
    saveRunRecord(cacheDir, options.cwd, fleetRoot, outDir, {
      version: 2,
      key: currentKey,
      thresholds,
      epoch: epochOf(thresholds, options.now),
      index: result.indexDigest,
      gitops: gitopsJson,
      runtimes,
    });
  }
  return { ...base, changed: result.changed, written: result.written, removed: result.removed };
}

export type DiffResult = Rendering & { readonly diff?: TreeDiff };

/** What a synth would change (nothing is written). */
export function diffDist(options: SynthOptions): DiffResult {
  const rendering = renderOnly(options);
  if (!rendering.files) return rendering;
  const current = readCurrentDist(path.resolve(options.cwd, options.outDir));
  return { ...rendering, diff: diffTrees(current.files, rendering.files) };
}
