// Runs the real kustomize-controller binary (built by tools.ts) as a process of the test run against
// a test cluster (test/cluster/harness.ts), the way it runs in a KCP, with the flags read from its
// main.go at v1.9.6:
// - KUBECONFIG: the cluster's admin kubeconfig (controller-runtime's GetConfigOrDie reads it);
// - --metrics-addr=0 (no metrics listener), --health-addr=127.0.0.1:<free port> (its /readyz tells us
//   when the manager runs), --events-addr= (events go to the API server only);
// - --watch-all-namespaces=true, no leader election (one instance);
// - --no-remote-bases=true (kustomize may not fetch remote bases; the render has none);
// - --requeue-dependency: 30 s by default, as in a real installation; the scenario tests pass 5s so a
//   Kustomization waiting for its dependsOn is looked at again sooner (the same code path);
// - --log-encoding=json, kept in a log file next to the test for failures.
// The process is ended by stop(), on process exit, and by a small watchdog when the test process dies
// without running its handlers (as the cluster harness does for its servers).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { endProcesses, freePort, httpRequest, killNow, logTail, waitUntil, type ServerProcess } from '../cluster/processes';

export interface ControllerOptions {
  binary: string;
  kubeconfig: string;
  /** Folder for the log file (kept until the caller removes it). */
  dir: string;
  /** Default 30s (the controller's own default). */
  requeueDependency?: string;
  /** Default 4 (the controller's own default). */
  concurrent?: number;
  /** Extra flags, e.g. --override-manager=... to see a scenario fail. */
  extraArgs?: string[];
}

export interface RunningController {
  pid: number;
  logFile: string;
  args: string[];
  /** CPU seconds (user + system) the process used so far, from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** Resident memory in MiB now (VmRSS). */
  rssMiB(): number;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

function startWatchdog(pid: number): number | undefined {
  const script = `
const [parent, child] = process.argv.slice(1).map(Number);
const alive = (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
setInterval(() => {
  if (!alive(child)) process.exit(0);
  if (!alive(parent)) { try { process.kill(child, 'SIGKILL'); } catch {} process.exit(0); }
}, 500);`;
  const w = spawn(process.execPath, ['-e', script, String(process.pid), String(pid)], { detached: true, stdio: 'ignore' });
  w.unref();
  return w.pid;
}

export async function startController(opts: ControllerOptions): Promise<RunningController> {
  fs.mkdirSync(opts.dir, { recursive: true });
  const logFile = path.join(opts.dir, 'kustomize-controller.log');
  const healthPort = await freePort();
  const args = [
    '--metrics-addr=0',
    `--health-addr=127.0.0.1:${healthPort}`,
    '--events-addr=',
    '--watch-all-namespaces=true',
    '--no-remote-bases=true',
    `--requeue-dependency=${opts.requeueDependency ?? '30s'}`,
    `--concurrent=${opts.concurrent ?? 4}`,
    '--log-encoding=json',
    '--log-level=info',
    ...(opts.extraArgs ?? []),
  ];
  const log = fs.openSync(logFile, 'a');
  const child = spawn(opts.binary, args, {
    cwd: opts.dir,
    stdio: ['ignore', log, log],
    env: { ...process.env, KUBECONFIG: opts.kubeconfig, GOMAXPROCS: process.env.GOMAXPROCS ?? '2', TMPDIR: opts.dir },
  });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`cannot start ${opts.binary}`);
  child.on('error', () => undefined);
  const pid = child.pid;
  const onExit = () => killNow([pid]);
  process.on('exit', onExit);
  const watchdog = startWatchdog(pid);
  const proc: ServerProcess = { name: 'kustomize-controller', pid, logFile, child };

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      await endProcesses([pid]);
      if (watchdog !== undefined) killNow([watchdog]);
    })();
    return stopping;
  };
  try {
    await waitUntil('kustomize-controller /readyz', async () => (await httpRequest(`http://127.0.0.1:${healthPort}/readyz`, { timeoutMs: 2000 })).status === 200,
      { timeoutMs: 60_000, watched: [proc] });
  } catch (err) {
    await stop();
    throw err;
  }
  let lastCpu = 0;
  return {
    pid,
    logFile,
    args,
    cpuSeconds() {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        lastCpu = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14, 15)
      } catch {
        // exited: the last reading
      }
      return lastCpu;
    },
    rssMiB() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) / 1024 : 0;
      } catch {
        return 0;
      }
    },
    logTail: (lines = 40) => logTail(logFile, lines),
    stop,
  };
}
