// The lock of the status folder (src/status/status-lock.ts): `<folder>.lock` taken with synth's
// lock (src/write/lock.ts). Unit tests of the lock path, then two real `kyma-fleet status`
// processes on one fleet: while the first holds the lock (its cluster answers are held back by a
// fake API server), the second fails at once with exit 4 naming the lock and its holder, and
// writes nothing; once the first has finished, the second runs.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockStatusDir, statusLockPath } from '../../src/status/status-lock';
import { BIN, FleetFixture, NOW, testProcessEnv } from '../helpers/fleet-fixture';
import { FakeKubeApi } from './fake-kube-api';
import { SAMPLE_DUMP, tmpDir } from './status-helpers';

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function scratch(): string {
  const d = tmpDir();
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('lockStatusDir', () => {
  it('locks <folder>.lock beside the folder, refuses a second holder by name, and releases', () => {
    const dir = path.join(scratch(), 'fleet', 'status');
    expect(statusLockPath(dir)).toBe(`${dir}.lock`);
    expect(statusLockPath(`${dir}/`)).toBe(`${dir}.lock`);

    // GIVEN the lock is taken (its parent folder did not exist yet)
    const first = lockStatusDir(dir, 'fleet/status/');
    if (!first.ok) throw new Error(first.problem.message);
    expect(first.lockPath).toBe(`${dir}.lock`);
    expect(JSON.parse(fs.readFileSync(`${dir}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });

    // WHEN a second run asks for it while the holder lives
    const second = lockStatusDir(dir, 'fleet/status/');

    // THEN it is refused with the holder and the lock file named
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.problem.code).toBe('E_STATUS_LOCKED');
    expect(second.problem.message).toMatch(
      new RegExp(`^fleet/status/ is locked by pid ${process.pid} on ${os.hostname()} since \\S+ \\(lock file ${escape(dir)}\\.lock\\); another kyma-fleet status run`),
    );

    // AND after release the lock file is gone and the next run gets it
    first.release();
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);
    const third = lockStatusDir(dir, 'fleet/status/');
    expect(third.ok).toBe(true);
    if (third.ok) third.release();
  });

  it('takes over the lock of a process that is gone (a killed run)', () => {
    const dir = path.join(scratch(), 'status');
    fs.writeFileSync(`${dir}.lock`, `${JSON.stringify({ pid: deadPid(), host: os.hostname(), startedAt: '2026-11-22T00:00:00.000Z' })}\n`);
    const lock = lockStatusDir(dir, 'status/');
    expect(lock.ok).toBe(true);
    if (lock.ok) lock.release();
  });

  it('never takes over a lock of another host', () => {
    const dir = path.join(scratch(), 'status');
    fs.writeFileSync(`${dir}.lock`, `${JSON.stringify({ pid: 4242, host: 'ci-runner-7', startedAt: '2026-11-22T00:00:00.000Z' })}\n`);
    const lock = lockStatusDir(dir, 'status/');
    expect(lock.ok).toBe(false);
    if (!lock.ok) expect(lock.problem.message).toContain('a lock of another host is never taken over');
    expect(fs.existsSync(`${dir}.lock`)).toBe(true);
  });

  it('a lock file that cannot be created is E_STATUS_WRITE, not a crash', () => {
    const file = path.join(scratch(), 'a-file');
    fs.writeFileSync(file, '');
    const lock = lockStatusDir(path.join(file, 'status'), 'x/');
    expect(lock).toEqual({ ok: false, problem: { code: 'E_STATUS_WRITE', message: expect.stringMatching(new RegExp(`^cannot create the lock file ${escape(file)}/status\\.lock \\((ENOTDIR|EEXIST)\\)$`)) } });
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every file of a folder with its bytes. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
}

async function waitFor(what: string, cond: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('two kyma-fleet status processes on one fleet', () => {
  it('the second fails with exit 4 naming the lock and the first run while the first holds it; it writes nothing', async () => {
    // GIVEN a fleet and a KCP and Garden whose answers are held back until the test lets them go
    const fx = FleetFixture.example();
    cleanups.push(() => fx.cleanup());
    fs.cpSync(SAMPLE_DUMP, path.join(fx.dir, 'dump'), { recursive: true });
    const kcp = (await FakeKubeApi.start({ token: 'kcp-token' })).hold();
    const garden = (await FakeKubeApi.start({ token: 'garden-token' })).hold();
    cleanups.push(() => kcp.close(), () => garden.close());
    const kubeconfig = path.join(fx.dir, 'kubeconfig.yaml');
    fs.writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'kcp', cluster: { server: kcp.url, 'insecure-skip-tls-verify': true } },
          { name: 'garden', cluster: { server: garden.url, 'insecure-skip-tls-verify': true } },
        ],
        users: [
          { name: 'kcp', user: { token: 'kcp-token' } },
          { name: 'garden', user: { token: 'garden-token' } },
        ],
        contexts: [
          { name: 'kcp', context: { cluster: 'kcp', user: 'kcp' } },
          { name: 'garden', context: { cluster: 'garden', user: 'garden' } },
        ],
      }),
    );
    const statusDir = fx.path('status');
    const lockFile = `${statusDir}.lock`;
    const before = snapshot(statusDir);

    // WHEN the first run starts (live) and is waiting for its clusters
    const first: ChildProcess = spawn(process.execPath, [BIN, 'status', '--kubeconfig', kubeconfig, '--kcp-context', 'kcp', '--garden-context', 'garden', '--timeout', '120', '--now', NOW], {
      cwd: fx.dir,
      env: testProcessEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void (first.exitCode === null && first.signalCode === null && first.kill('SIGKILL')));
    let firstErr = '';
    first.stderr!.on('data', (d: Buffer) => (firstErr += d.toString()));
    const firstExit = new Promise<number | null>((resolve) => first.on('close', resolve));
    await waitFor('the first run to take the lock and ask its clusters', () => fs.existsSync(lockFile) && kcp.requests.length > 0, 20_000);
    expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(first.pid);

    // AND a second run (from dumps) starts meanwhile
    const second = await runAsync(['status', '--from', 'dump', '--now', NOW], fx.dir);

    // THEN the second failed with exit 4, naming the lock file and the first run, and wrote nothing
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(
      new RegExp(
        `^fleet/status/: error: fleet/status/ is locked by pid ${first.pid} on ${escape(os.hostname())} since \\S+ \\(lock file ${escape(lockFile)}\\); another kyma-fleet status run is reading the clusters and writing this folder: nothing was read or written, run again when it has finished \\[E_STATUS_LOCKED\\]\\n$`,
      ),
    );
    expect(snapshot(statusDir)).toEqual(before);

    // WHEN the first run's clusters answer
    kcp.release();
    garden.release();

    // THEN it finished, wrote its report and released the lock
    expect(await firstExit, firstErr).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
    expect(snapshot(statusDir)).not.toEqual(before);

    // AND now the second run goes through
    const again = await runAsync(['status', '--from', 'dump', '--now', NOW], fx.dir);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});

/** Runs the binary without blocking this process (whose fake servers must keep answering). */
function runAsync(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: testProcessEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
