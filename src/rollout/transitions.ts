// The moves of a rollout as pure functions of the state: start, advance one ring, abort, pause and
// resume, and fitting a stored state to the rings fleet.yaml declares now. The CLI does the I/O
// (./store.ts) and the checks (./gate.ts, ./windows.ts) around them. A ring that moves loses the
// windowOverride of its previous move (the reason belongs to the move that needed it).

import { REST_RING, type RolloutConfig } from '../validate/rollout-options';
import { ringNames } from './rings';
import { formatTime, type RingState, type RolloutState } from './state-file';

/**
 * The state with exactly the rings of `config` (and `rest`), in its order. A ring the state does
 * not know yet (added to fleet.yaml since) is where the next ring it knows is (`rest` at the
 * latest): a new ring never gets a revision before the rings after it. Rings no longer declared
 * are dropped.
 */
export function alignState(state: RolloutState, config: RolloutConfig): RolloutState {
  const known = new Map(state.rings.map((r) => [r.name, r]));
  const names = ringNames(config);
  const rest = known.get(REST_RING) ?? state.rings[state.rings.length - 1]!;
  const rings: RingState[] = [];
  for (let i = names.length - 1; i >= 0; i--) {
    const name = names[i]!;
    const next = rings[0] ?? { ...rest, name: REST_RING };
    const mine = known.get(name);
    rings.unshift(mine ? { ...mine, name } : { name, revision: next.revision, since: next.since });
  }
  return { paused: state.paused, rings };
}

/**
 * `rollout start`: the first ring moves to `revision`; the first start on a fleet (no state)
 * puts every ring on it. Undefined when the first ring is on it already.
 */
export function startRollout(state: RolloutState | undefined, config: RolloutConfig, revision: string, now: Date): RolloutState | undefined {
  const since = formatTime(now);
  if (!state) return { paused: false, rings: ringNames(config).map((name) => ({ name, revision, since })) };
  const aligned = alignState(state, config);
  if (aligned.rings[0]!.revision === revision) return undefined;
  return { ...aligned, rings: aligned.rings.map((r, i) => (i === 0 ? { name: r.name, revision, since } : r)) };
}

/** The index of the ring `rollout advance` leaves: the first whose next ring is on another revision. */
export function ringToLeave(state: RolloutState): number | undefined {
  for (let i = 0; i + 1 < state.rings.length; i++) if (state.rings[i]!.revision !== state.rings[i + 1]!.revision) return i;
  return undefined;
}

/**
 * Moves the ring after `left` to the revision of ring `left`; then, while the ring just moved has no
 * runtimes (its gate holds nothing), the ring after it too. Returns the new state and the rings moved.
 */
export function advanceFrom(state: RolloutState, left: number, now: Date, isEmpty: (ring: string) => boolean): { state: RolloutState; moved: string[] } {
  const since = formatTime(now);
  const rings = [...state.rings];
  const revision = rings[left]!.revision;
  const moved: string[] = [];
  for (let i = left + 1; i < rings.length; i++) {
    if (rings[i]!.revision === revision) break;
    rings[i] = { name: rings[i]!.name, revision, since };
    moved.push(rings[i]!.name);
    if (!isEmpty(rings[i]!.name)) break;
  }
  return { state: { ...state, rings }, moved };
}

/** `rollout abort`: every ring back to the revision of the last ring; the rings moved. */
export function abortRollout(state: RolloutState, now: Date): { state: RolloutState; moved: string[] } {
  const since = formatTime(now);
  const last = state.rings[state.rings.length - 1]!.revision;
  const moved = state.rings.filter((r) => r.revision !== last).map((r) => r.name);
  return { state: { ...state, rings: state.rings.map((r) => (r.revision === last ? r : { name: r.name, revision: last, since })) }, moved };
}

/** The state with `reason` recorded on these rings (moved by `--override-window REASON` outside their window). */
export function withWindowOverride(state: RolloutState, rings: readonly string[], reason: string): RolloutState {
  return { ...state, rings: state.rings.map((r) => (rings.includes(r.name) ? { ...r, windowOverride: reason } : r)) };
}

export function setPaused(state: RolloutState, paused: boolean): RolloutState {
  return { ...state, paused };
}
