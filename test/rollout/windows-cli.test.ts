// Change windows as an operator meets them, through the built binary on a copy of the example fleet
// with three rings (canary: the sandbox runtime; early: development; rest: production), a weekday
// window in Europe/Berlin (Mon-Thu 09:00-16:00) and a year-end freeze, the clock given as --now:
//   - rollout start inside the window acts; outside it, or in the freeze, it exits 6 and the whole
//     fleet folder stays byte-identical (no state, no lock, no status), naming the rule and when the
//     next window opens;
//   - across the spring-forward change the window follows the Berlin wall clock (07:30Z is outside
//     in winter, inside in summer), and a window starting in the missing hour opens when it ends;
//   - --override-window acts anyway and its reason is in fleet/rollout/state.yaml and rollout status;
//   - rollout advance outside the window observes nothing and writes nothing; bake time counts
//     while the window is closed;
//   - apply garden (against the fake Garden API server, test/status/fake-kube-api.ts, since the real
//     one needs Go) defers the runtimes of closed rings, exits 6 without a request when every ring is
//     closed, and records the override reason in garden-apply.json.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SHOOT_RUNTIME_ID_ANNOTATION } from '../../src/apply/shoot-entries';
import { BIN, FleetFixture, REPO, type RunResult, testProcessEnv } from '../helpers/fleet-fixture';
import { FakeKubeApi } from '../status/fake-kube-api';
import { dumpRuntimesOf, fileTree as tree, writeDumpFromDist } from './cluster-dump';
import { BERLIN_WEEKDAYS_AND_YEAR_END } from './windows-fixture';

const WINDOWS = `  rollout:
${BERLIN_WEEKDAYS_AND_YEAR_END}    rings:
      - name: canary
        selector: {matchLabels: {tier: sandbox}}
        bake: 24h
CANARY_WINDOWS      - name: early
        selector: {matchLabels: {tier: development}}
        bake: 48h
`;
const OLD_TTL = '              ttl: 168h\n';
const NEW_TTL = '              ttl: 72h\n';
/** Wed 2026-11-25 10:00 CET: inside the weekday window. */
const INSIDE = '2026-11-25T09:00:00Z';
/** Fri 2026-11-27 11:00 CET: outside it; the next window opens Mon 09:00 CET. */
const FRIDAY = '2026-11-27T10:00:00Z';
/** Tue 2026-12-22 10:00 CET: inside the weekday window, but in the year-end freeze. */
const FROZEN = '2026-12-22T09:00:00Z';

const fixtures: FleetFixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});

const ajv = new Ajv({ strict: true, allErrors: true });
for (const f of fs.readdirSync(path.join(REPO, 'schemas/output'))) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(REPO, 'schemas/output', f), 'utf8')));
/** The JSON document on stdout, checked against schemas/output/<name>.schema.json. */
function jsonOf(name: string, r: RunResult): any {
  const doc = JSON.parse(r.stdout);
  const validate = ajv.getSchema(`https://kyma-fleet.dev/schemas/output/${name}.schema.json`)!;
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  return doc;
}

function must(r: RunResult, code: number): RunResult {
  if (r.code !== code) throw new Error(`exit ${r.code}, expected ${code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The example fleet with the rings and windows; the canary ring may bring its own windows block. */
function windowedFleet(canaryWindows = ''): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  fx.remove('status');
  fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${WINDOWS.replace('CANARY_WINDOWS', canaryWindows)}`);
  return fx;
}

/** A windowed fleet whose first rollout started inside the window, with a change of the defaults waiting. */
function pendingChange(): FleetFixture {
  const fx = windowedFleet();
  must(fx.runBinary(['rollout', 'start', '--now', INSIDE]), 0);
  fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
  return fx;
}

