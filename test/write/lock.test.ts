import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeDist } from '../../src/write/dist-writer';
import { Workspace, assertBuilt, makeTree, runWriterChild, treeHash, waitForFile } from './dist-fixture';

const TREE = makeTree(3, 'gen-1');

let ws: Workspace;
beforeAll(assertBuilt);
beforeEach(() => {
  ws = Workspace.create();
});
afterEach(() => ws.cleanup());

function lockText(pid: number, host = os.hostname()): string {
  return `${JSON.stringify({ pid, host, startedAt: '2026-11-22T00:00:00.000Z' })}\n`;
}

/** A pid that surely belonged to a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('writeDist: the lock', () => {
  it('a live lock (this very process) makes the writer exit 4 and leaves dist/ and the lock alone', () => {
    // GIVEN a written dist/ and a lock held by a live process on this host
    writeDist({ outDir: ws.outDir, files: TREE });
    const before = treeHash(ws.outDir);
    fs.writeFileSync(ws.lockPath, lockText(process.pid));
    // WHEN another tree is written
    const r = writeDist({ outDir: ws.outDir, files: makeTree(2, 'gen-2') });
    // THEN
    expect(r).toEqual({
      ok: false,
      exitCode: 4,
      problem: {
        code: 'E_DIST_LOCKED',
        message: `dist/ is locked by pid ${process.pid} on ${os.hostname()} since 2026-11-22T00:00:00.000Z (lock file ${ws.lockPath})`,
        paths: [ws.lockPath],
      },
    });
    expect(treeHash(ws.outDir)).toBe(before);
    expect(fs.readFileSync(ws.lockPath, 'utf8')).toBe(lockText(process.pid));
  });

  it('a stale lock of a dead pid on this host is taken over and released afterwards', () => {
    // GIVEN a lock left by a process that no longer exists
    fs.writeFileSync(ws.lockPath, lockText(deadPid()));
    // WHEN written
    const r = writeDist({ outDir: ws.outDir, files: TREE });
    // THEN the write went through and no lock (nor a moved-away stale one) is left
    expect(r).toMatchObject({ ok: true, changed: true });
    expect(fs.readdirSync(ws.dir).filter((n) => n.includes('lock'))).toEqual([]);
  });

  it('a lock of another host is never taken over, even with a pid that is dead here', () => {
    // GIVEN a lock from a CI runner sharing the workspace
    fs.writeFileSync(ws.lockPath, lockText(deadPid(), 'some-other-host'));
    // WHEN written
    const r = writeDist({ outDir: ws.outDir, files: TREE });
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_LOCKED' } });
    expect(r.ok || r.problem.message).toMatch(/^dist\/ is locked by pid \d+ on some-other-host since .*; a lock of another host is never taken over/);
    expect(fs.existsSync(ws.outDir)).toBe(false);
    expect(fs.existsSync(ws.lockPath)).toBe(true);
  });

  it('a lock file with garbage in it is not guessed at: exit 4', () => {
    // GIVEN a lock file nobody can parse
    fs.writeFileSync(ws.lockPath, 'locked by Joe');
    // WHEN written
    const r = writeDist({ outDir: ws.outDir, files: TREE });
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_LOCKED' } });
    expect(r.ok || r.problem.message).toBe(
      `dist/ is locked, but the lock file ${ws.lockPath} is unreadable; delete it if no kyma-fleet run is active`,
    );
    expect(fs.readFileSync(ws.lockPath, 'utf8')).toBe('locked by Joe');
  });

  it('a lock file that stays empty (a run killed between creating and filling it) is taken over', () => {
    // GIVEN an empty lock file
    fs.writeFileSync(ws.lockPath, '');
    // WHEN written
    const r = writeDist({ outDir: ws.outDir, files: TREE });
    // THEN the write went through and released the lock
    expect(r).toMatchObject({ ok: true, changed: true });
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('the lock is released after every outcome: success, no-op, refusal', () => {
    // GIVEN / WHEN a success, a no-op and a foreign-file refusal
    expect(writeDist({ outDir: ws.outDir, files: TREE }).ok).toBe(true);
    expect(fs.existsSync(ws.lockPath)).toBe(false);
    expect(writeDist({ outDir: ws.outDir, files: TREE })).toMatchObject({ ok: true, changed: false });
    expect(fs.existsSync(ws.lockPath)).toBe(false);
    fs.writeFileSync(path.join(ws.outDir, 'foreign'), '');
    expect(writeDist({ outDir: ws.outDir, files: TREE })).toMatchObject({ ok: false, exitCode: 4 });
    // THEN no lock is left
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('while a child process holds the lock, a second writer exits 4 naming it; the child then finishes', async () => {
    // GIVEN a child writer paused inside its guard, i.e. holding the lock
    writeDist({ outDir: ws.outDir, files: TREE });
    const hold = { ready: path.join(ws.dir, 'ready'), release: path.join(ws.dir, 'release') };
    const next = makeTree(4, 'gen-2');
    const child = runWriterChild(ws.outDir, next, { hold });
    await waitForFile(hold.ready);
    const childPid = Number(fs.readFileSync(hold.ready, 'utf8'));
    // WHEN this process writes meanwhile
    const r = writeDist({ outDir: ws.outDir, files: makeTree(5, 'gen-3') });
    // THEN it is refused naming the child, and once released the child's tree is in place
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_LOCKED' } });
    expect(r.ok || r.problem.message).toContain(`dist/ is locked by pid ${childPid} on ${os.hostname()} since `);
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(TREE));
    fs.writeFileSync(hold.release, '');
    const done = await child;
    expect(done.code).toBe(0);
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(next));
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('two writer processes at once, also racing for a stale lock: one wins and the other exits 4, or both run one after the other; never a mixed tree', async () => {
    // GIVEN an existing tree and two different new trees of ~150 files
    const base = makeTree(50, 'base');
    const a = makeTree(50, 'gen-a');
    const b = makeTree(55, 'gen-b', 7);
    const hashes = { a: ws.expectedHash(a), b: ws.expectedHash(b) };
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      writeDist({ outDir: ws.outDir, files: base });
      // (every other round, both also find a stale lock to take over)
      if (i % 2 === 1) fs.writeFileSync(ws.lockPath, lockText(deadPid()));
      // WHEN both start together
      const [ra, rb] = await Promise.all([runWriterChild(ws.outDir, a), runWriterChild(ws.outDir, b)]);
      // THEN each exits 0 or 4 (locked); at least one wins; dist/ is a whole tree of a winner
      for (const r of [ra, rb]) {
        expect([0, 4], r.stderr).toContain(r.code);
        if (r.code === 4) expect(r.result).toMatchObject({ ok: false, problem: { code: 'E_DIST_LOCKED' } });
      }
      const winners = [ra.code === 0 ? hashes.a : undefined, rb.code === 0 ? hashes.b : undefined].filter(Boolean);
      expect(winners.length).toBeGreaterThan(0);
      expect(winners).toContain(treeHash(ws.outDir));
      expect(ws.leftovers()).toEqual([]);
      expect(fs.existsSync(ws.lockPath)).toBe(false);
      outcomes.push(`${ra.code}/${rb.code}`);
    }
    console.info(`concurrent writers (exit a/b): ${outcomes.join(' ')}`);
  }, 300_000);
});
