// The synth pipeline: plan → check → render → write → save, one named stage each.
//   plan (./plan.ts)     the run record, dist/'s index and the fleet-wide layers, read once;
//   check (./check.ts)   the runtime files against those layers (unchanged ones only digested);
//   render               the runtimes whose inputs changed (in worker parts for a large cold run,
//                        ./render-parts.ts, which check and render together and stream into the write);
//   write                kept runtime folders and the rendered files into dist/ (src/write), atomically;
//   save                 the run record for the next run (./run-record.ts).
// Shared by `kyma-fleet synth`, `kyma-fleet diff`, `kyma-fleet validate` (the input side only) and
// the cdk8s app entry (src/main.ts). The output is the same byte for byte whichever way it was produced.

import * as path from 'node:path';
import { codeKeyRecord } from '../lib/code-key';
import { cmp, type Diagnostic, ExitCode, hasErrors } from '../lib/diagnostics';
import { loadLayers } from '../load/load';
import { parseIndex } from '../lib/dist-index';
import { renderFleet } from '../render/render-fleet';
import { diffOfChanges, isEmptyDiff } from '../render/tree-diff';
import { massRemovalProblem } from '../write/mass-removal';
import { type DistSession, openDist, type WriteResult } from '../write/dist-writer';
import type { ProvenDist } from './base-diff';
import { type CheckedFleet, checkWithRecord, type RecordCheckOptions } from './check';
import { inputsSection } from './committed-record';
import { planCheck, type RunPlan, startPlan, type SynthOptions } from './plan';
import { keep, type Keeping } from './keep';
import { renderedRuntimeRecord } from './record';
import { renderInParts } from './render-parts';
import { epochOf, layersKey, loadRunRecord, restamped, type RunRecord, saveRunRecord, timeThresholds, withStamp } from './run-record';
import type { DiffResult, RenderOutcome, Rendered, RuntimeEntry, SynthResult } from './stages';

export type { SynthOptions } from './plan';
export type { DiffResult, Rendering, SynthResult } from './stages';
export { massRemovalProblem } from '../write/mass-removal';

/**
 * Renders and writes dist/. With a cache folder the run is incremental (see run-record.ts): runtime
 * files unchanged since the last successful synth are not parsed, validated or resolved again
 * (their identities still take part in the checks across files, their warnings are reported
 * again), and runtimes whose input digest matches their last render are not rendered again; their
 * files are moved into the new tree as they are. Without a cache folder everything is done anew.
 */
export function synth(options: SynthOptions): SynthResult {
  return run(options, false);
}

/**
 * What a synth would change (dist/ is not changed). The same run as synth up to the write, with
 * every byte of dist/ compared (no run record) and a large fleet rendered in parts by worker threads
 * that stage only files that differ: memory stays bounded at any fleet size, and only changed
 * files are read back for their patches. It holds dist/'s lock while it runs.
 */
export function diffDist(options: SynthOptions): DiffResult {
  return diffDistProving(options).result;
}

/**
 * diffDist, and when dist/ is up to date and a record stood for it (the committed one on a fresh
 * runner), what the run proved of it: its index and that record (./base-diff.ts compares the base
 * with them).
 */
export function diffDistProving(options: SynthOptions): { result: DiffResult; proven?: ProvenDist } {
  // The cache folder's run record is not used; the record committed in dist/'s index is, unless
  // --no-cache (its runtimes' files hashed against the index, ./committed-record.ts).
  let planned: RunPlan | undefined;
  const result = run({ ...options, cacheDir: undefined, committed: options.committed ?? options.cacheDir !== undefined }, true, (p) => (planned = p));
  // Up to date means every file of dist/ has the bytes its index records and the render gives (a
  // file is the same only when all three agree: src/write/stager.ts), so the index stands for dist/.
  const view = result.diff && isEmptyDiff(result.diff) && planned?.trusted && planned.index ? parseIndex(planned.index.text, { ours: true })?.view : undefined;
  return { result, ...(view ? { proven: { outDir: planned!.outDir, view, record: planned!.trusted!, layers: planned!.layers } } : {}) };
}

/**
 * synth, or with `preview` the same run up to the write. When the record turns out not to describe
 * dist/ after all (a runtime it calls unchanged has no folder there), the run is done again without it.
 */
function run(options: SynthOptions, preview: boolean, planned?: (p: RunPlan) => void): DiffResult {
  return runOnce(options, preview, planned) ?? runOnce({ ...options, cacheDir: undefined, committed: false }, preview, planned)!;
}

