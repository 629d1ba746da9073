// Change windows of Fleet.spec.rollout (docs/rollout.md#change-windows): `windows` fleet-wide and
// per ring, each with allowed windows (`allow`) and freezes (`freeze`). A rule is weekly (days,
// start, end, in a time zone) or dated (from, to: local dates or times in a time zone, or RFC 3339
// times with an offset). The schema part says the shape; the rules here say what the schema
// cannot: real time zones, times of day, calendar dates, end after start, no day twice, one kind
// per rule, and an allowed window that a weekly freeze always covers. Pure; problems go to the
// reporter with the field path. What a rule means at an instant is src/rollout/windows.ts.

import type { JsonSchema, RuleReporter } from '../extensions/types';
import { type DocPath, quote } from '../lib/diagnostics';
import { isDNS1123Label } from '../lib/k8s-names';
import { timeZoneProblem } from '../lib/time-zone';

export const WINDOW_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** A bound of a dated rule: a wall time in the rule's zone, or an instant (written with an offset). */
export type DatedBound = { readonly wall: string } | { readonly instant: number };

interface RuleBase {
  readonly kind: 'allow' | 'freeze';
  /** `"year-end"` or, without a name, `freeze[0]`; with the scope: `fleet-wide freeze "year-end"`. */
  readonly label: string;
  /** IANA zone the rule is read in; absent only for a dated rule written with offsets. */
  readonly timeZone?: string;
  /** How the rule reads, for messages: `Mon,Tue 09:00 to 16:00 Europe/Berlin`. */
  readonly text: string;
  /** Where it is written, relative to Fleet.spec. */
  readonly path: DocPath;
}

export interface WeeklyRule extends RuleBase {
  readonly type: 'weekly';
  /** 0 = Monday … 6 = Sunday. */
  readonly days: readonly number[];
  /** Minutes after local midnight: start inclusive, end exclusive (1440 = 24:00). */
  readonly start: number;
  readonly end: number;
}

export interface DatedRule extends RuleBase {
  readonly type: 'dated';
  readonly from: DatedBound;
  readonly to: DatedBound;
}

export type WindowRule = WeeklyRule | DatedRule;

export interface WindowsConfig {
  /** Absent when the block sets no `allow` (a ring then uses the fleet-wide list). */
  readonly allow?: readonly WindowRule[];
  readonly freeze: readonly WindowRule[];
  readonly timeZone?: string;
}

const rule = (kind: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  description: `One ${kind === 'allow' ? 'allowed window' : 'freeze'}: weekly (days, start, end) or dated (from, to).`,
  properties: {
    name: { type: 'string', maxLength: 63, description: 'Name shown in messages (a DNS-1123 label, unique in its list pair); default: the list and index, e.g. freeze[0].' },
    days: { type: 'array', minItems: 1, maxItems: 7, items: { enum: [...WINDOW_DAYS] }, description: 'Weekly rule: the days it holds on (Mon … Sun), in its time zone.' },
    start: { type: 'string', maxLength: 5, description: 'Weekly rule: local time of day it starts, HH:MM (inclusive). @default "00:00"', examples: ['09:00'] },
    end: { type: 'string', maxLength: 5, description: 'Weekly rule: local time of day it ends, HH:MM up to 24:00 (exclusive), after start on the same day. @default "24:00"', examples: ['16:00'] },
    from: { type: 'string', maxLength: 40, description: 'Dated rule: first moment, a local date (2026-12-19) or date and time (2026-12-19T18:00) in timeZone, or RFC 3339 with an offset (2026-12-19T18:00:00+01:00).' },
    to: { type: 'string', maxLength: 40, description: 'Dated rule: the moment it ends (exclusive), written like from; a date alone means 00:00 of that day.' },
    timeZone: { type: 'string', maxLength: 64, description: 'IANA time zone the rule is read in. @default the timeZone of its windows block (a ring\'s block defaults to the fleet-wide one)' },
  },
});

