// The one-pass scan of dist/ (src/write/tree-scan.ts) that a fresh CI runner's check trusts the
// committed record by and that stands for the write's walk: for every tree and every edit it must
// say what a plain walk and hash of every file says (the reference below), whether this thread scans
// the runtime folders or worker threads split them in ranges.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cmp } from '../../src/lib/diagnostics';
import { INDEX_FILE, parseIndex, readIndexBytes, sha256 } from '../../src/lib/dist-index';
import { writeDist } from '../../src/write/dist-writer';
import { scanTree, startTouched, touchedSince, type TreeScan, warmWorkers } from '../../src/write/tree-scan';
import type { WarmWorkers } from '../../src/lib/sync-workers';
import { STAMP_SETTLE_MS } from '../../src/lib/file-stamp';
import { listStamped } from '../../src/load/folder-walk';
import { assertBuilt, Workspace } from './dist-fixture';

/** What a scan must find, by the plainest means: walk everything, hash every listed file. */
function reference(root: string): Omit<TreeScan, 'indexText' | 'workers'> {
  const view = parseIndex(fs.readFileSync(path.join(root, INDEX_FILE), 'utf8'))!.view;
  const dirs: string[] = [];
  const regular = new Map<string, string>();
  const others: string[] = [];
  const visit = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        dirs.push(child);
        visit(child);
      } else if (e.isFile()) regular.set(child, sha256(fs.readFileSync(path.join(root, child))));
      else others.push(child);
    }
  };
  visit('');
  const listed = new Set<string>();
  const editedRuntimes = new Set<string>();
  let editedOutside = false;
  for (let i = 0; i < view.size; i++) {
    const rel = view.relAt(i);
    listed.add(rel);
    if (regular.get(rel) === view.hashAt(i)) continue;
    const name = /^runtimes\/([^/]+)\//.exec(rel)?.[1];
    if (name === undefined) editedOutside = true;
    else editedRuntimes.add(name);
  }
  const foreign = [...regular.keys()].filter((rel) => rel !== INDEX_FILE && !listed.has(rel));
  return { dirs: dirs.sort(cmp), files: regular.size, foreign: foreign.sort(cmp), others: others.sort(cmp), editedRuntimes, editedOutside };
}

/** Workers started ahead of their tasks (as the plan starts them), counting those given a task. */
function countingWarm(threads: number): WarmWorkers & { taken: number } {
  const warm = warmWorkers(Number.MAX_SAFE_INTEGER, threads)!;
  const counting = { script: warm.script, taken: 0, release: () => warm.release(), prelude: () => warm.prelude(), take: () => {
    const w = warm.take();
    if (w) counting.taken++;
    return w;
  } };
  return counting;
}

/** The workers read their ranges of an ASCII index from the file, else they are given a copy of their lines. */
function scanned(root: string, threads: number, warm?: WarmWorkers): TreeScan {
  const text = readIndexBytes(root)!.toString('utf8');
  const scan = scanTree(root, parseIndex(text)!.view, text, threads, { perThread: 1, warm });
  if (!scan) throw new Error('scan failed');
  return scan;
}

function withoutMeta(s: TreeScan): Omit<TreeScan, 'indexText' | 'workers'> {
  const { indexText: _text, workers: _workers, ...rest } = s;
  return rest;
}

// Names whose folder order differs from their name order ('a-b/' sorts before 'a/'), a dot, a
// character JSON escapes, and a non-ASCII one.
const NAMES = ['a', 'a-b', 'a.b', 'b', 'quote"d', 'zürich'];

function tree(names: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of names) {
    files.set(`runtimes/${name}/kcp/runtime.yaml`, `kind: Runtime # ${name}\n`);
    files.set(`runtimes/${name}/skr/kyma.yaml`, `kind: Kyma # ${name}\n`);
    files.set(`runtimes/${name}/garden/deep/shoot.yaml`, `kind: Shoot # ${name}\n`);
  }
  files.set('gitops/flux/generator-00.yaml', 'kind: ArtifactGenerator\n');
  files.set('gitops/kustomization.yaml', 'resources: []\n');
  files.set('README.md', 'generated\n');
  return files;
}

