// The synth pipeline end to end: load → validate → resolve → render (cdk8s) → write (atomic).
// Shared by `kyma-fleet synth`, `kyma-fleet diff`, `kyma-fleet validate` (the input side only) and the cdk8s app entry (src/main.ts).

import * as path from 'node:path';
import { type CheckedFleet, checkFleet } from './check';
import { type LoadedLayers, loadFleet, type RuntimePlan } from '../load/load';
import { type FleetModel, identityOf } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';
import { cmp, type Diagnostic, ExitCode, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import { partFiles, type PartResult } from './parallel/part';
import { runParts, workerCount } from './parallel/pool';
import { fleetInputDigest, runtimeInputDigest } from './input-digest';
import { gitopsListFiles, runtimeGitopsFiles } from '../gitops/gitops';
import { renderFleet, wiringByRuntime, type UnchangedRuntime } from '../render/render-fleet';
import { type Target, TARGETS } from '../render/render-runtime';
import { diffOfChanges, type TreeDiff } from '../render/tree-diff';
import { type DistIndex, type DistSession, openDist, type Problem, readIndexBytes, type WriteResult } from '../write/dist-writer';
import { indexTextDigest, type IndexView, parseIndex } from '../lib/dist-index';
import { epochOf, layersKey, loadRunRecord, recordedDiagnostics, type RunRecord, type RuntimeRecord, saveRunRecord, shownDiagnostics, timeThresholds } from './run-record';

export interface SynthOptions {
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly allowMassRemoval?: boolean;
  /** Parse cache folder (see fleet/parse-cache.ts); undefined parses every file. */
  readonly cacheDir?: string;
  /** Environment for the worker settings (KYMA_FLEET_WORKERS, KYMA_FLEET_PARALLEL_MIN); process.env by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** Told what the run is doing (the CLI draws a progress bar on a terminal for long runs). */
  readonly progress?: (phase: string, done: number, total: number) => void;
}

export interface Rendering {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly runtimes?: number;
}

/** Runtime folder names listed in an index (`runtimes/<name>/...`), one binary search per runtime. */
function runtimesOf(view: IndexView): Set<string> {
  const out = new Set<string>();
  for (let i = view.lowerBound('runtimes/'); i < view.size; ) {
    const rel = view.relAt(i);
    if (!rel.startsWith('runtimes/')) break;
    const end = rel.indexOf('/', 9);
    if (end < 0) {
      i++; // a file directly in runtimes/ (not written by kyma-fleet)
      continue;
    }
    const name = rel.slice(9, end);
    if (end > 9) out.add(name);
    i = view.folder(rel.slice(0, end))[1];
  }
  return out;
}

/**
 * Refuses to remove more than `maxShare` of the previously rendered runtimes (`after`: the runtime
 * names of the new tree) at once (a wrong
 * --fleet path or a bad merge must not orphan half a landscape); removing one is always allowed.
 */
export function massRemovalProblem(previous: DistIndex | undefined, after: ReadonlySet<string>, maxShare: number): Problem | undefined {
  if (!previous) return undefined;
  const before = runtimesOf(previous.view);
  const removed = [...before].filter((r) => !after.has(r)).sort();
  if (removed.length < 2 || removed.length <= maxShare * before.size) return undefined;
  const shown = removed.slice(0, 10).join(', ') + (removed.length > 10 ? `, … (${removed.length - 10} more)` : '');
  return {
    code: 'E_MASS_REMOVAL',
    message: `synth would remove ${removed.length} of ${before.size} runtimes from dist/ (${shown}), more than the allowed share of ${Math.round(maxShare * 100)}% (Fleet spec.removalGuard.maxShare); if that is intended, run again with --allow-mass-removal`,
    paths: removed.map((r) => `runtimes/${r}/`),
  };
}

export type SynthResult = Rendering & {
  readonly problem?: Problem;
  readonly changed?: boolean;
  readonly written?: number;
  readonly removed?: number;
  readonly rendered?: number;
  /** How many parts (worker threads, when more than one) rendered the runtimes; absent when this thread did it all. */
  readonly parts?: number;
};

/** One runtime of the fleet as the tail of synth sees it, however it was obtained. */
interface RuntimeEntry {
  readonly relPath: string;
  readonly record: RuntimeRecord;
  /** Its files stay as dist/ has them (record.targets says which folders); else `files` holds them. */
  readonly kept: boolean;
  /** Rendered in a part, which also wrote its own GitOps files into the staging tree. */
  readonly gitopsStaged?: boolean;
  /** Rendered in this thread: the CRDs its skr-config/ needs, for its own GitOps files (RuntimeWiring). */
  readonly waitFor?: readonly string[];
}

/** What the input side of a synth produced: a valid model, the diagnostics and every runtime. */
interface Gathered {
  readonly model: FleetModel;
  readonly diagnostics: Diagnostic[];
  readonly entries: RuntimeEntry[];
  /** runtimes/** files of the runtimes that were rendered. */
  readonly files: Map<string, string>;
  readonly key: string;
}

type GatherOutcome = { gathered: Gathered } | { failed: SynthResult } | { upToDate: SynthResult };

/**
 * Renders and writes dist/. With a cache folder the run is incremental (see write/run-record.ts):
 * runtime files unchanged since the last successful synth are not parsed, validated or resolved
 * again (their identities still take part in the checks across files, their warnings are reported
 * again), and runtimes whose input digest matches their last render are not rendered again; their
 * files are moved into the new tree as they are. A run that has to parse many runtime files does so
 * in worker threads (parallel/), one part of the runtimes each. Without a cache folder everything
 * is done anew; the output is the same byte for byte whichever way it was produced.
 */
export function synth(options: SynthOptions): SynthResult {
  return run(options, false);
}

/** synth, or with `preview` the same run up to the write, reporting what it would change (diffDist). */
function run(options: SynthOptions, preview: boolean): DiffResult {
  const outDir = path.resolve(options.cwd, options.outDir);
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const cacheDir = options.cacheDir;
  const record = cacheDir ? loadRunRecord(cacheDir, options.cwd, fleetRoot, outDir) : undefined;
  let indexBytes = cacheDir ? readIndexBytes(outDir) : undefined;
  const indexText = indexBytes?.toString('utf8');
  const indexDigest = indexText === undefined ? undefined : indexTextDigest(indexText);
  // The record describes dist/ only while dist/'s index is the one that run wrote.
  const trusted = record && indexDigest === record.index ? record : undefined;
  const keyOptions = { allowEmpty: options.allowEmpty ?? false };

  // The fleet-wide inputs decide whether the record can be used; a large run without it goes parallel.
  const progress = options.progress ?? (() => {});
  const usable = (key: string): RunRecord | undefined => (trusted && trusted.key === key && epochOf(trusted.thresholds, options.now) === trusted.epoch ? trusted : undefined);
  const layers = peekLayers(options, keyOptions, (key) => usable(key) === undefined);
  const reusable = usable(layers.key);
  // The write compares dist/'s index under its lock with these bytes (a run in this thread only: a
  // large run without a usable record does not hold a second copy of a 140 MB index at 100,000).
  if (!reusable) indexBytes = undefined;
  const knownIndex = indexBytes && indexText !== undefined ? { bytes: indexBytes, text: indexText } : undefined;
  // With a usable record the run stays in this thread: runtimes/ is listed once, by the check.
  const runtimeFiles = reusable ? Object.keys(reusable.runtimes).length : layers.runtimeFiles;
  progress('checking the fleet', 0, runtimeFiles);
  const parts = reusable ? 0 : workerCount(runtimeFiles, options.env ?? process.env);
  // Parts stream their files straight into the staging tree of an open write (bounded memory).
  let session: DistSession | undefined;
  let outcome: GatherOutcome | undefined;
  if (parts > 0) {
    const opened = openDist({ outDir, verify: !cacheDir });
    // A dist/ that cannot be written is reported after the input is checked, as below.
    if (opened.ok) {
      session = opened.session;
      try {
        outcome = gatherInParts(options, parts, trusted, keyOptions, session);
      } catch (e) {
        session.abort();
        throw e;
      }
      if (!outcome || !('gathered' in outcome)) {
        session.abort();
        session = undefined;
      }
    }
  }
  outcome ??= gatherSequential(options, trusted, reusable, keyOptions, indexText);
  if ('failed' in outcome) return outcome.failed;
  if ('upToDate' in outcome) return outcome.upToDate;
  const { model, diagnostics, entries, key } = outcome.gathered;
  const redo = (): SynthResult => {
    session?.abort();
    return run({ ...options, cacheDir: undefined }, preview);
  };

  // Kept runtimes: their folders stay as dist/'s index lists them (the index of the run that
  // rendered them); their own GitOps files too, while the GitOps options are the same.
  const anyKept = entries.some((e) => e.kept);
  const previousView = anyKept && indexText !== undefined ? parseIndex(indexText, { ours: trusted !== undefined })?.view : undefined;
  const gitopsJson = JSON.stringify(model.options.gitops);
  const unchanged = new Map<string, UnchangedRuntime>();
  const keptFolders: string[] = [];
  const keptFiles: string[] = [];
  // Folders first, then GitOps files: the index is searched region by region, in order.
  for (const e of entries) {
    if (!e.kept) continue;
    const folder = `runtimes/${e.record.identity.name}`;
    // Not in dist/ after all (the index was trusted): do everything anew.
    if (!previousView?.hasFolder(folder)) return redo();
    keptFolders.push(folder);
  }
  for (const e of entries) {
    const { name, runtimeID } = e.record.identity;
    if (!e.kept) {
      unchanged.set(name, { runtimeID, targets: e.record.targets, waitFor: e.waitFor ?? [], keepGitops: e.gitopsStaged === true });
      continue;
    }
    const gitopsFiles = runtimeGitopsFiles({ name, runtimeID, targets: e.record.targets }, model.options.gitops);
    // Its own GitOps files stay as they are; they depend on what only its render knows (the CRDs
    // its skr-config/ needs), so where they cannot stay, everything is done anew.
    if (gitopsFiles.length > 0 && !(trusted?.gitops === gitopsJson && gitopsFiles.every((rel) => previousView!.find(rel) >= 0))) return redo();
    keptFiles.push(...gitopsFiles);
    unchanged.set(name, { runtimeID, targets: e.record.targets, keepGitops: gitopsFiles.length > 0 });
  }

  // The GitOps lists name every runtime and its targets: while those and the GitOps options are the
  // ones of the run that wrote dist/, the lists stay as they are (a 20,000-line list not rebuilt).
  const listFiles = gitopsListFiles(model.options.gitops);
  const keepLists = previousView !== undefined && trusted?.gitops === gitopsJson && sameWiring(entries, trusted) && listFiles.every((rel) => previousView.find(rel) >= 0);
  if (keepLists) keptFiles.push(...listFiles);

  const names = new Set(entries.map((e) => e.record.identity.name));
  const base = { exitCode: ExitCode.Ok, diagnostics, runtimes: names.size, rendered: entries.filter((e) => !e.kept).length, ...(session && parts > 0 ? { parts } : {}) };
  if (!session) {
    const opened = openDist({ outDir, verify: !cacheDir, trustedDirs: new Set(entries.filter((e) => e.kept).map((e) => `runtimes/${e.record.identity.name}`)), knownIndex });
    if (!opened.ok) return { ...base, exitCode: opened.exitCode, problem: opened.problem };
    session = opened.session;
  }
  let result: WriteResult;
  progress('writing dist/', 0, 1);
  try {
    for (const [rel, content] of outcome.gathered.files) session.add(rel, content);
    if (keptFolders.length > 0 || keptFiles.length > 0) session.keep(keptFolders, keptFiles, indexDigest!);
    // Every runtime is rendered or kept by now: what is left to render is the GitOps wiring.
    for (const [rel, content] of renderFleet(model, [], undefined, unchanged, keepLists ? 'own' : true).files) session.add(rel, content);
    if (preview) {
      const changes = session.preview();
      const outcome = changes.ok ? { ...base, diff: diffOfChanges(changes, changes.oldText, changes.newText) } : { ...base, exitCode: changes.exitCode, problem: changes.problem };
      session.abort();
      return outcome;
    }
    result = session.commit(options.allowMassRemoval ? undefined : (previous) => massRemovalProblem(previous, names, model.options.maxRemovalShare));
  } catch (e) {
    session.abort();
    throw e;
  }
  progress('writing dist/', 1, 1);
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };

  if (cacheDir) {
    const thresholds = timeThresholds(model);
    saveRunRecord(cacheDir, options.cwd, fleetRoot, outDir, {
      version: 2,
      key,
      thresholds,
      epoch: epochOf(thresholds, options.now),
      index: result.indexDigest,
      gitops: gitopsJson,
      runtimes: Object.fromEntries(entries.map((e) => [e.relPath, e.record])),
    });
  }
  return { ...base, changed: result.changed, written: result.written, removed: result.removed };
}

