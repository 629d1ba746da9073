// The synth pipeline end to end: load → validate → resolve → render (cdk8s) → write (atomic).
// Shared by `kyma-fleet synth`, `kyma-fleet diff` and the cdk8s app entry (src/main.ts).

import * as path from 'node:path';
import { checkFleet } from './fleet/check';
import { type Diagnostic, ExitCode } from './lib/diagnostics';
import { renderFleet } from './render/render-fleet';
import { diffTrees, type TreeDiff } from './render/tree-diff';
import { type DistIndex, type Problem, writeDist } from './write/dist-writer';
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

export type SynthResult = Rendering & { readonly problem?: Problem; readonly changed?: boolean; readonly written?: number; readonly removed?: number };

export function synth(options: SynthOptions): SynthResult {
  const rendering = renderOnly(options);
  if (!rendering.files) return rendering;
  const files = rendering.files;
  const maxShare = rendering.maxRemovalShare ?? 0.1;
  const result = writeDist({
    outDir: path.resolve(options.cwd, options.outDir),
    files,
    guard: options.allowMassRemoval ? undefined : (previous) => massRemovalProblem(previous, files, maxShare),
  });
  if (!result.ok) return { ...rendering, exitCode: result.exitCode, problem: result.problem };
  return { ...rendering, changed: result.changed, written: result.written, removed: result.removed };
}

export type DiffResult = Rendering & { readonly diff?: TreeDiff };

/** What a synth would change (nothing is written). */
export function diffDist(options: SynthOptions): DiffResult {
  const rendering = renderOnly(options);
  if (!rendering.files) return rendering;
  const current = readCurrentDist(path.resolve(options.cwd, options.outDir));
  return { ...rendering, diff: diffTrees(current.files, rendering.files) };
}
