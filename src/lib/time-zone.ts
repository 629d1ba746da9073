// Wall-clock time in IANA time zones, from Node's Intl (Node 20 ships full ICU time-zone data, so no
// dependency is needed): whether a zone name exists, the local date and time of an instant in a
// zone, the zone's UTC offset, and the instants where the offset changes (daylight-saving
// transitions). Change windows (src/rollout/windows.ts) are judged on these. Pure: the clock is
// always an argument.

import { closestMatch } from './suggest';

/** The local date and time of an instant in a zone; weekday 0 = Monday … 6 = Sunday. */
export interface WallTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: number;
}

const WEEKDAYS: Readonly<Record<string, number>> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Why `name` is not a time zone to write in a fleet file, or undefined when it is one: an IANA
 * name as the tz database spells it (Europe/Berlin, America/New_York, UTC). Offsets (+01:00) and
 * other spellings of a name are refused with the name to write.
 */
export function timeZoneProblem(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return `must be an IANA time zone name such as Europe/Berlin or UTC (got ${JSON.stringify(name)})`;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    const guess = closestMatch(name, knownZones());
    return `unknown time zone ${JSON.stringify(name)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; use an IANA name such as Europe/Berlin or UTC`;
  }
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return `write the time zone as ${JSON.stringify(resolved)} (got ${JSON.stringify(name)})`;
  return undefined;
}

function knownZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  return supported ? [...supported('timeZone'), 'UTC'] : ['UTC'];
}

/** The local date and time of `ms` (whole seconds) in `zone`. */
export function wallTime(ms: number, zone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(new Date(Math.floor(ms / 1000) * 1000))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS[parts.weekday!] ?? 0,
  };
}

/** A wall time as text that sorts as the time does: `2026-03-29T02:30:00`. */
export function wallKey(w: Omit<WallTime, 'weekday'>): string {
  const p = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)}T${p(w.hour)}:${p(w.minute)}:${p(w.second)}`;
}

/** The zone's offset from UTC at `ms`, in milliseconds (Berlin in winter: +3,600,000). */
export function offsetAt(ms: number, zone: string): number {
  const w = wallTime(ms, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instants that may show a wall time in a zone: the wall time read as UTC minus each offset the
 * zone has within a day of it. One instant on most days; on a day of a transition also the one of
 * the other offset, which may not show that wall time (callers judge each instant on its own).
 */
export function instantsOfWallTime(wallAsUtc: number, zone: string): number[] {
  const day = 86_400_000;
  const out = new Set([wallAsUtc - offsetAt(wallAsUtc - day, zone), wallAsUtc - offsetAt(wallAsUtc + day, zone)]);
  return [...out].sort((a, b) => a - b);
}

/** The instants in [fromMs, toMs] at which the zone's offset changes (the first second of the new offset). */
export function offsetTransitions(zone: string, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  const step = 12 * 3_600_000;
  let lo = Math.floor(fromMs / 1000) * 1000;
  const until = Math.ceil(toMs / 1000) * 1000;
  let before = offsetAt(lo, zone);
  for (let hi = lo + step; lo < until; hi += step) {
    const end = Math.min(hi, until);
    const after = offsetAt(end, zone);
    if (after !== before) {
      let a = lo;
      let b = end;
      while (b - a > 1000) {
        const mid = a + Math.floor((b - a) / 2000) * 1000;
        if (offsetAt(mid, zone) === before) a = mid;
        else b = mid;
      }
      out.push(b);
    }
    lo = end;
    before = after;
  }
  return out;
}
