// `rollout status`: per ring its revision, since when, its runtimes and their states as the last
// status run recorded them (fleet/status/), the bake time left and whether its gate is open, with
// the reason, and its change window now (open until when, or closed and when the next one opens).
// Read-only: `rollout advance` observes the clusters again before it trusts a gate.

import { cmp } from '../lib/diagnostics';
import { STATUS_STATES, type StatusState } from '../status/states';
import { parseStatusFile, type RuntimeStatusRecord } from '../status/status-file';
import { readPreviousStatus } from '../status/write-status';
import { evaluateGate, formatDuration } from './gate';
import type { RolloutView } from './ring-resolve';
import { judgeWindows, windowJson, windowLine, windowsOf } from './windows';

/** The status records of these runtimes in a status folder (unreadable or foreign files: none). */
export function readStatusRecords(statusDir: string, names: readonly string[]): Map<string, RuntimeStatusRecord> {
  const out = new Map<string, RuntimeStatusRecord>();
  for (const [name, text] of readPreviousStatus(statusDir, names).texts) {
    const parsed = parseStatusFile(text, name);
    if ('record' in parsed) out.set(name, parsed.record);
  }
  return out;
}

export interface RingRow {
  readonly name: string;
  readonly revision: string;
  readonly since: string;
  readonly runtimes: readonly string[];
  /** Summary states of its runtimes as fleet/status/ has them (Unrecorded: no status file). */
  readonly states: Readonly<Record<string, number>>;
  /** Present for the ring `advance` would leave next. */
  readonly gate?: { readonly open: boolean; readonly reason: string; readonly bakeLeft: string; readonly bakeLeftSeconds: number; readonly holders: ReadonlyArray<{ runtime: string; why: string }> };
  /** Present when the ring has change windows: open or closed now, why, and the next change (windows.ts windowJson). */
  readonly window?: Record<string, unknown>;
  /** The reason it got onto its revision outside its change window (--override-window). */
  readonly windowOverride?: string;
}

export interface RingTable {
  readonly started: boolean;
  readonly paused: boolean;
  /** The revision of the working layers, and whether the first ring is on it. */
  readonly working: string;
  readonly pending: boolean;
  readonly rings: readonly RingRow[];
  readonly text: string;
}

export function ringTable(view: RolloutView, records: ReadonlyMap<string, RuntimeStatusRecord>, now: Date): RingTable {
  const state = view.state;
  const windows = new Map<string, string>();
  const windowOf = (ring: string): { window?: Record<string, unknown> } => {
    const v = judgeWindows(windowsOf(view.config, ring), now);
    if (!v.configured) return {};
    windows.set(ring, windowLine(v));
    return { window: windowJson(v) };
  };
  if (!state) {
    const text = `rollout not started: the rings follow the working layers (revision ${view.working.id}); kyma-fleet rollout start begins the first rollout\n`;
    return { started: false, paused: false, working: view.working.id, pending: false, rings: [], text };
  }
  let leaving: number | undefined;
  for (let i = 0; i + 1 < state.rings.length; i++) {
    if (state.rings[i]!.revision !== state.rings[i + 1]!.revision) {
      leaving = i;
      break;
    }
  }
  const rows: RingRow[] = state.rings.map((ring, i) => {
    const members = view.runtimes.filter((r) => r.ring === ring.name);
    const states: Record<string, number> = {};
    for (const m of members) {
      const s: StatusState | 'Unrecorded' = records.get(m.name)?.state ?? 'Unrecorded';
      states[s] = (states[s] ?? 0) + 1;
    }
    const ordered = Object.fromEntries([...STATUS_STATES, 'Unrecorded'].filter((s) => states[s]).map((s) => [s, states[s]!]));
    const row: RingRow = {
      name: ring.name,
      revision: ring.revision,
      since: ring.since,
      ...(ring.windowOverride === undefined ? {} : { windowOverride: ring.windowOverride }),
      runtimes: members.map((m) => m.name).sort(cmp),
      states: ordered,
      ...windowOf(ring.name),
    };
    if (i !== leaving) return row;
    const config = view.config.rings[i]!;
    const v = evaluateGate({ ring: ring.name, bakeMs: config.bakeMs, maxFailed: config.maxFailed, since: new Date(ring.since), runtimes: members, status: records, now });
    const reason = state.paused ? `paused (kyma-fleet rollout resume); ${v.reason}` : v.reason;
    return { ...row, gate: { open: v.open && !state.paused, reason, bakeLeft: formatDuration(v.bakeLeftMs), bakeLeftSeconds: Math.ceil(v.bakeLeftMs / 1000), holders: v.holders } };
  });
  const pending = state.rings[0]!.revision !== view.working.id;
  let text = `rollout${state.paused ? ' (paused)' : ''}: ${leaving === undefined ? `every ring is on revision ${state.rings[0]!.revision}` : `ring ${state.rings[leaving]!.name} is next to be left`}\n`;
  if (pending) text += `working layers: revision ${view.working.id}, not started (kyma-fleet rollout start)\n`;
  for (const row of rows) {
    const counts = Object.entries(row.states).map(([s, n]) => `${n} ${s}`).join(', ');
    text += `  ${row.name}: revision ${row.revision} since ${row.since}; ${row.runtimes.length} runtime${row.runtimes.length === 1 ? '' : 's'}${counts ? ` (${counts})` : ''}\n`;
    if (row.windowOverride !== undefined) text += `    moved outside its change window: --override-window ${JSON.stringify(row.windowOverride)}\n`;
    if (windows.has(row.name)) text += `    window ${windows.get(row.name)}\n`;
    if (row.gate) {
      text += `    gate ${row.gate.open ? 'open' : 'closed'}: ${row.gate.reason}\n`;
      for (const h of row.gate.holders.slice(0, 20)) text += `      ${h.runtime}: ${h.why}\n`;
      if (row.gate.holders.length > 20) text += `      … and ${row.gate.holders.length - 20} more\n`;
    }
  }
  text += 'gates are judged on fleet/status/ as last written; rollout advance observes the clusters again\n';
  return { started: true, paused: state.paused, working: view.working.id, pending, rings: rows, text };
}