/** True when the runtimes (by name) and their sets of targets are exactly those the record lists. */
function sameWiring(entries: readonly RuntimeEntry[], record: RunRecord): boolean {
  // A set of targets as bits (one per target of TARGETS), a mismatch for anything else.
  const unknown = 1 << TARGETS.length;
  const bits = (targets: readonly string[]): number => {
    let b = 0;
    for (const t of targets) {
      const i = TARGETS.indexOf(t as Target);
      b |= i < 0 ? unknown : 1 << i;
    }
    return b;
  };
  const before = new Map<string, number>();
  for (const r of Object.values(record.runtimes)) before.set(r.identity.name, bits(r.targets));
  if (before.size !== entries.length) return false;
  return entries.every((e) => {
    const b = before.get(e.record.identity.name);
    return b !== undefined && b < unknown && b === bits(e.record.targets);
  });
}

/**
 * Loads only the fleet-wide layers (no runtime file is read): their key, and how many runtime files
 * there are when `count(key)` asks for it (else runtimes/ is not listed and the count is 0).
 */
function peekLayers(options: SynthOptions, keyOptions: Readonly<Record<string, unknown>>, count: (key: string) => boolean): { key: string; runtimeFiles: number } {
  let key = '';
  let runtimeFiles = 0;
  loadFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    runtimePlan: (layers) => {
      key = layersKey(layers, keyOptions);
      if (!count(key)) return { names: [] };
      return {
        select: () => {
          runtimeFiles++;
          return false;
        },
      };
    },
  });
  return { key, runtimeFiles };
}

