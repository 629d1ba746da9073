// The whole input side in one call: load → validate → resolve → resolved rules. Used by every
// command that needs a fleet (validate, explain, and later synth and diff).

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { appendAll, type Diagnostic, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import * as path from 'node:path';
import { type LoadedLayers, loadFleet, type ReusedRuntimeFile, type RuntimePlan } from '../load/load';
import { previousRenderReader } from '../load/load-previous';
import { openParseCache } from '../load/parse-cache';
import type { FleetModel, RuntimeIdentity } from '../validate/model';
import { resolveFleet, type ResolvedRuntime } from '../resolve/resolve';
import { checkResolved } from '../resolve/resolved-rules';
import { validateFleet } from '../validate/validate';
import type { HashLookup } from '../lib/dist-index';

export interface CheckOptions {
  readonly fleetDir: string;
  readonly cwd?: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly extensions?: readonly ExtensionPlugin<any>[];
  /** Folder of the parse cache; undefined parses every file. */
  readonly cacheDir?: string;
  /** dist/ of the previous render, for transition rules (immutable fields); ignored when absent. */
  readonly previousDist?: string;
  /** The index of previousDist when the caller has read it already (else it is read when needed). */
  readonly previousIndex?: () => HashLookup | undefined;
  /** Runtimes known to be unchanged since the previous render need no transition checks. */
  readonly unchangedSincePrevious?: (model: FleetModel, runtime: ResolvedRuntime) => boolean;
  /**
   * Skips runtime files: `plan` decides (see RuntimePlan) and `identities` gives, for the files it
   * chose to reuse, what the checks across files need; the caller re-reports their diagnostics.
   */
  readonly runtimes?: {
    readonly plan: (layers: LoadedLayers) => RuntimePlan;
    readonly identities: (reused: readonly ReusedRuntimeFile[]) => readonly RuntimeIdentity[];
    /** Identities of runtime files checked elsewhere (another thread), for the checks across files. */
    readonly known?: readonly RuntimeIdentity[];
  };
}

export interface CheckedFleet {
  readonly model?: FleetModel;
  /** Resolved runtimes; present whenever the model is (possibly partial when some files are invalid). */
  readonly runtimes: readonly ResolvedRuntime[];
  /** Sorted, de-duplicated. */
  readonly diagnostics: readonly Diagnostic[];
  /** The diagnostics of each parsed runtime (its file's, and its resolved rules' wherever they point), by runtime file. */
  readonly runtimeDiagnostics: ReadonlyMap<string, readonly Diagnostic[]>;
  /** Runtime files that were parsed: relPath and digest by display file. */
  readonly runtimeFiles: ReadonlyMap<string, { readonly relPath: string; readonly digest: string; readonly stamp?: string }>;
  /** Runtime files that were read but not parsed (RuntimePlan.reuse). */
  readonly reusedRuntimes: readonly ReusedRuntimeFile[];
  readonly ok: boolean;
}

export function checkFleet(options: CheckOptions): CheckedFleet {
  const extensions = options.extensions ?? EXTENSIONS;
  const cwd = options.cwd ?? process.cwd();
  const cache = options.cacheDir ? openParseCache(options.cacheDir, path.resolve(cwd, options.fleetDir)) : undefined;
  const loaded = loadFleet({ fleetDir: options.fleetDir, cwd, extensions, cache, runtimePlan: options.runtimes?.plan });
  const knownRuntimes = options.runtimes
    ? [...(loaded.reusedRuntimes.length > 0 ? options.runtimes.identities(loaded.reusedRuntimes) : []), ...(options.runtimes.known ?? [])]
    : undefined;
  const validated = validateFleet(loaded, { now: options.now, allowEmpty: options.allowEmpty, extensions, knownRuntimes });
  const diagnostics: Diagnostic[] = [];
  appendAll(diagnostics, validated.diagnostics);
  const runtimeDiagnostics = new Map<string, Diagnostic[]>(loaded.runtimes.map((d) => [d.file, []]));
  for (const d of validated.diagnostics) runtimeDiagnostics.get(d.file)?.push(d);
  let runtimes: ResolvedRuntime[] = [];
  if (validated.model) {
    const resolved = resolveFleet(validated.model, extensions);
    runtimes = resolved.runtimes;
    appendAll(diagnostics, resolved.diagnostics);
    // Cross-layer rules need every layer: with a broken group or default they would only cascade.
    if (validated.model.complete) {
      const model = validated.model;
      const read = options.previousDist ? previousRenderReader(path.resolve(cwd, options.previousDist), options.previousIndex) : () => undefined;
      const previous = (r: ResolvedRuntime, kinds?: readonly string[]) => (options.unchangedSincePrevious?.(model, r) ? undefined : read(r.runtime.name, kinds));
      for (const r of runtimes) {
        const found = checkResolved(model, [r], extensions, previous);
        appendAll(diagnostics, found);
        appendAll(runtimeDiagnostics.get(r.runtime.file) ?? [], found);
      }
    }
  }
  const sorted = normalizeDiagnostics(diagnostics);
  return { model: validated.model, runtimes, diagnostics: sorted, runtimeDiagnostics,
    runtimeFiles: new Map(loaded.runtimes.map((d) => [d.file, { relPath: d.relPath, digest: d.digest, stamp: d.stamp }])),
    reusedRuntimes: loaded.reusedRuntimes,
    ok: !hasErrors(sorted) };
}
