// One part of a parallel synth (issue 5: both cores for the cold path): the runtime files at
// positions part, part+of, part+2·of… of the sorted runtimes/ listing, loaded, validated, resolved
// and rendered exactly as a whole-fleet run would, minus the checks across files and the GitOps
// wiring (they need every runtime; the main thread does them). Runs in a worker thread, or in the
// main thread as the only part; either way a few hundred files at a time, so memory holds the
// parse and cdk8s trees of one chunk, not of the fleet.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { EXTENSIONS } from '../../extensions';
import { checkFleet } from '../check';
import { identityOf, type RuntimeIdentity } from '../../validate/model';
import { type Diagnostic, normalizeDiagnostics } from '../../lib/diagnostics';
import { fleetInputDigest, runtimeInputDigest } from '../input-digest';
import { ownGitopsFiles, renderFleet } from '../../render/render-fleet';
import type { Target } from '../../render/render-runtime';
import { renderedRuntimeRecord, type RenderedRuntimeRecord } from '../record';
import { Stager, type StagedFile, type StagingArea, stagingIndex } from '../../write/dist-writer';
import type { HashLookup } from '../../lib/dist-index';
import { layersKey } from '../run-record';

export interface PartRequest {
  readonly fleetDir: string;
  readonly cwd: string;
  /** ms since the epoch. */
  readonly now: number;
  readonly allowEmpty: boolean;
  /** dist/ of the previous render (transition rules). */
  readonly outDir: string;
  readonly part: number;
  readonly of: number;
  /** Input digests of the last render by runtime name: equal ones are not rendered (kept). */
  readonly previousInputs: Readonly<Record<string, string>>;
  /** The open write's staging tree: the part writes its files there itself (spreading the file-system work over the cores). */
  readonly staging: StagingArea;
}

/** A runtime of the part: its record (../record.ts; targets empty when kept), its input digest, and whether it was kept. */
export interface PartRuntime extends RenderedRuntimeRecord {
  readonly input: string;
  /** Input digest unchanged since the last render: not rendered, its files stay. Otherwise its own GitOps files (runtimeGitopsFiles) were staged with its files. */
  readonly kept: boolean;
}

export interface PartResult {
  readonly ok: boolean;
  readonly layersKey: string;
  readonly diagnostics: readonly Diagnostic[];
  /** Identities of every runtime this part parsed, valid or not (for the checks across files). */
  readonly identities: readonly RuntimeIdentity[];
  readonly runtimes: readonly PartRuntime[];
}

/** runtimes/** files of one chunk's rendered runtimes, as staged (written or found equal in dist/) once the chunk is done. */
export type ChunkFiles = readonly StagedFile[];

/** The runtime files of one part: every `of`-th name of the sorted listing, starting at `part`. */
export function partFiles(fleetDir: string, part: number, of: number): Set<string> {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(fleetDir, 'runtimes')).sort();
  } catch {
    names = [];
  }
  return new Set(names.filter((_, i) => i % of === part).map((n) => `runtimes/${n}`));
}

/** Runtime files loaded at once: memory holds one chunk's parse, resolution and cdk8s trees. */
const CHUNK = 500;

/**
 * Renders a part chunk by chunk: each chunk's files go to `onFiles` at once (and are then dropped);
 * the results of all chunks are the part's result.
 */
export function renderPart(
  req: PartRequest,
  onFiles: (files: ChunkFiles, runtimes: number, chunk?: PartResult) => void,
  stopped: () => boolean = () => false,
  /** Called as the part works (the heartbeat a worker's main thread watches). */
  beat: () => void = () => {},
  /**
   * Hand each chunk's result to onFiles instead of keeping it: a worker's heap then holds one chunk,
   * not the records of every runtime of its part (at 100,000 runtimes those filled its heap limit
   * and made it collect garbage without end). The returned result carries only ok and layersKey.
   */
  streamResults = false,
): PartResult {
  const mine = [...partFiles(path.resolve(req.cwd, req.fleetDir), req.part, req.of)];
  // dist/'s index, read once per part (as bytes) for staging and for the transition rules of every chunk.
  const previous = stagingIndex(req.staging);
  const stager = new Stager(req.staging, previous);
  const results: PartResult[] = [];
  // Test-only fault injection: KYMA_FLEET_FAIL_PART=<part> makes that part throw after its first
  // chunk; <part>:exit makes it end its thread silently there (as an out-of-memory kill would).
  const fault = /^([0-9]+)(:exit)?$/.exec(process.env.KYMA_FLEET_FAIL_PART ?? '');
  const failing = fault !== null && Number(fault[1]) === req.part;
  for (let i = 0; i === 0 || i < mine.length; i += CHUNK) {
    if (stopped()) throw new Error('synth part: stopped (another part failed)');
    if (failing && i > 0) {
      if (fault[2] && !isMainThread) process.exit(1);
      throw new Error(`synth part ${req.part}: failing on purpose (KYMA_FLEET_FAIL_PART)`);
    }
    beat();
    const files = mine.slice(i, i + CHUNK);
    const chunk = renderChunk(req, new Set(files), previous);
    results.push(streamResults ? { ok: chunk.result.ok, layersKey: chunk.result.layersKey, diagnostics: [], identities: [], runtimes: [] } : chunk.result);
    onFiles(
      chunk.files.map(([rel, content]) => {
        beat();
        return stager.stage(rel, content);
      }),
      files.length,
      streamResults ? chunk.result : undefined,
    );
  }
  return mergePartResults(results);
}

