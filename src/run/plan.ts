// The plan stage of a synth: what the run can take from the last one, decided before any runtime
// file is read. It reads the run record of the cache folder (./run-record.ts) and dist/'s index,
// loads the fleet-wide layers once (fleet.yaml, groups, auxiliary files: the check's input, not read
// again), and decides whether the record can be used (same layers key and time epoch, dist/'s index
// the one its run wrote) and, without it, whether a large fleet is rendered in parts. Without a
// usable run record (a fresh CI runner) the record committed in dist/'s index stands in for it once
// dist/'s files are hashed against the index (./committed-record.ts).

import * as path from 'node:path';
import { indexTextDigest, parseIndex } from '../lib/dist-index';
import { type FleetLayers, loadFleet, loadLayers } from '../load/load';
import { readIndexBytes } from '../write/dist-writer';
import { type TreeScan, scanTree, touchedSince } from '../write/tree-scan';
import { committedKey, readCommitted, trustCommitted } from './committed-record';
import { threadLimit, workerCount } from './parallel/pool';
import { epochOf, layersKey, loadRunRecord, type RunRecord } from './run-record';

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
}

export interface RunPlan extends CheckPlan {
  /** How many runtime files the run checks (the record's count when it is reusable). */
  readonly runtimeFiles: number;
  /** Worker parts that check and render the runtimes (0: this thread does it all). */
  readonly parts: number;
}

/** The plan of a synth: the check's plan, and whether a large fleet is rendered in parts. */
export function plan(options: SynthOptions): RunPlan {
  const planned = planCheck(options, true);
  // With a usable record the run stays in this thread: runtimes/ is listed once, by the check.
  const runtimeFiles = planned.reusable ? Object.keys(planned.reusable.runtimes).length : countRuntimeFiles(options, planned.layers);
  const parts = planned.reusable ? 0 : workerCount(runtimeFiles, options.env ?? process.env);
  return { ...planned, runtimeFiles, parts };
}

/**
 * The plan of a check with the run record (synth, validate). `withoutRecord`: read dist/'s index
 * even when there is no record (synth's transition rules use it; validate's check reads it itself,
 * and only when a rule asks).
 */
export function planCheck(options: Pick<SynthOptions, 'fleetDir' | 'outDir' | 'cwd' | 'now' | 'allowEmpty' | 'cacheDir' | 'committed' | 'env'>, withoutRecord: boolean): CheckPlan {
  const outDir = path.resolve(options.cwd, options.outDir);
  const fleetRoot = path.resolve(options.cwd, options.fleetDir);
  const cacheDir = options.cacheDir;
  const useCommitted = options.committed ?? cacheDir !== undefined;
  const record = cacheDir ? loadRunRecord(cacheDir, options.cwd, fleetRoot, outDir) : undefined;
  // In shared memory: the scan's worker threads read their ranges of it without a copy. Only the
  // text is kept (the write compares the index under its lock by digest).
  const bytes = (cacheDir && (record || withoutRecord)) || useCommitted ? readIndexBytes(outDir, true) : undefined;
  const text = bytes?.toString('utf8');
  const digest = text === undefined ? undefined : indexTextDigest(text);
  // The record describes dist/ only while dist/'s index is the one that run wrote, and no file of
  // dist/ changed since that run wrote it (a hand edit keeps the index as it was).
  const view = record && digest === record.index ? parseIndex(text!, { ours: true })?.view : undefined;
  const local = record && view && !touchedSince(outDir, view, record.settled, threadLimit(options.env)) ? record : undefined;
  const layers = loadLayers({ fleetDir: options.fleetDir, cwd: options.cwd });
  const key = layersKey(layers, { allowEmpty: options.allowEmpty ?? false });
  // Else the record committed in dist/'s index, once dist/'s files are hashed against it (the same
  // scan then stands for the write's walk of dist/ in a run that writes nothing).
  const indexView = !local && useCommitted && text !== undefined ? parseIndex(text)?.view : undefined;
  const inputs = indexView ? readCommitted(text!) : undefined;
  const fleetKey = committedKey(layers);
  // With other fleet-wide inputs than the record names, no runtime's input is the one it recorded
  // (unless rollout rings render runtimes at earlier revisions): every runtime is rendered and
  // compared anyway, and scanning dist/ first would only add to that.
  const standsForSome = inputs !== undefined && (inputs.key === fleetKey || declaresRollout(layers));
  const scan = standsForSome ? scanTree(outDir, indexView!, text!, threadLimit(options.env), bytes) : undefined;
  const committed = inputs && scan ? trustCommitted(inputs, scan, digest!, layers, key, options.now) : undefined;
  const trusted = local ?? committed;
  const reusable = trusted && trusted.key === key && epochOf(trusted.thresholds, options.now) === trusted.epoch ? trusted : undefined;
  const index = text === undefined ? undefined : { text, digest: digest! };
  // A committed record's runtimes with edited files are rendered again and compared byte for byte.
  return { outDir, fleetRoot, layers, key, trusted, reusable, index, verify: !cacheDir || !local, committed: committed !== undefined, committedKey: fleetKey, ...(scan ? { scan } : {}) };
}

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
