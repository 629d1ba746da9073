// Issue 5: every fast path of synth (the run record that skips unchanged runtime files, render reuse
// by input digest, kept GitOps files, patching dist/, parts in worker threads or chunks) must give
// exactly the dist/ of a cold, single-threaded, whole-fleet run. A fast-check model drives random
// sequences of edits to a generated fleet; after each step the incremental dist/ is compared byte
// for byte with a cold render of the same fleet.

import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { Document, parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../bench/generate-fleet';
import { normalizeDiagnostics } from '../src/lib/diagnostics';
import { STAMP_SETTLE_MS } from '../src/load/load';
import { sha256 } from '../src/lib/digest';
import { runParts } from '../src/run/parallel/pool';
import { diffDistProving, synth, type SynthResult } from '../src/run/synth';
import { warmStart } from '../src/run/warm-start';
import { treeHash } from './write/dist-fixture';

const NOW = new Date('2026-11-21T00:00:00Z');
const AFTER_EXPIRY = new Date('2026-12-02T00:00:00Z');

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-incremental-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The reference: no cache, one thread, the whole-fleet pipeline (parts only from 10^7 files). */
function cold(fleetDir: string, now: Date): { result: SynthResult; hash: string | undefined } {
  const out = fs.mkdtempSync(path.join(root, 'cold-'));
  fs.rmdirSync(out);
  const result = synth({ fleetDir, outDir: out, cwd: root, now, env: { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' } });
  const hash = treeHash(out);
  fs.rmSync(out, { recursive: true, force: true });
  return { result, hash };
}

/** The fast path: cache on, parts (2 workers) whenever the record cannot be used. */
function fast(fleetDir: string, outDir: string, cacheDir: string, now: Date, workers = '2'): SynthResult {
  return synth({ fleetDir, outDir, cwd: root, now, cacheDir, env: { KYMA_FLEET_WORKERS: workers, KYMA_FLEET_PARALLEL_MIN: '1' } });
}

/** Runs fn with these variables set in process.env (worker threads inherit it), restoring them after. */
function withProcessEnv<T>(vars: Readonly<Record<string, string>>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** A generated fleet of `runtimes` in root/<name>/fleet, synthesized by the fast path into dist/ with cache/. */
function synthesizedFleet(name: string, runtimes: number, seed: number): { dir: string; fleetDir: string; outDir: string; cacheDir: string } {
  const dir = path.join(root, name);
  const fleetDir = path.join(dir, 'fleet');
  generateFleet(fleetDir, runtimes, seed);
  const outDir = path.join(dir, 'dist');
  const cacheDir = path.join(dir, 'cache');
  expect(fast(fleetDir, outDir, cacheDir, NOW).exitCode).toBe(0);
  return { dir, fleetDir, outDir, cacheDir };
}

/** Counts every lstat of a path under `prefix` in this thread, through node:fs as the loader imports it. */
function countLstats(prefix: string): { looked: number; restore(): void } {
  const real = (fs as unknown as { default: typeof fs }).default;
  const original = real.lstatSync;
  const counter = {
    looked: 0,
    restore: () => {
      real.lstatSync = original;
      syncBuiltinESMExports();
    },
  };
  real.lstatSync = ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    if (String(p).startsWith(prefix)) counter.looked++;
    return original(p, o);
  }) as typeof fs.lstatSync;
  syncBuiltinESMExports();
  return counter;
}

function editYaml(file: string, edit: (doc: Document) => void): void {
  const doc = parseDocument(fs.readFileSync(file, 'utf8'));
  edit(doc);
  fs.writeFileSync(file, doc.toString({ lineWidth: 0 }));
}

/** Gives the Falco profile a supported version that expires on 2026-12-01 (the default before, not after). */
function addExpiringFalcoVersion(fleetDir: string): void {
  editYaml(path.join(fleetDir, 'profiles/falco-profile.yaml'), (doc) => {
    const list = doc.getIn(['spec', 'versions', 'falco']) as { add(v: unknown): void };
    list.add(doc.createNode({ classification: 'supported', expirationDate: '2026-12-01T00:00:00Z', rulesVersion: '0.45.0', version: '0.45.0' }));
  });
}

type Edit =
  | { kind: 'channel'; index: number; channel: 'fast' | 'regular' }
  | { kind: 'label'; index: number; value: string }
  | { kind: 'remove'; index: number }
  | { kind: 'copy'; index: number; suffix: number }
  | { kind: 'comment'; index: number }
  | { kind: 'group-priority'; group: number; priority: number }
  | { kind: 'gitops-namespace'; value: string };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('channel' as const), index: fc.nat(40), channel: fc.constantFrom('fast' as const, 'regular' as const) }),
  fc.record({ kind: fc.constant('label' as const), index: fc.nat(40), value: fc.constantFrom('team-1', 'team-2', 'team-3') }),
  fc.record({ kind: fc.constant('remove' as const), index: fc.nat(40) }),
  fc.record({ kind: fc.constant('copy' as const), index: fc.nat(40), suffix: fc.integer({ min: 1, max: 9999 }) }),
  fc.record({ kind: fc.constant('comment' as const), index: fc.nat(40) }),
  fc.record({ kind: fc.constant('group-priority' as const), group: fc.nat(5), priority: fc.integer({ min: 11, max: 99 }) }),
  fc.record({ kind: fc.constant('gitops-namespace' as const), value: fc.constantFrom('flux-system', 'flux-fleet') }),
);

