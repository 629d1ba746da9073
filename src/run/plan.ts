// The plan stage of a synth: what the run can take from the last one, decided before any runtime
// file is read. It reads the run record of the cache folder (./run-record.ts) and dist/'s index,
// loads the fleet-wide layers once (fleet.yaml, groups, auxiliary files: the check's input, not read
// again), and decides whether the record can be used (same layers key and time epoch, dist/'s index
// the one its run wrote) and, without it, whether a large fleet is rendered in parts. Without a
// usable run record (a fresh CI runner) the record committed in dist/'s index stands in for it once
// dist/'s files are hashed against the index (./committed-record.ts).

import * as path from 'node:path';
import { codeKey } from '../lib/code-key';
import { indexTextDigest, parseIndex, readIndexText, vouchedIndexDigest } from '../lib/dist-index';
import type { StampedListing } from '../load/folder-walk';
import { type FleetLayers, loadFleet, loadLayers } from '../load/load';
import { startScan, startTouched, type TreeScan } from '../write/tree-scan';
import { committedKey, readCommitted, trustCommitted } from './committed-record';
import { workerCount } from './parallel/pool';
import { threadLimit } from './parallel/threads';
import { epochOf, layersKey, loadRunRecord, type RunRecord } from './run-record';
import { dropWarm, warmWorkersFor } from './warm-start';

export interface SynthOptions {
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly allowEmpty?: boolean;
  readonly allowMassRemoval?: boolean;
  /** Parse cache folder (see load/parse-cache.ts); undefined parses every file. */
  readonly cacheDir?: string;
  /** Environment for the worker settings (KYMA_FLEET_WORKERS, KYMA_FLEET_PARALLEL_MIN); process.env by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** Told what the run is doing (the CLI draws a progress bar on a terminal for long runs). */
  readonly progress?: (phase: string, done: number, total: number) => void;
  /**
   * Whether the record committed in dist/'s index may stand in for a missing run record
   * (./committed-record.ts); by default exactly when there is a cache folder (--no-cache does everything anew).
   */
  readonly committed?: boolean;
}

/** dist/'s index as the run read it at its start. */
export interface ReadIndex {
  readonly text: string;
  /** sha256 of the text (what a run record names). */
  readonly digest: string;
  /** The file's stamp after the text was read, if it was settled then (src/lib/file-stamp.ts). */
  readonly stamp?: string;
}

/** What a check needs to know before it reads a runtime file. */
export interface CheckPlan {
  readonly outDir: string;
  readonly fleetRoot: string;
  /** The fleet-wide layers, loaded once. */
  readonly layers: FleetLayers;
  /** layersKey of the layers and the options that change a check's verdict. */
  readonly key: string;
  /** The record of the last synth while dist/'s index is the one that run wrote. */
  readonly trusted: RunRecord | undefined;
  /** The trusted record when it also has this run's key and time epoch: unchanged runtime files are not parsed. */
  readonly reusable: RunRecord | undefined;
  readonly index: ReadIndex | undefined;
  /**
   * Compare dist/'s files byte for byte before keeping them (what `--check` does): without a cache
   * folder, and whenever no record vouches for dist/ (none, another index, or a file of dist/
   * changed since that run: touchedSince in src/write/tree-scan.ts), so that a plain synth restores a hand-edited file.
   */
  readonly verify: boolean;
  /** `trusted` is the record committed in dist/'s index (no run record of this cache folder described dist/). */
  readonly committed: boolean;
  /** committedKey of the layers: what this run's own committed record names. */
  readonly committedKey: string;
  /** dist/ scanned against its index for the committed record (src/write/tree-scan.ts). */
  readonly scan?: TreeScan;
  /** The fleet's runtimes/ listed and stamped by a worker meanwhile (RuntimePlan.listing), when one did. */
  readonly runtimesListing?: () => StampedListing | undefined;
}

export interface RunPlan extends CheckPlan {
  /** How many runtime files the run checks (the record's count when it is reusable). */
  readonly runtimeFiles: number;
  /** Worker parts that check and render the runtimes (0: this thread does it all). */
  readonly parts: number;
}

/**
 * A plan whose look at dist/ (the file times of touchedSince, or the scan for the committed record)
 * runs in worker threads while the caller checks the fleet with `assumed`: the plan as it is when
 * dist/ turns out as the record says. `confirm` waits for the workers: `held` says whether the
 * assumption held (what was done with `assumed` stands), else `plan` is the plan as it is.
 */
