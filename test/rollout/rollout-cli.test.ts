// Rollout rings as an operator runs them: the real binary on a copy of the example fleet with
// three rings (canary: the sandbox runtime; early: the development runtimes; rest: production),
// status dumps made from what dist/ rendered (./cluster-dump.ts), and the clock passed as --now.
// A change of the defaults reaches the canary only; advance before the bake time exits 6 and moves
// nothing; after it the next ring gets exactly what a fleet without rings renders; a Failed or
// Drifted canary, or a status from before the change, holds the gate and is named; pause, resume
// and abort; a runtime that changes ring renders at its new ring's revision.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FleetFixture, type RunResult } from '../helpers/fleet-fixture';
import { type DumpAdjust, dumpRuntimesOf, fileTree as tree, renderedTree, writeDumpFromDist } from './cluster-dump';

const RINGS = `  rollout:
    rings:
      - name: canary
        selector: {matchLabels: {tier: sandbox}}
        bake: 24h
      - name: early
        selector: {matchLabels: {tier: development}}
        bake: 48h
`;
const CANARY = ['acme-eu-sandbox'];
const EARLY = ['acme-eu-dev-1', 'acme-us-dev-1', 'acme-us-dev-2'];
const REST = ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1'];
/** The change under rollout: the default cache's garbage collection (in every Shoot fragment and Runtime CR). */
const OLD_TTL = '              ttl: 168h\n';
const NEW_TTL = '              ttl: 72h\n';
const T0 = '2026-11-25T10:00:00Z';
const hours = (h: number): string => new Date(Date.parse(T0) + h * 3_600_000).toISOString().replace(/\.000Z$/, 'Z');

/** The runtimes whose folders (runtimes/<name>/) differ between two trees. */
function changedRuntimes(a: Map<string, string>, b: Map<string, string>): string[] {
  const names = new Set<string>();
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const m = /^runtimes\/([^/]+)\//.exec(k);
    if (m && a.get(k) !== b.get(k)) names.add(m[1]!);
  }
  return [...names].sort();
}

function runtimeFolder(t: Map<string, string>, name: string): Record<string, string> {
  return Object.fromEntries([...t].filter(([k]) => k.startsWith(`runtimes/${name}/`)));
}

const fixtures: FleetFixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});