describe('rollout start in and out of the change window', () => {
  it('inside the window: starts (the canary moves to the new revision)', () => {
    const fx = pendingChange();
    const before = parse(fx.read('rollout/state.yaml'));
    const r = must(fx.runBinary(['rollout', 'start', '--now', '2026-11-26T14:59:00Z']), 0);
    expect(r.stdout).toMatch(/^revision [0-9a-f]{16} started: ring canary is on it; early, rest stay where they are\n$/);
    const after = parse(fx.read('rollout/state.yaml'));
    expect(after.rings[0].revision).not.toBe(before.rings[0].revision);
    expect(after.rings[0].windowOverride).toBeUndefined();
  });

  it('outside the window: exit 6, why and when the next window opens, the fleet folder byte-identical', () => {
    const fx = pendingChange();
    const before = tree(fx.fleetDir);
    const r = fx.runBinary(['rollout', 'start', '--now', FRIDAY]);
    expect(r.code).toBe(6);
    expect(r.errLines).toEqual([
      'rollout: ring canary is outside its change window: outside every allowed window (fleet-wide allow "weekdays": Mon,Tue,Wed,Thu 09:00 to 16:00 Europe/Berlin); next window opens 2026-11-30T08:00:00Z (Mon 2026-11-30 09:00 Europe/Berlin); nothing started (--override-window REASON acts anyway)',
    ]);
    expect(r.stdout).toBe('');
    expect(tree(fx.fleetDir)).toEqual(before);
    // The end of the window is exclusive: 16:00 CET is outside.
    expect(fx.runBinary(['rollout', 'start', '--now', '2026-11-26T15:00:00Z']).code).toBe(6);
    expect(tree(fx.fleetDir)).toEqual(before);
  });

  it('in the freeze, though the weekday window is open: exit 6, naming the freeze; it opens on the first weekday window after it', () => {
    const fx = pendingChange();
    const before = tree(fx.fleetDir);
    const r = fx.runBinary(['rollout', 'start', '--now', FROZEN, '-o', 'json']);
    expect(r.code).toBe(6);
    const doc = jsonOf('rollout-start', r);
    expect(doc.windows).toEqual([
      { ring: 'canary', open: false, reason: 'frozen by fleet-wide freeze "year-end" (2026-12-19 00:00 to 2027-01-06 00:00 Europe/Berlin)', rule: 'fleet-wide freeze "year-end"', opensAt: '2027-01-06T08:00:00Z', zone: 'Europe/Berlin' },
    ]);
    expect(tree(fx.fleetDir)).toEqual(before);
  });

  it('follows the Berlin wall clock across the spring-forward change: 07:30Z is outside in winter and inside in summer', () => {
    const fx = pendingChange();
    const before = tree(fx.fleetDir);
    // Thu 2026-03-26 07:30Z is 08:30 CET: before the window; the next one opens at 09:00 CET.
    const winter = fx.runBinary(['rollout', 'start', '--now', '2026-03-26T07:30:00Z']);
    expect(winter.code).toBe(6);
    expect(winter.errLines[0]).toContain('next window opens 2026-03-26T08:00:00Z (Thu 2026-03-26 09:00 Europe/Berlin)');
    expect(tree(fx.fleetDir)).toEqual(before);
    // Mon 2026-03-30 07:30Z is 09:30 CEST (Berlin sprang forward on Sunday): inside.
    must(fx.runBinary(['rollout', 'start', '--now', '2026-03-30T07:30:00Z']), 0);
  });

  it('a ring window starting in the missing hour of the spring-forward night opens when the clock jumps to 03:00', () => {
    const fx = windowedFleet('        windows:\n          allow: [{name: night, days: [Sun], start: "02:30", end: "04:00"}]\n');
    must(fx.runBinary(['rollout', 'start', '--now', '2026-03-29T01:00:00Z']), 0);
    fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    const status = jsonOf('rollout-status', must(fx.runBinary(['rollout', 'status', '--now', '2026-03-29T00:59:00Z', '-o', 'json']), 0));
    expect(status.rings[0].window).toMatchObject({ open: false, opensAt: '2026-03-29T01:00:00Z' });
    expect(fx.runBinary(['rollout', 'start', '--now', '2026-03-29T00:59:00Z']).code).toBe(6);
    must(fx.runBinary(['rollout', 'start', '--now', '2026-03-29T01:00:00Z']), 0);
  });

  it('--override-window acts outside the window and records the reason on the ring moved; rollout status shows it', () => {
    const fx = pendingChange();
    const reason = 'CVE-2026-4242: patched registry mirror, approved by the on-call lead';
    const r = must(fx.runBinary(['rollout', 'start', '--now', FROZEN, '--override-window', reason]), 0);
    expect(r.errLines).toEqual([expect.stringMatching(/^rollout: warning: ring canary is outside its change window: frozen by fleet-wide freeze "year-end" .*; acting anyway \(--override-window, recorded in fleet\/rollout\/state\.yaml\)$/)]);
    const state = parse(fx.read('rollout/state.yaml'));
    expect(state.rings.map((x: { name: string; windowOverride?: string }) => [x.name, x.windowOverride])).toEqual([
      ['canary', reason],
      ['early', undefined],
      ['rest', undefined],
    ]);
    jsonOf('rollout-status', must(fx.runBinary(['rollout', 'status', '--now', FROZEN, '-o', 'json']), 0));
    const text = must(fx.runBinary(['rollout', 'status', '--now', FROZEN]), 0).stdout;
    expect(text).toContain(`  canary: revision ${state.rings[0].revision} since ${FROZEN}; 1 runtime (1 Unrecorded)\n    moved outside its change window: --override-window ${JSON.stringify(reason)}\n    window closed: frozen by fleet-wide freeze "year-end"`);
    // The state stays readable for every command; synth renders with it.
    must(fx.runBinary(['synth', '--now', FROZEN]), 0);
  });

  it('refuses a reason that is not one line (usage, exit 2), before anything is read', () => {
    const fx = pendingChange();
    const r = fx.runBinary(['rollout', 'start', '--now', FROZEN, '--override-window', 'line one\nline two']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--override-window must be one line of printable text');
  });
});

describe('rollout advance and the change window', () => {
  it('outside the window observes and writes nothing; the bake keeps counting while it is closed', () => {
    const fx = pendingChange();
    must(fx.runBinary(['rollout', 'start', '--now', '2026-11-25T09:00:00Z']), 0);
    must(fx.runBinary(['synth', '--now', '2026-11-25T09:00:00Z']), 0);
    const runtimes = dumpRuntimesOf(fx.fleetDir);
    writeDumpFromDist(path.join(fx.dir, 'dist'), runtimes, path.join(fx.dir, 'dump'));
    // What the clusters would show on Friday: the canary's Shoot failed (observed, it would hold the gate and restart the bake).
    writeDumpFromDist(path.join(fx.dir, 'dist'), runtimes, path.join(fx.dir, 'dump-failed'), {
      'acme-eu-sandbox': { shoot: (s) => void (s.status.lastOperation = { type: 'Reconcile', state: 'Failed', progress: 50, description: 'falco extension failed' }) },
    });
    // Thu 10:00 CET, inside: observed for the first time, the canary starts baking (24h).
    const baking = fx.runBinary(['rollout', 'advance', '--from', 'dump', '--now', '2026-11-26T09:00:00Z']);
    expect(baking.code).toBe(6);
    expect(baking.errLines[0]).toBe('rollout: gate of ring canary closed: ring canary: 1 baking (1d left); early not advanced');
    // Fri 11:00 CET, outside: exit 6 for the window, before observing; fleet/status/ and fleet/rollout/ untouched.
    const before = tree(fx.fleetDir);
    const friday = fx.runBinary(['rollout', 'advance', '--from', 'dump-failed', '--now', '2026-11-27T10:00:00Z']);
    expect(friday.code).toBe(6);
    expect(friday.errLines).toEqual([
      'rollout: ring early is outside its change window: outside every allowed window (fleet-wide allow "weekdays": Mon,Tue,Wed,Thu 09:00 to 16:00 Europe/Berlin); next window opens 2026-11-30T08:00:00Z (Mon 2026-11-30 09:00 Europe/Berlin); early not advanced (--override-window REASON acts anyway)',
    ]);
    expect(tree(fx.fleetDir)).toEqual(before);
    const fridayJson = jsonOf('rollout-advance', fx.runBinary(['rollout', 'advance', '--from', 'dump-failed', '--now', '2026-11-27T10:00:00Z', '-o', 'json']));
    expect(fridayJson.windows.map((w: { ring: string; opensAt: string }) => [w.ring, w.opensAt])).toEqual([['early', '2026-11-30T08:00:00Z']]);
    expect(tree(fx.fleetDir)).toEqual(before);
    // Mon 09:00 CET: the bake finished over the weekend (the window does not pause it): early moves at once.
    const monday = must(fx.runBinary(['rollout', 'advance', '--from', 'dump', '--now', '2026-11-30T08:00:00Z']), 0);
    expect(monday.stdout).toMatch(/^gate of ring canary open \(.*\): early moved to revision [0-9a-f]{16}; run kyma-fleet synth\n$/);
  });
});

describe('the status page', () => {
  it('shows each ring\'s change window at the time of the status run', () => {
    const fx = windowedFleet('        windows:\n          allow: []\n');
    must(fx.runBinary(['synth', '--now', FRIDAY]), 0);
    const runtimes = dumpRuntimesOf(fx.fleetDir);
    writeDumpFromDist(path.join(fx.dir, 'dist'), runtimes, path.join(fx.dir, 'dump'));
    must(fx.runBinary(['status', '--from', 'dump', '--html', '--now', FRIDAY]), 0);
    const page = fx.read('status/status.html');
    const rows = [...page.matchAll(/<tr data-ring="([a-z-]+)"><td class="name">[a-z-]+<\/td><td><span class="badge s-[A-Za-z]+">(open|closed)<\/span><\/td><td>([^<]*)<\/td><\/tr>/g)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual([
      ['canary', 'open', 'no allowed windows, and no freeze holds; closes 2026-12-18T23:00:00Z (Sat 2026-12-19 00:00 Europe/Berlin)'],
      ['early', 'closed', 'outside every allowed window (fleet-wide allow &quot;weekdays&quot;: Mon,Tue,Wed,Thu 09:00 to 16:00 Europe/Berlin); next window opens 2026-11-30T08:00:00Z (Mon 2026-11-30 09:00 Europe/Berlin)'],
      ['rest', 'closed', 'outside every allowed window (fleet-wide allow &quot;weekdays&quot;: Mon,Tue,Wed,Thu 09:00 to 16:00 Europe/Berlin); next window opens 2026-11-30T08:00:00Z (Mon 2026-11-30 09:00 Europe/Berlin)'],
    ]);
  });
});

/** Runs the built binary without blocking this process (the fake API server answers from here). */
function runAsync(fx: FleetFixture, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: fx.dir, env: { ...testProcessEnv(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, errLines: stderr.split('\n').filter((l) => l !== '') }));
  });
}

