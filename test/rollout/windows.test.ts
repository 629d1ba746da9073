// Change windows at an instant (src/rollout/windows.ts), table-driven: inside and outside a weekly
// window, a freeze winning over an allowed window, a ring's allow replacing the fleet-wide list and
// its freezes adding to the fleet-wide ones, dated ranges (local and with offsets), the next window
// (and the close of an open one), and the wall clock across daylight-saving changes in
// Europe/Berlin and America/New_York: a local time that does not exist (spring forward) and one
// that exists twice (fall back). Rules are read through the validator (readWindows), as a fleet
// file would give them.

import { describe, expect, it } from 'vitest';
import { judgeWindows, type RingWindows, windowsOf } from '../../src/rollout/windows';
import { readWindows } from '../../src/validate/rollout-windows';
import type { RolloutConfig } from '../../src/validate/rollout-options';

type Block = Record<string, unknown>;

/** The rules of a ring with these fleet-wide and own blocks; fails on any validation problem. */
function rules(fleet: Block | undefined, ring?: Block): RingWindows {
  const problems: string[] = [];
  const reporter = { report: (path: (string | number)[], code: string, message: string) => void problems.push(`${path.join('.')}: ${message} [${code}]`) };
  const f = fleet && readWindows(fleet, ['rollout', 'windows'], reporter, 'fleet-wide');
  const own = ring && readWindows(ring, ['rollout', 'rings', 0, 'windows'], reporter, 'ring canary', f?.timeZone);
  expect(problems).toEqual([]);
  const config: RolloutConfig = { rings: [{ name: 'canary', selector: {}, bake: '0s', bakeMs: 0, maxFailed: 0, ...(own ? { windows: own } : {}) }], ...(f ? { windows: f } : {}) };
  return windowsOf(config, 'canary');
}

const iso = (d: Date | undefined): string | undefined => d?.toISOString().replace(/\.000Z$/, 'Z');

const BERLIN_WEEKDAYS: Block = { timeZone: 'Europe/Berlin', allow: [{ name: 'weekdays', days: ['Mon', 'Tue', 'Wed', 'Thu'], start: '09:00', end: '16:00' }] };
const YEAR_END: Block = { ...BERLIN_WEEKDAYS, freeze: [{ name: 'year-end', from: '2026-12-19', to: '2027-01-06' }] };

