// Entry point of a synth worker thread: renders the part it is given (part.ts) and posts the result
// on the port it was handed, then flips its done flag so the waiting main thread wakes.

import { parentPort, type MessagePort, workerData } from 'node:worker_threads';
import { type PartRequest, renderPart } from './part';

interface WorkerInput {
  readonly request: PartRequest;
  readonly port: MessagePort;
  readonly done: SharedArrayBuffer;
}

if (parentPort) {
  const { request, port, done } = workerData as WorkerInput;
  const flag = new Int32Array(done);
  try {
    port.postMessage({ ok: true, result: renderPart(request) });
  } catch (e) {
    port.postMessage({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