describe('apply garden and the change windows', () => {
  const TOKEN = 'garden-token';
  let fake: FakeKubeApi;
  afterAll(async () => fake?.close());

  /** A windowed fleet rendered into dist/, the fake Garden serving every runtime's Shoot, and a kubeconfig for it. */
  async function gardenFleet(canaryWindows = ''): Promise<FleetFixture> {
    const fx = windowedFleet(canaryWindows);
    must(fx.runBinary(['synth', '--now', INSIDE]), 0);
    await fake?.close();
    fake = await FakeKubeApi.start({ token: TOKEN });
    const shoots = new Map<string, Record<string, unknown>>();
    for (const f of fs.readdirSync(fx.path('runtimes')).sort()) {
      const d = parse(fx.read(`runtimes/${f}`));
      const shoot = {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: d.spec.shoot.name, namespace: `garden-${d.spec.shoot.project}`, resourceVersion: '7', generation: 3, annotations: { [SHOOT_RUNTIME_ID_ANNOTATION]: d.spec.runtimeID } },
        spec: { extensions: [{ type: 'shoot-dns-service' }] },
      };
      fake.add('shoots', shoot);
      shoots.set(`/apis/core.gardener.cloud/v1beta1/namespaces/garden-${d.spec.shoot.project}/shoots/${d.spec.shoot.name}`, shoot);
    }
    fake.script(
      (r) => r.method === 'PATCH',
      (r) => ({ json: { ...shoots.get(r.path)!, metadata: { ...(shoots.get(r.path)!.metadata as object), generation: 4 } } }),
    );
    fs.writeFileSync(path.join(fx.dir, 'garden.yaml'), fake.kubeconfig(TOKEN, 'garden'));
    return fx;
  }
  const apply = (fx: FleetFixture, now: string, ...extra: string[]) => runAsync(fx, ['apply', 'garden', '--kubeconfig', 'garden.yaml', '--garden-context', 'garden', '--allow-mass-change', '--now', now, ...extra]);

  it('every ring closed: exit 6 before a single request, nothing written', async () => {
    const fx = await gardenFleet();
    const before = tree(fx.fleetDir);
    const r = await apply(fx, FRIDAY);
    expect(r.code).toBe(6);
    expect(jsonOf('apply-garden', await apply(fx, FRIDAY, '-o', 'json')).exitCode).toBe(6);
    expect(r.errLines).toEqual([expect.stringMatching(/^apply garden: ring canary is outside its change window: .*; ring early is outside .*; ring rest is outside .*next window opens 2026-11-30T08:00:00Z .*; nothing written \(--override-window REASON writes anyway\)$/)]);
    expect(fake.requests).toEqual([]);
    expect(tree(fx.fleetDir)).toEqual(before);
  });

  it('inside the window: writes every Shoot', async () => {
    const fx = await gardenFleet();
    const r = await apply(fx, INSIDE);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('apply garden: 7 Shoots with entries the fleet writes: 7 written, 0 up to date\n');
    const report = JSON.parse(fs.readFileSync(fx.path('status/garden-apply.json'), 'utf8'));
    expect(Object.values(report.runtimes).map((x) => (x as { outcome: string }).outcome)).toEqual(Array(7).fill('Applied'));
  });

  it('a ring whose own window is open is written; the runtimes of closed rings are deferred and not read', async () => {
    const fx = await gardenFleet('        windows:\n          allow: []\n');
    const r = await apply(fx, FRIDAY, '-o', 'json');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = jsonOf('apply-garden', r);
    expect(doc.runtimes.map((x: { name: string; outcome: string }) => [x.name, x.outcome])).toEqual([
      ['acme-eu-sandbox', 'Applied'],
      ...['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-dev-1', 'acme-us-dev-2', 'acme-us-prod-1'].map((n) => [n, 'Deferred']),
    ]);
    expect(doc.runtimes[1].message).toMatch(/^ring early is outside its change window: /);
    expect(new Set(fake.requests.map((q) => q.path.split('/').pop()))).toEqual(new Set(['c-0a1b2c3']));
    const report = JSON.parse(fs.readFileSync(fx.path('status/garden-apply.json'), 'utf8'));
    expect(Object.keys(report.runtimes)).toEqual(['acme-eu-sandbox']);
  });

  it('--override-window writes the closed rings too and records the reason on their runtimes in garden-apply.json', async () => {
    const fx = await gardenFleet('        windows:\n          allow: []\n');
    const reason = 'Falco rules hotfix for an active incident (INC-311)';
    const r = await apply(fx, FROZEN, '--override-window', reason);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.errLines.filter((l) => l.includes('written anyway (--override-window, recorded in garden-apply.json)'))).toHaveLength(3);
    const report = JSON.parse(fs.readFileSync(fx.path('status/garden-apply.json'), 'utf8'));
    const overrides = Object.fromEntries(Object.entries(report.runtimes).map(([n, x]) => [n, (x as { windowOverride?: string }).windowOverride]));
    // The year-end freeze is fleet-wide: it holds for the canary too, whose allow list is its own.
    expect(overrides).toEqual(Object.fromEntries(Object.keys(overrides).map((n) => [n, reason])));
    expect(Object.keys(overrides)).toHaveLength(7);
  });
});
