// The synth pipeline end to end: load → validate → resolve → render (cdk8s) → write (atomic).
// Shared by `kyma-fleet synth`, `kyma-fleet diff` and the cdk8s app entry (src/main.ts).

import * as path from 'node:path';
import { checkFleet } from './fleet/check';
import type { FleetModel } from './fleet/model';
import type { ResolvedRuntime } from './fleet/resolve';
import { type Diagnostic, ExitCode } from './lib/diagnostics';
import { fleetInputDigest, runtimeInputDigest } from './render/input-digest';
import { renderFleet } from './render/render-fleet';
import { type Target, TARGETS } from './render/render-runtime';
import { diffTrees, type TreeDiff } from './render/tree-diff';
import { type DistIndex, type Problem, readDistIndex, writeDist } from './write/dist-writer';
import { sha256 } from './write/index-file';
import { loadRenderCache, type RenderCacheEntry, saveRenderCache } from './write/render-cache';
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
export function massRemovalProblem(previous: DistIndex | undefined, next: ReadonlyMap<string, string>, maxShare: number): Problem | undefined {
  if (!previous) return undefined;
  const before = runtimesOf(Object.keys(previous.files));
  const after = runtimesOf(next.keys());
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

const runtimeOfFile = (rel: string): string | undefined => /^runtimes\/([^/]+)\//.exec(rel)?.[1];

/**
 * Renders and writes dist/. With a cache folder the run is incremental: runtimes whose input digest
 * matches their last render (and whose files dist/ still lists unchanged) are not rendered again;
 * their files are moved into the new tree as they are.
 */
export function synth(options: SynthOptions): SynthResult {
  const outDir = path.resolve(options.cwd, options.outDir);
  const cache = options.cacheDir ? loadRenderCache(options.cacheDir, outDir) : {};
  const index = options.cacheDir ? readDistIndex(outDir) : undefined;
  const listed = new Map<string, Array<[string, string]>>();
  for (const [rel, hash] of Object.entries(index?.files ?? {})) {
    const name = runtimeOfFile(rel);
    if (name !== undefined) listed.set(name, [...(listed.get(name) ?? []), [rel, hash]]);
  }
  // A runtime is unchanged when its input digest equals the one of its last render and dist/
  // still lists exactly the files that render produced.
  let fleetDigest: string | undefined;
  const digests = new Map<string, string>();
  const isUnchanged = (model: FleetModel, r: ResolvedRuntime): boolean => {
    if (!options.cacheDir) return false;
    fleetDigest ??= fleetInputDigest(model);
    const name = r.runtime.name;
    const digest = digests.get(name) ?? runtimeInputDigest(fleetDigest, r);
    digests.set(name, digest);
    const entry = cache[name];
    const onDisk = listed.get(name) ?? [];
    return entry?.digest === digest && onDisk.length === Object.keys(entry.files).length && onDisk.every(([rel, hash]) => entry.files[rel] === hash);
  };

  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    previousDist: options.outDir,
    cacheDir: options.cacheDir,
    unchangedSincePrevious: isUnchanged,
  });
  if (!checked.ok || !checked.model) return { exitCode: ExitCode.InvalidInput, diagnostics: checked.diagnostics };
  const model = checked.model;
  const unchanged = new Map<string, { targets: Target[] }>();
  const reuse = new Map<string, string>();
  for (const r of checked.runtimes) {
    if (!isUnchanged(model, r)) continue;
    const name = r.runtime.name;
    const onDisk = listed.get(name) ?? [];
    unchanged.set(name, { targets: TARGETS.filter((t) => onDisk.some(([rel]) => rel.startsWith(`runtimes/${name}/${t}/`))) });
    for (const [rel, hash] of onDisk) reuse.set(rel, hash);
  }

  const rendered = renderFleet(model, checked.runtimes, undefined, unchanged);
  const diagnostics = [...checked.diagnostics, ...rendered.diagnostics];
  if (rendered.diagnostics.some((d) => d.severity === 'error')) return { exitCode: ExitCode.InvalidInput, diagnostics };
  const base = { exitCode: ExitCode.Ok, diagnostics, files: rendered.files, runtimes: rendered.runtimes.length, rendered: rendered.runtimes.length - unchanged.size };
  const files = rendered.files;
  const result = writeDist({
    outDir,
    files,
    reuse,
    // Trusting the index keeps an unchanged synth cheap; --no-cache compares every byte.
    verify: !options.cacheDir,
    guard: options.allowMassRemoval ? undefined : (previous) => massRemovalProblem(previous, new Map([...files, ...reuse]), model.options.maxRemovalShare),
  });
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };

  if (options.cacheDir) {
    const next: Record<string, RenderCacheEntry> = {};
    const produced = new Map<string, Record<string, string>>();
    for (const [rel, content] of files) {
      const name = runtimeOfFile(rel);
      if (name === undefined) continue;
      const record = produced.get(name) ?? {};
      record[rel] = sha256(content);
      produced.set(name, record);
    }
    for (const [name, digest] of digests) {
      const filesOf = unchanged.has(name) ? cache[name]!.files : produced.get(name);
      if (filesOf) next[name] = { digest, files: filesOf };
    }
    saveRenderCache(options.cacheDir, outDir, next);
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
