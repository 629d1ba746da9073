// What `rollout advance` sees: it observes the runtimes as `kyma-fleet status` does (a folder of
// dumps or live clusters, through src/observe), judges them against each runtime's current render
// (its ring's revision: the resolved runtimes carry it), and updates fleet/status/ the same way,
// under the status folder's lock, so that the evidence a gate opened on is committed beside the
// move. Returns the new status records for the gate.

import * as path from 'node:path';
import { readGardenReport } from '../apply/garden-report';
import type { Observation, RuntimeRef } from '../observe/observed';
import { observeDumps } from '../observe/dump-source';
import { sanitizeMessage } from '../observe/sanitize';
import type { ResolvedRuntime } from '../resolve/resolve';
import { buildStatusReport, runtimeRefs } from '../status/report';
import type { RuntimeStatusRecord } from '../status/status-file';
import { lockStatusDir } from '../status/status-lock';
import { readPreviousStatus, writeStatusFiles } from '../status/write-status';
import type { FleetModel } from '../validate/model';

/** Live cluster options, as `kyma-fleet status` takes them. */
export interface LiveSource {
  /** Kubeconfig files, merged as kubectl merges $KUBECONFIG. */
  readonly kubeconfig: readonly string[];
  readonly kcpContext: string;
  readonly gardenContext: string;
  readonly allowExec: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

export interface ObserveInput {
  readonly model: FleetModel;
  readonly runtimes: readonly ResolvedRuntime[];
  /** A dump folder (absolute) and how to show it, or live clusters. */
  readonly source: { readonly dumps: string; readonly display: string } | { readonly live: LiveSource };
  /** The status folder (absolute) and how to show it (`fleet/status/`). */
  readonly statusDir: string;
  readonly statusDisplay: string;
  readonly now: Date;
  /** Warnings, one line each. */
  readonly warn: (line: string) => void;
}

export type ObserveOutcome =
  | { readonly ok: true; readonly records: ReadonlyMap<string, RuntimeStatusRecord>; readonly written: number }
  | { readonly ok: false; readonly kind: 'lock' | 'write'; readonly message: string; readonly problem: { readonly code: string; readonly message: string } }
  | { readonly ok: false; readonly kind: 'source'; readonly message: string; readonly reason: string; readonly detail: string };

type ObserveLive = (refs: RuntimeRef[], options: LiveSource & { skrApiServers?: readonly string[]; inventory?: boolean }) => Promise<Observation>;

export async function observeAndRecord(input: ObserveInput): Promise<ObserveOutcome> {
  const lock = lockStatusDir(input.statusDir, input.statusDisplay);
  if (!lock.ok) return { ok: false, kind: 'lock', message: `${input.statusDisplay}: error: ${lock.problem.message} [${lock.problem.code}]`, problem: lock.problem };
  try {
    const refs = runtimeRefs(input.model, input.runtimes);
    const source = input.source;
    const observation =
      'live' in source
        ? await loadLiveSource()(refs, { ...source.live, skrApiServers: input.model.options.skrApiServers, inventory: true })
        : observeDumps(source.dumps, refs, { display: source.display });
    for (const w of observation.warnings) input.warn(`${w.pointer === '' ? w.where : `${w.where}#${w.pointer}`}: warning: ${sanitizeMessage(w.message)}`);
    if (observation.global) {
      const detail = sanitizeMessage(observation.global.message);
      return { ok: false, kind: 'source', message: `rollout advance: error: ${observation.global.reason}: ${detail} (nothing written)`, reason: observation.global.reason, detail };
    }
    const previous = readPreviousStatus(input.statusDir, refs.map((r) => r.name));
    for (const p of previous.problems) input.warn(`${input.statusDisplay}${p.file}: warning: ${p.message}`);
    const gardenApply = readGardenReport(input.statusDir);
    const report = buildStatusReport({ model: input.model, runtimes: input.runtimes, observation, previous: previous.texts, now: input.now, ...(gardenApply ? { gardenApply } : {}) });
    for (const w of report.warnings) input.warn(`${input.statusDisplay}${w.file}: warning: ${w.message}`);
    // status.html is kept as the last `status --html` wrote it only when it is there: advance writes what status writes by default.
    const result = writeStatusFiles(input.statusDir, report.files, input.statusDisplay);
    if (!result.ok) return { ok: false, kind: 'write', message: `${input.statusDisplay}: error: ${result.problem.message} [${result.problem.code}]`, problem: result.problem };
    return { ok: true, records: new Map(report.records.map((r) => [r.name, r])), written: result.written.length + result.removed.length };
  } finally {
    lock.release();
  }
}

function loadLiveSource(): ObserveLive {
  // Loaded only when asked for: it pulls in @kubernetes/client-node.
  const mod = require(path.join(__dirname, '..', 'observe', 'live-source')) as { observeLive?: unknown };
  if (typeof mod.observeLive !== 'function') throw new Error('live cluster reading is not available in this build (no observeLive)');
  return mod.observeLive as ObserveLive;
}