type Edit = (dist: string) => void;
const write = (rel: string, content: string): Edit => (dist) => {
  fs.mkdirSync(path.dirname(path.join(dist, rel)), { recursive: true });
  fs.writeFileSync(path.join(dist, rel), content);
};
const remove = (rel: string): Edit => (dist) => fs.rmSync(path.join(dist, rel), { recursive: true });
const symlink = (rel: string): Edit => (dist) => {
  fs.rmSync(path.join(dist, rel), { recursive: true, force: true });
  fs.symlinkSync('/etc/hostname', path.join(dist, rel));
};
const folder = (rel: string): Edit => (dist) => {
  fs.rmSync(path.join(dist, rel));
  fs.mkdirSync(path.join(dist, rel));
};

const CASES: Array<{ name: string; edit?: Edit; edited: string[]; outside: boolean; foreign: string[]; others: string[] }> = [
  { name: 'an untouched tree', edited: [], outside: false, foreign: [], others: [] },
  { name: 'a runtime file edited', edit: write('runtimes/a/kcp/runtime.yaml', 'edited\n'), edited: ['a'], outside: false, foreign: [], others: [] },
  { name: 'a file of the runtime whose folder sorts before its name', edit: write('runtimes/a-b/skr/kyma.yaml', 'x'), edited: ['a-b'], outside: false, foreign: [], others: [] },
  { name: 'a runtime file removed', edit: remove('runtimes/b/garden/deep/shoot.yaml'), edited: ['b'], outside: false, foreign: [], others: [] },
  { name: 'a whole runtime folder removed', edit: remove('runtimes/a.b'), edited: ['a.b'], outside: false, foreign: [], others: [] },
  { name: 'the last runtime folder removed', edit: remove('runtimes/zürich'), edited: ['zürich'], outside: false, foreign: [], others: [] },
  { name: 'a file JSON escapes, edited', edit: write('runtimes/quote"d/kcp/runtime.yaml', 'x'), edited: ['quote"d'], outside: false, foreign: [], others: [] },
  { name: 'a foreign file in a runtime folder', edit: write('runtimes/a/kcp/extra.yaml', 'x'), edited: [], outside: false, foreign: ['runtimes/a/kcp/extra.yaml'], others: [] },
  { name: 'a foreign runtime folder', edit: write('runtimes/c/kcp/runtime.yaml', 'x'), edited: [], outside: false, foreign: ['runtimes/c/kcp/runtime.yaml'], others: [] },
  { name: 'a foreign file directly in runtimes/', edit: write('runtimes/notes.txt', 'x'), edited: [], outside: false, foreign: ['runtimes/notes.txt'], others: [] },
  { name: 'a runtime file replaced by a symlink', edit: symlink('runtimes/a/skr/kyma.yaml'), edited: ['a'], outside: false, foreign: [], others: ['runtimes/a/skr/kyma.yaml'] },
  { name: 'a runtime folder replaced by a symlink', edit: symlink('runtimes/b'), edited: ['b'], outside: false, foreign: [], others: ['runtimes/b'] },
  { name: 'a runtime file replaced by a folder', edit: folder('runtimes/a/skr/kyma.yaml'), edited: ['a'], outside: false, foreign: [], others: [] },
  { name: 'a GitOps file edited', edit: write('gitops/flux/generator-00.yaml', 'x'), edited: [], outside: true, foreign: [], others: [] },
  { name: 'a GitOps file removed', edit: remove('gitops/kustomization.yaml'), edited: [], outside: true, foreign: [], others: [] },
  { name: 'a top-level file edited', edit: write('README.md', 'x'), edited: [], outside: true, foreign: [], others: [] },
  { name: 'a foreign GitOps file', edit: write('gitops/argocd/app.yaml', 'x'), edited: [], outside: false, foreign: ['gitops/argocd/app.yaml'], others: [] },
  { name: 'runtimes/ replaced by a symlink', edit: symlink('runtimes'), edited: [...NAMES], outside: false, foreign: [], others: ['runtimes'] },
];