function apply(fleetDir: string, edit: Edit, uuid: () => string): void {
  const runtimes = fs.readdirSync(path.join(fleetDir, 'runtimes')).sort();
  const file = path.join(fleetDir, 'runtimes', runtimes[edit.kind === 'group-priority' || edit.kind === 'gitops-namespace' ? 0 : edit.index % runtimes.length]!);
  switch (edit.kind) {
    case 'channel':
      return editYaml(file, (doc) => doc.setIn(['spec', 'channel'], edit.channel));
    case 'label':
      return editYaml(file, (doc) => doc.setIn(['metadata', 'labels', 'team'], edit.value));
    case 'remove':
      if (runtimes.length > 20) fs.rmSync(file);
      return;
    case 'copy': {
      const name = `copy-${edit.suffix}`;
      if (runtimes.includes(`${name}.yaml`)) return;
      const doc = parseDocument(fs.readFileSync(file, 'utf8'));
      doc.setIn(['metadata', 'name'], name);
      doc.setIn(['spec', 'runtimeID'], uuid());
      doc.setIn(['spec', 'shoot', 'name'], `c-copy${edit.suffix}`);
      fs.writeFileSync(path.join(fleetDir, 'runtimes', `${name}.yaml`), doc.toString({ lineWidth: 0 }));
      return;
    }
    case 'comment':
      fs.appendFileSync(file, '# a comment changes the bytes, not the render\n');
      return;
    case 'group-priority': {
      const groups = fs.readdirSync(path.join(fleetDir, 'groups')).sort();
      return editYaml(path.join(fleetDir, 'groups', groups[edit.group % groups.length]!), (doc) => doc.setIn(['spec', 'priority'], edit.priority));
    }
    case 'gitops-namespace':
      return editYaml(path.join(fleetDir, 'fleet.yaml'), (doc) => doc.setIn(['spec', 'gitops', 'flux', 'namespace'], edit.value));
  }
}

