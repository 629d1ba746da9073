// The floor of a cold synth on this machine, for the benchmark: what two unavoidable parts of it
// cost when nothing else is done, each on as many threads as a synth uses (2 on the reference VM).
//   --phase write   write the very bytes of a rendered dist/ (packed once, untimed, by packTree)
//                   into a new folder in the same layout: one mkdir per folder, one
//                   writeFileSync per file, nothing else (no hashing, no index, no fsync, no checks).
//   --phase tojson  the cdk8s part of rendering the same objects: per runtime and target one small
//                   App with a Chart of plain ApiObjects (cheaper than the generated import classes
//                   kyma-fleet uses) and `chart.toJson()`; no YAML, no files.
// A cold synth must do both and more (start Node, read and validate 10,000 runtime files, serialise
// YAML, hash every file, write the index and the run record). The sum of the two phases' wall
// times is what they cost one after the other; (CPU of both) / (threads) is a lower bound of a
// synth's wall time that holds even if it overlapped the two perfectly. The bench divides both by
// the plain-cdk8s baseline of the same round: when the CPU bound is above issue 5's 0.25x, no
// implementation of the required stack and the dist/ layout meets that target on this machine.
//
// Each phase is timed in-process from the moment every worker has its input parsed and ready to
// the moment all are done; CPU is process.cpuUsage() (all threads, user + system) over that span.
//   node lib/bench/floor.js --phase write --pack FILE.pack --out DIR [--threads N]
//   node lib/bench/floor.js --phase tojson --objects FILE.jsonl [--threads N]
// Prints {"phase","threads","units","ms","cpuMs",...} on stdout.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ApiObject, App, Chart } from 'cdk8s';
import { type ChartLine, readChartLines } from './plain-cdk8s';

/**
 * The pack: every file of a tree as (relative path, bytes), sorted by path, in one file, so the
 * write phase reads its input in one call instead of 110,000. Layout: u32 count, then per file
 * u32 path length, path (UTF-8), u32 data length, data.
 */
export function packTree(root: string, packFile: string): { files: number; bytes: number } {
  const rel: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile()) rel.push(r);
    }
  };
  walk(root, '');
  rel.sort();
  const fd = fs.openSync(packFile, 'w');
  let bytes = 0;
  try {
    const head = Buffer.alloc(4);
    head.writeUInt32LE(rel.length);
    fs.writeSync(fd, head);
    for (const r of rel) {
      const name = Buffer.from(r, 'utf8');
      const data = fs.readFileSync(path.join(root, r));
      const lens = Buffer.alloc(4);
      lens.writeUInt32LE(name.length);
      fs.writeSync(fd, lens);
      fs.writeSync(fd, name);
      const dl = Buffer.alloc(4);
      dl.writeUInt32LE(data.length);
      fs.writeSync(fd, dl);
      fs.writeSync(fd, data);
      bytes += data.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { files: rel.length, bytes };
}

export interface PackedFile {
  rel: string;
  data: Uint8Array;
}

export function readPack(packFile: string): PackedFile[] {
  const buf = fs.readFileSync(packFile);
  const count = buf.readUInt32LE(0);
  const out: PackedFile[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    const nl = buf.readUInt32LE(at);
    const rel = buf.toString('utf8', at + 4, at + 4 + nl);
    at += 4 + nl;
    const dl = buf.readUInt32LE(at);
    out.push({ rel, data: buf.subarray(at + 4, at + 4 + dl) });
    at += 4 + dl;
  }
  return out;
}

/**
 * Splits sorted units into `parts` contiguous slices of about equal count, never inside a group
 * (a runtime's files stay in one slice, as a synth's parts keep them).
 */
export function splitByGroup<T>(units: readonly T[], groupOf: (u: T) => string, parts: number): T[][] {
  const out: T[][] = [];
  const per = Math.ceil(units.length / parts);
  let cur: T[] = [];
  for (let i = 0; i < units.length; i++) {
    cur.push(units[i]!);
    const next = units[i + 1];
    if (cur.length >= per && out.length < parts - 1 && (next === undefined || groupOf(next) !== groupOf(units[i]!))) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Splits units into `parts` contiguous slices of about equal count (a chart line is one runtime). */
export function splitEven<T>(units: readonly T[], parts: number): T[][] {
  const per = Math.ceil(units.length / parts);
  const out: T[][] = [];
  for (let i = 0; i < units.length; i += per) out.push(units.slice(i, i + per));
  return out;
}

/** runtimes/<name>/... belongs to <name>; anything else (gitops/...) to its first folder. */
const runtimeOf = (rel: string): string => {
  const parts = rel.split('/');
  return parts[0] === 'runtimes' ? `runtimes/${parts[1]}` : parts[0]!;
};

// --- worker side -------------------------------------------------------------------------------

interface WriteJob {
  phase: 'write';
  out: string;
  /** The slice's paths, and its bytes in one buffer (transferred, not copied): file i is ends[i-1]..ends[i]. */
  rels: string[];
  ends: number[];
  bytes: ArrayBuffer;
  /** Folders that already exist (made by the main thread: the out folder and the top level). */
  made: string[];
}

/** A slice of the pack as a WriteJob that owns a copy of only its own bytes. */
function writeJob(out: string, files: readonly PackedFile[], made: string[]): WriteJob {
  const bytes = new Uint8Array(files.reduce((n, f) => n + f.data.length, 0));
  const ends: number[] = [];
  let at = 0;
  for (const f of files) {
    bytes.set(f.data, at);
    at += f.data.length;
    ends.push(at);
  }
  return { phase: 'write', out, rels: files.map((f) => f.rel), ends, bytes: bytes.buffer, made };
}

interface ToJsonJob {
  phase: 'tojson';
  charts: ChartLine[];
}

function writeSlice(job: WriteJob): { files: number; dirs: number } {
  const made = new Set(job.made);
  let dirs = 0;
  const ensure = (dir: string): void => {
    if (made.has(dir)) return;
    ensure(path.posix.dirname(dir));
    fs.mkdirSync(path.join(job.out, dir));
    made.add(dir);
    dirs++;
  };
  const bytes = new Uint8Array(job.bytes);
  job.rels.forEach((rel, i) => {
    ensure(path.posix.dirname(rel));
    fs.writeFileSync(path.join(job.out, rel), bytes.subarray(i === 0 ? 0 : job.ends[i - 1]!, job.ends[i]!));
  });
  return { files: job.rels.length, dirs };
}

/** The objects of one runtime, grouped by target as renderRuntime does: one App and Chart each. */
function toJsonSlice(charts: readonly ChartLine[]): { objects: number; docs: number } {
  let objects = 0;
  let docs = 0;
  for (const line of charts) {
    const byTarget = new Map<string, ChartLine['objects']>();
    for (const o of line.objects) {
      const target = o.id.split('-')[0]!;
      let list = byTarget.get(target);
      if (!list) byTarget.set(target, (list = []));
      list.push(o);
    }
    for (const [target, list] of byTarget) {
      const app = new App({ outdir: '.', recordConstructMetadata: false });
      const chart = new Chart(app, target, { disableResourceNameHashes: true });
      for (const o of list) new ApiObject(chart, o.id, o.object);
      docs += chart.toJson().length;
      objects += list.length;
    }
  }
  return { objects, docs };
}

function workerMain(): void {
  const job = workerData as WriteJob | ToJsonJob;
  // The input arrived with workerData (parsed, cloned): only the phase itself is timed.
  parentPort!.postMessage({ ready: true });
  parentPort!.once('message', () => {
    const result = job.phase === 'write' ? writeSlice(job) : toJsonSlice(job.charts);
    parentPort!.postMessage({ done: true, result });
  });
}

// --- main side ---------------------------------------------------------------------------------

async function runWorkers(jobs: Array<WriteJob | ToJsonJob>): Promise<{ ms: number; cpuMs: number; results: Record<string, number>[] }> {
  const workers = jobs.map((job) => new Worker(__filename, { workerData: job, transferList: job.phase === 'write' ? [job.bytes] : [] }));
  const once = (w: Worker, key: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>): void => {
        if (m[key]) {
          w.off('message', onMessage);
          resolve(m);
        }
      };
      w.on('message', onMessage);
      w.once('error', reject);
    });
  await Promise.all(workers.map((w) => once(w, 'ready')));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const done = workers.map((w) => once(w, 'done'));
  for (const w of workers) w.postMessage('go');
  const msgs = await Promise.all(done);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await Promise.all(workers.map((w) => w.terminate()));
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, results: msgs.map((m) => m.result as Record<string, number>) };
}

