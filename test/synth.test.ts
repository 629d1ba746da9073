// kyma-fleet synth, diff and the cdk8s app on the example fleet: the committed dist/ is the
// golden output; output is deterministic across runs, time zones, locales and input order; a
// killed or refused run never leaves dist/ mixed or half-written.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFleet } from '../src/load/load';
import { resolveFleet } from '../src/resolve/resolve';
import { validateFleet } from '../src/validate/validate';
import { renderFleet } from '../src/render/render-fleet';
import { shardOf } from '../src/gitops/gitops';
import { INDEX_FILE, writeDist } from '../src/write/dist-writer';
import { indexWithoutRecord, readCurrentDist } from './helpers/read-dist';
import { BIN, FleetFixture, NOW, REPO, runBinary, testProcessEnv } from './helpers/fleet-fixture';

/** dist/'s index without its inputs section, other files as they are. */
function withoutRecord(rel: string, bytes: Buffer): Buffer {
  return rel === INDEX_FILE ? Buffer.from(indexWithoutRecord(bytes.toString('utf8'))) : bytes;
}

/** sha256 of every file under dir (relative path -> hash), symlinks and folders included. */
function treeHash(dir: string, content: (rel: string, bytes: Buffer) => Buffer = (_rel, b) => b): string {
  if (!fs.existsSync(dir)) return 'missing';
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      h.update(path.relative(dir, p) + '\0');
      if (e.isSymbolicLink()) h.update('link:' + fs.readlinkSync(p));
      else if (e.isDirectory()) walk(p);
      else h.update(content(path.relative(dir, p).split(path.sep).join('/'), fs.readFileSync(p)));
    }
  };
  walk(dir);
  return h.digest('hex');
}

describe('synth of the example fleet', () => {
  it('matches the committed dist/ (the golden output; regenerate with npm run test:update)', () => {
    if (process.env.UPDATE_GOLDEN === '1') {
      expect(runBinary(['synth', '--now', NOW, '--allow-mass-removal'], REPO).code).toBe(0);
    }
    const r = runBinary(['synth', '--check', '--now', NOW], REPO);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('dist: up to date (7 runtimes)\n');
    expect(r.code).toBe(0);
  });

  it('renders byte-identical trees in another time zone and locale', () => {
    const fx = FleetFixture.example();
    try {
      const a = fx.runBinary(['synth', '--out', 'a', '--now', NOW], { TZ: 'Pacific/Kiritimati', LC_ALL: 'tr_TR.UTF-8', LANG: 'tr_TR.UTF-8' });
      const b = fx.runBinary(['synth', '--out', 'b', '--now', NOW], { TZ: 'America/St_Johns', LC_ALL: 'C', LANG: 'C' });
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(treeHash(path.join(fx.dir, 'a'))).toBe(treeHash(path.join(fx.dir, 'b')));
      // The committed dist/ has the same files; its index's record of how they were rendered names the
      // build that rendered it (src/run/committed-record.ts), which every change of src/ moves on.
      expect(treeHash(path.join(fx.dir, 'a'), withoutRecord)).toBe(treeHash(path.join(REPO, 'dist'), withoutRecord));
    } finally {
      fx.cleanup();
    }
  });

  it('renders the same files whatever order the files are enumerated in', () => {
    const render = (shuffle: boolean): Map<string, string> => {
      const loaded = loadFleet({ fleetDir: path.join(REPO, 'fleet'), cwd: REPO });
      if (shuffle) {
        loaded.groups.reverse();
        loaded.runtimes.reverse();
        const files = [...loaded.files.entries()].reverse();
        loaded.files.clear();
        for (const [k, v] of files) loaded.files.set(k, v);
      }
      const { model } = validateFleet(loaded, { now: new Date(NOW) });
      return renderFleet(model!, resolveFleet(model!).runtimes).files;
    };
    const a = render(false);
    const b = render(true);
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect(b).toEqual(a);
  });

  it('produces the same dist/ through cdk8s synth', () => {
    const fx = FleetFixture.example();
    try {
      fs.writeFileSync(path.join(fx.dir, 'cdk8s.yaml'), `language: typescript\napp: node ${JSON.stringify(path.join(REPO, 'lib/src/main.js'))}\noutput: dist\n`);
      const cdk8s = spawnSync(path.join(REPO, 'node_modules/.bin/cdk8s'), ['synth', '--no-check-upgrade'], { cwd: fx.dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: fx.dir } });
      expect(cdk8s.status, cdk8s.stderr).toBe(0);
      const ours = fx.runBinary(['synth', '--out', 'ours']);
      expect(ours.code).toBe(0);
      expect(treeHash(path.join(fx.dir, 'dist'))).toBe(treeHash(path.join(fx.dir, 'ours')));
    } finally {
      fx.cleanup();
    }
  });
});

