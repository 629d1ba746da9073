// File stamps (fleet/load.ts fileStamp): a run may take a runtime file as unchanged without reading
// it when its device, inode, size, mtime and ctime are what an earlier run recorded, and only
// when that ctime had settled before the earlier run started. These tests pin both halves: the
// file is really not read, and a change that keeps size and mtime is still seen (ctime moves).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { listStamped } from '../../src/load/folder-walk';
import { fileStamp, loadFleet, STAMP_SETTLE_MS } from '../../src/load/load';
import { synth } from '../../src/run/synth';
import { treeHash } from '../write/dist-fixture';

const NOW = new Date('2026-11-21T00:00:00Z');
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-stamp-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('fileStamp', () => {
  it('is given only to a regular file whose ctime lies STAMP_SETTLE_MS before the run started, and names dev, inode, size, mtime, ctime', () => {
    const file = path.join(root, 'a.yaml');
    fs.writeFileSync(file, 'x: 1\n');
    const st = fs.lstatSync(file);
    expect(fileStamp(st, st.ctimeMs + STAMP_SETTLE_MS)).toBeUndefined();
    expect(fileStamp(st, st.ctimeMs + STAMP_SETTLE_MS + 1)).toBe(`${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);
    expect(fileStamp(fs.lstatSync(root), Date.now() + 10 * STAMP_SETTLE_MS)).toBeUndefined();
  });
});

describe('loadFleet with reuseStamp', () => {
  it('does not read a runtime file whose stamp an earlier run recorded, and reads one whose stamp moved', () => {
    const fleetDir = path.join(root, 'load');
    generateFleet(fleetDir, 6, 3);
    const later = Date.now() + 10 * STAMP_SETTLE_MS;
    const stampOf = (rel: string) => fileStamp(fs.lstatSync(path.join(fleetDir, rel)), later)!;
    const [first, second] = fs.readdirSync(path.join(fleetDir, 'runtimes')).sort().map((n) => `runtimes/${n}`);
    // The "earlier run" recorded digests that are not the files' digests: a reused file shows it was not read.
    const recorded = new Map([
      [first!, { stamp: stampOf(first!), digest: 'a'.repeat(64) }],
      [second!, { stamp: `${stampOf(second!)}-other`, digest: 'b'.repeat(64) }],
    ]);
    const asked: string[] = [];
    const loaded = loadFleet({
      fleetDir,
      cwd: root,
      runStart: later,
      runtimePlan: () => ({
        reuseStamp: (rel, stamp) => {
          asked.push(rel);
          const r = recorded.get(rel);
          return r?.stamp === stamp ? r.digest : undefined;
        },
      }),
    });
    expect(asked).toHaveLength(6);
    expect(loaded.reusedRuntimes).toEqual([{ relPath: first, file: path.relative(root, path.join(fleetDir, first!)), digest: 'a'.repeat(64), stamp: stampOf(first!) }]);
    expect(loaded.runtimes.map((d) => d.relPath)).not.toContain(first);
    const read = loaded.runtimes.find((d) => d.relPath === second)!;
    expect(read.digest).not.toBe('b'.repeat(64));
    expect(read.stamp).toBe(stampOf(second!));
  });

  it('gives no stamp to files changed within STAMP_SETTLE_MS of the run start, and asks nothing for them', () => {
    const fleetDir = path.join(root, 'fresh');
    generateFleet(fleetDir, 3, 5);
    const asked: string[] = [];
    const loaded = loadFleet({ fleetDir, cwd: root, runtimePlan: () => ({ reuseStamp: (rel) => (asked.push(rel), undefined) }) });
    expect(asked).toEqual([]);
    expect(loaded.runtimes.every((d) => d.stamp === undefined)).toBe(true);
  });
});

describe('runtimes/ listed and stamped in another thread (listStamped, RuntimePlan.listing)', () => {
  it('lists as the loader does: sorted, each regular file with the stamp an lstat gives it now, none for folders, litter and unsettled files', () => {
    const fleetDir = path.join(root, 'listing');
    generateFleet(fleetDir, 5, 7);
    const runtimes = path.join(fleetDir, 'runtimes');
    fs.mkdirSync(path.join(runtimes, 'sub'));
    fs.writeFileSync(path.join(runtimes, '.swap.swp'), '');
    const later = Date.now() + 10 * STAMP_SETTLE_MS;
    const listing = listStamped(fleetDir, later)!;
    const names = fs.readdirSync(runtimes).sort();
    expect(listing.dir).toBe(path.join(fs.realpathSync(fleetDir), 'runtimes'));
    expect(listing.names).toEqual(names);
    expect(listing.kinds).toBe(names.map((n) => (n === 'sub' ? 'd' : 'f')).join(''));
    expect(listing.stamps).toEqual(names.map((n) => (n === 'sub' || n.startsWith('.') ? '' : fileStamp(fs.lstatSync(path.join(runtimes, n)), later))));
    expect(listStamped(fleetDir, Date.now())!.stamps.every((s) => s === '')).toBe(true);
    expect(listStamped(path.join(root, 'no-such-fleet'), later)).toBeUndefined();
  });

  it('the loader takes the listing\'s entries and stamps instead of its own, only when it is of this fleet', () => {
    const fleetDir = path.join(root, 'listing-taken');
    generateFleet(fleetDir, 4, 9);
    const later = Date.now() + 10 * STAMP_SETTLE_MS;
    const listing = listStamped(fleetDir, later)!;
    // A stamp no lstat gives: a file reused by it was judged by the listing alone.
    const given = { ...listing, stamps: listing.stamps.map((s, i) => (i === 0 ? 'as-listed' : s)) };
    const load = (l: typeof listing) =>
      loadFleet({ fleetDir, cwd: root, runStart: later, runtimePlan: () => ({ reuseStamp: (_rel, stamp) => (stamp === 'as-listed' ? 'a'.repeat(64) : undefined), listing: () => l }) });
    const taken = load(given);
    expect(taken.reusedRuntimes.map((f) => f.relPath)).toEqual([`runtimes/${listing.names[0]}`]);
    expect(taken.runtimes).toHaveLength(3);
    // Of another folder: the loader lists and looks at the files itself.
    const other = load({ ...given, dir: `${given.dir}-elsewhere` });
    expect(other.reusedRuntimes).toEqual([]);
    expect(other.runtimes).toHaveLength(4);
  });
});

describe('synth with stamps in the run record', () => {
  it('a run that writes nothing records the stamps its files gained since they settled (else every later run reads them again)', async () => {
    const fleetDir = path.join(root, 'restamp', 'fleet');
    const outDir = path.join(root, 'restamp', 'dist');
    const cacheDir = path.join(root, 'restamp', 'cache');
    generateFleet(fleetDir, 12, 13);
    const run = () => synth({ fleetDir, outDir, cwd: root, now: NOW, cacheDir, env: { KYMA_FLEET_WORKERS: '1' } });
    const stamps = (): string[] => {
      const [recordFile] = fs.readdirSync(cacheDir).filter((n) => n.startsWith('run-'));
      return (JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { runtimes: Array<[string, string, string]> }).runtimes.map((r) => r[2]);
    };
    // GIVEN a record written while the runtime files were too fresh for stamps
    expect(run()).toMatchObject({ exitCode: 0, changed: true });
    expect(stamps().every((s) => s === '')).toBe(true);
    // WHEN a run that writes nothing finds them settled
    await new Promise((r) => setTimeout(r, STAMP_SETTLE_MS + 200));
    const indexBefore = fs.readFileSync(path.join(outDir, '.kyma-fleet-index.json'), 'utf8');
    expect(run()).toMatchObject({ exitCode: 0, changed: false, written: 0 });
    // THEN the record has their stamps, and dist/ is as it was
    expect(stamps().every((s) => /^\d+:\d+:\d+:/.test(s))).toBe(true);
    expect(fs.readFileSync(path.join(outDir, '.kyma-fleet-index.json'), 'utf8')).toBe(indexBefore);
    // and the next run reuses every file by its stamp, then renders an edit as before
    expect(run()).toMatchObject({ exitCode: 0, changed: false, written: 0 });
    const file = path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[2]!);
    fs.appendFileSync(file, '# a comment\n');
    expect(run()).toMatchObject({ exitCode: 0, rendered: 0 });
  }, 30_000);

  it('records settled stamps, and still renders an edit that keeps the size and mtime of the file', async () => {
    const fleetDir = path.join(root, 'synth', 'fleet');
    const outDir = path.join(root, 'synth', 'dist');
    const cacheDir = path.join(root, 'synth', 'cache');
    generateFleet(fleetDir, 30, 11);
    // Whole-second mtimes, so that the edit below can put one back exactly.
    const mtime = Math.floor(Date.now() / 1000) - 60;
    for (const n of fs.readdirSync(path.join(fleetDir, 'runtimes'))) fs.utimesSync(path.join(fleetDir, 'runtimes', n), mtime, mtime);
    // GIVEN a fleet whose files settled before the first run
    await new Promise((r) => setTimeout(r, STAMP_SETTLE_MS + 200));
    const run = () => synth({ fleetDir, outDir, cwd: root, now: NOW, cacheDir, env: { KYMA_FLEET_WORKERS: '1' } });
    expect(run()).toMatchObject({ exitCode: 0, changed: true });
    const [recordFile] = fs.readdirSync(cacheDir).filter((n) => n.startsWith('run-'));
    // A row per runtime file: [relPath, digest, stamp ('' without one), ...].
    const record = JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { runtimes: Array<[string, string, string]> };
    expect(record.runtimes.length).toBeGreaterThan(0);
    expect(record.runtimes.every((r) => /^\d+:\d+:\d+:/.test(r[2]))).toBe(true);
    expect(run()).toMatchObject({ exitCode: 0, changed: false, rendered: 0 });

    // A runtime's shoot name changed by one character (the same number of bytes), its mtime put back.
    const file = path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[4]!);
    const before = fs.lstatSync(file);
    const sameSizeEdit = (): void => {
      const text = fs.readFileSync(file, 'utf8');
      const edited = text.replace(/(\n    name: c-[0-9a-z]*)([0-9a-z])\n/, (_m, head: string, last: string) => `${head}${last === 'z' ? 'y' : 'z'}\n`);
      expect(edited).not.toBe(text);
      fs.writeFileSync(file, edited);
      fs.utimesSync(file, mtime, mtime);
      const after = fs.lstatSync(file);
      expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    };
    const expectCold = (): void => {
      const r = run();
      const coldOut = fs.mkdtempSync(path.join(root, 'cold-'));
      fs.rmdirSync(coldOut);
      const reference = synth({ fleetDir, outDir: coldOut, cwd: root, now: NOW, env: { KYMA_FLEET_WORKERS: '1' } });
      expect(reference.exitCode).toBe(0);
      expect(r).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      expect(treeHash(outDir)).toBe(treeHash(coldOut));
    };

    // WHEN the edit is made right before a run, THEN that run reads the file (its ctime is not settled)
    sameSizeEdit();
    expectCold();
    // WHEN, once it settled, a run that reads it by digest (another file changed) records its stamp,
    await new Promise((r) => setTimeout(r, STAMP_SETTLE_MS + 200));
    fs.appendFileSync(path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[9]!), '# a comment\n');
    // nothing is rendered (only dist/'s index records the file's new digest: src/run/committed-record.ts)
    expect(run()).toMatchObject({ exitCode: 0, rendered: 0 });
    const stamped = JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { runtimes: Array<[string, string, string]> };
    expect(stamped.runtimes.find((r) => r[0] === `runtimes/${path.basename(file)}`)?.[2]).toMatch(/:/);
    // and the same kind of edit is made again and settles before the next run,
    sameSizeEdit();
    await new Promise((r) => setTimeout(r, STAMP_SETTLE_MS + 200));
    // THEN its ctime differs from the recorded stamp, and the run reads it
    expectCold();
  }, 60_000);
});