/** What synth and validate need to check a fleet; validate renders nothing, so outDir is only read. */
type CheckRun = Pick<SynthOptions, 'fleetDir' | 'outDir' | 'cwd' | 'now' | 'allowEmpty' | 'cacheDir'>;

/** A check without a previous render (explain): no transition rules, so no outDir. */
type CheckInput = Omit<CheckRun, 'outDir'> & { readonly outDir?: string };

interface CheckedWithRecord {
  readonly checked: CheckedFleet;
  /** layersKey of this run's fleet-wide inputs. */
  readonly key: string;
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
 * The input checks of a run in this thread. With a `reusable` record (same fleet-wide inputs,
 * epoch and dist/ index), runtime files unchanged since it are only digested: their identities
 * come from the record for the checks across files, their recorded warnings are reported again.
 */
function checkWithRecord(
  options: CheckInput,
  trusted: RunRecord | undefined,
  reusable: RunRecord | undefined,
  keyOptions: Readonly<Record<string, unknown>>,
  indexText: string | undefined,
  /** Runtime files (relPath) parsed even when the record vouches for them. */
  parse: (relPath: string) => boolean = () => false,
): CheckedWithRecord {
  const cacheDir = options.cacheDir;
  let key = '';
  const plan = (layers: LoadedLayers): RuntimePlan => {
    key = layersKey(layers, keyOptions);
    if (!reusable || key !== reusable.key) return {};
    return {
      reuse: (rel, digest) => !parse(rel) && reusable.runtimes[rel]?.digest === digest,
      reuseStamp: (rel, stamp) => {
        const r = reusable.runtimes[rel];
        return !parse(rel) && r?.stamp !== undefined && r.stamp === stamp ? r.digest : undefined;
      },
    };
  };
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
  const isUnchanged = (model: FleetModel, r: ResolvedRuntime): boolean => cacheDir !== undefined && byName.get(r.runtime.name)?.input === inputOf(model, r);

  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    previousDist: options.outDir,
    // Read once at the start of the run; kyma-fleet's own text (its digest is in the record) parses without the checks a foreign one needs.
    previousIndex: indexText === undefined ? undefined : () => parseIndex(indexText, { ours: trusted !== undefined })?.view,
    cacheDir,
    unchangedSincePrevious: isUnchanged,
    runtimes: cacheDir ? { plan, identities: (reused) => reused.map((f) => ({ ...reusable!.runtimes[f.relPath]!.identity, file: f.file })) } : undefined,
  });
  const diagnostics = normalizeDiagnostics([
    ...checked.diagnostics,
    ...checked.reusedRuntimes.flatMap((f) => shownDiagnostics(reusable!.runtimes[f.relPath]!.diagnostics, f.file)),
  ]);
  return { checked, key, diagnostics, byName, inputOf, isUnchanged };
}

