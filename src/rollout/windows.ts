// Change windows at an instant (docs/rollout.md#change-windows): for one ring, may a command act
// now, which rule decides, and when does the next allowed window open (or the open one close)?
// A freeze wins over every allowed window; without allowed windows every moment outside the
// freezes is allowed. Rules are judged on the wall clock of their zone: a weekly window holds while
// the local day is one of its days and the local time is in [start, end), a local dated range while
// the local date and time is in [from, to). So on a spring-forward day a window from 02:30 opens
// when the clock jumps to 03:00, and on a fall-back day a repeated hour counts twice. The search
// forward looks at every instant where the answer can change (rule boundaries read with each
// offset of the zone, and the zone's own offset changes), up to a bound. Pure: `now` is an argument.

import { instantsOfWallTime, offsetTransitions, type WallTime, wallKey, wallTime } from '../lib/time-zone';
import { REST_RING, type RolloutConfig } from '../validate/rollout-options';
import { type DatedBound, ringRules, type WindowRule } from '../validate/rollout-windows';

export interface RingWindows {
  readonly allow: readonly WindowRule[];
  readonly freeze: readonly WindowRule[];
}

export interface WindowVerdict {
  /** True when the ring has any rule (else it acts at any time and nothing else here matters). */
  readonly configured: boolean;
  readonly open: boolean;
  /** The rule that decides: the freeze it is in, or the allowed window it is in; absent when no rule holds. */
  readonly rule?: WindowRule;
  /** One line for people: why it is open or closed. */
  readonly reason: string;
  /** Closed: when it opens next (absent when not within the bound). */
  readonly opensAt?: Date;
  /** Open: when it closes next (absent when not within the bound, or never). */
  readonly closesAt?: Date;
  /** A zone to show opensAt and closesAt in (the deciding rule's, or the first rule's). */
  readonly zone: string;
}

/** How far `judgeWindows` searches forward. */
export const WINDOW_SEARCH_DAYS = 400;
const DAY = 86_400_000;

/** The rules of one ring (`rest` has only the fleet-wide ones). */
export function windowsOf(config: RolloutConfig, ring: string): RingWindows {
  const own = ring === REST_RING ? undefined : config.rings.find((r) => r.name === ring)?.windows;
  return ringRules(config.windows, own);
}

/** Whether acting is allowed at `ms`, and the rule that says so. */
export function allowedAt(rules: RingWindows, ms: number): { readonly open: boolean; readonly rule?: WindowRule } {
  const cache = new Map<string, WallTime>();
  const wall = (zone: string): WallTime => {
    let w = cache.get(zone);
    if (!w) cache.set(zone, (w = wallTime(ms, zone)));
    return w;
  };
  const holds = (r: WindowRule): boolean => {
    if (r.type === 'weekly') {
      const w = wall(r.timeZone!);
      const minute = w.hour * 60 + w.minute;
      return r.days.includes(w.weekday) && minute >= r.start && minute < r.end;
    }
    if ('instant' in r.from) return ms >= r.from.instant && ms < (r.to as { instant: number }).instant;
    const key = wallKey(wall(r.timeZone!));
    return key >= r.from.wall && key < (r.to as { wall: string }).wall;
  };
  const freeze = rules.freeze.find(holds);
  if (freeze) return { open: false, rule: freeze };
  if (rules.allow.length === 0) return { open: true };
  const allow = rules.allow.find(holds);
  return allow ? { open: true, rule: allow } : { open: false };
}

/** The verdict for `rules` at `now`, with the next change searched up to `boundDays` ahead. */
export function judgeWindows(rules: RingWindows, now: Date, boundDays = WINDOW_SEARCH_DAYS): WindowVerdict {
  const all = [...rules.freeze, ...rules.allow];
  const firstZone = all.find((r) => r.timeZone)?.timeZone ?? 'UTC';
  if (all.length === 0) return { configured: false, open: true, reason: 'no change windows: acts at any time', zone: 'UTC' };
  const t = now.getTime();
  const here = allowedAt(rules, t);
  const next = nextChange(rules, t, t + boundDays * DAY, !here.open);
  const at = next === undefined ? undefined : allowedAt(rules, next);
  const zone = here.rule?.timeZone ?? at?.rule?.timeZone ?? firstZone;
  let reason: string;
  if (here.rule?.kind === 'freeze') reason = `frozen by ${here.rule.label} (${here.rule.text})`;
  else if (here.rule) reason = `inside ${here.rule.label} (${here.rule.text})`;
  else if (here.open) reason = 'no allowed windows, and no freeze holds';
  else reason = `outside every allowed window (${rules.allow.map((r) => `${r.label}: ${r.text}`).join('; ')})`;
  const when = next === undefined ? {} : here.open ? { closesAt: new Date(next) } : { opensAt: new Date(next) };
  return { configured: true, open: here.open, ...(here.rule ? { rule: here.rule } : {}), reason, ...when, zone };
}

/** The first instant in (from, to] where `allowedAt(…).open === want`, or undefined. */
function nextChange(rules: RingWindows, from: number, to: number, want: boolean): number | undefined {
  for (const c of candidates(rules, from, to)) if (allowedAt(rules, c).open === want) return c;
  return undefined;
}

/**
 * Every instant in (from, to] where the verdict can change, sorted: each rule's boundaries (a weekly
 * rule's start and end on each of its days, a dated rule's from and to) read with each offset its
 * zone has around them, and the offset changes of every zone in use.
 */
