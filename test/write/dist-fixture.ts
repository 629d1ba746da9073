// Test fixture for the write stage: a throw-away workspace holding dist/, tree hashes to compare
// generations, generated trees of any size, and a writer child process (compiled lib/, since a
// child cannot run the TS sources) that can be crashed, delayed or made to hold the lock.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDist, type WriteResult } from '../../src/write/dist-writer';

export const REPO = path.resolve(__dirname, '../..');
export const WRITER_JS = path.join(REPO, 'lib/src/write/dist-writer.js');

/** Child processes run lib/; fail loudly when it is missing or older than the sources. */
export function assertBuilt(): void {
  // Every module of the write stage (the writer is split by concern; ../../src/write/dist-writer.ts is its entry).
  for (const name of fs.readdirSync(path.join(REPO, 'src/write')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3))) {
    const js = path.join(REPO, 'lib/src/write', `${name}.js`);
    const ts = path.join(REPO, 'src/write', `${name}.ts`);
    if (!fs.existsSync(js) || fs.statSync(js).mtimeMs < fs.statSync(ts).mtimeMs) {
      throw new Error(`${path.relative(REPO, js)} is missing or stale: run npm run build`);
    }
  }
}

export class Workspace {
  private constructor(readonly dir: string) {}

  static create(): Workspace {
    return new Workspace(fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-write-')));
  }

  get outDir(): string {
    return path.join(this.dir, 'dist');
  }

  get lockPath(): string {
    return `${this.outDir}.lock`;
  }

  /** Leftovers of the writer next to dist/: `.dist.tmp-*` and `.dist.old-*`. */
  leftovers(): string[] {
    return fs.readdirSync(this.dir).filter((n) => n.startsWith('.dist.tmp-') || n.startsWith('.dist.old-')).sort();
  }

  /** What writeDist produces for `files`, written into a scratch folder of this workspace. */
  expectedHash(files: ReadonlyMap<string, string>): string {
    const scratch = fs.mkdtempSync(path.join(this.dir, 'expected-'));
    const r = writeDist({ outDir: path.join(scratch, 'dist'), files });
    if (!r.ok) throw new Error(`reference write failed: ${r.problem.message}`);
    const hash = treeHash(path.join(scratch, 'dist')) as string;
    fs.rmSync(scratch, { recursive: true, force: true });
    return hash;
  }

  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One line per entry (folders, files with sha256, symlinks with target), sorted; never follows symlinks. */
export function treeListing(root: string): string[] | undefined {
  if (!lexists(root)) return undefined;
  const out: string[] = [];
  const visit = (abs: string, rel: string) => {
    const st = fs.lstatSync(abs);
    if (st.isSymbolicLink()) out.push(`l ${rel} -> ${fs.readlinkSync(abs)}`);
    else if (st.isFile()) out.push(`f ${rel} ${createHash('sha256').update(fs.readFileSync(abs)).digest('hex')}`);
    else if (st.isDirectory()) {
      out.push(`d ${rel}`);
      for (const name of fs.readdirSync(abs)) visit(path.join(abs, name), rel === '' ? name : `${rel}/${name}`);
    } else out.push(`? ${rel}`);
  };
  visit(root, '');
  return out.sort();
}

/** Hash of a whole tree (undefined when it does not exist). */
export function treeHash(root: string): string | undefined {
  const listing = treeListing(root);
  return listing && createHash('sha256').update(listing.join('\n')).digest('hex');
}

export function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Deterministic PRNG (mulberry32) so a failing crash iteration can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A dist-like tree: `runtimes` runtimes with three target folders of a manifest each, plus one
 * gitops file. Generations differ in content; `drop` leaves out every n-th runtime.
 */
export function makeTree(runtimes: number, generation: string, drop = 0): Map<string, string> {
  const files = new Map<string, string>();
  for (let i = 0; i < runtimes; i++) {
    if (drop > 0 && i % drop === 0) continue;
    for (const target of ['skr', 'kcp', 'garden']) {
      files.set(`runtimes/rt-${i}/${target}/manifest.yaml`, `# ${generation}\nkind: Thing\nmetadata:\n  name: rt-${i}-${target}\n`);
    }
  }
  files.set('gitops/kustomization.yaml', `# ${generation}\nresources: []\n`);
  return files;
}

export interface ChildOptions {
  /** KYMA_FLEET_CRASH_AFTER_WRITES for the child. */
  crashAfter?: number;
  /** SIGKILL the child this many ms after spawning it. */
  killAfterMs?: number;
  /** The child's guard creates `ready` and then waits (holding the lock) until `release` exists. */
  hold?: { ready: string; release: string };
  /** Run under `ulimit -f <blocks>` (file size limit in KiB) to provoke EFBIG. */
  fileSizeLimitKiB?: number;
}

export interface ChildResult {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  result?: WriteResult;
  stderr: string;
}

const CHILD_SCRIPT = `
const fs = require('node:fs');
const { writeDist } = require(${JSON.stringify(WRITER_JS)});
const spec = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
const nap = new Int32Array(new SharedArrayBuffer(4));
const guard = spec.hold && (() => {
  fs.writeFileSync(spec.hold.ready + '.part', String(process.pid));
  fs.renameSync(spec.hold.ready + '.part', spec.hold.ready);
  const until = Date.now() + 30000;
  while (!fs.existsSync(spec.hold.release) && Date.now() < until) Atomics.wait(nap, 0, 0, 5);
  return undefined;
});
const r = writeDist({ outDir: spec.outDir, files: new Map(Object.entries(spec.files)), guard });
process.stdout.write(JSON.stringify(r));
process.exitCode = r.ok ? 0 : r.exitCode;
`;

/** Runs writeDist(outDir, files) in a child process running the compiled writer. */
export function runWriterChild(outDir: string, files: ReadonlyMap<string, string>, opts: ChildOptions = {}): Promise<ChildResult> {
  // next to dist/, so the workspace cleanup removes it even when a test fails before the child ends
  const specFile = path.join(path.dirname(outDir), `writer-spec-${Math.random().toString(16).slice(2)}.json`);
  fs.writeFileSync(specFile, JSON.stringify({ outDir, files: Object.fromEntries(files), hold: opts.hold }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  if (opts.crashAfter !== undefined) env.KYMA_FLEET_CRASH_AFTER_WRITES = String(opts.crashAfter);
  const child =
    opts.fileSizeLimitKiB === undefined
      ? spawn(process.execPath, ['-e', CHILD_SCRIPT, specFile], { env })
      : spawn('bash', ['-c', `ulimit -f ${opts.fileSizeLimitKiB}; exec "$0" -e "$1" "$2"`, process.execPath, CHILD_SCRIPT, specFile], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      fs.rmSync(specFile, { force: true });
      let result: WriteResult | undefined;
      try {
        result = stdout === '' ? undefined : (JSON.parse(stdout) as WriteResult);
      } catch {
        result = undefined;
      }
      resolve({ pid: child.pid as number, code, signal, result, stderr });
    });
  });
}

/** Waits (polling) until a file exists. */
export async function waitForFile(file: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
