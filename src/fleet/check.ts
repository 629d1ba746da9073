// The whole input side in one call: load → validate → resolve → resolved rules. Used by every
// command that needs a fleet (validate, explain, and later synth and diff).

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { appendAll, type Diagnostic, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import * as path from 'node:path';
import { loadFleet } from './load';
import { previousRenderReader } from './load-previous';
import { openParseCache } from './parse-cache';
import type { FleetModel } from './model';
import { resolveFleet, type ResolvedRuntime } from './resolve';
import { checkResolved } from './resolved-rules';
import { validateFleet } from './validate';

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
  /** Runtimes known to be unchanged since the previous render need no transition checks. */
  readonly unchangedSincePrevious?: (model: FleetModel, runtime: ResolvedRuntime) => boolean;
}

export interface CheckedFleet {
  readonly model?: FleetModel;
  /** Resolved runtimes; present whenever the model is (possibly partial when some files are invalid). */
  readonly runtimes: readonly ResolvedRuntime[];
  /** Sorted, de-duplicated. */
  readonly diagnostics: readonly Diagnostic[];
  readonly ok: boolean;
}

export function checkFleet(options: CheckOptions): CheckedFleet {
  const extensions = options.extensions ?? EXTENSIONS;
  const cwd = options.cwd ?? process.cwd();
  const cache = options.cacheDir ? openParseCache(options.cacheDir, path.resolve(cwd, options.fleetDir)) : undefined;
  const loaded = loadFleet({ fleetDir: options.fleetDir, cwd, extensions, cache });
  const validated = validateFleet(loaded, { now: options.now, allowEmpty: options.allowEmpty, extensions });
  const diagnostics: Diagnostic[] = [];
  appendAll(diagnostics, validated.diagnostics);
  let runtimes: ResolvedRuntime[] = [];
  if (validated.model) {
    const resolved = resolveFleet(validated.model, extensions);
    runtimes = resolved.runtimes;
    appendAll(diagnostics, resolved.diagnostics);
    // Cross-layer rules need every layer: with a broken group or default they would only cascade.
    if (validated.model.complete) {
      const model = validated.model;
      const read = options.previousDist ? previousRenderReader(path.resolve(cwd, options.previousDist)) : () => undefined;
      const previous = (r: ResolvedRuntime) => (options.unchangedSincePrevious?.(model, r) ? undefined : read(r.runtime.name));
      appendAll(diagnostics, checkResolved(model, runtimes, extensions, previous));
    }
  }
  const sorted = normalizeDiagnostics(diagnostics);
  return { model: validated.model, runtimes, diagnostics: sorted, ok: !hasErrors(sorted) };
}
