// Runs one task per worker thread and waits for all of them synchronously (the pipeline is
// synchronous end to end, see src/run/parallel/pool.ts for the renderer's richer version): each
// worker posts its one result on its own MessageChannel and bumps a shared counter; the main thread
// sleeps on the counter (Atomics.wait) and takes the messages with receiveMessageOnPort. A worker
// bumps its heartbeat slot as it works; one that fails, or whose heartbeat stands still for
// `stallMs`, makes the whole call return undefined, and the caller does the work in its own thread.
// The worker side is `serveSyncTask` in the worker's entry module. Workers can be started before
// their tasks are known (startWarmWorkers): a worker's start-up (Node's own modules and the entry's,
// 0.25 s of a core at 10,000 runtimes) then overlaps what the caller does before it knows the task.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker, workerData } from 'node:worker_threads';

/**
 * The young generation of these workers, in MB: they list, stat, read and hash files, making only
 * short-lived garbage, for which a small one does. V8's default grows with the work (16 MB a worker
 * at 10,000 runtimes against 8 at 3,000), which made a check's peak memory grow with the fleet
 * faster than its data does (docs/performance.md, "Stop 41").
 */
const YOUNG_GENERATION_MB = 3;

interface TaskData<I> {
  readonly input: I;
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
  readonly beatSlot: number;
}

type Reply<O> = { ok: true; result: O } | { ok: false; error: string };

/**
 * The compiled entry `name` next to the module in `dir` (its __dirname); from TypeScript sources
 * (tests), the one the build put in lib/; undefined when there is none.
 */
export function compiledScript(dir: string, name: string): string | undefined {
  const here = path.join(dir, name);
  if (fs.existsSync(here)) return here;
  let root = dir;
  while (!fs.existsSync(path.join(root, 'package.json')) && path.dirname(root) !== root) root = path.dirname(root);
  const built = path.join(root, 'lib', path.relative(root, dir), name);
  return fs.existsSync(built) ? built : undefined;
}

/** A task as a worker gets it: at its start (workerData), or later through the port a warm worker waits on. */
type TaskMessage<I> = Omit<TaskData<I>, 'port'>;

/** Workers of one entry script started before their tasks are known; startSyncTasks gives them tasks. */
export interface WarmWorkers {
  readonly script: string;
  /** A started worker and the port its task goes to (and its reply comes back on), while one is left. */
  take(): { readonly worker: Worker; readonly port: MessagePort } | undefined;
  /** Stops the workers no task was given to. */
  release(): void;
  /** Stops them all, the prelude's too (they are not wanted after all). */
  stop(): void;
  /**
   * The result of the prelude the first worker ran as it started (startWarmWorkers), waited for
   * (PRELUDE_WAIT_MS at most); undefined without one, or when it failed or took too long. Its worker
   * stays for it when release() finds no task was given to it.
   */
  prelude(): unknown;
}

/** How long the caller waits for a warm worker's prelude before it does the work itself. */
export const PRELUDE_WAIT_MS = 10_000;

/**
 * `count` workers of `script`, started now; each waits for the task startSyncTasks posts it. The
 * first one runs `prelude` (the worker's serveSyncTask prelude function on this input) before it
 * waits: work the caller needs before it knows the task (WarmWorkers.prelude).
 */
