// The TypeScript client of the upstream oracle: starts its long-lived Go programs (admission, kim,
// lakom, and falco where its snapshot is; built or reused from the tool cache, see tools.ts), sends
// requests as JSON lines and matches each response to its request (responses come in request order,
// one per line). One Oracle per test file: start it in beforeAll, close it in afterAll; close() ends
// every program, and a process exit kills them too. Without the falco program, its op is answered
// with an `error` starting "unavailable:" that says why, as a program answers an op it cannot serve.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Op, Requests, Response } from './protocol';
import { PROGRAM_OF } from './protocol';
import { ensureOracleBinaries, FALCO_SKIP_ENV, falcoUnavailableReason, oracleBinariesFromEnv, type OracleBinaries, type OracleProgram } from './tools';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** One running Go program and its queue of requests awaiting their response line. */
class OracleProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private buffer = '';
  private stderr = '';
  private exited: Error | undefined;
  private readonly killOnExit = () => this.child.kill('SIGKILL');

  constructor(readonly name: OracleProgram, binary: string) {
    this.child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    process.once('exit', this.killOnExit);
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    this.child.on('error', (err) => this.fail(new Error(`oracle-${name}: ${err.message}`)));
    // A write to a program that has exited fails its requests (close, below), not the test run.
    this.child.stdin.on('error', (err) => this.fail(new Error(`oracle-${name}: ${err.message}`)));
    this.child.on('close', (code, signal) => {
      process.removeListener('exit', this.killOnExit);
      this.fail(new Error(`oracle-${name} exited (${code ?? signal})${this.stderr ? `; stderr: ${this.stderr.trim()}` : ''}`));
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      const waiter = this.pending.shift();
      if (!waiter) continue;
      try {
        waiter.resolve(JSON.parse(line));
      } catch (err) {
        waiter.reject(new Error(`oracle-${this.name} answered a line that is not JSON: ${line.slice(0, 200)}`));
      }
    }
  }

  private fail(err: Error): void {
    this.exited ??= err;
    for (const waiter of this.pending.splice(0)) waiter.reject(err);
  }

  request(body: Record<string, unknown>): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(body)}\n`);
    });
  }

  close(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      this.child.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.stdin.end();
    });
  }
}

export class Oracle {
  private nextId = 1;

  private constructor(
    private readonly processes: Partial<Record<OracleProgram, OracleProcess>>,
    /** Why a program is not running (falco without its snapshot). */
    private readonly missing: Partial<Record<OracleProgram, string>>,
  ) {}

  /** Starts the programs: from the paths the global setup built, else building or reusing them now. */
  static async start(binaries?: OracleBinaries, log?: (line: string) => void): Promise<Oracle> {
    const paths = binaries ?? oracleBinariesFromEnv() ?? (await ensureOracleBinaries(log));
    const processes: Partial<Record<OracleProgram, OracleProcess>> = {
      admission: new OracleProcess('admission', paths.admission),
      kim: new OracleProcess('kim', paths.kim),
      lakom: new OracleProcess('lakom', paths.lakom),
    };
    const missing: Partial<Record<OracleProgram, string>> = {};
    if (paths.falco) processes.falco = new OracleProcess('falco', paths.falco);
    else missing.falco = process.env[FALCO_SKIP_ENV] || falcoUnavailableReason() || 'the falco program was not built';
    return new Oracle(processes, missing);
  }

  /** True when the program runs (falco needs its snapshot). */
  has(program: OracleProgram): boolean {
    return this.processes[program] !== undefined;
  }

  /** Sends one request; resolves with its response (which may carry `error`). */
  async request<O extends Op>(op: O, body: Requests[O]): Promise<Response<O>> {
    const id = this.nextId++;
    // An op no program serves goes to the admission program, which answers it with an error.
    const program = PROGRAM_OF[op] ?? 'admission';
    const proc = this.processes[program];
    if (!proc) return { id, op, error: `unavailable: ${this.missing[program]}` } as Response<O>;
    return (await proc.request({ ...body, id, op })) as Response<O>;
  }

  /** Like request, but throws when the response is an `error` (the request could not be served). */
  async ask<O extends Op>(op: O, body: Requests[O]): Promise<Exclude<Response<O>, { error: string }>> {
    const response = await this.request(op, body);
    if (response.error !== undefined) throw new Error(`oracle ${op}: ${response.error}`);
    return response as Exclude<Response<O>, { error: string }>;
  }

  /** The upstream module versions of each running program. */
  async versions(): Promise<Partial<Record<OracleProgram, Record<string, string>>> & Record<'admission' | 'kim' | 'lakom', Record<string, string>>> {
    const out: Partial<Record<OracleProgram, Record<string, string>>> = {};
    for (const [name, proc] of Object.entries(this.processes) as [OracleProgram, OracleProcess][]) {
      out[name] = ((await proc.request({ op: 'versions', id: this.nextId++ })) as { versions: Record<string, string> }).versions;
    }
    return out as Partial<Record<OracleProgram, Record<string, string>>> & Record<'admission' | 'kim' | 'lakom', Record<string, string>>;
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.processes).map((p) => p!.close()));
  }
}