/** A copy of the example fleet with the rings, its first rollout started at T0 and dist/ rendered. */
function startedFleet(): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  fx.remove('status');
  fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${RINGS}`);
  must(fx.runBinary(['rollout', 'start', '--now', T0]), 0);
  must(fx.runBinary(['synth', '--now', T0]), 0);
  return fx;
}

function must(r: RunResult, code: number): RunResult {
  if (r.code !== code) throw new Error(`exit ${r.code}, expected ${code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** A dump in which the clusters show what `dist` holds. */
function dumpOf(fx: FleetFixture, dist: string, name: string, adjust: Record<string, DumpAdjust> = {}): string {
  const out = path.join(fx.dir, name);
  writeDumpFromDist(dist, dumpRuntimesOf(fx.fleetDir), out, adjust);
  return name;
}

describe('rollout rings through the CLI', () => {
  let fx: FleetFixture;
  let before: Map<string, string>;
  let reference: Map<string, string>;

  beforeAll(() => {
    fx = startedFleet();
    before = tree(path.join(fx.dir, 'dist'));
    fs.cpSync(path.join(fx.dir, 'dist'), path.join(fx.dir, 'dist-before'), { recursive: true });
    // What a fleet without rings renders with the change: the reference for every ring it reaches.
    const plain = FleetFixture.example();
    fixtures.push(plain);
    plain.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    must(plain.runBinary(['synth', '--now', T0]), 0);
    reference = tree(path.join(plain.dir, 'dist'));
  });

  it('a changed default reaches no runtime before start, and only the canary ring after it', () => {
    fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    const v = must(fx.runBinary(['validate', '--now', hours(1)]), 0);
    expect(v.errLines).toEqual([
      expect.stringMatching(/^fleet\/rollout\/state\.yaml:7:15: warning at rings\[0\]\.revision: the fleet-wide layers differ from revision [0-9a-f]{16} that ring canary is on \(changed: fleet\.yaml\): the change reaches no runtime until `kyma-fleet rollout start` \[W_ROLLOUT_PENDING\]$/),
    ]);
    const s = must(fx.runBinary(['synth', '--now', hours(1)]), 0);
    expect(s.errLines.filter((l) => l.includes('W_ROLLOUT_PENDING'))).toHaveLength(1);
    expect(changedRuntimes(before, tree(path.join(fx.dir, 'dist')))).toEqual([]);

    must(fx.runBinary(['rollout', 'start', '--now', hours(1)]), 0);
    must(fx.runBinary(['synth', '--now', hours(1)]), 0);
    const after = tree(path.join(fx.dir, 'dist'));
    expect(changedRuntimes(before, after)).toEqual(CANARY);
    for (const name of CANARY) expect(runtimeFolder(after, name)).toEqual(runtimeFolder(reference, name));
    expect(must(fx.runBinary(['validate', '--now', hours(1)]), 0).stderr).toBe('');
  });

  it('advance before the bake time exits 6, names the runtime and changes nothing but fleet/status/', () => {
    const dump = dumpOf(fx, path.join(fx.dir, 'dist'), 'dump-now');
    const state = fx.read('rollout/state.yaml');
    const distBefore = tree(path.join(fx.dir, 'dist'));
    const r = fx.runBinary(['rollout', 'advance', '--from', dump, '--now', hours(2)]);
    expect(r.code).toBe(6);
    expect(r.errLines).toEqual([
      // Observed for the first time now: its bake clock starts now, not at the promotion an hour ago.
      'rollout: gate of ring canary closed: ring canary: 1 baking (1d left); early not advanced',
      '  acme-eu-sandbox: baking, 1d left',
    ]);
    expect(fx.read('rollout/state.yaml')).toBe(state);
    expect(fs.existsSync(fx.path('status/acme-eu-sandbox.yaml'))).toBe(true);
    must(fx.runBinary(['synth', '--now', hours(2)]), 0);
    expect(tree(path.join(fx.dir, 'dist'))).toEqual(distBefore);
  });

  it('a status taken before the change never opens the gate, however long it bakes', () => {
    const old = dumpOf(fx, path.join(fx.dir, 'dist-before'), 'dump-before');
    const r = fx.runBinary(['rollout', 'advance', '--from', old, '--now', hours(500)]);
    expect(r.code).toBe(6);
    expect(r.errLines).toContain('  acme-eu-sandbox: registry-cache Drifted (ShootConfigDrift)');
  });

  it('a Failed canary runtime holds the gate and is named', () => {
    const failed = dumpOf(fx, path.join(fx.dir, 'dist'), 'dump-failed', {
      'acme-eu-sandbox': { shoot: (s) => void (s.status.lastOperation = { type: 'Reconcile', state: 'Failed', progress: 50, description: 'registry-cache extension failed' }) },
    });
    const r = fx.runBinary(['rollout', 'advance', '--from', failed, '--now', hours(100)]);
    expect(r.code).toBe(6);
    expect(r.errLines.some((l) => /^ {2}acme-eu-sandbox: .*Failed \(ShootOperationFailed\)/.test(l))).toBe(true);
  });

  it('after the bake time the next ring gets the change, byte-identical to a fleet without rings', () => {
    const dump = dumpOf(fx, path.join(fx.dir, 'dist'), 'dump-good');
    // The Failed observation above started a new transition: the bake counts from the next Ready one.
    must(fx.runBinary(['rollout', 'advance', '--from', dump, '--now', hours(101)]), 6);
    const r = must(fx.runBinary(['rollout', 'advance', '--from', dump, '--now', hours(126)]), 0);
    expect(r.stdout).toMatch(/^gate of ring canary open \(.*\): early moved to revision [0-9a-f]{16}; run kyma-fleet synth\n$/);
    must(fx.runBinary(['synth', '--now', hours(126)]), 0);
    const after = tree(path.join(fx.dir, 'dist'));
    // acme-us-dev-1 runs no registry cache: the change does not touch it.
    expect(changedRuntimes(before, after)).toEqual(['acme-eu-dev-1', 'acme-eu-sandbox', 'acme-us-dev-2']);
    for (const name of [...CANARY, ...EARLY]) expect(runtimeFolder(after, name)).toEqual(runtimeFolder(reference, name));
    for (const name of REST) expect(runtimeFolder(after, name)).toEqual(runtimeFolder(before, name));
    const status = must(fx.runBinary(['rollout', 'status', '--output', 'json', '--now', hours(126)]), 0);
    const table = JSON.parse(status.stdout);
    expect(table.rings.map((r: { name: string; runtimes: string[] }) => [r.name, r.runtimes.length])).toEqual([
      ['canary', 1],
      ['early', 3],
      ['rest', 3],
    ]);
    expect(table.rings[1].gate.open).toBe(false);
  });

  it('pause makes advance refuse (exit 6) until resume; abort moves every ring back and synth renders the old fleet', () => {
    must(fx.runBinary(['rollout', 'pause', '--now', hours(200)]), 0);
    const dump = dumpOf(fx, path.join(fx.dir, 'dist'), 'dump-paused');
    const paused = fx.runBinary(['rollout', 'advance', '--from', dump, '--now', hours(300)]);
    expect(paused.code).toBe(6);
    expect(paused.errLines).toEqual(['rollout: gate closed: the rollout is paused (kyma-fleet rollout resume); nothing advanced']);
    must(fx.runBinary(['rollout', 'resume', '--now', hours(300)]), 0);
    must(fx.runBinary(['rollout', 'abort', '--now', hours(300)]), 0);
    const state = parse(fx.read('rollout/state.yaml'));
    expect(new Set(state.rings.map((r: { revision: string }) => r.revision)).size).toBe(1);
    must(fx.runBinary(['synth', '--now', hours(300)]), 0);
    // the same files; the index's record names the rollout state they were rendered with, which moved
    expect(renderedTree(path.join(fx.dir, 'dist'))).toEqual(renderedTree(path.join(fx.dir, 'dist-before')));
  });
});

describe('a runtime that changes ring', () => {
  it('renders at its new ring\'s revision, and at the old one again when it moves back', () => {
    const fx = startedFleet();
    const before = tree(path.join(fx.dir, 'dist'));
    fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    must(fx.runBinary(['rollout', 'start', '--now', hours(1)]), 0);
    // acme-eu-dev-1 moves from early into the canary ring.
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'tier: development', 'tier: sandbox');
    must(fx.runBinary(['synth', '--now', hours(1)]), 0);
    const moved = tree(path.join(fx.dir, 'dist'));
    expect(changedRuntimes(before, moved)).toEqual(['acme-eu-dev-1', 'acme-eu-sandbox']);
    const shoot = (t: Map<string, string>) => [...t].find(([k]) => k.startsWith('runtimes/acme-eu-dev-1/garden/shoot-'))![1];
    expect(shoot(moved)).toContain('ttl: 72h');
    expect(shoot(before)).toContain('ttl: 168h');
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'tier: sandbox', 'tier: development');
    must(fx.runBinary(['synth', '--now', hours(1)]), 0);
    expect(changedRuntimes(before, tree(path.join(fx.dir, 'dist')))).toEqual(['acme-eu-sandbox']);
  });
});

