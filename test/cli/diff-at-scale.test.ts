// `kyma-fleet diff` through the built binary, for review at scale: a change of the fleet's defaults
// that reaches 2,000 runtimes gives a pull request comment (--output markdown) under GitHub's limit
// that says what changed (one patch for the group) and where (how many runtimes, which), while
// --output-file keeps every patch; --exit-code exits 1 when there are changes, as git and kubectl do.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { COMMENT_LIMIT } from '../../src/render/markdown-diff';
import { BIN, FleetFixture, NOW, testProcessEnv } from '../helpers/fleet-fixture';

const RUNTIMES = 2000;

function kymaFleet(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...testProcessEnv(), KYMA_FLEET_WORKERS: '2' }, timeout: 300_000, maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

describe('kyma-fleet diff of a change to 2,000 runtimes', () => {
  let dir: string;
  let md: { code: number; stdout: string; stderr: string };
  let full: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-diff-scale-'));
    generateFleet(path.join(dir, 'fleet'), RUNTIMES, 11);
    const synth = kymaFleet(['synth', '--now', NOW], dir);
    expect(synth.code, synth.stderr).toBe(0);
    // The fleet-wide default TTL of the docker.io cache: every runtime that keeps the default changes.
    const fleetFile = path.join(dir, 'fleet', 'fleet.yaml');
    const text = fs.readFileSync(fleetFile, 'utf8');
    expect(text.match(/ttl: 168h/g)).toHaveLength(1);
    fs.writeFileSync(fleetFile, text.replace('ttl: 168h', 'ttl: 336h'));
    md = kymaFleet(['diff', '--now', NOW, '--output', 'markdown', '--output-file', 'kyma-fleet.diff', '--exit-code'], dir);
    full = fs.readFileSync(path.join(dir, 'kyma-fleet.diff'), 'utf8');
  }, 600_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits 1 with --exit-code (there are changes) and writes the comment under the limit', () => {
    // The generated fleet gives some runtimes an otlp Falco destination: its warning, and nothing else.
    expect(md.stderr.split('\n').filter((l) => l !== '' && !l.endsWith('[W_FALCO_OTLP]'))).toEqual([]);
    expect(md.code).toBe(1);
    expect(md.stdout.length).toBeGreaterThan(1000);
    expect(md.stdout.length).toBeLessThan(COMMENT_LIMIT);
  });

  it('says what changed: the TTL, once, for a group of more than a thousand runtimes', () => {
    const summary = /^0 added, (\d+) changed, 0 removed files; runtimes: 0 new, (\d+) changed, 0 removed$/m.exec(md.stdout);
    expect(summary, md.stdout.slice(0, 500)).not.toBeNull();
    const changedRuntimes = Number(summary![2]);
    expect(changedRuntimes).toBeGreaterThan(1000);
    const group = /^#### The same change in ([\d,]+) runtimes$/m.exec(md.stdout);
    expect(group).not.toBeNull();
    const inGroup = Number(group![1]!.replace(/,/g, ''));
    expect(inGroup).toBeGreaterThan(1000);
    expect(md.stdout).toMatch(/^-\s+ttl: 168h$/m);
    expect(md.stdout).toMatch(/^\+\s+ttl: 336h$/m);
    // One patch per file of the group's first runtime, not one per runtime.
    const firstOfGroup = /The patch of `([a-z0-9-]+)` stands for all of them/.exec(md.stdout)![1]!;
    const patchesShown = md.stdout.match(/^```diff$/gm)!.length;
    expect(patchesShown).toBeLessThan(100);
    expect(md.stdout).toContain(`<code>runtimes/${firstOfGroup}/kcp/runtime-`);
    expect(md.stdout).toContain(`<code>runtimes/${firstOfGroup}/garden/shoot-`);
  });

  it('says where: the runtimes by name (capped), how many more, and where every patch is', () => {
    expect(md.stdout).toMatch(/^\*\*Changed runtimes:\*\* (`[a-z0-9-]+`, ){19}`[a-z0-9-]+` and [\d,]+ more$/m);
    // The group holds every changed runtime, or lists its own.
    expect(md.stdout).toMatch(/^(Every runtime listed above|(`[a-z0-9-]+`, ){19}`[a-z0-9-]+` and [\d,]+ more)\. The patch of `[a-z0-9-]+` stands for all of them/m);
    if (md.stdout.includes('Not shown here')) expect(md.stdout).toContain('Every patch is in the full diff (`kyma-fleet.diff`)');
  });

  it('--output-file holds every patch: one per changed file, every changed runtime', () => {
    const summary = /^0 added, (\d+) changed, 0 removed files; runtimes: 0 new, (\d+) changed, 0 removed$/m.exec(md.stdout)!;
    expect(full.match(/^\+\+\+ b\//gm)).toHaveLength(Number(summary[1]));
    const runtimes = new Set([...full.matchAll(/^\+\+\+ b\/runtimes\/([^/]+)\//gm)].map((m) => m[1]));
    expect(runtimes.size).toBe(Number(summary[2]));
    expect(full.endsWith(`${summary[0]}\n`)).toBe(true);
    expect(full.length).toBeGreaterThan(10 * COMMENT_LIMIT);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('kyma-fleet diff --exit-code and --output-file on the example fleet', () => {
  it('exits 0 with --exit-code when dist/ is up to date, and 0 without it when there are changes', () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
      const same = fx.runBinary(['diff', '--now', NOW, '--exit-code']);
      expect(same).toMatchObject({ code: 0, stdout: 'dist/ is up to date\n', stderr: '' });
      fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
      expect(fx.runBinary(['diff', '--now', NOW]).code).toBe(0);
      expect(fx.runBinary(['diff', '--now', NOW, '--exit-code', '--output', 'json']).code).toBe(1);
    } finally {
      fx.cleanup();
    }
  });

  it('a --output-file that cannot be written is an I/O error (exit 4) naming the file, and leaves nothing behind', () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
      fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
      const r = fx.runBinary(['diff', '--now', NOW, '--output', 'markdown', '--output-file', 'no/such/folder/full.diff']);
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/^diff: error: cannot write --output-file no\/such\/folder\/full\.diff: ENOENT/);
      expect(r.stdout).toBe('');
      const ok = fx.runBinary(['diff', '--now', NOW, '--output', 'markdown', '--output-file', 'full.diff']);
      expect(ok.code).toBe(0);
      expect(fs.readFileSync(path.join(fx.dir, 'full.diff'), 'utf8')).toBe(fx.runBinary(['diff', '--now', NOW]).stdout);
      expect(fs.readdirSync(fx.dir).sort()).toEqual(['dist', 'fleet', 'full.diff']);
    } finally {
      fx.cleanup();
    }
  });
});
