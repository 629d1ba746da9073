// Turning off every Falco event destination does not silence Falco: the admission adds its default
// destination "logging", which the render writes out. Validation says so with a warning
// (W_FALCO_DEFAULT_DESTINATION, src/extensions/falco/rules.ts) where the layers left the list empty,
// and only there. A table through the built binary on copies of the example fleet, where the
// production group enables Falco with destinations [logging] and acme-us-dev-2 with [stdout].

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

const fixtures: FleetFixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

/** The runtime file acme-us-dev-2.yaml with its destinations list replaced by `destinations` (YAML lines under `falco:`). */
function withDestinations(destinations: string, falcoEnabled = true): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  const file = 'runtimes/acme-us-dev-2.yaml';
  const text = fx.read(file);
  const at = text.indexOf('      destinations:');
  expect(at, 'the example runtime lists destinations last').toBeGreaterThan(0);
  fx.write(file, text.slice(0, at).replace('      enabled: true', `      enabled: ${falcoEnabled}`) + destinations);
  return fx;
}

const WARNING = /^fleet\/runtimes\/acme-us-dev-2\.yaml:\d+:\d+: warning at [^:]+: every event destination is disabled, so the Falco admission adds its default destination "logging" .*\[W_FALCO_DEFAULT_DESTINATION\]$/;

describe('Falco with every destination disabled', () => {
  it.each([
    ['the only destination disabled', '      destinations:\n        - name: stdout\n          enabled: false\n', true, true],
    // An empty keyed list merges nothing (entries of lower layers stay): not a way to turn them off.
    ['an explicit empty list', '      destinations: []\n', true, false],
    ['one of two disabled', '      destinations:\n        - name: stdout\n          enabled: false\n        - name: logging\n', true, false],
    ['destinations never set (the default is the plain default)', '', true, false],
    ['every destination disabled, Falco off', '      destinations:\n        - name: stdout\n          enabled: false\n', false, false],
  ])('%s: warning %s/%s', (_what, destinations, falcoOn, warned) => {
    const fx = withDestinations(destinations, falcoOn);
    const r = fx.runBinary(['validate', '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.errLines.filter((l) => WARNING.test(l))).toHaveLength(warned ? 1 : 0);
    expect(r.errLines.filter((l) => l.includes('W_FALCO_DEFAULT_DESTINATION'))).toHaveLength(warned ? 1 : 0);
    if (warned) {
      // What is rendered is what the warning says: the Shoot gets the logging destination.
      expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
      const shoot = fs.readFileSync(path.join(fx.dir, 'dist/runtimes/acme-us-dev-2/garden/shoot-c-9f8e7d6.yaml'), 'utf8');
      expect(shoot).toMatch(/destinations:\n\s+- name: logging\n/);
    }
  });

  it('a group that disables the destinations it enables warns on each runtime it matches, at the group', () => {
    const fx = FleetFixture.example();
    fixtures.push(fx);
    const group = fx.read('groups/production.yaml');
    const list = '        destinations:\n          - name: logging\n          - name: stdout\n';
    expect(group).toContain(list);
    fx.write('groups/production.yaml', group.replace(list, '        destinations:\n          - name: logging\n            enabled: false\n          - name: stdout\n            enabled: false\n'));
    const r = fx.runBinary(['validate', '--now', NOW]);
    expect(r.code).toBe(0);
    const warned = r.errLines.filter((l) => l.includes('[W_FALCO_DEFAULT_DESTINATION]'));
    expect(warned.length).toBeGreaterThan(0);
    for (const l of warned) expect(l).toMatch(/^fleet\/groups\/production\.yaml:\d+:\d+: warning/);
  });
});