describe('scanning dist/ in one pass', () => {
  let ws: Workspace;
  beforeAll(() => assertBuilt()); // the worker threads run lib/
  beforeEach(() => {
    ws = Workspace.create();
  });
  afterEach(() => ws.cleanup());

  it.each(CASES)('$name', ({ edit, edited, outside, foreign, others }) => {
    expect(writeDist({ outDir: ws.outDir, files: tree(NAMES) }).ok).toBe(true);
    edit?.(ws.outDir);
    const expected = reference(ws.outDir);
    expect([...expected.editedRuntimes].sort(cmp)).toEqual([...edited].sort(cmp));
    expect(expected.editedOutside).toBe(outside);
    expect(expected.foreign).toEqual(foreign);
    expect(expected.others).toEqual(others);
    const one = scanned(ws.outDir, 1);
    expect(one.workers).toBe(0);
    expect(withoutMeta(one)).toEqual(expected);
    // Worker threads whenever there are runtime folders to split (here one per thread at least).
    const three = scanned(ws.outDir, 3);
    expect(three.workers).toBe(fs.lstatSync(path.join(ws.outDir, 'runtimes')).isDirectory() ? 3 : 0);
    expect(withoutMeta(three)).toEqual(expected);
    // Two of the three started before the task was known (as the plan starts them): the same scan.
    const warm = countingWarm(3);
    const warmed = scanned(ws.outDir, 3, warm);
    warm.release();
    expect(warm.taken).toBe(three.workers === 3 ? 2 : 0);
    expect(withoutMeta(warmed)).toEqual(expected);
  });

  /** Every path ASCII and nothing escaped: byte offsets are the text's, so the workers read the file. */
  const ASCII = ['a', 'a-b', 'a.b', 'b', 'c'];

  it('reads the ranges of an ASCII index from the file in the workers and finds the same', () => {
    expect(writeDist({ outDir: ws.outDir, files: tree(ASCII) }).ok).toBe(true);
    write('runtimes/a.b/kcp/runtime.yaml', 'edited\n')(ws.outDir);
    remove('runtimes/c/skr/kyma.yaml')(ws.outDir);
    write('runtimes/a-b/extra.yaml', 'x')(ws.outDir);
    const bytes = readIndexBytes(ws.outDir)!;
    expect(bytes.length).toBe(bytes.toString('utf8').length);
    const expected = reference(ws.outDir);
    expect([...expected.editedRuntimes].sort(cmp)).toEqual(['a.b', 'c']);
    expect(expected.foreign).toEqual(['runtimes/a-b/extra.yaml']);
    const scan = scanned(ws.outDir, 3);
    expect(scan.workers).toBe(3);
    expect(withoutMeta(scan)).toEqual(expected);
  });

  // The file's lines are taken only when they are the bytes the caller read: an index edited
  // between the caller's read and the scan (here: the caller holds other text of the same length)
  // gives no scan, whichever thread reads the range, and never a scan of the other index.
  it.each([1, 3])('an index that is not the text the caller read gives no scan (%i threads)', (threads) => {
    expect(writeDist({ outDir: ws.outDir, files: tree(ASCII) }).ok).toBe(true);
    const text = readIndexBytes(ws.outDir)!.toString('utf8');
    const view = parseIndex(text)!.view;
    const i = view.find('runtimes/b/skr/kyma.yaml');
    const hash = view.hashAt(i);
    const other = text.replace(hash, hash.replace(/^./, (c) => (c === '0' ? '1' : '0')));
    expect(other).not.toBe(text);
    expect(other.length).toBe(text.length);
    // The caller's text names other bytes for b's kyma.yaml than dist/ has; the file still has the
    // right ones, so a worker that took the file's lines unchecked would find nothing edited.
    expect(scanTree(ws.outDir, parseIndex(other)!.view, other, threads, { perThread: 1 })).toBeUndefined();
    // With the same text the scan is there and finds nothing edited.
    expect(scanTree(ws.outDir, view, text, threads, { perThread: 1 })?.editedRuntimes.size).toBe(0);
  });

  it('says what a walk and hash of every file says, for any tree and edits, on any number of threads', () => {
    const pool = ['a', 'a-b', 'a.b', 'ab', 'b', 'b-0', 'c', 'x"y', 'é'];
    const rels = (names: readonly string[]): string[] => [...tree(names).keys()];
    fc.assert(
      fc.property(
        fc.subarray(pool, { minLength: 0 }),
        fc.array(fc.tuple(fc.constantFrom('edit', 'remove', 'foreign', 'symlink', 'folder', 'drop'), fc.nat()), { maxLength: 4 }),
        fc.integer({ min: 1, max: 4 }),
        (names, edits, threads) => {
          fs.rmSync(ws.outDir, { recursive: true, force: true });
          expect(writeDist({ outDir: ws.outDir, files: tree(names) }).ok).toBe(true);
          const present = rels(names);
          for (const [kind, n] of edits) {
            const rel = present[n % present.length]!;
            const abs = path.join(ws.outDir, rel);
            if (!fs.existsSync(abs) || !fs.lstatSync(abs).isFile()) continue;
            if (kind === 'edit') fs.writeFileSync(abs, `edited ${n}\n`);
            else if (kind === 'remove') fs.rmSync(abs);
            else if (kind === 'foreign') fs.writeFileSync(`${abs}.orig`, 'x');
            else if (kind === 'symlink') symlink(rel)(ws.outDir);
            else if (kind === 'folder') folder(rel)(ws.outDir);
            else if (names.length > 0) fs.rmSync(path.join(ws.outDir, 'runtimes', names[n % names.length]!), { recursive: true, force: true });
          }
          const expected = reference(ws.outDir);
          expect(withoutMeta(scanned(ws.outDir, threads))).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  // A plain synth's cheaper question: was any listed file touched since the run that wrote dist/?
  const TOUCHES: Array<{ name: string; touch?: Edit; touched: boolean }> = [
    { name: 'nothing touched', touched: false },
    { name: 'a runtime file given a later time', touch: (d) => fs.utimesSync(path.join(d, 'runtimes/b/skr/kyma.yaml'), new Date(), new Date(Date.now() + 60_000)), touched: true },
    { name: 'a runtime file rewritten', touch: write('runtimes/zürich/kcp/runtime.yaml', 'kind: Runtime # zürich\n'), touched: true },
    { name: 'a GitOps file removed', touch: remove('gitops/kustomization.yaml'), touched: true },
    { name: 'a runtime file replaced by a symlink', touch: symlink('runtimes/a/skr/kyma.yaml'), touched: true },
    { name: 'a listed file replaced by a folder', touch: folder('README.md'), touched: true },
    { name: 'a foreign file added (not a listed one)', touch: write('runtimes/a/extra.yaml', 'x'), touched: false },
  ];

  it.each(TOUCHES)('touched since the write: $name', ({ touch, touched }) => {
    expect(writeDist({ outDir: ws.outDir, files: tree(NAMES) }).ok).toBe(true);
    // ctime cannot be set back: the write's own times count as settled.
    const settled = Date.now() + 1;
    const view = parseIndex(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'))!.view;
    // The touch must land after `settled`: file times come from the kernel's coarse clock (a tick, up to 10 ms behind).
    const wait = Date.now() + 30;
    while (Date.now() < wait);
    touch?.(ws.outDir);
    expect(touchedSince(ws.outDir, view, settled, 1)).toBe(touched);
    // Worker threads by ranges of the index: the same answer whichever range holds the file.
    for (const threads of [2, 3, 5]) expect(touchedSince(ws.outDir, view, settled, threads, { perThread: 1 })).toBe(touched);
    // Ranges of one file, claimed one at a time by the workers and by this thread when it asks for the answer.
    for (const threads of [2, 3]) expect(touchedSince(ws.outDir, view, settled, threads, { perThread: 1, perRange: 1 })).toBe(touched);
    // The answer asked for only after the workers have claimed every range: theirs alone.
    const started = startTouched(ws.outDir, view, settled, 3, { perThread: 1, perRange: 1 });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
    expect(started.finish()).toBe(touched);
    // Workers started before the task was known (as the plan starts them): given it, they answer the same.
    const warm = countingWarm(3);
    expect(touchedSince(ws.outDir, view, settled, 3, { perThread: 1, perRange: 1, warm })).toBe(touched);
    expect(warm.taken).toBe(2);
    warm.release();
  });

  it('a worker started ahead with a prelude (runtimes/ listed and stamped) returns it before its task, once, and also when it was given none', () => {
    const fleetDir = path.join(ws.dir, 'prelude-fleet');
    fs.mkdirSync(path.join(fleetDir, 'runtimes'), { recursive: true });
    for (const n of ['b.yaml', 'a.yaml', 'c.yaml']) fs.writeFileSync(path.join(fleetDir, 'runtimes', n), `name: ${n}\n`);
    const runStart = Date.now() + 10 * STAMP_SETTLE_MS;
    const expected = listStamped(fleetDir, runStart);
    expect(expected?.names).toEqual(['a.yaml', 'b.yaml', 'c.yaml']);
    // Given the touched task after it: the prelude's reply and the task's stay apart.
    const warm = warmWorkers(Number.MAX_SAFE_INTEGER, 3, { fleetDir, runStart })!;
    expect(warm.prelude()).toEqual(expected);
    expect(warm.prelude()).toEqual(expected);
    expect(writeDist({ outDir: ws.outDir, files: tree(NAMES) }).ok).toBe(true);
    const view = parseIndex(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'))!.view;
    expect(touchedSince(ws.outDir, view, Date.now() + 60_000, 3, { perThread: 1, perRange: 1, warm })).toBe(false);
    warm.release();
    // Of a folder that cannot be listed: none (the loader lists it itself and says why).
    const missing = warmWorkers(Number.MAX_SAFE_INTEGER, 2, { fleetDir: path.join(ws.dir, 'no-such-fleet'), runStart })!;
    expect(missing.prelude()).toBeUndefined();
    missing.release();
    // Released before any task was given (a dist/ too small for the look's workers): its prelude still answers.
    const released = warmWorkers(Number.MAX_SAFE_INTEGER, 2, { fleetDir, runStart })!;
    released.release();
    expect(released.prelude()).toEqual(expected);
    // Without a prelude: none, at once.
    const plain = warmWorkers(Number.MAX_SAFE_INTEGER, 2)!;
    expect(plain.prelude()).toBeUndefined();
    plain.release();
  });

  it('a worker started ahead and never given a task does not keep the process alive', () => {
    const lib = path.join(__dirname, '..', '..', 'lib', 'src');
    const script = `const w = require(${JSON.stringify(path.join(lib, 'lib', 'sync-workers.js'))}); w.startWarmWorkers(${JSON.stringify(path.join(lib, 'write', 'tree-scan-worker.js'))}, 2); console.log('started');`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout).toBe('started\n');
    expect(r.status).toBe(0);
  });

  it('every range of every worker\'s block is looked at, by the worker or by the caller: each listed file alone touched is found', () => {
    expect(writeDist({ outDir: ws.outDir, files: tree(NAMES) }).ok).toBe(true);
    const view = parseIndex(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'))!.view;
    const settled = Date.now() + 1;
    const wait = Date.now() + 30;
    while (Date.now() < wait);
    expect(touchedSince(ws.outDir, view, settled, 3, { perThread: 1, perRange: 1 })).toBe(false);
    for (let i = 0; i < view.size; i++) {
      // A later mtime than a settled time far ahead of the others: only this file counts as touched.
      const later = Date.now() + 3_600_000 * (i + 1);
      fs.utimesSync(path.join(ws.outDir, view.relAt(i)), new Date(later), new Date(later));
      const onlyThis = later - 1000;
      for (const pause of [0, 300]) {
        const started = startTouched(ws.outDir, view, onlyThis, 3, { perThread: 1, perRange: 1 });
        if (pause > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
        expect(started.finish(), `${view.relAt(i)}, asked after ${pause} ms`).toBe(true);
      }
    }
  });
});