/** The JSON Schema of a `windows` block (fleet-wide or of a ring). */
export function windowsSchema(scope: 'fleet' | 'ring'): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    description:
      scope === 'fleet'
        ? 'Change windows of every ring: rollout start, rollout advance and apply garden act only inside an allowed window and outside every freeze (docs/rollout.md#change-windows).'
        : "This ring's change windows: its `allow` replaces the fleet-wide list; its `freeze` rules add to the fleet-wide ones.",
    properties: {
      timeZone: { type: 'string', maxLength: 64, description: 'IANA time zone of the rules below that name none.', examples: ['Europe/Berlin'] },
      allow: { type: 'array', maxItems: 32, items: rule('allow'), description: 'Allowed windows: acting is allowed inside any of them. Without any, acting is allowed at any time outside the freezes.' },
      freeze: { type: 'array', maxItems: 32, items: rule('freeze'), description: 'Freezes: no acting inside any of them, whatever the allowed windows say.' },
    },
  };
}

type Rec = Readonly<Record<string, unknown>>;
const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;
const OFFSET_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?(Z|[+-][0-9]{2}:[0-9]{2})$/;
const LOCAL_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?$/;

/**
 * The `windows` block at `at` (a path relative to Fleet.spec), or undefined without one. `inherited`
 * is the zone a ring's block falls back to (the fleet-wide timeZone). A rule with a problem is left
 * out; the run fails on the error.
 */
export function readWindows(raw: unknown, at: DocPath, reporter: RuleReporter, scope: string, inherited?: string): WindowsConfig | undefined {
  if (raw === undefined || raw === null || typeof raw !== 'object') return undefined;
  const block = raw as Rec;
  // null: a zone is written but wrong (reported once here, not again on every rule that uses it).
  let zone: string | null | undefined = inherited;
  if (typeof block.timeZone === 'string') {
    const problem = timeZoneProblem(block.timeZone);
    if (problem) reporter.report([...at, 'timeZone'], 'E_ROLLOUT_WINDOW_ZONE', problem);
    zone = problem ? null : block.timeZone;
  }
  const names = new Map<string, string>();
  const read = (kind: 'allow' | 'freeze'): WindowRule[] => {
    const out: WindowRule[] = [];
    ((block[kind] as Rec[] | undefined) ?? []).forEach((r, i) => {
      const path = [...at, kind, i];
      const name = typeof r.name === 'string' ? r.name : undefined;
      if (name !== undefined) {
        if (!isDNS1123Label(name)) reporter.report([...path, 'name'], 'E_ROLLOUT_WINDOW', `must be a DNS-1123 label such as year-end (got ${quote(name)})`);
        const first = names.get(name);
        if (first) reporter.report([...path, 'name'], 'E_ROLLOUT_WINDOW_DUPLICATE', `Duplicate value: ${quote(name)} (also ${first})`);
        else names.set(name, `${kind}[${i}]`);
      }
      const label = `${scope} ${kind} ${name ? `"${name}"` : `${kind}[${i}]`}`;
      const parsed = readRule(r, path, reporter, kind, label, zone);
      if (parsed) out.push(parsed);
    });
    return out;
  };
  const allow = block.allow === undefined ? undefined : read('allow');
  const freeze = read('freeze');
  return { ...(allow ? { allow } : {}), freeze, ...(zone ? { timeZone: zone } : {}) };
}