/** Undefined when the record does not describe dist/ (see keep). `seen`: told the run's plan. */
function runOnce(options: SynthOptions, preview: boolean, seen?: (p: RunPlan) => void): DiffResult | undefined {
  const started = startPlan(options);
  // The fleet is checked while worker threads look at dist/ (the plan as it is when dist/ is as
  // the record says); when it is not, the check is made again with the plan as it is.
  let early: ReturnType<typeof check> | undefined;
  // Rendered and kept with the assumed plan too, before the workers' answer is asked for: they look
  // at dist/ meanwhile, and what they have not looked at by then this thread looks at itself.
  let earlyOutcome: RenderOutcome | undefined;
  let earlyKeeping: Keeping | undefined;
  // A synth also stages its write and prepares the commit (dist/ locked, the new index built):
  // once the answer is in, all that is left is to publish.
  let earlyStaged: Staged | undefined;
  if (started.assumed.parts === 0) {
    options.progress?.('checking the fleet', 0, started.assumed.runtimeFiles);
    try {
      early = check(options, started.assumed);
      earlyOutcome = renderInThread(early, started.assumed, preview);
      if ('rendered' in earlyOutcome) earlyKeeping = keep(earlyOutcome.rendered, started.assumed);
      if (!preview && earlyKeeping && 'rendered' in earlyOutcome) earlyStaged = stage(options, started.assumed, earlyOutcome.rendered, earlyKeeping, undefined, false);
    } catch (e) {
      started.cancel();
      throw e;
    }
  }
  const confirmed = confirmPlan(started, earlyStaged);
  const planned = confirmed.plan;
  seen?.(planned);
  if (!early || !confirmed.held) options.progress?.('checking the fleet', 0, planned.runtimeFiles);
  // Parts stream their files straight into the staging tree of an open write (bounded memory).
  let session: DistSession | undefined;
  let outcome: RenderOutcome | undefined;
  if (planned.parts > 0) {
    const opened = openDist({ outDir: planned.outDir, verify: planned.verify });
    // A dist/ that cannot be written is reported after the input is checked, as below.
    if (opened.ok) {
      session = opened.session;
      try {
        outcome = renderInParts(options, planned, session);
      } catch (e) {
        session.abort();
        throw e;
      }
      if (!outcome || !('rendered' in outcome)) {
        session.abort();
        session = undefined;
      }
    }
  }
  outcome ??= earlyOutcome && confirmed.held ? earlyOutcome : renderInThread(check(options, planned), planned, preview);
  if ('failed' in outcome) return outcome.failed;
  if ('upToDate' in outcome) {
    if (outcome.restamped && options.cacheDir) saveRunRecord(options.cacheDir, options.cwd, planned.fleetRoot, planned.outDir, outcome.restamped);
    return outcome.upToDate;
  }
  const rendered = outcome.rendered;
  const keeping = earlyKeeping && outcome === earlyOutcome ? earlyKeeping : keep(rendered, planned);
  if (!keeping) {
    session?.abort();
    return undefined;
  }
  const names = new Set(rendered.entries.map((e) => e.record.identity.name));
  const base = { exitCode: ExitCode.Ok, diagnostics: rendered.diagnostics, runtimes: names.size, rendered: rendered.entries.filter((e) => !e.kept).length, ...(session ? { parts: planned.parts } : {}) };
  const staged = earlyStaged && confirmed.held ? earlyStaged : stage(options, planned, rendered, keeping, session, preview);
  const result = 'session' in staged ? publishStaged(staged.session, options) : staged;
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };
  if ('diff' in result) return { ...base, diff: result.diff };
  save(options, planned, rendered, result);
  return { ...base, changed: result.changed, written: result.written, removed: result.removed };
}

/** started.confirm(); a write staged early that will not be published (the plan did not hold, or the confirm failed) lets go of dist/ first. */
function confirmPlan(started: ReturnType<typeof startPlan>, staged: Staged | undefined): ReturnType<ReturnType<typeof startPlan>['confirm']> {
  let confirmed: ReturnType<ReturnType<typeof startPlan>['confirm']> | undefined;
  try {
    confirmed = started.confirm();
    return confirmed;
  } finally {
    if (!confirmed?.held && staged && 'session' in staged) staged.session.abort();
  }
}