export interface StartedPlan<P extends CheckPlan> {
  readonly assumed: P;
  confirm(): { readonly plan: P; readonly held: boolean };
  /** Stops the workers (the caller failed before it confirmed). */
  cancel(): void;
}

/** The plan of a synth (the check's plan, and whether a large fleet is rendered in parts), started (see StartedPlan). */
export function startPlan(options: SynthOptions): StartedPlan<RunPlan> {
  const started = startPlanCheck(options, true);
  const withParts = (planned: CheckPlan): RunPlan => {
    // With a usable record the run stays in this thread: runtimes/ is listed once, by the check.
    const runtimeFiles = planned.reusable ? Object.keys(planned.reusable.runtimes).length : countRuntimeFiles(options, planned.layers);
    const parts = planned.reusable ? 0 : workerCount(runtimeFiles, options.env ?? process.env);
    return { ...planned, runtimeFiles, parts };
  };
  const assumed = withParts(started.assumed);
  return {
    assumed,
    confirm: () => {
      const { plan: planned, held } = started.confirm();
      return { plan: held ? { ...assumed, ...(planned.scan ? { scan: planned.scan } : {}) } : withParts(planned), held };
    },
    cancel: started.cancel,
  };
}

/**
 * The plan of a check with the run record (synth, validate). `withoutRecord`: read dist/'s index
 * even when there is no record (synth's transition rules use it; validate's check reads it itself,
 * and only when a rule asks).
 */
export function planCheck(options: PlanOptions, withoutRecord: boolean): CheckPlan {
  return startPlanCheck(options, withoutRecord).confirm().plan;
}

type PlanOptions = Pick<SynthOptions, 'fleetDir' | 'outDir' | 'cwd' | 'now' | 'allowEmpty' | 'cacheDir' | 'committed' | 'env'>;

