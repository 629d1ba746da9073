// Change windows in fleet.yaml (Fleet.spec.rollout.windows and rings[].windows) are validated like
// every fleet option, table-driven: each mistake is one line with file:line:col, the field path and
// what is wrong (unknown or miscased time zone, a bad day, a bad time, end before or equal to start,
// a day twice, weekly and dated at once, neither, a date that is not in the calendar, to before
// from, offsets mixed with local times, a zone that an offset makes useless, a duplicate name, no
// zone at all), and an allowed window that a weekly freeze always covers is a warning.

import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';
import { BERLIN_WEEKDAYS_AND_YEAR_END } from './windows-fixture';

let fixtures: FleetFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** The example fleet with rollout windows (`windows` at 4 spaces) and a canary ring with `ring` (at 8 spaces). */
function withWindows(windows: string, ring = ''): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  const rings = `    rings:\n      - name: canary\n        selector: {matchLabels: {tier: sandbox}}\n        bake: 24h\n${ring}`;
  return fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n  rollout:\n${windows}${rings}`);
}

const VALID = `${BERLIN_WEEKDAYS_AND_YEAR_END}        - name: go-live
          from: "2026-12-01T06:00:00+01:00"
          to: "2026-12-01T18:00:00+01:00"
`;

describe('Fleet.spec.rollout.windows', () => {
  it('accepts weekly windows, dated freezes (local and with offsets) and a ring\'s own windows', async () => {
    const r = await withWindows(VALID, '        windows:\n          allow:\n            - {name: night, days: [Sat, Sun], start: "00:00", end: "06:00", timeZone: America/New_York}\n').validate();
    expect(r.errLines).toEqual([]);
    expect(r.code).toBe(0);
  });

  // Line 10 of fleet.yaml is `rollout:`; the windows block starts at line 11.
  it.each<[string, string, string[]]>([
    ['an unknown time zone, with the closest name', '    windows:\n      timeZone: Europe/Berln\n', ['fleet/fleet.yaml:11:17: error at rollout.windows.timeZone: unknown time zone "Europe/Berln" (did you mean "Europe/Berlin"?); use an IANA name such as Europe/Berlin or UTC [E_ROLLOUT_WINDOW_ZONE]']],
    ['a time zone spelled in another case', '    windows:\n      timeZone: europe/berlin\n      allow: [{days: [Mon]}]\n', ['fleet/fleet.yaml:11:17: error at rollout.windows.timeZone: write the time zone as "Europe/Berlin" (got "europe/berlin") [E_ROLLOUT_WINDOW_ZONE]']],
    ['an offset where a zone goes', '    windows:\n      allow: [{days: [Mon], timeZone: "+01:00"}]\n', ['fleet/fleet.yaml:11:39: error at rollout.windows.allow[0].timeZone: must be an IANA time zone name such as Europe/Berlin or UTC (got "+01:00") [E_ROLLOUT_WINDOW_ZONE]']],
    ['a day that is not one (the schema)', '    windows:\n      allow: [{days: [Monday], timeZone: UTC}]\n', ['fleet/fleet.yaml:11:23: error at rollout.windows.allow[0].days[0]: Unsupported value: "Monday": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" [E_ENUM]']],
    ['a day twice', '    windows:\n      allow: [{days: [Mon, Tue, Mon], timeZone: UTC}]\n', ['fleet/fleet.yaml:11:33: error at rollout.windows.allow[0].days[2]: Duplicate value: "Mon" (also days[0]) [E_ROLLOUT_WINDOW]']],
    ['a time without two digits', '    windows:\n      allow: [{days: [Mon], start: "9:00", timeZone: UTC}]\n', ['fleet/fleet.yaml:11:36: error at rollout.windows.allow[0].start: must be a time of day HH:MM from 00:00 to 23:59 (got "9:00") [E_ROLLOUT_WINDOW]']],
    ['a time after 24:00', '    windows:\n      allow: [{days: [Mon], end: "25:00", timeZone: UTC}]\n', ['fleet/fleet.yaml:11:34: error at rollout.windows.allow[0].end: must be a time of day HH:MM from 00:00 to 24:00 (got "25:00") [E_ROLLOUT_WINDOW]']],
    ['24:00 as a start', '    windows:\n      allow: [{days: [Mon], start: "24:00", timeZone: UTC}]\n', ['fleet/fleet.yaml:11:36: error at rollout.windows.allow[0].start: must be a time of day HH:MM from 00:00 to 23:59 (got "24:00") [E_ROLLOUT_WINDOW]']],
    [
      'end before start (a window over midnight)',
      '    windows:\n      allow: [{days: [Fri], start: "22:00", end: "06:00", timeZone: UTC}]\n',
      ['fleet/fleet.yaml:11:50: error at rollout.windows.allow[0].end: 06:00 is before start 22:00: a window ends on the day it starts; for one over midnight write two rules (22:00 to 24:00, and 00:00 to 06:00 on the next days) [E_ROLLOUT_WINDOW]'],
    ],
    ['end equal to start', '    windows:\n      allow: [{days: [Sat], start: "10:00", end: "10:00", timeZone: UTC}]\n', ['fleet/fleet.yaml:11:50: error at rollout.windows.allow[0].end: equals start (10:00): the window would be empty [E_ROLLOUT_WINDOW]']],
    ['weekly and dated at once', '    windows:\n      freeze: [{days: [Sun], from: 2026-12-01, to: 2026-12-02, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:16: error at rollout.windows.freeze[0]: is weekly (days, start, end) and dated (from, to) at once: write two rules [E_ROLLOUT_WINDOW]']],
    ['neither weekly nor dated', '    windows:\n      freeze: [{name: x}]\n', ['fleet/fleet.yaml:11:16: error at rollout.windows.freeze[0]: needs days (a weekly window, with start and end) or from and to (a dated range) [E_ROLLOUT_WINDOW]']],
    ['a dated rule without to', '    windows:\n      freeze: [{from: 2026-12-01, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:16: error at rollout.windows.freeze[0].to: Required value: a dated rule has from and to [E_REQUIRED]']],
    ['to before from', '    windows:\n      freeze: [{from: 2027-01-06, to: 2026-12-19, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:39: error at rollout.windows.freeze[0].to: must be after from (from 2027-01-06, to 2026-12-19) [E_ROLLOUT_WINDOW]']],
    ['to equal to from, with offsets', '    windows:\n      freeze: [{from: "2026-12-19T00:00:00+01:00", to: "2026-12-18T23:00:00Z"}]\n', ['fleet/fleet.yaml:11:56: error at rollout.windows.freeze[0].to: must be after from (from 2026-12-19T00:00:00+01:00, to 2026-12-18T23:00:00Z) [E_ROLLOUT_WINDOW]']],
    ['a date not in the calendar', '    windows:\n      freeze: [{from: 2026-02-29, to: 2026-03-01, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:23: error at rollout.windows.freeze[0].from: "2026-02-29" is not a calendar date [E_ROLLOUT_WINDOW]']],
    ['a time of day that does not exist', '    windows:\n      freeze: [{from: "2026-12-19T25:00", to: 2027-01-01, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:23: error at rollout.windows.freeze[0].from: "2026-12-19T25:00" has no such time of day (00:00:00 to 23:59:59) [E_ROLLOUT_WINDOW]']],
    [
      'text that is no time',
      '    windows:\n      freeze: [{from: next week, to: 2027-01-01, timeZone: UTC}]\n',
      ['fleet/fleet.yaml:11:23: error at rollout.windows.freeze[0].from: must be a date (2026-12-19), a local date and time (2026-12-19T18:00) or an RFC 3339 time with offset (2026-12-19T18:00:00+01:00) (got "next week") [E_ROLLOUT_WINDOW]'],
    ],
    ['an offset and a local time mixed', '    windows:\n      freeze: [{from: "2026-12-19T00:00:00+01:00", to: 2027-01-06, timeZone: UTC}]\n', ['fleet/fleet.yaml:11:56: error at rollout.windows.freeze[0].to: from and to must both carry a UTC offset, or both be local times in the time zone [E_ROLLOUT_WINDOW]']],
    [
      'a time zone that offsets make useless',
      '    windows:\n      freeze: [{from: "2026-12-19T00:00:00+01:00", to: "2027-01-06T00:00:00+01:00", timeZone: UTC}]\n',
      ['fleet/fleet.yaml:11:95: error at rollout.windows.freeze[0].timeZone: from and to carry UTC offsets, so timeZone is not used: remove it, or write local times [E_ROLLOUT_WINDOW]'],
    ],
    ['no time zone anywhere', '    windows:\n      allow: [{days: [Mon]}]\n', ['fleet/fleet.yaml:11:15: error at rollout.windows.allow[0]: has no time zone: set timeZone on the rule or on its windows block (an IANA name such as Europe/Berlin) [E_ROLLOUT_WINDOW]']],
    [
      'a name twice across allow and freeze',
      '    windows:\n      timeZone: UTC\n      allow: [{name: ops, days: [Mon]}]\n      freeze: [{name: ops, days: [Tue]}]\n',
      ['fleet/fleet.yaml:13:23: error at rollout.windows.freeze[0].name: Duplicate value: "ops" (also allow[0]) [E_ROLLOUT_WINDOW_DUPLICATE]'],
    ],
    ['an unknown field (the schema)', '    windows:\n      allow: [{days: [Mon], timezone: UTC}]\n', ['fleet/fleet.yaml:11:29: error at rollout.windows.allow[0].timezone: unknown field "timezone" (did you mean "timeZone"?) [E_UNKNOWN_FIELD]']],
    [
      'a ring\'s rule with a bad zone, under the ring\'s path',
      '',
      ['fleet/fleet.yaml:15:44: error at rollout.rings[name=canary].windows.freeze[0].timeZone: unknown time zone "Mars/Olympus"; use an IANA name such as Europe/Berlin or UTC [E_ROLLOUT_WINDOW_ZONE]'],
    ],
  ])('refuses %s', async (what, windows, lines) => {
    const ring = what.startsWith("a ring's") ? '        windows:\n          freeze: [{days: [Mon], timeZone: Mars/Olympus}]\n' : '';
    const r = await withWindows(windows, ring).validate();
    expect(r.errLines.filter((l) => l.startsWith('fleet/fleet.yaml:'))).toEqual(lines);
    expect(r.code).toBe(1);
  });

  it('warns about an allowed window that a weekly freeze always covers (it can never open), where the window is written', async () => {
    const r = await withWindows(
      '    windows:\n      timeZone: Europe/Berlin\n      allow: [{name: weekdays, days: [Mon, Tue], start: "09:00", end: "16:00"}]\n',
      '        windows:\n          freeze: [{name: canary-quiet, days: [Mon, Tue, Wed], start: "08:00", end: "18:00"}]\n',
    ).validate();
    expect(r.errLines).toEqual([
      'fleet/fleet.yaml:12:15: warning at rollout.windows.allow[0]: fleet-wide allow "weekdays" (Mon,Tue 09:00 to 16:00 Europe/Berlin) never opens in ring canary: ring canary freeze "canary-quiet" (Mon,Tue,Wed 08:00 to 18:00 Europe/Berlin) always covers it [W_ROLLOUT_WINDOW_NEVER_OPEN]',
    ]);
    expect(r.code).toBe(0);
  });
});
