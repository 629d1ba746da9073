// dist/'s index taken by its stamp (src/lib/file-stamp.ts, issue 28): a synth records, under its
// lock, the stamp of the index it leaves; the next run that reads the index with that very stamp,
// settled, takes the recorded digest instead of hashing 14 MB, and the write takes the text it read
// instead of hashing it again. An index edited in place, keeping its size and mtime, has another
// ctime: it is hashed, and a record that no longer describes it is not trusted.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { formatDiagnostic } from '../../src/lib/diagnostics';
import { INDEX_FILE, loadIndex, readIndexFile, readIndexText, sha256 } from '../../src/lib/dist-index';
import { STAMP_SETTLE_MS, statStamp } from '../../src/lib/file-stamp';
import { planCheck } from '../../src/run/plan';
import { synth } from '../../src/run/synth';
import { treeHash } from '../write/dist-fixture';
import { FleetFixture, NOW as NOW_TEXT } from '../helpers/fleet-fixture';

const NOW = new Date(NOW_TEXT);
const SEQUENTIAL = { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' };

const fixtures: FleetFixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));
afterEach(() => vi.restoreAllMocks());

/** The example fleet synthesized into dist/ with a cache folder. */
function synthesized(): { fx: FleetFixture; cacheDir: string; indexFile: string } {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  const cacheDir = path.join(fx.dir, 'cache');
  const r = synth({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: NOW, cacheDir, env: SEQUENTIAL });
  expect(r.exitCode, r.diagnostics.map(formatDiagnostic).join('\n')).toBe(0);
  return { fx, cacheDir, indexFile: path.join(fx.dir, 'dist', INDEX_FILE) };
}

/** Changes one hex digit of the first file hash in place: same inode, same size, the old mtime put back (only ctime tells). */
function editInPlaceKeepingTimes(file: string): void {
  const before = fs.statSync(file, { bigint: true });
  const text = fs.readFileSync(file, 'utf8');
  const at = text.search(/": "[0-9a-f]{64}"/) + 4;
  const edited = text.slice(0, at) + (text[at] === '0' ? '1' : '0') + text.slice(at + 1);
  expect(edited.length).toBe(text.length);
  fs.writeFileSync(file, edited);
  // To the nanosecond (fs.utimesSync takes seconds as a double): GNU touch.
  const ns = before.mtimeNs;
  execFileSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, file]);
  const after = fs.statSync(file, { bigint: true });
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
  expect(after.ctimeNs).not.toBe(before.ctimeNs);
}

/** Runs `fn` with the clock moved on past the settling time of every stamp taken so far. */
function later<T>(fn: () => T): T {
  const now = Date.now() + STAMP_SETTLE_MS + 1000;
  vi.spyOn(Date, 'now').mockReturnValue(now);
  try {
    return fn();
  } finally {
    vi.restoreAllMocks();
  }
}

describe("dist/'s index taken by its stamp", () => {
  it('a synth records the stamp of the index it left; the next run reads that index with the same stamp and takes the recorded digest', () => {
    const { fx, cacheDir, indexFile } = synthesized();
    const [recordFile] = fs.readdirSync(cacheDir).filter((n) => n.startsWith('run-'));
    const record = JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { index: string; indexStamp?: string };
    expect(record.indexStamp).toBe(statStamp(fs.lstatSync(indexFile)));
    expect(record.index).toBe(sha256(fs.readFileSync(indexFile)));
    // Right after the write the stamp is not settled: the index is hashed (and the record trusted by its digest).
    const fresh = planCheck({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: NOW, cacheDir }, true);
    expect(fresh.index?.stamp).toBeUndefined();
    expect(fresh.trusted?.index).toBe(record.index);
    const settled = later(() => planCheck({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: NOW, cacheDir }, true));
    expect(settled.index?.stamp).toBe(record.indexStamp);
    expect(settled.index?.digest).toBe(record.index);
    expect(settled.trusted?.index).toBe(record.index);
  });

  it('an index edited in place keeping its size and mtime is hashed again: the record no longer describes dist/, and a synth restores it', () => {
    const { fx, cacheDir, indexFile } = synthesized();
    const original = fs.readFileSync(indexFile);
    editInPlaceKeepingTimes(indexFile);
    const plan = later(() => planCheck({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: NOW, cacheDir }, true));
    // Settled, so the stamp was taken, and it is not the recorded one (ctime moved).
    expect(plan.index?.stamp).toBeDefined();
    expect(plan.index?.digest).toBe(sha256(fs.readFileSync(indexFile)));
    expect(plan.trusted).toBeUndefined();
    const r = synth({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: NOW, cacheDir, env: SEQUENTIAL });
    expect(r.exitCode, r.diagnostics.map(formatDiagnostic).join('\n')).toBe(0);
    expect(fs.readFileSync(indexFile).equals(original)).toBe(true);
    const cold = FleetFixture.example();
    fixtures.push(cold);
    expect(synth({ fleetDir: 'fleet', outDir: 'dist', cwd: cold.dir, now: NOW, env: SEQUENTIAL }).exitCode).toBe(0);
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(treeHash(path.join(cold.dir, 'dist')));
  });

  it('the write takes the text it was given for an index with the same stamp, without hashing it; an index edited in place since is read anew', () => {
    const { fx, indexFile } = synthesized();
    const outDir = path.join(fx.dir, 'dist');
    const text = fs.readFileSync(indexFile, 'utf8');
    const stamp = statStamp(fs.lstatSync(indexFile));
    // Text that is not the file's and a digest that matches nothing: only the stamp can make it stand.
    const known = { digest: '0'.repeat(64), text: text.replace(/(": ")([0-9a-f])/, (_, q: string, d: string) => q + (d === 'a' ? 'b' : 'a')), stamp };
    expect(known.text).not.toBe(text);
    const same = loadIndex(outDir, known);
    expect(same.kind === 'ok' && same.text).toBe(known.text);
    // Without a stamp the bytes are hashed: they are not the known ones.
    const { stamp: _s, ...unstamped } = known;
    const read = loadIndex(outDir, unstamped);
    expect(read.kind === 'ok' && read.text).toBe(text);
    editInPlaceKeepingTimes(indexFile);
    const edited = loadIndex(outDir, known);
    expect(edited.kind === 'ok' && edited.text).toBe(fs.readFileSync(indexFile, 'utf8'));
    expect(edited.kind === 'ok' && edited.text).not.toBe(known.text);
  });
  it('readIndexText gives the text and the stamp readIndexFile gives; nothing for an index behind a symlink', () => {
    const fx = FleetFixture.example();
    fixtures.push(fx);
    const outDir = path.join(fx.dir, 'dist');
    expect(synth({ fleetDir: fx.fleetDir, outDir, cwd: fx.dir, now: NOW }).exitCode).toBe(0);
    const runStart = Date.now() + 60_000;
    const bytes = readIndexFile(outDir, runStart)!;
    expect(readIndexText(outDir, runStart)).toEqual({ text: bytes.bytes.toString('utf8'), stamp: bytes.stamp });
    expect(readIndexText(outDir)).toEqual({ text: fs.readFileSync(path.join(outDir, INDEX_FILE), 'utf8') });
    const linked = path.join(fx.dir, 'linked');
    fs.mkdirSync(linked);
    fs.symlinkSync(path.join(outDir, INDEX_FILE), path.join(linked, INDEX_FILE));
    expect(readIndexText(linked)).toBeUndefined();
  });
});