/** The input side in this thread: reused files from the record, everything else parsed here. */
function gatherSequential(
  options: SynthOptions,
  trusted: RunRecord | undefined,
  reusable: RunRecord | undefined,
  keyOptions: Readonly<Record<string, unknown>>,
  indexText: string | undefined,
): GatherOutcome {
  const { checked, key, diagnostics, byName, inputOf, isUnchanged } = checkWithRecord(options, trusted, reusable, keyOptions, indexText);
  const reusedFiles = checked.reusedRuntimes;
  if (!checked.ok || !checked.model) return { failed: { exitCode: ExitCode.InvalidInput, diagnostics } };
  const model = checked.model;
  // Nothing parsed and every file of the record still there: dist/ is exactly what that run wrote.
  if (reusable && checked.runtimes.length === 0 && reusedFiles.length === Object.keys(reusable.runtimes).length) {
    return { upToDate: { exitCode: ExitCode.Ok, diagnostics, runtimes: reusedFiles.length, rendered: 0, changed: false, written: 0, removed: 0 } };
  }

  // A reused file keeps its record; the stamp is the one it has now (a file read by digest gets one once it settled).
  const entries: RuntimeEntry[] = reusedFiles.map((f) => {
    const { stamp: _old, ...record } = reusable!.runtimes[f.relPath]!;
    return { relPath: f.relPath, record: f.stamp === undefined ? record : { ...record, stamp: f.stamp }, kept: true };
  });
  const toRender = checked.runtimes.filter((r) => !isUnchanged(model, r));
  const rendered = renderFleet(model, toRender, undefined, new Map(), false);
  const wired = wiringByRuntime(rendered.files.keys());
  for (const r of checked.runtimes) {
    const loaded = checked.runtimeFiles.get(r.runtime.file);
    if (!loaded) continue;
    const kept = isUnchanged(model, r);
    const { file: _file, ...identity } = identityOf(r.runtime);
    entries.push({
      relPath: loaded.relPath,
      kept,
      ...(kept ? {} : { waitFor: wired.get(r.runtime.name)?.waitFor ?? [] }),
      record: {
        digest: loaded.digest,
        ...(loaded.stamp === undefined ? {} : { stamp: loaded.stamp }),
        identity,
        diagnostics: recordedDiagnostics(checked.runtimeDiagnostics.get(r.runtime.file) ?? [], r.runtime.file),
        input: inputOf(model, r),
        targets: kept ? byName.get(r.runtime.name)!.targets : (wired.get(r.runtime.name)?.targets ?? []),
      },
    });
  }
  return { gathered: { model, diagnostics, entries, files: rendered.files, key } };
}

