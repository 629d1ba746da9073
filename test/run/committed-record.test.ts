// The record committed in dist/'s index (src/run/committed-record.ts, issue 28): on a fresh CI runner
// (no run record, an empty cache folder) `synth --check` and `diff` render only the runtimes whose
// inputs differ from the recorded ones, and their verdict is always the one of a check that renders
// and compares everything (diffDist without a cache folder). Every way a stale or edited dist/ could
// pass is a case here: a hand-edited, deleted or replaced dist/ file, an index whose hash was made to
// match an edit, a record made to vouch for an edited runtime file, a changed group, default, rules
// file or catalog that reaches many runtimes, a time epoch crossed, runtimes added and removed. The
// property test at the end applies random sequences of such edits. (A changed kyma-fleet build or
// plug-in needs another build: test/cli/check-command.test.ts.)

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/lib/diagnostics';
import { INDEX_FILE } from '../../src/lib/dist-index';
import { readCommitted } from '../../src/run/committed-record';
import { planCheck } from '../../src/run/plan';
import { diffDist, type DiffResult, synth } from '../../src/run/synth';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

const SEQUENTIAL = { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' };
const RUNTIME = 'acme-eu-dev-1';
const KYMA_FILE = `runtimes/${RUNTIME}/skr/kyma-default.yaml`;

const fixtures: FleetFixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

/** The example fleet with dist/ written by a synth (its cache folder then thrown away, as a commit leaves it). */
function committedWorkspace(now = NOW, prepare?: (fx: FleetFixture) => void): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  prepare?.(fx);
  const r = synth({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(now), cacheDir: path.join(fx.dir, 'author-cache'), env: SEQUENTIAL });
  expect(r.exitCode, r.diagnostics.map(formatDiagnostic).join('\n')).toBe(0);
  fs.rmSync(path.join(fx.dir, 'author-cache'), { recursive: true, force: true });
  return fx;
}

let runner = 0;
/** A check on a fresh runner: an empty cache folder of its own (the committed record may be used). */
function fresh(fx: FleetFixture, now = NOW): DiffResult {
  const cacheDir = path.join(fx.dir, `runner-cache-${runner++}`);
  return diffDist({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(now), cacheDir, env: SEQUENTIAL });
}

/** The same check rendering and comparing everything (no cache folder: no record of any kind). */
function full(fx: FleetFixture, now = NOW): DiffResult {
  return diffDist({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(now), env: SEQUENTIAL });
}

/** What a check reports: exit code, files, diagnostics. */
function verdict(r: DiffResult): unknown {
  return { exitCode: r.exitCode, problem: r.problem?.code, added: r.diff?.added, changed: r.diff?.changed, removed: r.diff?.removed, diagnostics: r.diagnostics.map(formatDiagnostic) };
}

const dist = (fx: FleetFixture, rel: string): string => path.join(fx.dir, 'dist', rel);
const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

/** Replaces `from` (must occur once) with `to` in dist/'s index text. */
function editIndex(fx: FleetFixture, from: string, to: string): void {
  const file = dist(fx, INDEX_FILE);
  const text = fs.readFileSync(file, 'utf8');
  expect(text.split(from).length, `once in the index: ${from}`).toBe(2);
  fs.writeFileSync(file, text.replace(from, to));
}

