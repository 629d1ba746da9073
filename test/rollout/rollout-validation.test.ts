// Fleet.spec.rollout is validated like every fleet option: unknown keys, duplicate ring names, the
// reserved name `rest`, a bad bake duration, a bad selector, and an empty selector (which matches
// every runtime) before the last ring, each reported with file:line:col and the field.

import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';

let fixtures: FleetFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

function withRollout(rollout: string): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  return fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${rollout}`);
}

const VALID = `  rollout:
    rings:
      - name: canary
        selector: {matchLabels: {tier: sandbox}}
        bake: 24h
      - name: early
        selector: {matchExpressions: [{key: tier, operator: NotIn, values: [production]}]}
        bake: 48h
        maxFailed: 1
`;

describe('Fleet.spec.rollout', () => {
  it('accepts rings with selectors, Go durations and maxFailed', async () => {
    const r = await withRollout(VALID).validate();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('refuses an unknown key with its position (the schema, as for every fleet option)', async () => {
    const r = await withRollout(`  rollout:
    rings:
      - name: canary
        selector: {}
        bake: 24h
        color: blue
`).validate();
    expect(r.code).toBe(1);
    expect(r.errLines[0]).toBe('fleet/fleet.yaml:14:9: error at rollout.rings[name=canary].color: unknown field "color" [E_UNKNOWN_FIELD]');
  });

  it('refuses duplicate names, the name rest, bad durations, bad selectors and an empty selector before the last ring', async () => {
    const r = await withRollout(`  rollout:
    rings:
      - name: canary
        selector: {}
        bake: 1d
      - name: canary
        selector: {matchLabels: {tier: sandbox}}
        bake: -5m
      - name: rest
        selector: {matchLabels: {"bad key!": x}}
        bake: 24h
`).validate();
    expect(r.code).toBe(1);
    expect(r.errLines.filter((l) => l.startsWith('fleet/fleet.yaml:'))).toEqual([
      'fleet/fleet.yaml:12:19: error at rollout.rings[0].selector: an empty selector matches every runtime, so the rings after it (canary, rest) could never get one; give ring "canary" a selector or make it the last ring [E_ROLLOUT_RING_UNREACHABLE]',
      'fleet/fleet.yaml:13:15: error at rollout.rings[0].bake: must be a Go duration such as 24h or 90m: time: unknown unit "d" in duration "1d" [E_ROLLOUT_BAKE]',
      'fleet/fleet.yaml:14:15: error at rollout.rings[1].name: Duplicate value: "canary" (also rings[0]) [E_ROLLOUT_RING_DUPLICATE]',
      'fleet/fleet.yaml:16:15: error at rollout.rings[1].bake: must not be negative (got "-5m") [E_ROLLOUT_BAKE]',
      'fleet/fleet.yaml:17:15: error at rollout.rings[name=rest].name: "rest" is the implicit last ring (the runtimes no ring matches); name this ring differently [E_ROLLOUT_RING_NAME]',
      'fleet/fleet.yaml:18:46: error at rollout.rings[name=rest].selector.matchLabels["bad key!"]: label key name must be 1-63 characters of alphanumerics, \'-\', \'_\' or \'.\', starting and ending with an alphanumeric (got "bad key!") [E_SELECTOR]',
    ]);
  });
});