export interface Validation {
  readonly ok: boolean;
  /** Sorted, de-duplicated; the recorded warnings of reused runtime files included. */
  readonly diagnostics: readonly Diagnostic[];
  /** Runtimes of the fleet (0 when the model could not be built), reused ones included. */
  readonly runtimes: number;
  readonly groups: number;
  /** Runtime files not parsed again because the run record vouched for them. */
  readonly reused: number;
}

/**
 * `kyma-fleet validate`: every check of synth's input side, nothing written. With a cache folder it
 * reads (never writes) the run record of the last synth of this fleet into outDir: while that
 * record is usable (same fleet-wide inputs and time epoch, dist/'s index as that synth wrote it),
 * runtime files unchanged since then are not parsed, validated or resolved again, exactly as synth
 * would skip them; their identities still take part in the checks across files and their recorded
 * warnings are reported again. The verdict and the diagnostics are those of a validate without
 * cache (a test compares them).
 */
export function validateFleetDir(options: CheckRun): Validation {
  const outDir = path.resolve(options.cwd, options.outDir);
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const record = options.cacheDir ? loadRunRecord(options.cacheDir, options.cwd, fleetRoot, outDir) : undefined;
  // Without a record the check reads dist/'s index itself, and only if a transition rule asks.
  const indexText = record ? readIndexBytes(outDir)?.toString('utf8') : undefined;
  const trusted = record && indexText !== undefined && indexTextDigest(indexText) === record.index ? record : undefined;
  const reusable = trusted && epochOf(trusted.thresholds, options.now) === trusted.epoch ? trusted : undefined;
  const { checked, diagnostics } = checkWithRecord(options, trusted, reusable, { allowEmpty: options.allowEmpty ?? false }, indexText);
  const model = checked.model;
  return {
    ok: !hasErrors(diagnostics),
    diagnostics,
    runtimes: model ? model.runtimes.length + checked.reusedRuntimes.length : 0,
    groups: model?.groups.length ?? 0,
    reused: checked.reusedRuntimes.length,
  };
}