describe('a check on a fresh runner with the record committed in dist/', () => {
  it('renders nothing when nothing changed, and says up to date', () => {
    const fx = committedWorkspace();
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.changed).toEqual([]);
    expect(r.rendered).toBe(0);
    expect(full(fx).rendered).toBe(7);
  });

  it('renders only the changed runtime file', () => {
    const fx = committedWorkspace();
    fx.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules');
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.changed).toEqual([KYMA_FILE]);
    expect(r.rendered).toBe(1);
  });

  it('a dist/ file edited by hand (the index unchanged) is rendered again and reported', () => {
    const fx = committedWorkspace();
    fs.appendFileSync(dist(fx, KYMA_FILE), '# edited\n');
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.exitCode).toBe(0);
    expect(r.diff!.changed).toEqual([KYMA_FILE]);
    expect(r.rendered).toBe(1);
  });

  it('a dist/ file deleted, or replaced by a folder, is reported', () => {
    const fx = committedWorkspace();
    fs.rmSync(dist(fx, KYMA_FILE));
    expect(verdict(fresh(fx))).toEqual(verdict(full(fx)));
    expect(fresh(fx).diff!.changed).toEqual([KYMA_FILE]);
    fs.mkdirSync(dist(fx, KYMA_FILE));
    expect(fresh(fx).diff?.changed ?? []).not.toEqual([]);
  });

  it('an edit whose index hash was changed to match it voids the record (the seal)', () => {
    const fx = committedWorkspace();
    const before = fs.readFileSync(dist(fx, KYMA_FILE));
    const edited = Buffer.concat([before, Buffer.from('# edited\n')]);
    fs.writeFileSync(dist(fx, KYMA_FILE), edited);
    editIndex(fx, `"${KYMA_FILE}": "${sha(before)}"`, `"${KYMA_FILE}": "${sha(edited)}"`);
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.changed).toEqual([KYMA_FILE]);
    expect(r.rendered).toBe(7);
  });

  it('a record made to vouch for an edited runtime file voids itself (the seal)', () => {
    const fx = committedWorkspace();
    const rel = `runtimes/${RUNTIME}.yaml`;
    const old = sha(fs.readFileSync(fx.path(rel)));
    fx.replace(rel, 'channel: fast\n  modules', 'channel: regular\n  modules');
    editIndex(fx, `"${rel}": ["${old}"`, `"${rel}": ["${sha(fs.readFileSync(fx.path(rel)))}"`);
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.changed).toEqual([KYMA_FILE]);
  });

  it.each([
    ['a group that selects several runtimes', (fx: FleetFixture) => fx.replace('groups/europe.yaml', '            secretReferenceName: gar-europe-pull', '            secretReferenceName: gar-europe-pull-2'), 2],
    ['a default of fleet.yaml', (fx: FleetFixture) => fx.replace('fleet.yaml', /channel: \S+/.exec(fx.read('fleet.yaml'))![0], 'channel: fast'), 2],
    ['a rules file a group renders into a ConfigMap', (fx: FleetFixture) => fx.append('rules/acme-shell-in-container.yaml', '# a new comment line\n'), 1],
  ])('a changed fleet-wide file (%s) is rendered for every runtime it reaches', (_name, edit, atLeast) => {
    const fx = committedWorkspace();
    edit(fx);
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.exitCode).toBe(0);
    expect(r.diff!.changed.length).toBeGreaterThanOrEqual(atLeast);
  });

  it('dist/ is scanned only when the record can stand for some runtime: not after a fleet-wide change without rollout rings', () => {
    const fx = committedWorkspace();
    const planned = (): ReturnType<typeof planCheck> =>
      planCheck({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(NOW), cacheDir: path.join(fx.dir, `runner-cache-${runner++}`), env: SEQUENTIAL }, true);
    const same = planned();
    expect(same.scan).toBeDefined();
    expect(same.committed).toBe(true);
    fx.replace('fleet.yaml', /channel: \S+/.exec(fx.read('fleet.yaml'))![0], 'channel: fast');
    const changed = planned();
    // Every runtime's input digest names the fleet-wide inputs: none is the recorded one.
    expect(changed.scan).toBeUndefined();
    expect(changed.committed).toBe(false);
    expect(verdict(fresh(fx))).toEqual(verdict(full(fx)));
  });

  it('a catalog that no longer lists a module some runtimes use makes the fleet invalid, as without the record', () => {
    const fx = committedWorkspace();
    const text = fx.read('catalog/modules.yaml');
    fx.write('catalog/modules.yaml', text.replace(/\n\s*- name: serverless\n(\s+[a-z].*\n)*/, '\n'));
    expect(fx.read('catalog/modules.yaml')).not.toContain('serverless');
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.exitCode).toBe(1);
  });

  it('a time epoch crossed (the default Falco version expires) renders what it changes', () => {
    const fx = committedWorkspace('2026-09-01T00:00:00Z', (f) =>
      f.replace(
        'profiles/falco-profile.yaml',
        '      - classification: supported\n        rulesVersion: 0.42.1\n        version: 0.42.1\n',
        '      - classification: supported\n        expirationDate: "2026-10-01T00:00:00Z"\n        rulesVersion: 0.42.1\n        version: 0.42.1\n      - classification: supported\n        rulesVersion: 0.41.9\n        version: 0.41.9\n',
      ),
    );
    expect(fresh(fx, '2026-09-02T00:00:00Z').diff!.changed).toEqual([]);
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.changed.length).toBeGreaterThan(0);
  });

  it('runtimes added and removed', () => {
    const fx = committedWorkspace();
    const text = fx.read(`runtimes/${RUNTIME}.yaml`);
    fx.write('runtimes/zz-added.yaml', text.replace(`name: ${RUNTIME}`, 'name: zz-added').replace(/runtimeID: \S+/, 'runtimeID: 00000000-0000-4000-8000-00000000abcd').replace(/name: c-\S+/, 'name: c-zzadded'));
    fx.remove('runtimes/acme-us-dev-1.yaml');
    const r = fresh(fx);
    expect(verdict(r)).toEqual(verdict(full(fx)));
    expect(r.diff!.added.some((f) => f.startsWith('runtimes/zz-added/'))).toBe(true);
    expect(r.diff!.removed.some((f) => f.startsWith('runtimes/acme-us-dev-1/'))).toBe(true);
  });

  it('records every runtime file, and a file with diagnostics without its digest (it is always checked again)', () => {
    const fx = committedWorkspace();
    const record = readCommitted(fs.readFileSync(dist(fx, INDEX_FILE), 'utf8'))!;
    expect(Object.keys(record.runtimes).sort()).toEqual(fs.readdirSync(fx.path('runtimes')).map((f) => `runtimes/${f}`).sort());
    for (const [rel, r] of Object.entries(record.runtimes)) {
      const warned = synthWarnings(fx).has(rel);
      expect(r.digest, rel).toBe(warned ? '' : sha(fs.readFileSync(fx.path(rel))));
    }
  });

  it('writes byte-identical indexes for the same fleet (the record is deterministic)', () => {
    const a = committedWorkspace();
    const b = committedWorkspace();
    expect(fs.readFileSync(dist(a, INDEX_FILE), 'utf8')).toBe(fs.readFileSync(dist(b, INDEX_FILE), 'utf8'));
  });
});