function readRule(r: Rec, at: DocPath, reporter: RuleReporter, kind: 'allow' | 'freeze', label: string, blockZone: string | null | undefined): WindowRule | undefined {
  let problems = 0;
  const bad = (where: DocPath, message: string, code = 'E_ROLLOUT_WINDOW'): undefined => {
    problems++;
    reporter.report([...at, ...where], code, message);
    return undefined;
  };
  const weekly = r.days !== undefined || r.start !== undefined || r.end !== undefined;
  const dated = r.from !== undefined || r.to !== undefined;
  if (weekly && dated) return bad([], 'is weekly (days, start, end) and dated (from, to) at once: write two rules');
  if (!weekly && !dated) return bad([], 'needs days (a weekly window, with start and end) or from and to (a dated range)');
  // A zone written wrong (here or on the block, null) is reported once, not again as "no time zone".
  let zone = blockZone;
  if (typeof r.timeZone === 'string') {
    const problem = timeZoneProblem(r.timeZone);
    if (problem) bad(['timeZone'], problem, 'E_ROLLOUT_WINDOW_ZONE');
    zone = problem ? null : r.timeZone;
  }
  const noZone = (): undefined => (zone === null ? undefined : bad([], 'has no time zone: set timeZone on the rule or on its windows block (an IANA name such as Europe/Berlin)'));
  if (weekly) {
    const days: number[] = [];
    if (r.days === undefined) bad(['days'], 'Required value: a weekly rule names its days (Mon … Sun)', 'E_REQUIRED');
    ((r.days as string[] | undefined) ?? []).forEach((d, j) => {
      const n = (WINDOW_DAYS as readonly string[]).indexOf(d);
      const first = days.indexOf(n);
      if (first >= 0) bad(['days', j], `Duplicate value: ${quote(d)} (also days[${first}])`);
      else days.push(n);
    });
    const start = timeOfDay(r.start, '00:00', false);
    const end = timeOfDay(r.end, '24:00', true);
    if (typeof start === 'string') bad(['start'], start);
    if (typeof end === 'string') bad(['end'], end);
    if (typeof start === 'number' && typeof end === 'number') {
      if (end === start) bad(['end'], `equals start (${clock(start)}): the window would be empty`);
      else if (end < start) {
        bad(['end'], `${clock(end)} is before start ${clock(start)}: a window ends on the day it starts; for one over midnight write two rules (${clock(start)} to 24:00, and 00:00 to ${clock(end)} on the next days)`);
      }
    }
    if (typeof zone !== 'string') noZone();
    if (problems > 0 || typeof zone !== 'string' || typeof start !== 'number' || typeof end !== 'number') return undefined;
    days.sort((x, y) => x - y);
    const text = `${days.map((d) => WINDOW_DAYS[d]).join(',')} ${clock(start)} to ${clock(end)} ${zone}`;
    return { kind, label, type: 'weekly', days, start, end, timeZone: zone, text, path: at };
  }
  if (r.from === undefined) return bad(['from'], 'Required value: a dated rule has from and to', 'E_REQUIRED');
  if (r.to === undefined) return bad(['to'], 'Required value: a dated rule has from and to', 'E_REQUIRED');
  const from = datedBound(String(r.from));
  const to = datedBound(String(r.to));
  if (typeof from === 'string') bad(['from'], from);
  if (typeof to === 'string') bad(['to'], to);
  if (problems > 0 || typeof from === 'string' || typeof to === 'string') return undefined;
  if (('instant' in from) !== ('instant' in to)) return bad(['to'], 'from and to must both carry a UTC offset, or both be local times in the time zone');
  if ('instant' in from && 'instant' in to) {
    if (typeof r.timeZone === 'string') return bad(['timeZone'], 'from and to carry UTC offsets, so timeZone is not used: remove it, or write local times');
    if (to.instant <= from.instant) return bad(['to'], `must be after from (from ${String(r.from)}, to ${String(r.to)})`);
    return { kind, label, type: 'dated', from, to, text: `${String(r.from)} to ${String(r.to)}`, path: at };
  }
  const fw = (from as { wall: string }).wall;
  const tw = (to as { wall: string }).wall;
  if (tw <= fw) return bad(['to'], `must be after from (from ${String(r.from)}, to ${String(r.to)})`);
  if (typeof zone !== 'string') return noZone();
  return { kind, label, type: 'dated', from, to, timeZone: zone, text: `${fw.slice(0, 16).replace('T', ' ')} to ${tw.slice(0, 16).replace('T', ' ')} ${zone}`, path: at };
}

