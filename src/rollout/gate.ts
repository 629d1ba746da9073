// The gate between a ring and the next one: open when, for every runtime of the ring, every
// extension shows the ring's current render in effect (Ready or Disabled, not stale) and has done
// so for at least the ring's bake time, counted from the later of the ring's promotion and the
// state's last transition, with at most maxFailed runtimes Failed or Drifted. Evidence older than
// the promotion never counts, so a status taken before the change cannot open the gate. Pure: the
// clock is an argument.

import { cmp } from '../lib/diagnostics';
import type { RuntimeStatusRecord } from '../status/status-file';

export interface GateInput {
  readonly ring: string;
  readonly bakeMs: number;
  readonly maxFailed: number;
  /** When the ring got onto its current revision. */
  readonly since: Date;
  /** The ring's runtimes (name and runtime ID, for matching the status record). */
  readonly runtimes: ReadonlyArray<{ readonly name: string; readonly runtimeID: string }>;
  /** The status records by runtime name (absent: never observed). */
  readonly status: ReadonlyMap<string, RuntimeStatusRecord>;
  readonly now: Date;
}

export interface GateHolder {
  readonly runtime: string;
  /** One line: which extension is in which state and why, e.g. `<extension> Drifted (ShootConfigDrift)`. */
  readonly why: string;
}

export interface GateVerdict {
  readonly open: boolean;
  /** One line for people: why the gate is open or closed. */
  readonly reason: string;
  /** Runtimes that hold the gate, sorted by name. */
  readonly holders: readonly GateHolder[];
  /** Runtimes Failed or Drifted (counted against maxFailed), sorted. */
  readonly failed: readonly GateHolder[];
  /** Milliseconds until the last baking runtime has baked (0 when none is baking). */
  readonly bakeLeftMs: number;
  /** Runtimes by their summary of this gate: ready (baked), baking, failed, waiting (not in effect yet). */
  readonly counts: { readonly baked: number; readonly baking: number; readonly failed: number; readonly waiting: number };
}

export function evaluateGate(input: GateInput): GateVerdict {
  const since = input.since.getTime();
  const now = input.now.getTime();
  const holders: GateHolder[] = [];
  const failed: GateHolder[] = [];
  let bakeLeftMs = 0;
  const counts = { baked: 0, baking: 0, failed: 0, waiting: 0 };
  for (const { name, runtimeID } of [...input.runtimes].sort((a, b) => cmp(a.name, b.name))) {
    const record = input.status.get(name);
    if (!record || record.runtimeID.toLowerCase() !== runtimeID.toLowerCase()) {
      holders.push({ runtime: name, why: 'not observed yet (no status for this runtime)' });
      counts.waiting++;
      continue;
    }
    const bad: string[] = [];
    const waiting: string[] = [];
    let left = 0;
    for (const ext of Object.keys(record.extensions).sort(cmp)) {
      const e = record.extensions[ext]!;
      if (e.state === 'Failed' || e.state === 'Drifted') bad.push(`${ext} ${e.state} (${e.reason})`);
      else if (e.stale) waiting.push(`${ext} stale (${e.reason}; last known ${e.lastKnown?.state ?? 'nothing'})`);
      else if (e.state !== 'Ready' && e.state !== 'Disabled') waiting.push(`${ext} ${e.state} (${e.reason})`);
      else {
        const from = Math.max(since, Date.parse(e.lastTransitionTime));
        left = Math.max(left, from + input.bakeMs - now);
      }
    }
    if (bad.length > 0) {
      failed.push({ runtime: name, why: bad.join(', ') });
      counts.failed++;
    } else if (waiting.length > 0) {
      holders.push({ runtime: name, why: waiting.join(', ') });
      counts.waiting++;
    } else if (left > 0) {
      holders.push({ runtime: name, why: `baking, ${formatDuration(left)} left` });
      bakeLeftMs = Math.max(bakeLeftMs, left);
      counts.baking++;
    } else counts.baked++;
  }
  const tooMany = failed.length > input.maxFailed;
  const allHolders = [...holders, ...(tooMany ? failed : [])].sort((a, b) => cmp(a.runtime, b.runtime));
  const open = allHolders.length === 0;
  let reason: string;
  if (input.runtimes.length === 0) reason = `ring ${input.ring} has no runtimes`;
  else if (open) {
    reason = `every runtime of ring ${input.ring} has shown its render in effect for ${formatDuration(input.bakeMs)}` + (failed.length > 0 ? ` (${failed.length} Failed or Drifted, at most ${input.maxFailed} allowed)` : '');
  } else {
    const parts: string[] = [];
    if (counts.waiting > 0) parts.push(`${counts.waiting} not in effect yet`);
    if (counts.baking > 0) parts.push(`${counts.baking} baking (${formatDuration(bakeLeftMs)} left)`);
    if (tooMany) parts.push(`${failed.length} Failed or Drifted, at most ${input.maxFailed} allowed`);
    reason = `ring ${input.ring}: ${parts.join(', ')}`;
  }
  return { open, reason, holders: allHolders, failed, bakeLeftMs, counts };
}

/** A duration for people: `1d2h`, `3h5m`, `4m10s`, `0s`. */
export function formatDuration(ms: number): string {
  let s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts = [d ? `${d}d` : '', h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].filter(Boolean);
  return parts.slice(0, 2).join('') || '0s';
}
