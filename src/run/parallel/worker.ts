// Entry point of a synth worker thread: renders the part it is given (part.ts), posting each chunk's
// staged files and at last the result on the port it was handed; after every message it bumps the
// shared counter so the waiting main thread wakes (slot 0: messages posted by all workers). Slot 1
// is set by the main thread when another part failed: the worker stops before its next chunk. Its
// own slot (beatSlot) is its heartbeat, bumped as it works, by which the main thread tells a dead
// worker (which posts nothing) from a busy one.

import { parentPort, type MessagePort, workerData } from 'node:worker_threads';
import { type PartRequest, renderPart } from './part';

interface WorkerInput {
  readonly request: PartRequest;
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
  readonly beatSlot: number;
}

if (parentPort) {
  const { request, port, signal, beatSlot } = workerData as WorkerInput;
  const counter = new Int32Array(signal);
  const post = (message: unknown): void => {
    port.postMessage(message);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  };
  try {
    const result = renderPart(
      request,
      (files, runtimes, chunk) => post({ kind: 'files', files, runtimes, chunk }),
      () => Atomics.load(counter, 1) !== 0,
      () => Atomics.add(counter, beatSlot, 1),
      true,
    );
    post({ kind: 'done', ok: true, result });
  } catch (e) {
    post({ kind: 'done', ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
}