describe('incremental synth equals a cold single-threaded synth', () => {
  it('after every step of random edit sequences (record reuse, render reuse, parts, patching)', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(editArb, { minLength: 1, maxLength: 4 }), fc.constantFrom('1', '2'), (edits, workers) => {
        const dir = path.join(root, `run-${run++}`);
        const fleetDir = path.join(dir, 'fleet');
        generateFleet(fleetDir, 40, 7);
        const outDir = path.join(dir, 'dist');
        const cacheDir = path.join(dir, 'cache');
        let n = 0;
        const uuid = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
        const first = fast(fleetDir, outDir, cacheDir, NOW, workers);
        expect(first.exitCode, JSON.stringify(first.diagnostics.slice(0, 3))).toBe(0);
        // The first run has no record: with two workers it is rendered by their parts (no fallback).
        expect(first.parts).toBe(Number(workers));
        expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
        for (const edit of edits) {
          apply(fleetDir, edit, uuid);
          const reference = cold(fleetDir, NOW);
          const r = fast(fleetDir, outDir, cacheDir, NOW, workers);
          expect(r.exitCode, `${JSON.stringify(edit)}: ${JSON.stringify(r.diagnostics.slice(0, 3))}`).toBe(reference.result.exitCode);
          expect(r.diagnostics, JSON.stringify(edit)).toEqual(reference.result.diagnostics);
          if (reference.result.exitCode === 0) expect(treeHash(outDir), JSON.stringify(edit)).toBe(reference.hash);
          // And again with nothing changed: up to date, the same tree.
          const again = fast(fleetDir, outDir, cacheDir, NOW, workers);
          if (reference.result.exitCode === 0) {
            expect(again).toMatchObject({ exitCode: 0, changed: false });
            expect(again.diagnostics).toEqual(reference.result.diagnostics);
            expect(treeHash(outDir)).toBe(reference.hash);
          }
        }
        fs.rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 12, seed: 20261122 },
    );
  }, 300_000);

  it('a Falco version expiring between two runs invalidates the record (the default version changes)', () => {
    const dir = path.join(root, 'expiry');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 30, 11);
    addExpiringFalcoVersion(fleetDir);
    const outDir = path.join(dir, 'dist');
    const cacheDir = path.join(dir, 'cache');
    expect(fast(fleetDir, outDir, cacheDir, NOW).exitCode).toBe(0);
    const before = treeHash(outDir);
    expect(before).toBe(cold(fleetDir, NOW).hash);
    // Same inputs, a later `now`: the expired version is no longer the default.
    const r = fast(fleetDir, outDir, cacheDir, AFTER_EXPIRY);
    expect(r).toMatchObject({ exitCode: 0, changed: true });
    expect(treeHash(outDir)).toBe(cold(fleetDir, AFTER_EXPIRY).hash);
    expect(treeHash(outDir)).not.toBe(before);
  });

  it('the record is not trusted once dist/ was written by another run (its index changed)', () => {
    const { dir, fleetDir, outDir, cacheDir } = synthesizedFleet('foreign-run', 25, 3);
    // Another checkout's synth (another cache) renders an edited fleet into the same dist/ ...
    const edited = path.join(root, 'foreign-run-copy');
    fs.cpSync(fleetDir, edited, { recursive: true });
    const first = fs.readdirSync(path.join(edited, 'runtimes')).sort()[0]!;
    fs.rmSync(path.join(edited, 'runtimes', first));
    expect(fast(edited, outDir, path.join(dir, 'other-cache'), NOW).exitCode).toBe(0);
    // ... so this cache's record no longer describes dist/: the next run renders what the fleet says.
    const r = fast(fleetDir, outDir, cacheDir, NOW);
    expect(r).toMatchObject({ exitCode: 0, changed: true });
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
  });

  /**
   * Takes `lines` out of dist/'s index (their files are already gone), makes the record name that
   * index (as if the run that wrote it had left them out), changes another runtime and expects the
   * next run to do the work again: dist/ as a cold synth writes it.
   */
  function unlistedIsRedone(fleetDir: string, outDir: string, cacheDir: string, lines: readonly string[]): void {
    const indexFile = path.join(outDir, '.kyma-fleet-index.json');
    const edited = lines.reduce((t, line) => t.replace(line, ''), fs.readFileSync(indexFile, 'utf8'));
    fs.writeFileSync(indexFile, edited);
    const [recordFile] = fs.readdirSync(cacheDir).filter((n) => n.startsWith('run-'));
    const record = JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { index: string; settled: number };
    record.index = sha256(edited);
    record.settled = Date.now() + 60_000;
    fs.writeFileSync(path.join(cacheDir, recordFile!), JSON.stringify(record));
    // Another runtime changes, so the run renders it and keeps the others.
    apply(fleetDir, { kind: 'channel', index: 0, channel: 'fast' }, () => '00000000-0000-4000-8000-000000000000');
    const r = fast(fleetDir, outDir, cacheDir, NOW);
    expect(r).toMatchObject({ exitCode: 0, changed: true });
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
  }

  it('a record whose index does not list a kept runtime\'s own GitOps file is not trusted for it: the run is done again', () => {
    const { fleetDir, outDir, cacheDir } = synthesizedFleet('gitops-unlisted', 25, 4);
    // One runtime's Flux Kustomization (kcp) gone from dist/ and from its index.
    const kept = fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[3]!.replace(/\.yaml$/, '');
    const text = fs.readFileSync(path.join(outDir, '.kyma-fleet-index.json'), 'utf8');
    const line = new RegExp(`^    "(gitops/flux/shards/[0-9a-f]+/${kept}-kcp\\.yaml)": "[0-9a-f]{64}",\n`, 'm').exec(text);
    expect(line).not.toBeNull();
    fs.rmSync(path.join(outDir, line![1]!));
    unlistedIsRedone(fleetDir, outDir, cacheDir, [line![0]]);
  });

  it('a record whose index does not list a kept runtime\'s folder is not trusted for it: the run is done again', () => {
    const { fleetDir, outDir, cacheDir } = synthesizedFleet('folder-unlisted', 25, 4);
    // One runtime's folder gone from dist/ and from its index.
    const kept = fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[5]!.replace(/\.yaml$/, '');
    const text = fs.readFileSync(path.join(outDir, '.kyma-fleet-index.json'), 'utf8');
    const lines = text.match(new RegExp(`^    "runtimes/${kept}/[^"]+": "[0-9a-f]{64}",\n`, 'gm'));
    expect(lines?.length).toBeGreaterThan(1);
    fs.rmSync(path.join(outDir, 'runtimes', kept), { recursive: true });
    unlistedIsRedone(fleetDir, outDir, cacheDir, lines!);
  });

  it('the record committed in dist/ (a fresh runner, an empty cache) has no file stamps: the runtime files are read without an lstat each first', () => {
    const { fleetDir, outDir } = synthesizedFleet('committed-no-lstat', 12, 5);
    const lstats = countLstats(path.join(fleetDir, 'runtimes') + path.sep);
    try {
      const committed = synth({ fleetDir, outDir, cwd: root, now: NOW, cacheDir: fs.mkdtempSync(path.join(root, 'fresh-cache-')), env: { KYMA_FLEET_WORKERS: '1' } });
      expect(committed).toMatchObject({ exitCode: 0, changed: false, rendered: 0 });
      expect(lstats.looked).toBe(0);
      // A record of this machine's cache has stamps (of files settled for 2 s): each file is looked at, and not read.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STAMP_SETTLE_MS + 100);
      const cacheDir = fs.mkdtempSync(path.join(root, 'warm-cache-'));
      expect(fast(fleetDir, outDir, cacheDir, NOW).exitCode).toBe(0);
      lstats.looked = 0;
      expect(fast(fleetDir, outDir, cacheDir, NOW).exitCode).toBe(0);
      expect(lstats.looked).toBeGreaterThan(0);
    } finally {
      lstats.restore();
    }
  });

  it('at a size that starts a warm worker, the loader takes runtimes/ as that worker listed and stamped it: no runtime file is looked at in this thread, and an edit is still rendered', () => {
    // 1,000 runtimes: dist/'s index is over 1.8 MB, so the plan starts a worker ahead (src/write/tree-scan.ts warmWorkers).
    const { fleetDir, outDir, cacheDir } = synthesizedFleet('listed-by-worker', 1000, 23);
    const lstats = countLstats(path.join(fleetDir, 'runtimes') + path.sep);
    try {
      // Once the files settled, a run that writes records their stamps (a run with nothing to write saves no record).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STAMP_SETTLE_MS + 100);
      // A channel of its own: its group gives it another one.
      const edit = (i: number) => editYaml(path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[i]!), (doc) => doc.setIn(['spec', 'channel'], 'regular'));
      edit(3);
      expect(fast(fleetDir, outDir, cacheDir, NOW)).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      // The next run reuses every other file by the stamp the worker gave it, and reads the edited ones.
      lstats.looked = 0;
      edit(5);
      expect(fast(fleetDir, outDir, cacheDir, NOW)).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      expect(lstats.looked).toBe(0);
    } finally {
      lstats.restore();
    }
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
  }, 120_000);

  it('workers started for its folders before the plan (as the CLI starts them: src/run/warm-start.ts) are the ones the plan takes, their listing of runtimes/ too; workers started for another plan are stopped', () => {
    const { fleetDir, outDir, cacheDir } = synthesizedFleet('warm-start', 1000, 29);
    const lstats = countLstats(path.join(fleetDir, 'runtimes') + path.sep);
    const env = { KYMA_FLEET_WORKERS: '2' };
    try {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STAMP_SETTLE_MS + 100);
      const edit = (i: number) => editYaml(path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[i]!), (doc) => doc.setIn(['spec', 'channel'], 'regular'));
      edit(3);
      const first = warmStart({ fleetDir, outDir, cwd: root, prelude: true, env });
      expect(first).toBeDefined();
      expect(fast(fleetDir, outDir, cacheDir, NOW)).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      // Taken by the plan (at this size its listing only, the look at dist/ stays in this thread): none is left idle.
      expect(first!.take()).toBeUndefined();
      lstats.looked = 0;
      edit(5);
      const second = warmStart({ fleetDir, outDir, cwd: root, prelude: true, env });
      expect(fast(fleetDir, outDir, cacheDir, NOW)).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      expect(second!.take()).toBeUndefined();
      // The loader took runtimes/ as the early worker listed and stamped it.
      expect(lstats.looked).toBe(0);
      // Started without the listing this plan wants (as for synth --check): stopped, none given a task, and the run is the same.
      edit(7);
      const unwanted = warmStart({ fleetDir, outDir, cwd: root, prelude: false, env });
      expect(unwanted).toBeDefined();
      expect(fast(fleetDir, outDir, cacheDir, NOW)).toMatchObject({ exitCode: 0, changed: true, rendered: 1 });
      expect(unwanted!.take()).toBeUndefined();
      // A check (as `kyma-fleet check` on a fresh runner: no run record, the record committed in the
      // index) with workers started without the listing: none is left idle, and dist/ is proven current.
      const forCheck = warmStart({ fleetDir, outDir, cwd: root, prelude: false, env });
      withProcessEnv(env, () => {
        const { result, proven } = diffDistProving({ fleetDir, outDir, cwd: root, now: NOW, cacheDir: path.join(root, 'warm-start-empty-cache') });
        expect(result).toMatchObject({ exitCode: 0, diff: { added: [], changed: [], removed: [] } });
        expect(proven).toBeDefined();
      });
      expect(forCheck!.take()).toBeUndefined();
    } finally {
      lstats.restore();
    }
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
  }, 120_000);

  it('parts of several chunks (the result of each chunk sent on its own) give the cold output, diagnostics and a record of every runtime', () => {
    const dir = path.join(root, 'chunked-parts');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 1100, 13); // 2 parts of 550: 2 chunks each
    // A warning as well: an ignored file in runtimes/.
    fs.writeFileSync(path.join(fleetDir, 'runtimes', 'notes.txt'), 'not a runtime\n');
    const outDir = path.join(dir, 'dist');
    const cacheDir = path.join(dir, 'cache');
    const reference = cold(fleetDir, NOW);
    const r = fast(fleetDir, outDir, cacheDir, NOW, '2');
    expect(r).toMatchObject({ exitCode: 0, changed: true, runtimes: 1100, rendered: 1100, parts: 2 });
    expect(r.diagnostics).toEqual(reference.result.diagnostics);
    expect(treeHash(outDir)).toBe(reference.hash);
    // The record lists every runtime: the next run keeps them all.
    const [recordFile] = fs.readdirSync(cacheDir).filter((n) => n.startsWith('run-'));
    const record = JSON.parse(fs.readFileSync(path.join(cacheDir, recordFile!), 'utf8')) as { runtimes: unknown[] };
    expect(record.runtimes).toHaveLength(1100);
    expect(fast(fleetDir, outDir, cacheDir, NOW, '2')).toMatchObject({ exitCode: 0, changed: false, rendered: 0 });
  }, 180_000);

  it('workers that send the result of each chunk on its own return what one part in this thread returns', () => {
    // runParts itself: a lost chunk result would only make synth fall back (slowly, but correctly).
    const dir = path.join(root, 'chunk-results');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 1100, 17); // 2 parts of 550: chunks of 500 and 50 each
    fs.writeFileSync(path.join(fleetDir, 'runtimes', 'notes.txt'), 'not a runtime\n'); // a warning
    const request = (part: number, of: number, tree: string) => ({
      fleetDir, cwd: root, now: NOW.getTime(), allowEmpty: false, outDir: path.join(dir, 'dist'), part, of, previousInputs: {},
      staging: { treeDir: path.join(dir, tree), outDir: path.join(dir, 'dist'), verify: false, indexDigest: undefined },
    });
    // Sorted, without stamps (a file gets one only once it settled, which the later run may see).
    const sorted = <T extends { relPath: string; stamp?: string }>(xs: readonly T[]) =>
      [...xs].map(({ stamp: _s, ...x }) => x).sort((a, b) => (a.relPath < b.relPath ? -1 : 1));
    const inThread = runParts([request(0, 1, 'tree-1')], () => {})[0]!;
    const workers = runParts([request(0, 2, 'tree-2'), request(1, 2, 'tree-2')], () => {});
    // The workers run lib/, this thread the TypeScript sources; codeKey takes both as lib/, so the
    // keys and input digests agree (else synth would refuse the workers' parts).
    expect(workers.map((p) => [p.ok, p.layersKey])).toEqual([[true, inThread.layersKey], [true, inThread.layersKey]]);
    expect(inThread.ok).toBe(true);
    expect(sorted(workers.flatMap((p) => p.runtimes))).toEqual(sorted(inThread.runtimes));
    expect(workers.flatMap((p) => p.identities).length).toBe(inThread.identities.length);
    expect(normalizeDiagnostics(workers.flatMap((p) => p.diagnostics))).toEqual(inThread.diagnostics);
  }, 180_000);

  it('a part that fails stops the others; the run falls back to the whole-fleet pipeline and leaves no staging tree', () => {
    const dir = path.join(root, 'failing-part');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 1200, 9); // 3 chunks of 500 in part 1 of 2: it fails after its first
    const outDir = path.join(dir, 'dist');
    const r = withProcessEnv({ KYMA_FLEET_FAIL_PART: '1' }, () =>
      synth({ fleetDir, outDir, cwd: root, now: NOW, cacheDir: path.join(dir, 'cache'), env: { KYMA_FLEET_WORKERS: '2', KYMA_FLEET_PARALLEL_MIN: '1' } }),
    );
    expect(r).toMatchObject({ exitCode: 0, changed: true, runtimes: 1200 });
    expect(r.parts).toBeUndefined(); // the whole-fleet pipeline in this thread rendered it
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.dist.'))).toEqual([]);
  }, 180_000);

  it('a worker that dies without a word (as when killed for memory) is noticed by its heartbeat; the run falls back', () => {
    const dir = path.join(root, 'dying-part');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 1200, 11);
    const outDir = path.join(dir, 'dist');
    const started = Date.now();
    const r = withProcessEnv({ KYMA_FLEET_FAIL_PART: '1:exit', KYMA_FLEET_WORKER_STALL_MS: '1500' }, () =>
      synth({ fleetDir, outDir, cwd: root, now: NOW, cacheDir: path.join(dir, 'cache'), env: { KYMA_FLEET_WORKERS: '2', KYMA_FLEET_PARALLEL_MIN: '1' } }),
    );
    expect(r).toMatchObject({ exitCode: 0, changed: true, runtimes: 1200 });
    expect(r.parts).toBeUndefined();
    // Well before the one-hour deadline: the heartbeat stood still for 1.5 s.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(treeHash(outDir)).toBe(cold(fleetDir, NOW).hash);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.dist.'))).toEqual([]);
  }, 180_000);

  it('reports the warnings of unchanged runtimes again, exactly as a cold run does', () => {
    const dir = path.join(root, 'warnings');
    const fleetDir = path.join(dir, 'fleet');
    generateFleet(fleetDir, 25, 5);
    // A production runtime (Falco on) with two event destinations, none of them stdout, gets a
    // warning from its resolved rules; a stray file gets one from the loader.
    const runtimes = path.join(fleetDir, 'runtimes');
    const prod = fs.readdirSync(runtimes).sort().find((f) => /tier: production/.test(fs.readFileSync(path.join(runtimes, f), 'utf8')))!;
    editYaml(path.join(runtimes, prod), (doc) =>
      doc.setIn(['spec', 'extensions', 'falco', 'destinations'], doc.createNode([{ name: 'logging' }, { name: 'otlp', resourceSecretName: 'otlp-endpoint' }])),
    );
    fs.writeFileSync(path.join(runtimes, 'notes.txt'), 'not a runtime\n');
    const outDir = path.join(dir, 'dist');
    const cacheDir = path.join(dir, 'cache');
    const reference = cold(fleetDir, NOW).result.diagnostics;
    expect(reference.map((d) => d.code)).toEqual(expect.arrayContaining(['W_IGNORED_FILE', 'W_FALCO_DESTINATIONS']));
    expect(fast(fleetDir, outDir, cacheDir, NOW).diagnostics).toEqual(reference);
    const again = fast(fleetDir, outDir, cacheDir, NOW);
    expect(again.changed).toBe(false);
    expect(again.diagnostics).toEqual(reference);
  });
});