describe('synth safety', () => {
  let fx: FleetFixture;
  afterEach(() => fx?.cleanup());

  const synthOk = (): void => {
    const r = fx.runBinary(['synth', '--now', NOW]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  };

  it('leaves dist/ untouched when validation fails', () => {
    fx = FleetFixture.example();
    synthOk();
    const before = treeHash(path.join(fx.dir, 'dist'));
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast', 'channel: Fast');
    const r = fx.runBinary(['synth', '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.errLines[0]).toMatch(/^fleet\/runtimes\/acme-eu-dev-1\.yaml:\d+:\d+: error at channel: must be lowercase letters only \(got "Fast"\)/);
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(before);
  });

  it('reports a stale dist/ with --check and exit code 3, writing nothing', () => {
    fx = FleetFixture.example();
    synthOk();
    const before = treeHash(path.join(fx.dir, 'dist'));
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    const r = fx.runBinary(['synth', '--check', '--now', NOW]);
    expect(r.code).toBe(3);
    expect(r.errLines).toEqual(['dist: out of date: 0 added, 1 changed, 0 removed; run kyma-fleet synth', '  changed  runtimes/acme-eu-dev-1/skr/kyma-default.yaml']);
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(before);
  });

  it('removes the folder of a deleted runtime and emits no delete', () => {
    fx = FleetFixture.example();
    synthOk();
    fx.remove('runtimes/acme-us-dev-2.yaml');
    const r = fx.runBinary(['synth', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(fx.dir, 'dist/runtimes/acme-us-dev-2'))).toBe(false);
    expect(fs.existsSync(path.join(fx.dir, `dist/gitops/flux/shards/${shardOf('acme-us-dev-2', 256)}/acme-us-dev-2-skr.yaml`))).toBe(false);
    const all = spawnSync('grep', ['-rl', 'acme-us-dev-2', path.join(fx.dir, 'dist')], { encoding: 'utf8' });
    expect(all.stdout).toBe('');
  });

  it('refuses to remove many runtimes at once unless --allow-mass-removal is given', () => {
    fx = FleetFixture.example();
    synthOk();
    const before = treeHash(path.join(fx.dir, 'dist'));
    fx.remove('runtimes/acme-us-dev-1.yaml').remove('runtimes/acme-us-dev-2.yaml');
    const refused = fx.runBinary(['synth', '--now', NOW]);
    expect(refused.code).toBe(1);
    expect(refused.errLines[0]).toBe(
      'dist: error: synth would remove 2 of 7 runtimes from dist/ (acme-us-dev-1, acme-us-dev-2), more than the allowed share of 10% (Fleet spec.removalGuard.maxShare); if that is intended, run again with --allow-mass-removal [E_MASS_REMOVAL]',
    );
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(before);
    const allowed = fx.runBinary(['synth', '--now', NOW, '--allow-mass-removal']);
    expect(allowed.code).toBe(0);
    expect(fs.readdirSync(path.join(fx.dir, 'dist/runtimes')).sort()).toEqual(['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-prod-1']);
  });

  it('refuses a dist/ holding files it does not own, with exit code 4', () => {
    fx = FleetFixture.example();
    synthOk();
    fs.writeFileSync(path.join(fx.dir, 'dist/runtimes/acme-eu-dev-1/skr/hand-made.yaml'), 'kind: ConfigMap\n');
    const before = treeHash(path.join(fx.dir, 'dist'));
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    const r = fx.runBinary(['synth', '--now', NOW]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('runtimes/acme-eu-dev-1/skr/hand-made.yaml');
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(before);
  });

  it('refuses a dist/ that is a symlink, with exit code 4', () => {
    fx = FleetFixture.example();
    const target = path.join(fx.dir, 'elsewhere');
    fs.mkdirSync(target);
    fs.symlinkSync(target, path.join(fx.dir, 'dist'));
    const r = fx.runBinary(['synth', '--now', NOW]);
    expect(r.code).toBe(4);
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it('leaves dist/ old or new, never mixed, when killed mid-write, and recovers on the next run', () => {
    fx = FleetFixture.example();
    synthOk();
    const dist = path.join(fx.dir, 'dist');
    const old = treeHash(dist);
    fx.replace('fleet.yaml', 'channel: regular', 'channel: fast');
    const fresh = fx.runBinary(['synth', '--out', 'expected', '--now', NOW]);
    expect(fresh.code).toBe(0);
    const next = treeHash(path.join(fx.dir, 'expected'));
    expect(next).not.toBe(old);
    // 6 changed files, the index and the marker (8 writes), the rename of dist/ away (9), the patch's
    // renames (old versions out, new ones in: 10-23), the commit rename (not counted), tidying (24, 25).
    for (const n of [1, 5, 8, 9, 12, 20, 23, 24]) {
      const killed = spawnSync(process.execPath, [BIN, 'synth', '--now', NOW], {
        cwd: fx.dir,
        encoding: 'utf8',
        env: { ...testProcessEnv(), KYMA_FLEET_CRASH_AFTER_WRITES: String(n) },
      });
      expect(killed.signal, `crash after ${n} writes`).toBe('SIGKILL');
      expect([old, next, 'missing'], `state after a crash after ${n} writes`).toContain(treeHash(dist));
      if (n <= 23) expect(treeHash(dist), `crash after ${n} writes: before the commit point`).not.toBe(next);
      // The next run recovers (restoring or finishing) and writes the new tree; no temp folders stay.
      synthOk();
      expect(treeHash(dist)).toBe(next);
      expect(fs.readdirSync(fx.dir).filter((f) => f.startsWith('.dist.'))).toEqual([]);
      // Back to the old tree for the next round.
      fx.replace('fleet.yaml', 'channel: fast', 'channel: regular');
      synthOk();
      expect(treeHash(dist)).toBe(old);
      fx.replace('fleet.yaml', 'channel: regular', 'channel: fast');
    }
  });
});

describe('recovery after a kill between the swap renames', () => {
  it('moves the unchanged entries back and restores exactly the old tree', () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
      const dist = path.join(fx.dir, 'dist');
      const old = treeHash(dist);
      const oldFiles = readCurrentDist(dist).files;
      fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
      // Kill at every step of the swap phase: after the 1 changed file, the index and the marker come
      // the rename of dist/ away and the journal's 4 renames (the changed file and the index out to
      // the trash, their new versions in); the commit rename follows.
      const states = new Set<string>();
      for (const n of [4, 5, 6, 7, 8]) {
        const killed = spawnSync(process.execPath, [BIN, 'synth', '--now', NOW], {
          cwd: fx.dir,
          encoding: 'utf8',
          env: { ...testProcessEnv(), KYMA_FLEET_CRASH_AFTER_WRITES: String(n) },
        });
        expect(killed.signal, `crash after ${n} steps`).toBe('SIGKILL');
        const state = treeHash(dist);
        expect([old, 'missing']).toContain(state);
        states.add(state === 'missing' ? 'missing' : 'old');
        // Recovery alone (a write of the old content) must find the old tree back, byte for byte.
        const r = writeDist({ outDir: dist, files: oldFiles });
        expect(r).toEqual({ indexDigest: expect.stringMatching(/^[0-9a-f]{64}$/), indexStamp: expect.stringMatching(/^[0-9]+:[0-9]+:[0-9]+:/), ok: true, changed: false, written: 0, removed: 0 });
        expect(treeHash(dist)).toBe(old);
        expect(fs.readdirSync(fx.dir).filter((f) => f.startsWith('.dist.'))).toEqual([]);
      }
      // Some kills landed while entries were half moved out of the old tree.
      expect(states).toContain('missing');
    } finally {
      fx.cleanup();
    }
  });
});

describe('kyma-fleet diff', () => {
  it('shows a unified diff, JSON and Markdown of what synth would change', () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
      fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
      const text = fx.runBinary(['diff', '--now', NOW]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('--- a/runtimes/acme-eu-dev-1/skr/kyma-default.yaml\n+++ b/runtimes/acme-eu-dev-1/skr/kyma-default.yaml\n');
      expect(text.stdout).toContain('-  channel: fast\n+  channel: regular\n');
      expect(text.stdout).toContain('0 added, 1 changed, 0 removed files; runtimes: 0 new, 1 changed, 0 removed\n');
      const json = JSON.parse(fx.runBinary(['diff', '--output', 'json', '--now', NOW]).stdout);
      expect(json).toMatchObject({ upToDate: false, added: [], removed: [], changed: ['runtimes/acme-eu-dev-1/skr/kyma-default.yaml'], runtimes: { added: [], removed: [], changed: ['acme-eu-dev-1'] } });
      const md = fx.runBinary(['diff', '--output', 'markdown', '--now', NOW]).stdout;
      expect(md).toContain('### kyma-fleet: changes to `dist/`');
      expect(md).toContain('**Changed runtimes:** `acme-eu-dev-1`');
      expect(md).toContain('```diff\n');
    } finally {
      fx.cleanup();
    }
  });

  it('says so when dist/ is up to date', () => {
    const r = runBinary(['diff', '--now', NOW], REPO);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('dist/ is up to date\n');
  });
});
