// Runs the parts of a synth in worker threads and waits for them synchronously (the pipeline is
// synchronous end to end): each worker writes its files into the staging tree itself, posts what
// it staged per chunk and at last its result on its own MessageChannel, and bumps a shared counter
// after each message; the main thread sleeps on the counter (Atomics.wait), takes the messages with
// receiveMessageOnPort and hands them to the writer as they come. A worker that fails, or whose
// heartbeat stands still, makes the parts fail as a whole (the caller aborts the write and falls
// back to the whole-fleet pipeline), never a partial dist/.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { type ChunkFiles, mergePartResults, type PartRequest, type PartResult, renderPart } from './part';
import { threadLimit } from './threads';

/** A worker that never answers must not hang CI forever. */
const WORKER_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * A worker whose heartbeat (bumped for every file it stages and every chunk it starts) stands still
 * this long is taken for dead (out of memory, killed): the main thread cannot see a worker's exit
 * event while it waits synchronously. KYMA_FLEET_WORKER_STALL_MS overrides it (tests).
 */
const DEFAULT_STALL_MS = 2 * 60 * 1000;

function stallMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.KYMA_FLEET_WORKER_STALL_MS;
  return raw !== undefined && /^[1-9][0-9]{2,8}$/.test(raw) ? Number(raw) : DEFAULT_STALL_MS;
}

/** Runtime files below which one thread is faster than starting workers. */
const DEFAULT_MIN_FILES = 500;

/**
 * How many parts a synth of `files` runtime files (without a usable run record) is split into: 0
 * for the plain whole-fleet pipeline (small fleets), 1 for chunks in this thread, more for worker
 * threads. The environment can force it (KYMA_FLEET_WORKERS=1: no worker threads;
 * KYMA_FLEET_PARALLEL_MIN: the threshold, for tests).
 */
export function workerCount(files: number, env: NodeJS.ProcessEnv = process.env): number {
  const n = threadLimit(env);
  const min = env.KYMA_FLEET_PARALLEL_MIN !== undefined && /^[0-9]{1,7}$/.test(env.KYMA_FLEET_PARALLEL_MIN) ? Number(env.KYMA_FLEET_PARALLEL_MIN) : DEFAULT_MIN_FILES;
  if (files < min) return 0;
  // One part in this thread when workers are off or cannot start (no compiled worker script).
  return n <= 1 || !workerScript() ? 1 : n;
}

/** The compiled worker (lib/src/run/parallel/worker.js); undefined when running from TypeScript sources without a build. */
function workerScript(): string | undefined {
  const here = path.join(__dirname, 'worker.js');
  if (fs.existsSync(here)) return here;
  const built = path.join(__dirname, '..', '..', '..', 'lib', 'src', 'run', 'parallel', 'worker.js');
  return fs.existsSync(built) ? built : undefined;
}

/** `chunk`: the chunk's result (workers send each with its files and end with a summary of ok and layersKey). */
type WorkerMessage = { kind: 'files'; files: ChunkFiles; runtimes: number; chunk?: PartResult } | { kind: 'done'; ok: true; result: PartResult } | { kind: 'done'; ok: false; error: string };

/**
 * Renders every part in its own worker (a single part in this thread), handing each chunk's files
 * to `onFiles` as it arrives (in this thread, so the writer never races); throws when a worker fails.
 */
export function runParts(requests: readonly PartRequest[], onFiles: (files: ChunkFiles, runtimes: number) => void): PartResult[] {
  if (requests.length === 1) return [renderPart(requests[0]!, onFiles)];
  const script = workerScript();
  if (!script) throw new Error('synth workers: the compiled worker script is missing (run npm run build)');
  // Slot 0: messages posted (the main thread sleeps on it); slot 1: set to stop the other parts;
  // slot 2 + i: heartbeat of part i.
  const signal = new SharedArrayBuffer(4 * (2 + requests.length));
  const counter = new Int32Array(signal);
  const running = requests.map((request, i) => {
    const { port1, port2 } = new MessageChannel();
    // A larger young generation: rendering allocates many short-lived objects (fewer scavenges, less promoted).
    const worker = new Worker(script, { workerData: { request, port: port2, signal, beatSlot: 2 + i }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: 64, maxOldGenerationSizeMb: 160 } });
    return { worker, port: port1, done: undefined as WorkerMessage | undefined, chunks: [] as PartResult[], slot: 2 + i, beat: 0, beatAt: Date.now() };
  });
  const deadline = Date.now() + WORKER_TIMEOUT_MS;
  const stall = stallMs();
  try {
    for (;;) {
      const seen = Atomics.load(counter, 0);
      for (const r of running) {
        const beat = Atomics.load(counter, r.slot);
        if (beat !== r.beat) {
          r.beat = beat;
          r.beatAt = Date.now();
        } else if (!r.done && Date.now() - r.beatAt > stall) {
          r.done = { kind: 'done', ok: false, error: `synth part ${r.slot - 2}: no progress for ${Math.round(stall / 1000)} s (the worker died or hangs)` };
        }
        for (let m = receiveMessageOnPort(r.port); m && !r.done; m = r.done ? undefined : receiveMessageOnPort(r.port)) {
          const message = m.message as WorkerMessage;
          if (message.kind === 'files') {
            if (message.chunk) r.chunks.push(message.chunk);
            if (Atomics.load(counter, 1) === 0) onFiles(message.files, message.runtimes);
          } else r.done = message;
        }
        // A failed part stops the others, and the run waits until they stopped: the caller deletes
        // the staging tree they write into.
        if (r.done?.kind === 'done' && !r.done.ok) Atomics.store(counter, 1, 1);
      }
      if (running.every((r) => r.done)) break;
      if (Date.now() > deadline) {
        Atomics.store(counter, 1, 1);
        throw new Error(`synth workers: no result after ${WORKER_TIMEOUT_MS / 60000} minutes`);
      }
      Atomics.wait(counter, 0, seen, Math.min(1000, stall));
    }
  } finally {
    for (const r of running) {
      r.port.close();
      void r.worker.terminate();
    }
  }
  const errors = running.flatMap((r) => (r.done?.kind === 'done' && !r.done.ok ? [r.done.error] : []));
  if (errors.length > 0) throw new Error(`synth workers failed:\n${errors.join('\n')}`);
  return running.map((r) => mergePartResults([...r.chunks, (r.done as { result: PartResult }).result]));
}
