// Property: rollout rings change when a change arrives, never what arrives. With rings configured
// and every ring advanced to the same revision, dist/ is byte-identical to the same fleet rendered
// without rollout from that revision's layers. Random ring layouts and random sequences of layer
// edits (defaults, groups, rules files), including edits made after the last start (so the working
// layers are ahead of every ring), on copies of the example fleet.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRollout, saveRollout } from '../../src/rollout/store';
import { advanceFrom, ringToLeave } from '../../src/rollout/transitions';
import { FleetFixture, type RunResult } from '../helpers/fleet-fixture';
import { renderedTree as tree } from './cluster-dump';

const NOW = '2026-11-25T10:00:00Z';

/** Edits of the fleet-wide layers, each valid alone and together, none of an immutable field. */
const EDITS: ReadonlyArray<readonly [string, string, string]> = [
  ['fleet.yaml', '      - name: btp-operator\n', '      - name: btp-operator\n      - name: serverless\n'],
  ['fleet.yaml', '              ttl: 168h\n', '              ttl: 72h\n'],
  ['fleet.yaml', '    channel: regular\n', '    channel: fast\n'],
  ['groups/production.yaml', '      - name: telemetry\n', '      - name: telemetry\n      - name: serverless\n'],
  ['groups/europe.yaml', '  priority: 10\n', '  priority: 15\n'],
  ['groups/americas.yaml', '              httpsProxy: http://proxy.acme.example:3128\n', '              httpsProxy: http://proxy2.acme.example:3128\n'],
  ['rules/acme-shell-in-container.yaml', '  priority: WARNING\n', '  priority: ERROR\n'],
];

const SELECTORS = ['{matchLabels: {tier: sandbox}}', '{matchLabels: {tier: development}}', '{matchLabels: {geo: eu}}', '{matchExpressions: [{key: tier, operator: NotIn, values: [production]}]}', '{matchLabels: {geo: us}}'];

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ok(r: RunResult): RunResult {
  if (r.code !== 0) throw new Error(`exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

const fixtures: FleetFixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});

function runtimeFolder(t: Map<string, string>, name: string): Map<string, string> {
  return new Map([...t].filter(([k]) => k.startsWith(`runtimes/${name}/`)));
}

/**
 * Renders the same fleet without rollout once per revision in use (the runtimes as they are, that
 * revision's layers) and compares each runtime's folder with the render of its ring's revision;
 * with every ring on one revision, all of dist/.
 */
async function expectLikeFleetsWithoutRings(fx: FleetFixture, block: string): Promise<void> {
  const withRings = tree(path.join(fx.dir, 'dist'));
  // The same fleet without rollout, once per revision in use: the runtimes as they are, that revision's layers.
  const status = JSON.parse(ok(await fx.run(['rollout', 'status', '--output', 'json', '--now', NOW])).stdout) as { rings: Array<{ revision: string; runtimes: string[] }> };
  const plainRenders = new Map<string, Map<string, string>>();
  for (const revision of new Set(status.rings.map((r) => r.revision))) {
    const plain = FleetFixture.example();
    fixtures.push(plain);
    plain.remove('status');
    for (const layer of ['fleet.yaml', 'groups', 'rules', 'profiles']) plain.remove(layer);
    fs.cpSync(fx.path(`rollout/revisions/${revision}`), plain.fleetDir, { recursive: true });
    plain.replace('fleet.yaml', block, '');
    ok(await plain.run(['synth', '--now', NOW, '--no-cache']));
    plainRenders.set(revision, tree(path.join(plain.dir, 'dist')));
  }
  // Every runtime is compared (7 in the example fleet), each against its ring's revision.
  expect(status.rings.flatMap((r) => r.runtimes)).toHaveLength(7);
  for (const ring of status.rings) {
    for (const name of ring.runtimes) expect(runtimeFolder(withRings, name), `${name} at ${ring.revision}`).toEqual(runtimeFolder(plainRenders.get(ring.revision)!, name));
  }
  if (plainRenders.size === 1) {
    const without = [...plainRenders.values()][0]!;
    expect([...withRings.keys()]).toEqual([...without.keys()]);
    for (const [file, text] of without) expect(withRings.get(file), file).toBe(text);
  }
}

describe('rollout rings render each runtime as a fleet without rings at its ring\'s revision', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
    it(`and, every ring on one revision, all of dist/ byte-identical (seed ${seed})`, async () => {
      const rnd = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
      const fx = FleetFixture.example();
      fixtures.push(fx);
      fx.remove('status');
      const rings = Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => `      - name: ring-${i}\n        selector: ${pick(SELECTORS)}\n        bake: 1h\n`);
      const block = `  rollout:\n    rings:\n${rings.join('')}`;
      fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${block}`);
      const edits = [...EDITS].sort(() => rnd() - 0.5);
      let done = 0;
      const edit = (upTo: number): void => {
        for (; done < upTo; done++) fx.replace(edits[done]![0], edits[done]![1], edits[done]![2]);
      };
      ok(await fx.run(['rollout', 'start', '--now', NOW]));
      // A few starts, each followed by advancing some rings (all of them in half the cases).
      const starts = 1 + Math.floor(rnd() * 3);
      const all = rnd() < 0.5;
      for (let s = 0; s < starts; s++) {
        edit(Math.ceil(((s + 1) * edits.length) / (starts + 1)));
        ok(await fx.run(['rollout', 'start', '--now', NOW]));
        if (rnd() < 0.5) ok(await fx.run(['synth', '--now', NOW])); // an incremental synth in between
        let state = readRollout(fx.fleetDir, 'fleet').state!;
        for (let left = ringToLeave(state); left !== undefined && (all || rnd() < 0.5); left = ringToLeave(state)) state = advanceFrom(state, left, new Date(NOW), () => false).state;
        saveRollout(fx.fleetDir, state);
      }
      if (rnd() < 0.5) edit(edits.length); // the working layers run ahead of every ring
      ok(await fx.run(['synth', '--now', NOW]));
      const withRings = tree(path.join(fx.dir, 'dist'));

      await expectLikeFleetsWithoutRings(fx, block);
    });
  }
});

describe('a rules file under rollout', () => {
  it('reaches only the rings on its revision: the others render the ConfigMap of their own revision', async () => {
    const fx = FleetFixture.example();
    fixtures.push(fx);
    fx.remove('status');
    const block = '  rollout:\n    rings:\n      - name: europe\n        selector: {matchLabels: {geo: eu}}\n        bake: 1h\n';
    fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${block}`);
    ok(await fx.run(['rollout', 'start', '--now', NOW]));
    fx.replace('rules/acme-shell-in-container.yaml', '  priority: WARNING\n', '  priority: ERROR\n');
    ok(await fx.run(['rollout', 'start', '--now', NOW]));
    ok(await fx.run(['synth', '--now', NOW]));
    const configMap = (name: string) => fs.readFileSync(path.join(fx.dir, 'dist/runtimes', name, 'skr-config/configmap-falco-rules-acme-shell-in-container.yaml'), 'utf8');
    expect(configMap('acme-eu-prod-1')).toContain('priority: ERROR');
    expect(configMap('acme-us-prod-1')).toContain('priority: WARNING');
    await expectLikeFleetsWithoutRings(fx, block);
  });
});
