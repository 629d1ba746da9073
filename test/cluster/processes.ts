// Starting, watching and ending the test cluster's server processes (etcd, kube-apiserver), plus the
// few HTTP(S) calls the harness makes to them. Kept apart from the harness so that the CLI, which
// starts a cluster in the background, shares exactly the same code.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free TCP port on 127.0.0.1 (the OS picks it; another process could still take it before use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** True while a process with this pid exists (zombies of our own children count as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** True when the process with this pid is running the given binary (guards against reused pids). */
export function pidRuns(pid: number, binary: string): boolean {
  if (!pidAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === binary;
  } catch {
    return true; // no /proc: trust the pid
  }
}

export interface ServerProcess {
  name: string;
  pid: number;
  logFile: string;
  child: ChildProcess;
}

/**
 * Starts a server with its output going to a log file. `detached` puts it in its own process group
 * and lets it outlive this process (the CLI's background cluster); otherwise it stays in ours.
 */
export function startServer(name: string, binary: string, args: string[], opts: { logFile: string; cwd: string; detached?: boolean }): ServerProcess {
  const log = fs.openSync(opts.logFile, 'a');
  try {
    const child = spawn(binary, args, { cwd: opts.cwd, stdio: ['ignore', log, log], detached: opts.detached ?? false, env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '2' } });
    if (child.pid === undefined) throw new Error(`cannot start ${name} (${binary})`);
    child.on('error', () => undefined); // reported through exitCode / the log
    if (opts.detached) child.unref();
    return { name, pid: child.pid, logFile: opts.logFile, child };
  } finally {
    fs.closeSync(log);
  }
}

/** The last lines of a server's log, for error messages. */
export function logTail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits until `check` returns true; fails early when one of `watched` exits, with its log tail. */
export async function waitUntil(what: string, check: () => Promise<boolean>, opts: { timeoutMs: number; watched: ServerProcess[] }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = '';
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    for (const proc of opts.watched) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
        throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}) while waiting for ${what}; ${proc.logFile}:\n${logTail(proc.logFile)}`);
      }
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}`);
    await sleep(delay);
  }
}

/** Sends `signal`, then SIGKILL after `graceMs`, and waits until every pid is gone. */
export async function endProcesses(pids: number[], graceMs = 5000): Promise<void> {
  const live = () => pids.filter(pidAlive);
  for (const pid of live()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + graceMs;
  while (live().length > 0 && Date.now() < deadline) await sleep(25);
  for (const pid of live()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const hardDeadline = Date.now() + 10_000;
  while (live().length > 0) {
    if (Date.now() > hardDeadline) throw new Error(`processes ${live().join(', ')} did not end after SIGKILL`);
    await sleep(25);
  }
}

/** SIGKILLs the pids at once; for exit and signal handlers, which cannot wait. */
export function killNow(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP(S) request with an optional bearer token and CA (or no verification: `insecure`). */
export function httpRequest(url: string, opts: { method?: string; token?: string; ca?: string; insecure?: boolean; body?: string; contentType?: string; timeoutMs?: number } = {}): Promise<HttpResult> {
  const u = new URL(url);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  }
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = { method: opts.method ?? 'GET', headers, timeout: opts.timeoutMs ?? 10_000 };
    if (u.protocol === 'https:') {
      options.ca = opts.ca;
      options.rejectUnauthorized = !opts.insecure;
      options.agent = false;
    }
    const req = (u.protocol === 'https:' ? https : http).request(u, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${opts.method ?? 'GET'} ${url}: timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