/** planCheck, started (see StartedPlan). */
export function startPlanCheck(options: PlanOptions, withoutRecord: boolean): StartedPlan<CheckPlan> {
  const outDir = path.resolve(options.cwd, options.outDir);
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const cacheDir = options.cacheDir;
  const useCommitted = options.committed ?? cacheDir !== undefined;
  const threads = threadLimit(options.env);
  // The workers that look at dist/ start up while this thread reads the run record and the index
  // (on two cores they began their work 0.25 s later otherwise, and this thread did more of it).
  // The first of them lists and stamps runtimes/ first, for the run record's stamps.
  // (Started already when the CLI knew the folders: ./warm-start.ts.)
  const warm = cacheDir || useCommitted ? warmWorkersFor(outDir, fleetRoot, cacheDir !== undefined, threads) : dropWarm();
  const record = cacheDir ? loadRunRecord(cacheDir, options.cwd, fleetRoot, outDir) : undefined;
  // Only the text is kept (the write compares the index under its lock by digest; the scan's
  // workers read their ranges of the file and check them against it).
  const read = (cacheDir && (record || withoutRecord)) || useCommitted ? readIndexText(outDir, Date.now()) : undefined;
  const text = read?.text;
  // An index with the settled stamp the record's run took of it under its lock is the one that run
  // wrote: its digest is the recorded one, not hashed again (26 ms at 10,000 runtimes).
  const vouched = read?.stamp !== undefined && record?.indexStamp === read.stamp;
  const digest = text === undefined ? undefined : vouched ? vouchedIndexDigest(text, record!.index) : indexTextDigest(text);
  const index = text === undefined ? undefined : { text, digest: digest!, ...(read?.stamp !== undefined ? { stamp: read.stamp } : {}) };
  // The record describes dist/ only while dist/'s index is the one that run wrote, and no file of
  // dist/ changed since that run wrote it (a hand edit keeps the index as it was).
  const view = record && digest === record.index ? parseIndex(text!, { ours: true })?.view : undefined;
  const touched = record && view ? startTouched(outDir, view, record.settled, threads, { warm }) : undefined;
  // Without a record of this cache folder (a fresh CI runner), the scan for the committed record
  // starts before the fleet-wide inputs are read, which decide whether it is needed: its workers
  // read dist/ meanwhile (on two cores, 0.1 s of one core idle otherwise). Stopped when not needed.
  const committedView = !touched && useCommitted && text !== undefined ? parseIndex(text)?.view : undefined;
  const earlyScan = committedView ? startScan(outDir, committedView, text!, threads, { warm }) : undefined;
  warm?.release();
  let layers: FleetLayers;
  let key: string;
  let fleetKey: string;
  try {
    // The program's key as the record's run found it, while its files have the stamps they had then.
    if (record?.code) codeKey(record.code);
    layers = loadLayers({ fleetDir: options.fleetDir, cwd: options.cwd });
    key = layersKey(layers, { allowEmpty: options.allowEmpty ?? false });
    fleetKey = committedKey(layers);
  } catch (e) {
    earlyScan?.cancel();
    touched?.cancel();
    throw e;
  }
  const common = { outDir, fleetRoot, layers, key, index, committedKey: fleetKey, ...(warm ? { runtimesListing: () => warm.prelude() as StampedListing | undefined } : {}) };
  const reusableOf = (trusted: RunRecord | undefined): RunRecord | undefined => (trusted && trusted.key === key && epochOf(trusted.thresholds, options.now) === trusted.epoch ? trusted : undefined);

  // Else the record committed in dist/'s index, once dist/'s files are hashed against it (the same
  // scan then stands for the write's walk of dist/ in a run that writes nothing).
  const startCommitted = (): StartedPlan<CheckPlan> => {
    const indexView = useCommitted && text !== undefined ? parseIndex(text)?.view : undefined;
    const inputs = indexView ? readCommitted(text!) : undefined;
    // With other fleet-wide inputs than the record names, no runtime's input is the one it recorded
    // (unless rollout rings render runtimes at earlier revisions): every runtime is rendered and
    // compared anyway, and scanning dist/ first would only add to that.
    const standsForSome = inputs !== undefined && (inputs.key === fleetKey || declaresRollout(layers));
    if (!standsForSome) earlyScan?.cancel();
    const scan = standsForSome ? (earlyScan ?? startScan(outDir, indexView!, text!, threads)) : undefined;
    const planOf = (committed: RunRecord | undefined, scanned?: TreeScan): CheckPlan => ({
      ...common,
      trusted: committed,
      reusable: reusableOf(committed),
      // A committed record's runtimes with edited files are rendered again and compared byte for byte.
      verify: true,
      committed: committed !== undefined,
      ...(scanned ? { scan: scanned } : {}),
    });
    // Assumed: every file as the index lists it.
    const assumed = planOf(inputs && scan ? trustCommitted(inputs, UNEDITED, digest!, layers, key, options.now) : undefined);
    return {
      assumed,
      confirm: () => {
        const scanned = scan?.finish();
        const committed = inputs && scanned ? trustCommitted(inputs, scanned, digest!, layers, key, options.now) : undefined;
        // Without a record to trust there was nothing to assume (and no scan).
        if (assumed.trusted === undefined) return { plan: assumed, held: true };
        const held = committed !== undefined && scanned!.editedRuntimes.size === 0;
        return { plan: held ? { ...assumed, scan: scanned! } : planOf(committed, scanned), held };
      },
      cancel: () => scan?.cancel(),
    };
  };

  if (!touched) return startCommitted();
  // Assumed: no file of dist/ changed since the record's run.
  const assumed: CheckPlan = { ...common, trusted: record, reusable: reusableOf(record), verify: !cacheDir, committed: false };
  return {
    assumed,
    confirm: () => {
      if (!touched.finish()) return { plan: assumed, held: true };
      return { plan: startCommitted().confirm().plan, held: false };
    },
    cancel: touched.cancel,
  };
}

/** A scan that found every file as the index lists it. */
const UNEDITED = { editedRuntimes: new Set<string>(), editedOutside: false } as const;

/** Whether fleet.yaml declares spec.rollout (whatever else it says: the check judges it). */
function declaresRollout(layers: FleetLayers): boolean {
  const spec = (layers.fleet?.data as { spec?: unknown } | undefined)?.spec;
  return typeof spec === 'object' && spec !== null && 'rollout' in spec;
}

/** How many files runtimes/ lists that the check would look at (none is read). */
function countRuntimeFiles(options: SynthOptions, layers: FleetLayers): number {
  let count = 0;
  loadFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    layers,
    runtimePlan: () => ({
      select: () => {
        count++;
        return false;
      },
    }),
  });
  return count;
}