describe('judgeWindows', () => {
  it.each<[string, Block | undefined, Block | undefined, string, boolean, string | undefined, string | undefined, string | undefined]>([
    // what, fleet-wide, ring, now, open, deciding rule, opensAt, closesAt
    ['inside a weekday window (Wed 10:00 CET)', BERLIN_WEEKDAYS, undefined, '2026-11-25T09:00:00Z', true, 'fleet-wide allow "weekdays"', undefined, '2026-11-25T15:00:00Z'],
    ['at its start (inclusive)', BERLIN_WEEKDAYS, undefined, '2026-11-25T08:00:00Z', true, 'fleet-wide allow "weekdays"', undefined, '2026-11-25T15:00:00Z'],
    ['at its end (exclusive)', BERLIN_WEEKDAYS, undefined, '2026-11-25T15:00:00Z', false, undefined, '2026-11-26T08:00:00Z', undefined],
    ['on a Friday: next Monday 09:00', BERLIN_WEEKDAYS, undefined, '2026-11-27T10:00:00Z', false, undefined, '2026-11-30T08:00:00Z', undefined],
    ['a freeze wins over the window it overlaps', YEAR_END, undefined, '2026-12-22T09:00:00Z', false, 'fleet-wide freeze "year-end"', '2027-01-06T08:00:00Z', undefined],
    ['the day before the freeze the window closes into it', YEAR_END, undefined, '2026-12-17T09:00:00Z', true, 'fleet-wide allow "weekdays"', undefined, '2026-12-17T15:00:00Z'],
    [
      'a ring\'s allow replaces the fleet-wide list (canary: Fri 22:00-24:00 UTC)',
      BERLIN_WEEKDAYS,
      { allow: [{ name: 'night', days: ['Fri'], start: '22:00', end: '24:00', timeZone: 'UTC' }] },
      '2026-11-25T09:00:00Z',
      false,
      undefined,
      '2026-11-27T22:00:00Z',
      undefined,
    ],
    ['a ring\'s freeze adds to the fleet-wide rules', BERLIN_WEEKDAYS, { freeze: [{ name: 'go-live', from: '2026-11-25T00:00', to: '2026-11-26T00:00' }] }, '2026-11-25T09:00:00Z', false, 'ring canary freeze "go-live"', '2026-11-26T08:00:00Z', undefined],
    ['only freezes: open outside them, closes when one starts', { freeze: [{ name: 'year-end', from: '2026-12-19T00:00:00+01:00', to: '2027-01-06T00:00:00+01:00' }] }, undefined, '2026-12-01T00:00:00Z', true, undefined, undefined, '2026-12-18T23:00:00Z'],
    ['a dated freeze with offsets ends at its instant', { freeze: [{ from: '2026-12-19T00:00:00+01:00', to: '2027-01-06T00:00:00+01:00' }] }, undefined, '2026-12-24T00:00:00Z', false, 'fleet-wide freeze freeze[0]', '2027-01-05T23:00:00Z', undefined],
    ['a weekly freeze inside the allowed window (Thu afternoons)', { ...BERLIN_WEEKDAYS, freeze: [{ name: 'thu-pm', days: ['Thu'], start: '12:00' }] }, undefined, '2026-11-26T12:00:00Z', false, 'fleet-wide freeze "thu-pm"', '2026-11-30T08:00:00Z', undefined],
    ['no window opens within the bound', { allow: [{ days: ['Mon'], timeZone: 'UTC' }], freeze: [{ days: ['Mon'], timeZone: 'UTC' }] }, undefined, '2026-11-25T00:00:00Z', false, undefined, undefined, undefined],
    // Europe/Berlin springs forward on 2026-03-29 at 02:00 CET (01:00Z) to 03:00 CEST: 02:00-02:59 does not exist.
    ['spring forward: a window from 02:30 opens when the clock jumps to 03:00', { allow: [{ days: ['Sun'], start: '02:30', end: '04:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-03-29T00:00:00Z', false, undefined, '2026-03-29T01:00:00Z', undefined],
    ['spring forward: and closes at 04:00 CEST (one real hour)', { allow: [{ days: ['Sun'], start: '02:30', end: '04:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-03-29T01:00:00Z', true, 'fleet-wide allow allow[0]', undefined, '2026-03-29T02:00:00Z'],
    ['spring forward: a window inside the missing hour never opens that day', { allow: [{ days: ['Sun'], start: '02:15', end: '02:45', timeZone: 'Europe/Berlin' }] }, undefined, '2026-03-28T12:00:00Z', false, undefined, '2026-04-05T00:15:00Z', undefined],
    // Europe/Berlin falls back on 2026-10-25 at 03:00 CEST (01:00Z) to 02:00 CET: 02:00-02:59 happens twice.
    ['fall back: 02:30 the first time', { allow: [{ days: ['Sun'], start: '02:30', end: '03:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-10-25T00:00:00Z', false, undefined, '2026-10-25T00:30:00Z', undefined],
    ['fall back: the window closes when the clock goes back to 02:00', { allow: [{ days: ['Sun'], start: '02:30', end: '03:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-10-25T00:45:00Z', true, 'fleet-wide allow allow[0]', undefined, '2026-10-25T01:00:00Z'],
    ['fall back: and opens again at the second 02:30', { allow: [{ days: ['Sun'], start: '02:30', end: '03:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-10-25T01:00:00Z', false, undefined, '2026-10-25T01:30:00Z', undefined],
    ['fall back: a freeze 02:00-03:00 holds for two real hours', { freeze: [{ days: ['Sun'], start: '02:00', end: '03:00', timeZone: 'Europe/Berlin' }] }, undefined, '2026-10-25T00:00:00Z', false, 'fleet-wide freeze freeze[0]', '2026-10-25T02:00:00Z', undefined],
    // America/New_York: spring forward 2026-03-08 02:00 EST (07:00Z) to 03:00 EDT; fall back 2026-11-01 02:00 EDT (06:00Z) to 01:00 EST.
    ['New York spring forward: 02:30 does not exist, opens at 03:00 EDT', { allow: [{ days: ['Sun'], start: '02:30', end: '05:00', timeZone: 'America/New_York' }] }, undefined, '2026-03-08T06:00:00Z', false, undefined, '2026-03-08T07:00:00Z', undefined],
    ['New York fall back: 01:30 happens twice, both inside', { allow: [{ days: ['Sun'], start: '01:00', end: '02:00', timeZone: 'America/New_York' }] }, undefined, '2026-11-01T05:00:00Z', true, 'fleet-wide allow allow[0]', undefined, '2026-11-01T07:00:00Z'],
    ['New York: a local dated freeze ends at local midnight', { freeze: [{ from: '2026-11-26', to: '2026-11-27', timeZone: 'America/New_York' }] }, undefined, '2026-11-26T12:00:00Z', false, 'fleet-wide freeze freeze[0]', '2026-11-27T05:00:00Z', undefined],
  ])('%s', (_what, fleet, ring, now, open, rule, opensAt, closesAt) => {
    const v = judgeWindows(rules(fleet, ring), new Date(now));
    expect({ open: v.open, rule: v.rule?.label, opensAt: iso(v.opensAt), closesAt: iso(v.closesAt) }).toEqual({ open, rule, opensAt, closesAt });
  });

  it('without rules, acts at any time and says it is not configured', () => {
    const v = judgeWindows({ allow: [], freeze: [] }, new Date('2026-11-25T00:00:00Z'));
    expect(v).toMatchObject({ configured: false, open: true });
  });

  it('says why, in words with the rule and its zone', () => {
    expect(judgeWindows(rules(YEAR_END), new Date('2026-12-22T09:00:00Z')).reason).toBe('frozen by fleet-wide freeze "year-end" (2026-12-19 00:00 to 2027-01-06 00:00 Europe/Berlin)');
    expect(judgeWindows(rules(BERLIN_WEEKDAYS), new Date('2026-11-27T10:00:00Z')).reason).toBe('outside every allowed window (fleet-wide allow "weekdays": Mon,Tue,Wed,Thu 09:00 to 16:00 Europe/Berlin)');
  });

  it('the next window is never before now and always open, for any instant of a year (hourly)', () => {
    const r = rules({ ...YEAR_END, freeze: [...(YEAR_END.freeze as object[]), { days: ['Wed'], start: '12:00', end: '13:30' }] });
    for (let t = Date.parse('2026-01-01T00:17:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += 3_600_000 * 7) {
      const v = judgeWindows(r, new Date(t), 30);
      const next = v.open ? v.closesAt : v.opensAt;
      if (!next) continue;
      expect(next.getTime()).toBeGreaterThan(t);
      expect(judgeWindows(r, next, 0).open).toBe(!v.open);
      // Nothing changes in between: one minute before the change it is as at `t`.
      expect(judgeWindows(r, new Date(next.getTime() - 60_000), 0).open).toBe(v.open);
    }
  });
});