export function startWarmWorkers(script: string, count: number, prelude?: unknown): WarmWorkers {
  const none = count === 0 || prelude === undefined;
  const signal = new SharedArrayBuffer(4);
  const done = new Int32Array(signal);
  // Only the first worker runs the prelude, and replies on a channel of its own.
  const preludeChannel = none ? undefined : new MessageChannel();
  const idle = Array.from({ length: count }, (_, i) => {
    const { port1, port2 } = new MessageChannel();
    const reply = i === 0 ? preludeChannel?.port2 : undefined;
    const workerData = reply ? { warm: port2, prelude: { input: prelude, port: reply, signal } } : { warm: port2 };
    const worker = new Worker(script, { workerData, transferList: reply ? [port2, reply] : [port2], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    // One that is never given a task (its caller failed first) does not keep the process alive.
    worker.unref();
    return { worker, port: port1 };
  });
  // The prelude's worker when no task was given to it: stopped once its prelude is taken.
  let spare: (typeof idle)[number] | undefined;
  const stop = (w: (typeof idle)[number]): void => {
    w.port.close();
    void w.worker.terminate();
  };
  let reply: Reply<unknown> | undefined;
  return {
    script,
    take: () => idle.shift(),
    release: () => {
      const left = idle.splice(0);
      // Its prelude is still wanted (it was given no task: a dist/ too small for the look's workers).
      if (!none && left.length === count) spare = left.shift();
      left.forEach(stop);
    },
    stop: () => {
      idle.splice(0).forEach(stop);
      if (spare) stop(spare);
      spare = undefined;
      preludeChannel?.port1.close();
    },
    prelude: () => {
      if (!preludeChannel) return undefined;
      const preludePort = preludeChannel.port1;
      const deadline = Date.now() + PRELUDE_WAIT_MS;
      while (!reply) {
        const m = receiveMessageOnPort(preludePort);
        if (m) reply = m.message as Reply<unknown>;
        else if (Date.now() >= deadline) break;
        else Atomics.wait(done, 0, 0, Math.min(100, deadline - Date.now()));
      }
      if (spare) stop(spare);
      spare = undefined;
      preludePort.close();
      return reply?.ok ? reply.result : undefined;
    },
  };
}

/** Tasks started by startSyncTasks; `wait` blocks until every one replied. */
export interface SyncTasks<O> {
  /** The results in input order, or undefined when any worker failed or stalled. */
  wait(): O[] | undefined;
  /** Stops the workers (the caller failed before it waited: they must not keep the process alive). */
  cancel(): void;
}

/**
 * One worker of `script` per input, started now (the caller works on meanwhile, then waits); `warm`
 * workers of the same script are given tasks first.
 */
export function startSyncTasks<I, O>(script: string, inputs: readonly I[], stallMs = 2 * 60 * 1000, warm?: WarmWorkers): SyncTasks<O> {
  // Slot 0: replies posted (the main thread sleeps on it); slot 1 + i: heartbeat of task i.
  const signal = new SharedArrayBuffer(4 * (1 + inputs.length));
  const counter = new Int32Array(signal);
  const running = inputs.map((input, i) => {
    const started = warm?.script === script ? warm.take() : undefined;
    if (started) {
      const task: TaskMessage<I> = { input, signal, beatSlot: 1 + i };
      started.port.postMessage(task);
      return { ...started, reply: undefined as Reply<O> | undefined, slot: 1 + i, beat: 0, beatAt: Date.now() };
    }
    const { port1, port2 } = new MessageChannel();
    const data: TaskData<I> = { input, port: port2, signal, beatSlot: 1 + i };
    const worker = new Worker(script, { workerData: data, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    return { worker, port: port1, reply: undefined as Reply<O> | undefined, slot: 1 + i, beat: 0, beatAt: Date.now() };
  });
  const wait = (): O[] | undefined => {
    // Heartbeats count from the wait: the time the caller worked meanwhile is not a stall.
    for (const r of running) r.beatAt = Date.now();
    for (;;) {
      const seen = Atomics.load(counter, 0);
      for (const r of running) {
        if (r.reply) continue;
        const m = receiveMessageOnPort(r.port);
        if (m) {
          r.reply = m.message as Reply<O>;
          continue;
        }
        const beat = Atomics.load(counter, r.slot);
        if (beat !== r.beat) {
          r.beat = beat;
          r.beatAt = Date.now();
        } else if (Date.now() - r.beatAt > stallMs) return undefined;
      }
      if (running.some((r) => r.reply?.ok === false)) return undefined;
      if (running.every((r) => r.reply)) return running.map((r) => (r.reply as { result: O }).result);
      Atomics.wait(counter, 0, seen, Math.min(1000, stallMs));
    }
  };
  const stop = (): void => {
    for (const r of running) {
      r.port.close();
      void r.worker.terminate();
    }
  };
  return {
    wait: () => {
      try {
        return wait();
      } finally {
        stop();
      }
    },
    cancel: stop,
  };
}

/**
 * The worker side: runs `task` on its input (`beat` to be called as it makes progress) and posts the
 * reply; a warm worker (startWarmWorkers) first waits for its input.
 */
export function serveSyncTask<I, O>(task: (input: I, beat: () => void) => O, prelude?: (input: unknown) => unknown): void {
  const data = workerData as TaskData<I> | { warm: MessagePort; prelude?: { input: unknown; port: MessagePort; signal: SharedArrayBuffer } };
  if (!('warm' in data)) {
    runTask(task, data);
    return;
  }
  if (data.prelude) {
    const { input, port, signal } = data.prelude;
    let reply: Reply<unknown>;
    try {
      if (!prelude) throw new Error('this worker has no prelude');
      reply = { ok: true, result: prelude(input) };
    } catch (e) {
      reply = { ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    port.postMessage(reply);
    port.close();
    const done = new Int32Array(signal);
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
  }
  data.warm.once('message', (m: TaskMessage<I>) => runTask(task, { ...m, port: data.warm }));
}

function runTask<I, O>(task: (input: I, beat: () => void) => O, { input, port, signal, beatSlot }: TaskData<I>): void {
  const counter = new Int32Array(signal);
  let reply: Reply<O>;
  try {
    reply = { ok: true, result: task(input, () => void Atomics.add(counter, beatSlot, 1)) };
  } catch (e) {
    reply = { ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  port.postMessage(reply);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
}