describe('one rollout command at a time', () => {
  it('refuses while another holds fleet/rollout.lock (exit 4), and moves nothing', () => {
    const fx = startedFleet();
    const state = fx.read('rollout/state.yaml');
    fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    // A live holder on this host: this test process.
    fs.writeFileSync(path.join(fx.fleetDir, 'rollout.lock'), `${JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: '2026-11-25T10:00:00.000Z' })}\n`);
    const r = fx.runBinary(['rollout', 'start', '--now', hours(1)]);
    expect(r.code).toBe(4);
    expect(r.errLines).toEqual([expect.stringMatching(/^fleet\/rollout\/: error: fleet\/rollout\/ is locked by pid \d+ on .* since 2026-11-25T10:00:00.000Z \(lock file .*rollout\.lock\); another kyma-fleet rollout command is running on this fleet: run again when it has finished \[E_ROLLOUT_LOCKED\]$/)]);
    expect(fx.read('rollout/state.yaml')).toBe(state);
  });
});

describe('fleet/rollout/', () => {
  it('is the same bytes for the same fleet and the same moves, wherever they run', () => {
    const a = startedFleet();
    const b = startedFleet();
    for (const fx of [a, b]) {
      fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
      must(fx.runBinary(['rollout', 'start', '--now', hours(1)]), 0);
      must(fx.runBinary(['rollout', 'pause', '--now', hours(2)]), 0);
    }
    expect(a.dir).not.toBe(b.dir);
    expect(tree(a.path('rollout'))).toEqual(tree(b.path('rollout')));
    expect([...tree(a.path('rollout')).keys()].filter((k) => !k.startsWith('revisions/')).sort()).toEqual(['state.yaml']);
  });
});

