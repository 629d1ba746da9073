// The check stage takes the fleet-wide layers as an input (src/run/check.ts): synth's plan loads
// them once, and a caller that checks runtimes against other layers (a rollout ring's revision)
// passes those. These tests prove that the given layers are what the runtimes are checked against
// and that check does not read fleet.yaml, the groups or rules/ again.

import { afterEach, describe, expect, it } from 'vitest';
import { loadLayers } from '../../src/load/load';
import { checkFleet } from '../../src/run/check';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

describe('the check stage over given layers', () => {
  let fx: FleetFixture | undefined;
  afterEach(() => fx?.cleanup());

  const plain = (r: ReturnType<typeof checkFleet>) => JSON.stringify({ d: r.diagnostics, s: r.runtimes.map((x) => [x.runtime.name, x.settings, x.assignments]) });

  it('gives what a check that loads the layers itself gives', () => {
    fx = FleetFixture.example();
    const layers = loadLayers({ fleetDir: fx.fleetDir, cwd: fx.dir });
    expect(layers.opened).toBe(true);
    expect(layers.groups.length).toBeGreaterThan(0);
    const given = checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), layers });
    expect(given.ok).toBe(true);
    expect(plain(given)).toBe(plain(checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW) })));
  });

  it('checks the runtimes against the given layers, not against what the fleet folder holds now', () => {
    fx = FleetFixture.example();
    const layers = loadLayers({ fleetDir: fx.fleetDir, cwd: fx.dir });
    const before = plain(checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), layers }));
    // The working layers change (and break) after the layers were loaded: fleet.yaml and groups gone.
    fx.remove('fleet.yaml').remove('groups');
    expect(checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW) }).ok).toBe(false);
    expect(plain(checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), layers }))).toBe(before);
  });

  it('reports a fleet folder that cannot be opened once, from the layers', () => {
    fx = FleetFixture.example();
    const layers = loadLayers({ fleetDir: `${fx.fleetDir}-missing`, cwd: fx.dir });
    expect(layers.opened).toBe(false);
    const checked = checkFleet({ fleetDir: `${fx.fleetDir}-missing`, cwd: fx.dir, now: new Date(NOW), layers });
    expect(checked.diagnostics.map((d) => d.code)).toEqual(['E_FLEET_NOT_FOUND']);
  });
});