/**
 * The fleet as `explain NAME` needs it: every check (explain reports the fleet's errors), and the
 * named runtime parsed and resolved. With a cache folder it reads the run record of the last synth
 * into `outDir` (explain has no --out: the default dist/); while the fleet-wide inputs and the time
 * epoch are that record's, the other runtime files unchanged since then are only digested, as
 * validate skips them. dist/ itself does not matter here (explain checks no transitions against a
 * previous render), so the record need not describe it. The errors and the explanation are those of
 * a check without cache (a test compares them); `names` are every runtime name, for suggestions.
 */
export function checkForExplain(options: Omit<CheckRun, 'allowEmpty'>, name: string): { checked: CheckedFleet; diagnostics: readonly Diagnostic[]; names: string[] } {
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const record = options.cacheDir ? loadRunRecord(options.cacheDir, options.cwd, fleetRoot, path.resolve(options.cwd, options.outDir)) : undefined;
  const reusable = record && epochOf(record.thresholds, options.now) === record.epoch ? record : undefined;
  const own = new Set([`runtimes/${name}.yaml`, `runtimes/${name}.yml`]);
  // The record's key is synth's, which is taken without --allow-empty; explain accepts an empty fleet.
  const { checked, diagnostics } = checkWithRecord(
    { fleetDir: options.fleetDir, cwd: options.cwd, now: options.now, cacheDir: options.cacheDir, allowEmpty: true },
    undefined,
    reusable,
    { allowEmpty: false },
    undefined,
    (rel) => own.has(rel),
  );
  const names = [...checked.runtimes.map((r) => r.runtime.name), ...checked.reusedRuntimes.map((f) => reusable!.runtimes[f.relPath]!.identity.name)].sort(cmp);
  return { checked, diagnostics, names };
}