function candidates(rules: RingWindows, from: number, to: number): number[] {
  const out = new Set<number>();
  const add = (ms: number): void => {
    if (ms > from && ms <= to) out.add(ms);
  };
  const zones = new Set<string>();
  for (const r of [...rules.freeze, ...rules.allow]) {
    if (r.timeZone) zones.add(r.timeZone);
    if (r.type === 'dated') {
      for (const b of [r.from, r.to]) for (const ms of boundInstants(b, r.timeZone)) add(ms);
      continue;
    }
    // Local dates from the day before `from` to the day after `to` (every zone is within ±1 day of UTC).
    const first = Math.floor(from / DAY) - 1;
    const last = Math.floor(to / DAY) + 1;
    for (let d = first; d <= last; d++) {
      const weekday = (new Date(d * DAY).getUTCDay() + 6) % 7;
      if (!r.days.includes(weekday)) continue;
      for (const minute of [r.start, r.end]) for (const ms of instantsOfWallTime(d * DAY + minute * 60_000, r.timeZone!)) add(ms);
    }
  }
  for (const zone of zones) for (const ms of offsetTransitions(zone, from, to)) add(ms);
  return [...out].sort((a, b) => a - b);
}

function boundInstants(b: DatedBound, zone: string | undefined): number[] {
  if ('instant' in b) return [b.instant];
  return instantsOfWallTime(Date.parse(`${b.wall}Z`), zone!);
}

/** An instant for people: `2026-11-30T08:00:00Z (Mon 2026-11-30 09:00 Europe/Berlin)`. */
export function formatInstant(d: Date, zone: string): string {
  const w = wallTime(d.getTime(), zone);
  const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][w.weekday];
  return `${d.toISOString().replace(/\.[0-9]{3}Z$/, 'Z')} (${day} ${wallKey(w).slice(0, 16).replace('T', ' ')} ${zone})`;
}

/** One line: why the ring may not act now and when it may. */
export function closedLine(ring: string, v: WindowVerdict): string {
  const next = v.opensAt ? `next window opens ${formatInstant(v.opensAt, v.zone)}` : `no allowed window opens within ${WINDOW_SEARCH_DAYS} days`;
  return `ring ${ring} is outside its change window: ${v.reason}; ${next}`;
}

/** One line: the ring's window now (for rollout status and the status page). */
export function windowLine(v: WindowVerdict): string {
  if (v.open) return `open: ${v.reason}${v.closesAt ? `; closes ${formatInstant(v.closesAt, v.zone)}` : ''}`;
  return `closed: ${v.reason}; ${v.opensAt ? `next window opens ${formatInstant(v.opensAt, v.zone)}` : `no allowed window opens within ${WINDOW_SEARCH_DAYS} days`}`;
}

/** A verdict as JSON (rollout status, the exit-6 documents): instants in RFC 3339, UTC. */
export function windowJson(v: WindowVerdict): Record<string, unknown> {
  const t = (d: Date): string => d.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
  return { open: v.open, reason: v.reason, ...(v.rule ? { rule: v.rule.label } : {}), ...(v.opensAt ? { opensAt: t(v.opensAt) } : {}), ...(v.closesAt ? { closesAt: t(v.closesAt) } : {}), zone: v.zone };
}

/** The rings among `rings` whose change window is closed at `now`, with their verdicts. */
export function closedRings(config: RolloutConfig, rings: readonly string[], now: Date): Array<{ readonly ring: string; readonly verdict: WindowVerdict }> {
  const out: Array<{ ring: string; verdict: WindowVerdict }> = [];
  for (const ring of rings) {
    const verdict = judgeWindows(windowsOf(config, ring), now);
    if (!verdict.open) out.push({ ring, verdict });
  }
  return out;
}

/**
 * `apply garden`: the runtimes among `names` whose ring's change window is closed at `now`, by ring
 * (rings in rollout order). A fleet without rollout rings has no windows: none.
 */
export function closedRuntimes(
  view: { readonly config: RolloutConfig; readonly runtimes: ReadonlyArray<{ readonly name: string; readonly ring: string }> } | undefined,
  names: readonly string[],
  now: Date,
): Array<{ readonly ring: string; readonly verdict: WindowVerdict; readonly runtimes: readonly string[] }> {
  if (!view) return [];
  const wanted = new Set(names);
  const byRing = new Map<string, string[]>();
  for (const r of view.runtimes) if (wanted.has(r.name)) byRing.set(r.ring, [...(byRing.get(r.ring) ?? []), r.name]);
  const order = [...view.config.rings.map((r) => r.name), REST_RING];
  return closedRings(view.config, order.filter((r) => byRing.has(r)), now).map((c) => ({ ...c, runtimes: byRing.get(c.ring)! }));
}

/** The change window of every ring that has rules, at `now` (rollout order), for the status page. */
export function ringWindowRows(config: RolloutConfig | undefined, now: Date): Array<{ readonly ring: string; readonly open: boolean; readonly text: string }> {
  if (!config) return [];
  const out: Array<{ ring: string; open: boolean; text: string }> = [];
  for (const ring of [...config.rings.map((r) => r.name), REST_RING]) {
    const v = judgeWindows(windowsOf(config, ring), now);
    if (v.configured) out.push({ ring, open: v.open, text: windowLine(v) });
  }
  return out;
}
