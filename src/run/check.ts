// The check stage: load (runtime files) → validate → resolve → resolved rules, over fleet-wide
// layers that are an input (src/load/load.ts loadLayers): synth's plan loads them once, and a caller
// that renders runtimes against other layers (a rollout ring's revision) passes those instead.
// Used by every command that needs a fleet. checkWithRecord adds the run record (./run-record.ts):
// runtime files unchanged since the last synth are only digested, not parsed again.

import * as path from 'node:path';
import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { appendAll, type Diagnostic, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import { type HashLookup, parseIndex } from '../lib/dist-index';
import type { StampedListing } from '../load/folder-walk';
import { type FleetLayers, type LoadedFleet, type LoadedLayers, loadFleet, type ReusedRuntimeFile, type RuntimePlan } from '../load/load';
import { previousRenderReader } from '../load/load-previous';
import { openParseCache } from '../load/parse-cache';
import { resolveFleet, type ResolvedRuntime } from '../resolve/resolve';
import { checkResolved } from '../resolve/resolved-rules';
import type { FleetModel, RuntimeIdentity } from '../validate/model';
import { type RecordedRuntimes, validateFleet } from '../validate/validate';
import { resolveAtRingRevisions, type RolloutView } from '../rollout/ring-resolve';
import { fleetInputDigest, runtimeInputDigest } from './input-digest';
import { type RunRecord, type RuntimeRecord, shownDiagnostics } from './run-record';

/** A runtime's identity as a run record keeps it (no display path). */
type RecordedIdentity = RuntimeRecord['identity'];

export interface CheckOptions {
  readonly fleetDir: string;
  readonly cwd?: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly extensions?: readonly ExtensionPlugin<any>[];
  /**
   * The fleet-wide layers the runtimes are checked against, loaded by the caller (loadLayers) and
   * not read again here. Absent: read from fleetDir (a caller that checks one fleet once).
   */
  readonly layers?: FleetLayers;
  /** Folder of the parse cache; undefined parses every file. */
  readonly cacheDir?: string;
  /** Only some of the fleet's runtimes are checked here (a part or shard); see ValidateOptions.partOfFleet. */
  readonly partOfFleet?: boolean;
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
    /**
     * The identity of each runtime file (relPath) in the run record whose files `plan` reuses: a
     * record is saved only by a run whose checks found no error, and reused only under its layers'
     * key. Without `known`, the checks across files are skipped while every runtime of the fleet is
     * one of its own (RecordedRuntimes.settled).
     */
    readonly recorded?: (relPath: string) => RecordedIdentity | undefined;
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
  /** The rollout rings and their state (src/rollout/), when Fleet.spec.rollout declares them. */
  readonly rollout?: RolloutView;
  readonly ok: boolean;
}

export function checkFleet(options: CheckOptions): CheckedFleet {
  const extensions = options.extensions ?? EXTENSIONS;
  const cwd = options.cwd ?? process.cwd();
  const cache = options.cacheDir ? openParseCache(options.cacheDir, path.resolve(cwd, options.fleetDir)) : undefined;
  const loaded = loadFleet({ fleetDir: options.fleetDir, cwd, extensions, cache, layers: options.layers, runtimePlan: options.runtimes?.plan });
  const knownRuntimes = options.runtimes ? knownOf(options.runtimes, loaded) : undefined;
  const validated = validateFleet(loaded, { now: options.now, allowEmpty: options.allowEmpty, extensions, knownRuntimes, partOfFleet: options.partOfFleet });
  const diagnostics: Diagnostic[] = [];
  appendAll(diagnostics, validated.diagnostics);
  const runtimeDiagnostics = new Map<string, Diagnostic[]>(loaded.runtimes.map((d) => [d.file, []]));
  for (const d of validated.diagnostics) runtimeDiagnostics.get(d.file)?.push(d);
  let runtimes: readonly ResolvedRuntime[] = [];
  let model = validated.model;
  let rollout: RolloutView | undefined;
  if (validated.model) {
    const resolved = resolveFleet(validated.model, extensions);
    appendAll(diagnostics, resolved.diagnostics);
    // Each runtime at the fleet-wide layers of its rollout ring's revision (src/rollout/, docs/rollout.md).
    const rings = resolveAtRingRevisions({ loaded, model: validated.model, runtimes: resolved.runtimes, now: options.now, extensions, cwd });
    appendAll(diagnostics, rings.diagnostics);
    for (const d of rings.diagnostics) runtimeDiagnostics.get(d.file)?.push(d);
    runtimes = rings.runtimes;
    model = rings.model;
    rollout = rings.view;
    // Cross-layer rules need every layer: with a broken group or default they would only cascade.
    if (validated.model.complete) {
      const fleetModel = model;
      const read = options.previousDist ? previousRenderReader(path.resolve(cwd, options.previousDist), options.previousIndex, (rel) => diagnostics.push(handEdited(cwd, options.previousDist!, rel))) : () => undefined;
      const previous = (r: ResolvedRuntime, kinds?: readonly string[]) => (options.unchangedSincePrevious?.(fleetModel, r) ? undefined : read(r.runtime.name, kinds));
      // Also the working layers of the runtimes rendered at another ring's revision: `rollout start`
      // brings them to every ring, so what they would break is an error now (docs/rollout.md).
      for (const r of [...runtimes, ...rings.workingOnly]) {
        const ownModel = r.revisionModel ?? fleetModel;
        if (!ownModel.complete) continue;
        const found = checkResolved(ownModel, [r], extensions, previous);
        appendAll(diagnostics, found);
        appendAll(runtimeDiagnostics.get(r.runtime.file) ?? [], found);
      }
    }
  }
  const sorted = normalizeDiagnostics(diagnostics);
  return { model, runtimes, diagnostics: sorted, runtimeDiagnostics, ...(rollout ? { rollout } : {}),
    runtimeFiles: new Map(loaded.runtimes.map((d) => [d.file, { relPath: d.relPath, digest: d.digest, stamp: d.stamp }])),
    reusedRuntimes: loaded.reusedRuntimes,
    ok: !hasErrors(sorted) };
}

/** The runtimes of a check that does not parse them all, for the checks across files (ValidateOptions.knownRuntimes). */
function knownOf(runtimes: NonNullable<CheckOptions['runtimes']>, loaded: LoadedFleet): readonly RuntimeIdentity[] | RecordedRuntimes {
  const reused = loaded.reusedRuntimes;
  const { recorded } = runtimes;
  if (!recorded || runtimes.known) return [...(reused.length > 0 ? runtimes.identities(reused) : []), ...(runtimes.known ?? [])];
  let identities: readonly RuntimeIdentity[] | undefined;
  return {
    count: reused.length,
    identities: () => (identities ??= reused.length > 0 ? runtimes.identities(reused) : []),
    labelled: () => reused.map((f) => recorded(f.relPath)!),
    settled: (parsed) => {
      const relPathOf = new Map(loaded.runtimes.map((d) => [d.file, d.relPath]));
      return parsed.every((p) => {
        const r = recorded(relPathOf.get(p.file) ?? '');
        return r !== undefined && r.name === p.name && r.runtimeID === p.runtimeID && r.shoot.name === p.shoot.name && r.shoot.project === p.shoot.project;
      });
    },
  };
}

/**
 * A file of dist/ whose bytes are not those the index records: edited by hand since the last synth.
 * The transition rules ignore it (it is not what the fleet rendered), and synth writes it anew.
 */
function handEdited(cwd: string, outDir: string, relPath: string): Diagnostic {
  const file = path.relative(cwd, path.resolve(cwd, outDir, ...relPath.split('/'))).split(path.sep).join('/');
  return {
    severity: 'warning',
    code: 'W_DIST_EDITED',
    file,
    line: 1,
    col: 1,
    field: '',
    message: 'edited by hand since the last synth (dist/ is written only by kyma-fleet synth); the checks against the last render ignore it and synth writes it anew from the fleet; to keep the change, make it in the fleet',
  };
}

/** What a check with the run record needs: the fleet, the time, and where the last synth wrote. */
export interface RecordCheckOptions {
  readonly fleetDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly cacheDir?: string;
  /** dist/ of the previous render (transition rules); absent for a check without one (explain). */
  readonly outDir?: string;
}

/** The record side of a check: which earlier results stand for which runtime files. */
export interface RecordUse {
  /** The fleet-wide layers (plan) and their layersKey. */
  readonly layers: FleetLayers;
  readonly key: string;
  /** The record while dist/'s index is the one its run wrote (its runtimes' inputs and targets). */
  readonly trusted: RunRecord | undefined;
  /** The record when it also has this run's key and time epoch: unchanged runtime files are reused. */
  readonly reusable: RunRecord | undefined;
  /** dist/'s index text as the run read it at its start, if it did. */
  readonly indexText: string | undefined;
  /** Runtime files (relPath) parsed even when the record vouches for them. */
  readonly parse?: (relPath: string) => boolean;
  /** `trusted` is the record committed in dist/'s index: used as a run record is, without a cache folder too. */
  readonly committed?: boolean;
  /** runtimes/ listed and stamped by another thread (RuntimePlan.listing). */
  readonly listing?: () => StampedListing | undefined;
}

export interface CheckedWithRecord {
  readonly checked: CheckedFleet;
  /** The checked files' diagnostics and the recorded warnings of the reused ones, sorted. */
  readonly diagnostics: Diagnostic[];
  /** The record of each runtime of the trusted record, by runtime name. */
  readonly byName: ReadonlyMap<string, RuntimeRecord>;
  /** runtimeInputDigest of a checked runtime (computed once). */
  readonly inputOf: (model: FleetModel, r: ResolvedRuntime) => string;
  /** True when a checked runtime's input digest is that of its last render (dist/ holds its files). */
  readonly isUnchanged: (model: FleetModel, r: ResolvedRuntime) => boolean;
}

/**
 * The check of a run in this thread. With a `reusable` record (same fleet-wide inputs, epoch and
 * dist/ index), runtime files unchanged since it are only digested: their identities come from the
 * record for the checks across files, their recorded warnings are reported again.
 */
export function checkWithRecord(options: RecordCheckOptions, use: RecordUse): CheckedWithRecord {
  const { trusted, reusable, indexText } = use;
  const parse = use.parse ?? (() => false);
  const cacheDir = options.cacheDir;
  const reuse = reusable !== undefined && use.key === reusable.key ? reusable : undefined;
  // A record committed in dist/'s index has no file stamps (they are this machine's): its files are
  // read and digested, without an lstat each first (0.14 s at 10,000 runtimes).
  const stamped = reuse !== undefined && Object.values(reuse.runtimes).some((r) => r.stamp !== undefined);
  const plan = (): RuntimePlan =>
    reuse
      ? {
          reuse: (rel, digest) => !parse(rel) && reuse.runtimes[rel]?.digest === digest,
          ...(stamped
            ? {
                reuseStamp: (rel: string, stamp: string) => {
                  const r = reuse.runtimes[rel];
                  return !parse(rel) && r?.stamp !== undefined && r.stamp === stamp ? r.digest : undefined;
                },
                ...(use.listing ? { listing: use.listing } : {}),
              }
            : {}),
        }
      : {};
  const byName = new Map<string, RuntimeRecord>();
  for (const r of Object.values(trusted?.runtimes ?? {})) byName.set(r.identity.name, r);
  // A runtime is unchanged when its input digest equals the one of its last render.
  let fleetDigest: string | undefined;
  const digests = new Map<string, string>();
  const inputOf = (model: FleetModel, r: ResolvedRuntime): string => {
    fleetDigest ??= fleetInputDigest(model);
    let digest = digests.get(r.runtime.name);
    if (digest === undefined) digests.set(r.runtime.name, (digest = runtimeInputDigest(fleetDigest, r)));
    return digest;
  };
  const withRecord = cacheDir !== undefined || use.committed === true;
  const isUnchanged = (model: FleetModel, r: ResolvedRuntime): boolean => withRecord && byName.get(r.runtime.name)?.input === inputOf(model, r);

  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    layers: use.layers,
    previousDist: options.outDir,
    // Read once at the start of the run; kyma-fleet's own text (its digest is in the record) parses without the checks a foreign one needs.
    previousIndex: indexText === undefined ? undefined : () => parseIndex(indexText, { ours: trusted !== undefined })?.view,
    cacheDir,
    unchangedSincePrevious: isUnchanged,
    runtimes: withRecord
      ? {
          plan,
          identities: (reused) => reused.map((f) => ({ ...reuse!.runtimes[f.relPath]!.identity, file: f.file })),
          ...(reuse ? { recorded: (rel: string) => reuse.runtimes[rel]?.identity } : {}),
        }
      : undefined,
  });
  const diagnostics = normalizeDiagnostics([
    ...checked.diagnostics,
    ...checked.reusedRuntimes.flatMap((f) => shownDiagnostics(reuse!.runtimes[f.relPath]!.diagnostics, f.file)),
  ]);
  return { checked, diagnostics, byName, inputOf, isUnchanged };
}