/** Runtime files (relPath) with diagnostics in a check of the fleet. */
function synthWarnings(fx: FleetFixture): Set<string> {
  return new Set(full(fx).diagnostics.filter((d) => /\/runtimes\/[^/]+\.ya?ml$/.test(`/${d.file}`)).map((d) => `runtimes/${path.basename(d.file)}`));
}

// Random sequences of small edits of the fleet and of dist/: the fresh-runner verdict is always the full one.
const EDITS: ReadonlyArray<[string, (fx: FleetFixture, i: number) => void]> = [
  ['runtime channel', (fx, i) => fx.replace(`runtimes/${RUNTIME}.yaml`, /channel: (fast|regular)\n  modules/.exec(fx.read(`runtimes/${RUNTIME}.yaml`))![0], `channel: ${i % 2 ? 'fast' : 'regular'}\n  modules`)],
  ['runtime comment', (fx, i) => fx.append('runtimes/acme-us-prod-1.yaml', `# ${i}\n`)],
  ['group channel', (fx, i) => fx.append('groups/americas.yaml', `# ${i}\n`)],
  ['rules file', (fx, i) => fx.append('rules/acme-shell-in-container.yaml', `# ${i}\n`)],
  ['dist file edited', (fx, i) => fs.appendFileSync(dist(fx, 'runtimes/acme-eu-prod-1/kcp/kustomization.yaml'), `# ${i}\n`)],
  ['dist file deleted', (fx) => fs.rmSync(dist(fx, 'runtimes/acme-us-dev-2/skr/kustomization.yaml'), { force: true })],
  ['gitops file edited', (fx, i) => {
    const dir = dist(fx, 'gitops/flux');
    const f = fs.existsSync(dir) ? path.join(dir, fs.readdirSync(dir).sort()[0]!) : undefined;
    if (f && fs.statSync(f).isFile()) fs.appendFileSync(f, `# ${i}\n`);
  }],
  ['index hash made to match an edit', (fx, i) => {
    const rel = 'runtimes/acme-eu-sandbox/skr/kustomization.yaml';
    const text = fs.readFileSync(dist(fx, INDEX_FILE), 'utf8');
    const m = new RegExp(`"${rel}": "([0-9a-f]{64})"`).exec(text);
    if (!m || !fs.existsSync(dist(fx, rel))) return;
    fs.appendFileSync(dist(fx, rel), `# ${i}\n`);
    fs.writeFileSync(dist(fx, INDEX_FILE), text.replace(m[0], `"${rel}": "${sha(fs.readFileSync(dist(fx, rel)))}"`));
  }],
  ['synth', (fx) => void synth({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(NOW), env: SEQUENTIAL, allowMassRemoval: true })],
];

describe('property: the fresh-runner verdict equals a full render\'s', () => {
  it('on random sequences of edits of the fleet and of dist/', () => {
    const SEED = 0x6b660028;
    const NUM_RUNS = 12;
    console.info(`[fast-check] committed-record › fresh runner = full render: seed=${SEED} numRuns=${NUM_RUNS}`);
    const base = committedWorkspace();
    fc.assert(
      fc.property(fc.array(fc.nat(EDITS.length - 1), { minLength: 1, maxLength: 4 }), (steps) => {
        const fx = FleetFixture.example();
        try {
          fs.rmSync(fx.fleetDir, { recursive: true });
          fs.cpSync(base.fleetDir, fx.fleetDir, { recursive: true });
          fs.cpSync(path.join(base.dir, 'dist'), path.join(fx.dir, 'dist'), { recursive: true });
          steps.forEach((s, i) => EDITS[s]![1](fx, i));
          expect(verdict(fresh(fx)), steps.map((s) => EDITS[s]![0]).join(', ')).toEqual(verdict(full(fx)));
        } finally {
          fx.cleanup();
        }
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
  });
});