/** The check stage in this thread, with the run record. */
function check(options: SynthOptions, planned: RunPlan): ReturnType<typeof checkWithRecord> {
  return checkWithRecord(
    { ...options, outDir: options.outDir },
    { layers: planned.layers, key: planned.key, trusted: planned.trusted, reusable: planned.reusable, indexText: planned.index?.text, committed: planned.committed, listing: planned.runtimesListing },
  );
}

/** The render stage in this thread: the runtimes whose input changed; the others are kept. */
function renderInThread({ checked, diagnostics, byName, inputOf, isUnchanged }: ReturnType<typeof checkWithRecord>, planned: RunPlan, preview: boolean): RenderOutcome {
  const { reusable } = planned;
  const reusedFiles = checked.reusedRuntimes;
  if (!checked.ok || !checked.model) return { failed: { exitCode: ExitCode.InvalidInput, diagnostics } };
  const model = checked.model;
  // Nothing parsed and every file of the record still there: dist/ is exactly what that run wrote.
  // (A preview goes on to its empty diff; a record committed in dist/ goes on to open dist/, whose
  // recovery finishes or undoes what a killed run left.)
  if (!preview && !planned.committed && reusable && checked.runtimes.length === 0 && reusedFiles.length === Object.keys(reusable.runtimes).length) {
    const upToDate = { exitCode: ExitCode.Ok, diagnostics, runtimes: reusedFiles.length, rendered: 0, changed: false, written: 0, removed: 0 };
    const record = restamped(reusable, reusedFiles);
    return record ? { upToDate, restamped: record } : { upToDate };
  }
  // A reused file keeps its record; the stamp is the one it has now (a file read by digest gets one once it settled).
  // The record object itself while the stamp is the same (the save writes its row as it was read).
  const entries: RuntimeEntry[] = reusedFiles.map((f) => {
    const record = reusable!.runtimes[f.relPath]!;
    return { relPath: f.relPath, record: f.stamp === record.stamp ? record : withStamp(record, f.stamp), kept: true, recorded: true };
  });
  const toRender = checked.runtimes.filter((r) => !isUnchanged(model, r));
  const render = renderFleet(model, toRender, undefined, new Map(), false);
  for (const r of checked.runtimes) {
    const kept = isUnchanged(model, r);
    const wiring = render.wiring.get(r.runtime.name);
    const { relPath, file: _file, ...record } = renderedRuntimeRecord(checked, r, kept ? byName.get(r.runtime.name)!.targets : (wiring?.targets ?? []));
    entries.push({ relPath, kept, ...(kept ? {} : { waitFor: wiring?.waitFor ?? [] }), record: { ...record, input: inputOf(model, r) } });
  }
  return { rendered: { model, diagnostics, entries, files: render.files } };
}

type Written = WriteResult | { ok: true; diff: NonNullable<DiffResult['diff']> } | { ok: false; problem: NonNullable<SynthResult['problem']>; exitCode: 1 | 4 };
/** A write staged and its commit prepared (`session`), or how it ended already (refused; previewing, what it would change). */
type Staged = Written | { ok: true; session: DistSession };

/**
 * The write stage up to the publish: rendered files, kept entries and the GitOps wiring staged into
 * an open write of dist/, and its commit prepared (or, previewing, what it would change).
 */
function stage(options: SynthOptions, planned: RunPlan, rendered: Rendered, keeping: Keeping, open: DistSession | undefined, preview: boolean): Staged {
  const { entries, model } = rendered;
  let session = open;
  if (!session) {
    const knownIndex = planned.index;
    const trustedDirs = new Set([...entries.filter((e) => e.kept).map((e) => `runtimes/${e.record.identity.name}`), ...(keeping.allBut?.wholeDirs ?? [])]);
    // A run that writes nothing takes dist/'s files and folders from the plan's scan; a write walks
    // dist/ again under its lock.
    const opened = openDist({ outDir: planned.outDir, verify: planned.verify, trustedDirs, knownIndex, ...(preview && planned.scan ? { scanned: planned.scan } : {}) });
    if (!opened.ok) return opened;
    session = opened.session;
  }
  options.progress?.('writing dist/', 0, 1);
  try {
    for (const [rel, content] of rendered.files) session.add(rel, content);
    if (keeping.folders.length > 0 || keeping.files.length > 0) session.keep(keeping.folders, keeping.files, planned.index!.digest);
    if (keeping.allBut) session.keepAllBut(keeping.allBut.folders, keeping.allBut.except, planned.index!.digest);
    // Every runtime is rendered or kept by now: what is left to render is the GitOps wiring.
    for (const [rel, content] of renderFleet(model, [], undefined, keeping.unchanged, keeping.lists ? 'own' : true).files) session.add(rel, content);
    if (preview) {
      const changes = session.preview();
      // The patches read both trees: the staging tree goes with the session.
      const outcome: Written = changes.ok ? { ok: true, diff: diffOfChanges(changes, changes.oldText, changes.newText) } : changes;
      session.abort();
      return outcome;
    }
    const names = new Set(entries.map((e) => e.record.identity.name));
    // The index also records how each runtime was rendered (./committed-record.ts).
    const thresholds = timeThresholds(model);
    const inputs = inputsSection({ key: planned.committedKey, thresholds, epoch: epochOf(thresholds, options.now), gitops: JSON.stringify(model.options.gitops), entries, ...(planned.trusted && planned.index ? { previous: planned.index.text } : {}) });
    // Keeping all but some runtimes' folders, with the same runtimes as the run that wrote dist/, removes no runtime.
    session.prepare(options.allowMassRemoval || keeping.allBut ? undefined : (previous) => massRemovalProblem(previous, names, model.options.maxRemovalShare), inputs);
  } catch (e) {
    session.abort();
    throw e;
  }
  return { ok: true, session };
}