/** One result of a part's chunks (also of chunks sent one by one and the part's final summary). */
export function mergePartResults(results: readonly PartResult[]): PartResult {
  return {
    ok: results.every((r) => r.ok),
    // Chunks that saw different fleet-wide inputs (the fleet changed meanwhile) void the part.
    layersKey: results.every((r) => r.layersKey === results[0]!.layersKey) ? results[0]!.layersKey : '',
    diagnostics: normalizeDiagnostics(results.flatMap((r) => r.diagnostics)),
    identities: results.flatMap((r) => r.identities),
    runtimes: results.flatMap((r) => r.runtimes),
  };
}

function renderChunk(req: PartRequest, mine: ReadonlySet<string>, previous: HashLookup | undefined): { result: PartResult; files: ReadonlyArray<readonly [string, string]> } {
  // The chunk's names only: listing a folder of 100,000 files once per chunk would be quadratic.
  const names = [...mine].map((rel) => rel.slice('runtimes/'.length));
  let key = '';
  const inputs = new Map<string, string>();
  let fleetDigest: string | undefined;
  const checked = checkFleet({
    fleetDir: req.fleetDir,
    cwd: req.cwd,
    now: new Date(req.now),
    allowEmpty: true, // the main thread checks the fleet as a whole
    partOfFleet: true,
    previousDist: req.outDir,
    previousIndex: () => previous,
    unchangedSincePrevious: (model, r) => {
      fleetDigest ??= fleetInputDigest(model);
      const input = runtimeInputDigest(fleetDigest, r);
      inputs.set(r.runtime.name, input);
      return req.previousInputs[r.runtime.name] === input;
    },
    runtimes: {
      plan: (layers) => {
        key = layersKey(layers, { allowEmpty: req.allowEmpty });
        return { names, select: (rel) => mine.has(rel) };
      },
      identities: () => [],
    },
  });
  const identities = (checked.model?.runtimes ?? []).map(identityOf);
  if (!checked.ok || !checked.model) return { result: { ok: false, layersKey: key, diagnostics: checked.diagnostics, identities, runtimes: [] }, files: [] };
  const model = checked.model;
  fleetDigest ??= fleetInputDigest(model);
  const kept = new Map<string, { runtimeID: string; targets: Target[] }>();
  for (const r of checked.runtimes) {
    const input = inputs.get(r.runtime.name) ?? runtimeInputDigest(fleetDigest, r);
    inputs.set(r.runtime.name, input);
    if (req.previousInputs[r.runtime.name] === input) kept.set(r.runtime.name, { runtimeID: r.runtime.runtimeID, targets: [] });
  }
  const rendered = renderFleet(model, checked.runtimes, EXTENSIONS, kept, false);
  // The GitOps files of each rendered runtime alone are written here too, spread over the parts;
  // the main thread renders only the lists of all runtimes.
  const wiring = checked.runtimes
    .filter((r) => !kept.has(r.runtime.name))
    .map((r) => ({ name: r.runtime.name, runtimeID: r.runtime.runtimeID, targets: [], waitFor: [], ...rendered.wiring.get(r.runtime.name) }));
  const gitops = ownGitopsFiles(model, wiring);
  const runtimes: PartRuntime[] = checked.runtimes.map((r) => ({
    ...renderedRuntimeRecord(checked, r, rendered.wiring.get(r.runtime.name)?.targets ?? []),
    input: inputs.get(r.runtime.name)!,
    kept: kept.has(r.runtime.name),
  }));
  return { result: { ok: true, layersKey: key, diagnostics: checked.diagnostics, identities, runtimes }, files: [...rendered.files, ...gitops] };
}