describe('time under rings', () => {
  it('an incremental synth notices a Falco version expiring in an older revision that a ring is on', () => {
    // Revision 1: Falco 0.42.1 (production, the rest ring) expires on 2026-12-01.
    const fx = FleetFixture.example();
    fixtures.push(fx);
    fx.remove('status');
    fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${RINGS}`);
    const supported = '      - classification: supported\n        rulesVersion: 0.42.1\n';
    const expiring = '      - classification: deprecated\n        expirationDate: "2026-12-01T00:00:00Z"\n        rulesVersion: 0.42.1\n';
    fx.replace('profiles/falco-profile.yaml', supported, expiring);
    must(fx.runBinary(['rollout', 'start', '--now', T0]), 0);
    // Revision 2 (the canary only): the snapshot where it is supported again.
    fx.replace('profiles/falco-profile.yaml', expiring, supported);
    must(fx.runBinary(['rollout', 'start', '--now', T0]), 0);
    must(fx.runBinary(['synth', '--now', T0]), 0);
    const after = '2026-12-02T00:00:00Z';
    const cold = fx.runBinary(['synth', '--now', after, '--no-cache']);
    expect(cold.code).toBe(1);
    const incremental = fx.runBinary(['synth', '--now', after]);
    expect(incremental.code).toBe(1);
    expect(incremental.errLines).toEqual(cold.errLines);
  });
});

describe('fleet/rollout/ edited by hand', () => {
  it('is refused by every command that reads it, with the file and line, and dist/ stays as it is', () => {
    const fx = startedFleet();
    const dist = tree(path.join(fx.dir, 'dist'));
    const revision = parse(fx.read('rollout/state.yaml')).rings[0].revision as string;
    fx.replace(`rollout/revisions/${revision}/fleet.yaml`, OLD_TTL, NEW_TTL);
    for (const args of [['synth'], ['validate'], ['rollout', 'status']]) {
      const r = fx.runBinary([...args, '--now', hours(1)]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.errLines[0]).toMatch(new RegExp(`^fleet/rollout/revisions/${revision}/:1:1: error: the files of revision ${revision} were edited by hand \\(their content is revision [0-9a-f]{16}\\); .* \\[E_ROLLOUT_EDITED\\]$`));
    }
    fx.replace(`rollout/revisions/${revision}/fleet.yaml`, NEW_TTL, OLD_TTL);
    fx.replace('rollout/state.yaml', `revision: "${revision}"`, 'revision: "not-a-revision"');
    const r = fx.runBinary(['synth', '--now', hours(1)]);
    expect(r.code).toBe(1);
    expect(r.errLines[0]).toBe('fleet/rollout/state.yaml:7:15: error at rings[0].revision: must be a revision id of 16 hex digits (got "not-a-revision") (fleet/rollout/ is written only by kyma-fleet rollout: restore it from git) [E_ROLLOUT_STATE]');
    expect(tree(path.join(fx.dir, 'dist'))).toEqual(dist);
  });
});

describe('the other commands with rings', () => {
  it('a change that would break a later ring fails validate and rollout start now, not when it gets there', () => {
    const fx = startedFleet();
    const state = fx.read('rollout/state.yaml');
    // The production group switches Falco off: the policy production-runs-falco breaks the rest ring only.
    fx.replace('groups/production.yaml', '      falco:\n        enabled: true\n', '      falco:\n        enabled: false\n');
    const v = fx.runBinary(['validate', '--now', hours(1)]);
    expect(v.code).toBe(1);
    const policy = v.errLines.filter((l) => l.endsWith('[E_POLICY]'));
    expect(policy.map((l) => /acme-[a-z]+-prod-\d/.exec(l)?.[0])).toEqual(REST);
    const start = fx.runBinary(['rollout', 'start', '--now', hours(1)]);
    expect(start.code).toBe(1);
    expect(start.errLines.at(-1)).toBe('fleet: the fleet is invalid; rollout start needs a valid fleet (nothing changed)');
    expect(fx.read('rollout/state.yaml')).toBe(state);
  });

  it('status judges every runtime against its ring\'s render; explain shows the layers of its ring\'s revision', () => {
    const fx = startedFleet();
    fx.replace('fleet.yaml', OLD_TTL, NEW_TTL);
    must(fx.runBinary(['rollout', 'start', '--now', hours(1)]), 0);
    must(fx.runBinary(['synth', '--now', hours(1)]), 0);
    // The clusters show what dist/ holds: the canary on the new revision, the others on the old one.
    const dump = dumpOf(fx, path.join(fx.dir, 'dist'), 'dump-rings');
    const r = must(fx.runBinary(['status', '--from', dump, '--now', hours(2), '-o', 'json']), 0);
    const records = JSON.parse(r.stdout).status as Array<{ name: string; state: string }>;
    expect(records.map((x) => [x.name, x.state]).filter(([, st]) => st !== 'Ready' && st !== 'Disabled')).toEqual([]);
    expect(records).toHaveLength(7);

    const revision = parse(fx.read('rollout/state.yaml')).rings[2].revision as string;
    const explained = must(fx.runBinary(['explain', 'acme-eu-prod-1', '--now', hours(2), '-o', 'json']), 0);
    const layers = (JSON.parse(explained.stdout).layers as Array<{ file: string }>).map((l) => l.file);
    expect(layers[0]).toBe(`fleet/rollout/revisions/${revision}/fleet.yaml`);
    expect(layers.at(-1)).toBe('fleet/runtimes/acme-eu-prod-1.yaml');
  });
});
