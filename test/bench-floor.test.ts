// The bench's floor of a cold synth (bench/floor.ts) measures what it claims: the write phase
// recreates the packed dist/ byte for byte in the same layout, the toJson phase turns every object
// of the baseline's export into exactly one document, runtimes stay whole when the work is split,
// and the floor ratios are paired per round. Runs the compiled script (npm run build first).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorRatios } from '../bench/bench';
import { exportObjects } from '../bench/export-objects';
import { packTree, readPack, splitByGroup, splitEven } from '../bench/floor';
import { EXAMPLE_FLEET, NOW, REPO } from './helpers/fleet-fixture';

const FLOOR_JS = path.join(REPO, 'lib/bench/floor.js');
const DIST = path.join(REPO, 'dist');

/** Every file under dir as relative path → bytes (hex), and every folder. */
function snapshot(dir: string): { files: Record<string, string>; dirs: string[] } {
  const files: Record<string, string> = {};
  const dirs: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        dirs.push(r);
        walk(path.join(d, e.name), r);
      } else files[r] = fs.readFileSync(path.join(d, e.name)).toString('hex');
    }
  };
  walk(dir, '');
  return { files, dirs: dirs.sort() };
}

function runFloor(args: string[]): { code: number | null; report: Record<string, number>; stderr: string } {
  const r = spawnSync(process.execPath, [FLOOR_JS, ...args], { encoding: 'utf8' });
  return { code: r.status, report: r.status === 0 ? JSON.parse(r.stdout.split('\n')[0]!) : {}, stderr: r.stderr };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-floor-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('packTree / readPack', () => {
  it('round-trips every file of a tree, nested, empty and non-ASCII names included, sorted by path', () => {
    const root = path.join(tmp, 'tree');
    fs.mkdirSync(path.join(root, 'b/ü'), { recursive: true });
    fs.mkdirSync(path.join(root, 'a'));
    fs.writeFileSync(path.join(root, 'b/ü/x.yaml'), 'x: 1\n');
    fs.writeFileSync(path.join(root, 'a/empty'), '');
    fs.writeFileSync(path.join(root, 'top.json'), Buffer.from([0, 255, 10]));
    const stats = packTree(root, path.join(tmp, 'tree.pack'));
    expect(stats).toEqual({ files: 3, bytes: 8 });
    const back = readPack(path.join(tmp, 'tree.pack')).map((f) => [f.rel, Buffer.from(f.data).toString('hex')]);
    expect(back).toEqual([
      ['a/empty', ''],
      ['b/ü/x.yaml', Buffer.from('x: 1\n').toString('hex')],
      ['top.json', '00ff0a'],
    ]);
  });
});

describe('splitting the work', () => {
  const files = ['gitops/flux/a.yaml', 'runtimes/a/kcp/k.yaml', 'runtimes/a/skr/k.yaml', 'runtimes/a/skr/x.yaml', 'runtimes/b/kcp/k.yaml', 'runtimes/c/kcp/k.yaml', 'runtimes/c/skr/k.yaml'];
  const group = (rel: string): string => rel.split('/').slice(0, 2).join('/');

  it.each([1, 2, 3, 4, 10])('splitByGroup into %i keeps each group in one slice, in order, without losing a unit', (parts) => {
    const slices = splitByGroup(files, group, parts);
    expect(slices.flat()).toEqual(files);
    expect(slices.length).toBeLessThanOrEqual(parts);
    expect(slices.every((s) => s.length > 0)).toBe(true);
    const slicesOfGroup = new Map<string, Set<number>>();
    slices.forEach((s, i) => s.forEach((f) => slicesOfGroup.set(group(f), (slicesOfGroup.get(group(f)) ?? new Set()).add(i))));
    for (const owners of slicesOfGroup.values()) expect(owners.size).toBe(1);
  });

  it('splitByGroup splits a fleet of equal runtimes into halves', () => {
    const rts = Array.from({ length: 8 }, (_, i) => [`runtimes/r${i}/kcp/a`, `runtimes/r${i}/skr/a`]).flat();
    expect(splitByGroup(rts, group, 2).map((s) => s.length)).toEqual([8, 8]);
  });

  it('splitEven splits into contiguous slices of about equal size', () => {
    expect(splitEven([1, 2, 3, 4, 5], 2)).toEqual([[1, 2, 3], [4, 5]]);
    expect(splitEven([1], 4)).toEqual([[1]]);
    expect(splitEven([], 2)).toEqual([]);
  });
});

describe('floor.js (the real script)', () => {
  it('--phase write recreates the packed dist/ byte for byte, in the same folders, on two threads', () => {
    const pack = path.join(tmp, 'dist.pack');
    const { files } = packTree(DIST, pack);
    const out = path.join(tmp, 'written');
    const r = runFloor(['--phase', 'write', '--pack', pack, '--out', out, '--threads', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.units).toBe(files);
    expect(r.report.threads).toBe(2);
    expect(r.report.ms).toBeGreaterThan(0);
    expect(r.report.cpuMs).toBeGreaterThanOrEqual(0);
    const want = snapshot(DIST);
    const got = snapshot(out);
    expect(got).toEqual(want);
    expect(r.report.dirs).toBe(want.dirs.length);
  });

  it('--phase write refuses to write into a folder that already holds the files (nothing is timed twice)', () => {
    const pack = path.join(tmp, 'dist.pack');
    const r = runFloor(['--phase', 'write', '--pack', pack, '--out', path.join(tmp, 'written'), '--threads', '2']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/EEXIST/);
  });

  it('--phase tojson renders every exported object of the example fleet into one document', () => {
    const objects = path.join(tmp, 'objects.jsonl');
    const stats = exportObjects(EXAMPLE_FLEET, objects, new Date(NOW));
    for (const threads of ['1', '2']) {
      const r = runFloor(['--phase', 'tojson', '--objects', objects, '--threads', threads]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.report.units).toBe(stats.objects);
      expect(r.report.docs).toBe(stats.objects);
      expect(r.report.threads).toBe(Math.min(Number(threads), stats.charts));
    }
  });

  it('refuses an unknown phase and bad thread counts (usage errors, exit 1)', () => {
    const phase = runFloor(['--phase', 'render']);
    expect(phase.code).toBe(1);
    expect(phase.stderr).toMatch(/--phase must be write or tojson/);
    const threads = runFloor(['--phase', 'tojson', '--objects', 'x', '--threads', '0']);
    expect(threads.code).toBe(1);
    expect(threads.stderr).toMatch(/--threads must be a positive integer/);
  });
});

describe('floorRatios', () => {
  type Group = Parameters<typeof floorRatios>[1];
  const run = (wallMs: number, report?: object) =>
    ({ wallMs, cpuS: 0, maxRssKB: 0, userS: 0, sysS: 0, load1: 0, filesWritten: null, cliFilesWritten: null, output: report ? JSON.stringify(report) : '' }) as Group['runs'][number];
  const groupOf = (scenario: string, runs: Group['runs'], round = 'cold+baseline+floor-write+floor-tojson') => ({ scenario, runs, round, wallMs: { median: 0, min: 0, max: 0 } }) as unknown as Group;

  it('divides each round by its own baseline and takes the median', () => {
    const base = groupOf('baseline', [run(10_000), run(20_000), run(40_000)]);
    const fw = groupOf('floor-write', [run(0, { ms: 2000, cpuMs: 3000, threads: 2 }), run(0, { ms: 2000, cpuMs: 3000, threads: 2 }), run(0, { ms: 2000, cpuMs: 3000, threads: 2 })]);
    const ft = groupOf('floor-tojson', [run(0, { ms: 1000, cpuMs: 2000, threads: 2 }), run(0, { ms: 1000, cpuMs: 2000, threads: 2 }), run(0, { ms: 1000, cpuMs: 2000, threads: 2 })]);
    const [wall, cpu] = floorRatios(10000, fw, ft, base);
    // walls 3000 ms against 10, 20, 40 s: 0.3, 0.15, 0.075
    expect(wall!.value).toBeCloseTo(0.15);
    expect(wall!.min).toBeCloseTo(0.075);
    expect(wall!.max).toBeCloseTo(0.3);
    expect(wall!.ok).toBe(true);
    expect(wall!.how).toBe('paired, n=3');
    // cpu (3000 + 2000) / 2 threads = 2500 ms: 0.25, 0.125, 0.0625
    expect(cpu!.value).toBeCloseTo(0.125);
    expect(cpu!.criterion).toBe(false);
  });

  it('says ✗ when the floor alone is above the cold target', () => {
    const base = groupOf('baseline', [run(10_000)]);
    const fw = groupOf('floor-write', [run(0, { ms: 2000, cpuMs: 3800, threads: 2 })]);
    const ft = groupOf('floor-tojson', [run(0, { ms: 1000, cpuMs: 1800, threads: 2 })]);
    const [wall, cpu] = floorRatios(10000, fw, ft, base);
    expect(wall!.value).toBeCloseTo(0.3);
    expect(wall!.ok).toBe(false);
    expect(cpu!.value).toBeCloseTo(0.28);
    expect(cpu!.ok).toBe(false);
  });
});