/** The write stage's end: what `stage` prepared, published. */
function publishStaged(session: DistSession, options: SynthOptions): WriteResult {
  let result: WriteResult;
  try {
    result = session.commit();
  } catch (e) {
    session.abort();
    throw e;
  }
  options.progress?.('writing dist/', 1, 1);
  return result;
}

/** The save stage: the run record for the next run (with a cache folder). */
function save(options: SynthOptions, planned: RunPlan, rendered: Rendered, result: WriteResult & { ok: true }): void {
  if (!options.cacheDir) return;
  const thresholds = timeThresholds(rendered.model);
  const code = codeKeyRecord();
  saveRunRecord(options.cacheDir, options.cwd, planned.fleetRoot, planned.outDir, {
    version: 4,
    key: planned.key,
    thresholds,
    epoch: epochOf(thresholds, options.now),
    index: result.indexDigest,
    ...(result.indexStamp !== undefined ? { indexStamp: result.indexStamp } : {}),
    // After the commit: every file of dist/ was written or moved by now (touchedSince, src/write/tree-scan.ts).
    settled: Date.now(),
    gitops: JSON.stringify(rendered.model.options.gitops),
    ...(code ? { code } : {}),
    runtimes: Object.fromEntries(rendered.entries.map((e) => [e.relPath, e.record])),
  });
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

/** What validate needs to check a fleet; it renders nothing, so outDir is only read. */
type CheckRun = Pick<SynthOptions, 'fleetDir' | 'outDir' | 'cwd' | 'now' | 'allowEmpty' | 'cacheDir' | 'committed'>;

/**
 * `kyma-fleet validate`: the plan and check stages of synth, nothing written. With a cache folder
 * it reads (never writes) the run record of the last synth of this fleet into outDir: while that
 * record is usable (same fleet-wide inputs and time epoch, dist/'s index as that synth wrote it),
 * runtime files unchanged since then are not parsed, validated or resolved again, exactly as synth
 * would skip them; their identities still take part in the checks across files and their recorded
 * warnings are reported again. The verdict and the diagnostics are those of a validate without
 * cache (a test compares them).
 */
export function validateFleetDir(options: CheckRun): Validation {
  const planned = planCheck(options, false);
  const { checked, diagnostics } = checkWithRecord(options, { layers: planned.layers, key: planned.key, trusted: planned.trusted, reusable: planned.reusable, indexText: planned.index?.text, committed: planned.committed, listing: planned.runtimesListing });
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
  const layers = loadLayers({ fleetDir: options.fleetDir, cwd: options.cwd });
  // The record's key is synth's, which is taken without --allow-empty; explain accepts an empty fleet.
  const check: RecordCheckOptions = { fleetDir: options.fleetDir, cwd: options.cwd, now: options.now, cacheDir: options.cacheDir, allowEmpty: true };
  const { checked, diagnostics } = checkWithRecord(check, { layers, key: layersKey(layers, { allowEmpty: false }), trusted: undefined, reusable, indexText: undefined, parse: (rel) => own.has(rel) });
  const names = [...checked.runtimes.map((r) => r.runtime.name), ...checked.reusedRuntimes.map((f) => reusable!.runtimes[f.relPath]!.identity.name)].sort(cmp);
  return { checked, diagnostics, names };
}