/**
 * The input side in parts (a run without a usable record, over many runtime files): each part
 * validates, resolves and renders its runtimes chunk by chunk, in a worker thread when there are
 * several; this thread validates the fleet-wide layers and the checks across files (duplicates,
 * empty fleet) with the identities the parts found. Undefined (use the whole-fleet pipeline) when
 * a worker failed or the fleet changed while the parts ran.
 */
function gatherInParts(options: SynthOptions, workers: number, trusted: RunRecord | undefined, keyOptions: Readonly<Record<string, unknown>>, sink: DistSession): GatherOutcome | undefined {
  let rendered = 0;
  const total = partFiles(path.resolve(options.cwd, options.fleetDir), 0, 1).size;
  const previousInputs: Record<string, string> = {};
  if (options.cacheDir) for (const r of Object.values(trusted?.runtimes ?? {})) previousInputs[r.identity.name] = r.input;
  const staging = sink.stagingArea();
  let parts: PartResult[];
  try {
    parts = runParts(
      Array.from({ length: workers }, (_, part) => ({
        fleetDir: options.fleetDir,
        cwd: options.cwd,
        now: options.now.getTime(),
        allowEmpty: options.allowEmpty ?? false,
        outDir: options.outDir,
        part,
        of: workers,
        previousInputs,
        staging,
      })),
      (files, runtimes) => {
        sink.addStaged(files);
        rendered += runtimes;
        options.progress?.('rendering runtimes', rendered, total);
      },
    );
  } catch {
    return undefined;
  }
  let key = '';
  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    runtimes: {
      plan: (layers) => {
        key = layersKey(layers, keyOptions);
        return { select: () => false };
      },
      identities: () => [],
      known: parts.flatMap((p) => p.identities),
    },
  });
  if (parts.some((p) => p.layersKey !== key)) return undefined;
  const diagnostics = normalizeDiagnostics([...checked.diagnostics, ...parts.flatMap((p) => p.diagnostics)]);
  if (!checked.ok || !checked.model || parts.some((p) => !p.ok) || hasErrors(diagnostics)) return { failed: { exitCode: ExitCode.InvalidInput, diagnostics } };
  const entries: RuntimeEntry[] = [];
  const recordByName = new Map(Object.values(trusted?.runtimes ?? {}).map((x) => [x.identity.name, x]));
  for (const p of parts) {
    for (const r of p.runtimes) {
      const { file: _file, ...identity } = r.identity;
      const kept = r.kept && options.cacheDir !== undefined;
      const targets = kept ? (recordByName.get(identity.name)?.targets ?? []) : r.targets;
      const record = { digest: r.digest, ...(r.stamp === undefined ? {} : { stamp: r.stamp }), identity, diagnostics: r.diagnostics, input: r.input, targets };
      // A part that rendered a runtime staged its own GitOps files too (r.kept is false without a cache).
      entries.push({ relPath: r.relPath, kept, gitopsStaged: !kept, record });
    }
  }
  entries.sort((a, b) => cmp(a.relPath, b.relPath));
  // The rendered files are in the session already.
  return { gathered: { model: checked.model, diagnostics, entries, files: new Map(), key } };
}

export type DiffResult = SynthResult & { readonly diff?: TreeDiff };

/**
 * What a synth would change (dist/ is not changed). The same run as synth up to the write, with
 * every byte of dist/ compared (no run record) and a large fleet rendered in parts by worker threads
 * that stage only files that differ: memory stays bounded at any fleet size, and only changed
 * files are read back for their patches. It holds dist/'s lock while it runs.
 */
export function diffDist(options: SynthOptions): DiffResult {
  return run({ ...options, cacheDir: undefined }, true);
}