const sum = (rs: Record<string, number>[], k: string): number => rs.reduce((a, r) => a + (r[k] ?? 0), 0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      phase: { type: 'string' },
      pack: { type: 'string' },
      objects: { type: 'string' },
      out: { type: 'string' },
      threads: { type: 'string', default: '2' },
    },
  });
  const threads = Number(values.threads);
  if (!Number.isInteger(threads) || threads < 1) throw new Error('--threads must be a positive integer');
  if (values.phase === 'write') {
    if (!values.pack || !values.out) throw new Error('usage: floor --phase write --pack FILE --out DIR [--threads N]');
    const files = readPack(values.pack);
    // The out folder and the top-level folders are made before the clock starts, by one thread, as
    // a synth's writer makes them before its parts start.
    fs.mkdirSync(values.out, { recursive: true });
    const tops = [...new Set(files.filter((f) => f.rel.includes('/')).map((f) => f.rel.split('/')[0]!))];
    for (const t of tops) fs.mkdirSync(path.join(values.out, t));
    // Slices of about equal file counts, a runtime's files in one (the gitops/ files, sorted
    // first, go with the first slice; a synth's parts write their runtimes' own GitOps files).
    const slices = splitByGroup(files, (f) => runtimeOf(f.rel), threads);
    const made = ['.', ...tops];
    const r = await runWorkers(slices.map((s) => writeJob(values.out!, s, made)));
    process.stdout.write(
      JSON.stringify({ phase: 'write', threads: slices.length, units: sum(r.results, 'files'), dirs: sum(r.results, 'dirs') + tops.length, ms: r.ms, cpuMs: r.cpuMs }) + '\n',
    );
    return;
  }
  if (values.phase === 'tojson') {
    if (!values.objects) throw new Error('usage: floor --phase tojson --objects FILE.jsonl [--threads N]');
    const slices = splitEven(readChartLines(values.objects), threads);
    const r = await runWorkers(slices.map((s) => ({ phase: 'tojson', charts: s })));
    process.stdout.write(JSON.stringify({ phase: 'tojson', threads: slices.length, units: sum(r.results, 'objects'), docs: sum(r.results, 'docs'), ms: r.ms, cpuMs: r.cpuMs }) + '\n');
    return;
  }
  throw new Error('--phase must be write or tojson');
}

if (!isMainThread) workerMain();
else if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
