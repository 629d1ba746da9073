// The blast radius section of `diff --output markdown`: which rings a change reaches now, how many
// runtimes wait behind a gate, and whether the fleet-wide part of the change is started.

import { afterEach, describe, expect, it } from 'vitest';
import { loadFleet } from '../../src/load/load';
import { blastRadiusMarkdown, rolloutOverview } from '../../src/rollout/blast-radius';
import { revisionOfLayers } from '../../src/rollout/revision';
import { readRollout, saveRollout } from '../../src/rollout/store';
import { startRollout } from '../../src/rollout/transitions';
import type { RolloutConfig } from '../../src/validate/rollout-options';
import { FleetFixture } from '../helpers/fleet-fixture';

const RINGS = `  rollout:
    rings:
      - name: canary
        selector: {matchLabels: {tier: sandbox}}
        bake: 24h
      - name: early
        selector: {matchLabels: {tier: development}}
        bake: 48h
`;
const CONFIG: RolloutConfig = {
  rings: [
    { name: 'canary', selector: { matchLabels: { tier: 'sandbox' } }, bake: '24h', bakeMs: 86_400_000, maxFailed: 0 },
    { name: 'early', selector: { matchLabels: { tier: 'development' } }, bake: '48h', bakeMs: 172_800_000, maxFailed: 0 },
  ],
};
const NOW = new Date('2026-11-25T10:00:00Z');

let fixtures: FleetFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** `rollout start` of the working layers, as the command does it. */
function start(fx: FleetFixture): void {
  const revision = revisionOfLayers(loadFleet({ fleetDir: fx.fleetDir }))!;
  saveRollout(fx.fleetDir, startRollout(readRollout(fx.fleetDir, 'fleet').state, CONFIG, revision.id, NOW)!, revision);
}

function withRings(): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  return fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${RINGS}`);
}

describe('the blast radius of a change under rings', () => {
  it('is nothing without rings', () => {
    const fx = FleetFixture.example();
    fixtures.push(fx);
    expect(rolloutOverview(fx.fleetDir, fx.dir)).toBeUndefined();
  });

  it('names the rings a change reaches now, the runtimes behind a gate, and what is not started', () => {
    const fx = withRings();
    start(fx);
    fx.replace('fleet.yaml', '              ttl: 168h\n', '              ttl: 72h\n');
    start(fx);
    // A runtime file change (immediate) in an early runtime, and a fleet-wide change not yet started.
    fx.replace('fleet.yaml', '      - name: btp-operator\n', '      - name: btp-operator\n      - name: serverless\n');
    const o = rolloutOverview(fx.fleetDir, fx.dir)!;
    const md = blastRadiusMarkdown(o, new Set(['acme-eu-sandbox', 'acme-eu-dev-1']));
    const [canary, early, rest] = o.state!.rings.map((r) => r.revision);
    expect(canary).not.toBe(early);
    expect(early).toBe(rest);
    expect(md).toBe(
      '#### Rollout rings\n\n' +
        '| ring | revision | runtimes | changed by this diff |\n|---|---|---:|---:|\n' +
        `| canary | \`${canary}\` | 1 | 1 |\n` +
        `| early | \`${early}\` | 3 | 1 |\n` +
        `| rest (no ring matches) | \`${rest}\` | 3 | 0 |\n\n` +
        '**Reaches now:** 2 runtimes, in rings canary (1), early (1).\n\n' +
        `**Waiting behind a gate:** 6 runtimes in rings early, rest, on an older revision than ring canary (\`${canary}\`); \`kyma-fleet rollout advance\` brings it to them ring by ring.\n\n` +
        "**Not started:** the fleet-wide layers differ from ring canary's revision (`fleet.yaml`): that part of the change reaches no runtime until `kyma-fleet rollout start`, then ring canary first (1 runtime).\n\n",
    );
  });

  it('is part of diff --output markdown, also when dist/ does not change', async () => {
    const fx = withRings();
    start(fx);
    expect((await fx.run(['synth', '--now', '2026-11-22T00:00:00Z'])).code).toBe(0);
    const r = await fx.run(['diff', '--output', 'markdown', '--now', '2026-11-22T00:00:00Z']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('### kyma-fleet: no changes to `dist/`\n');
    expect(r.stdout).toContain('#### Rollout rings\n');
    expect(r.stdout).toContain('**Reaches now:** no runtime.\n');
  });
});