/** Minutes after midnight, or the problem. */
function timeOfDay(v: unknown, dflt: string, isEnd: boolean): number | string {
  const text = v === undefined ? dflt : String(v);
  if (isEnd && text === '24:00') return 1440;
  const m = TIME.exec(text);
  if (!m) return `must be a time of day HH:MM from 00:00 to ${isEnd ? '24:00' : '23:59'} (got ${quote(v)})`;
  return Number(m[1]) * 60 + Number(m[2]);
}

function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A bound of a dated rule, or the problem. */
function datedBound(text: string): DatedBound | string {
  const wrong = `must be a date (2026-12-19), a local date and time (2026-12-19T18:00) or an RFC 3339 time with offset (2026-12-19T18:00:00+01:00) (got ${quote(text)})`;
  const withOffset = OFFSET_TIME.exec(text);
  const m = withOffset ?? LOCAL_TIME.exec(text);
  if (!m) return wrong;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return `${quote(text)} is not a calendar date`;
  if (h > 23 || mi > 59 || s > 59) return `${quote(text)} has no such time of day (00:00:00 to 23:59:59)`;
  const wallAsUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  if (!withOffset) return { wall: new Date(wallAsUtc).toISOString().slice(0, 19) };
  const off = withOffset[7]!;
  const offMinutes = off === 'Z' ? 0 : (off.startsWith('-') ? -1 : 1) * (Number(off.slice(1, 3)) * 60 + Number(off.slice(4, 6)));
  if (Math.abs(offMinutes) > 18 * 60 || Number(off.slice(4, 6)) > 59) return wrong;
  return { instant: wallAsUtc - offMinutes * 60_000 };
}

/**
 * The rules that hold for one ring: its own allowed windows when its block has `allow`, else the
 * fleet-wide ones; the fleet-wide freezes and its own.
 */
export function ringRules(fleet: WindowsConfig | undefined, ring: WindowsConfig | undefined): { readonly allow: readonly WindowRule[]; readonly freeze: readonly WindowRule[] } {
  return { allow: ring?.allow ?? fleet?.allow ?? [], freeze: [...(fleet?.freeze ?? []), ...(ring?.freeze ?? [])] };
}

/**
 * Allowed windows that weekly freezes of the same zone cover on every one of their days: they can
 * never open (for every ring, or for the rings named). A warning each, where the window is written.
 */
export function neverOpenWindows(fleet: WindowsConfig | undefined, rings: ReadonlyArray<{ readonly name: string; readonly windows?: WindowsConfig }>): Array<{ readonly path: DocPath; readonly message: string }> {
  const found = new Map<WindowRule, { freeze: Set<WindowRule>; rings: string[]; of: number }>();
  const scopes = [...rings, { name: 'rest', windows: undefined }];
  for (const ring of scopes) {
    const rules = ringRules(fleet, ring.windows);
    for (const a of rules.allow) {
      if (a.type !== 'weekly') continue;
      const covering = a.days.map((d) => rules.freeze.find((x) => x.type === 'weekly' && x.timeZone === a.timeZone && x.days.includes(d) && x.start <= a.start && x.end >= a.end));
      const entry = found.get(a) ?? { freeze: new Set<WindowRule>(), rings: [], of: 0 };
      entry.of++;
      if (covering.every((f) => f !== undefined)) {
        for (const f of covering) entry.freeze.add(f!);
        entry.rings.push(ring.name);
      }
      found.set(a, entry);
    }
  }
  const out: Array<{ path: DocPath; message: string }> = [];
  for (const [a, e] of found) {
    if (e.rings.length === 0) continue;
    const where = e.rings.length === e.of ? '' : ` in ring${e.rings.length === 1 ? '' : 's'} ${e.rings.join(', ')}`;
    const by = [...e.freeze].map((f) => `${f.label} (${f.text})`).join(' and ');
    out.push({ path: a.path, message: `${a.label} (${a.text}) never opens${where}: ${by} always cover${e.freeze.size === 1 ? 's' : ''} it` });
  }
  return out;
}
