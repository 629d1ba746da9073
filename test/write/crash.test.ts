import * as path from 'node:path';
import * as fs from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeDist } from '../../src/write/dist-writer';
import { Workspace, assertBuilt, makeTree, rng, runWriterChild, treeHash, type ChildResult } from './dist-fixture';

/** Replay a failing run with KYMA_FLEET_CRASH_SEED=<seed printed below>. */
const SEED = Number(process.env.KYMA_FLEET_CRASH_SEED ?? 20261122);

let ws: Workspace;
beforeAll(assertBuilt);
beforeEach(() => {
  ws = Workspace.create();
});
afterEach(() => ws.cleanup());

type State = 'old' | 'new' | 'moved-away';

/** Right after a kill: dist/ is the old tree, the new tree, or missing with the whole old tree beside it. */
function crashState(oldHash: string, newHash: string, label: string): State {
  const hash = treeHash(ws.outDir);
  if (hash === undefined) {
    const olds = ws.leftovers().filter((n) => n.startsWith('.dist.old-'));
    expect(olds, label).toHaveLength(1);
    expect(treeHash(path.join(ws.dir, olds[0])), label).toBe(oldHash);
    return 'moved-away';
  }
  expect([oldHash, newHash], label).toContain(hash);
  return hash === oldHash ? 'old' : 'new';
}

/** The next ordinary run: takes over the dead child's lock, recovers, writes `files`. */
function recoverWith(files: ReadonlyMap<string, string>, hash: string, label: string): void {
  const r = writeDist({ outDir: ws.outDir, files });
  expect(r.ok, `${label}: ${JSON.stringify(r)}`).toBe(true);
  expect(treeHash(ws.outDir), label).toBe(hash);
  expect(ws.leftovers(), label).toEqual([]);
  expect(fs.existsSync(ws.lockPath), label).toBe(false);
}

function describeExit(r: ChildResult): string {
  return r.signal ?? `exit ${r.code}`;
}

describe('writeDist: crash consistency of a patch (a few changes in a large tree)', () => {
  it('a crash after any step leaves the old tree (possibly renamed aside and half patched) or the new one; recovery restores the old tree exactly', async () => {
    // GIVEN an old tree of 61 files and a new one that changes 2 files, drops runtime rt-3, adds
    // runtime rt-20 (a new folder) and a file in an existing folder: few changes, so the writer patches
    const oldTree = makeTree(20, 'old');
    const newTree = new Map(oldTree);
    newTree.set('runtimes/rt-1/skr/manifest.yaml', '# new\nkind: Thing\n');
    newTree.set('gitops/kustomization.yaml', '# new\nresources: []\n');
    for (const t of ['skr', 'kcp', 'garden']) newTree.delete(`runtimes/rt-3/${t}/manifest.yaml`);
    newTree.set('runtimes/rt-20/skr/manifest.yaml', 'kind: Thing\n');
    newTree.set('runtimes/rt-2/skr/extra.yaml', 'kind: Extra\n');
    const oldHash = ws.expectedHash(oldTree);
    const newHash = ws.expectedHash(newTree);
    const seen = new Set<string>();
    // Steps: 4 written files, the index, the marker, the rename away, the journal's renames (rt-3
    // out, 2 changed files out, 4 entries in, the index out and in), tidying: 19 in all.
    for (let n = 1; n <= 20; n++) {
      writeDist({ outDir: ws.outDir, files: oldTree });
      // WHEN the writer kills itself after its n-th step
      const child = await runWriterChild(ws.outDir, newTree, { crashAfter: n });
      const label = `crash after step ${n}: ${describeExit(child)} ${child.stderr}`;
      // THEN dist/ is the old tree, the new tree, or missing with one tree renamed aside
      const hash = treeHash(ws.outDir);
      if (hash === undefined) {
        expect(ws.leftovers().filter((x) => x.startsWith('.dist.old-')), label).toHaveLength(1);
        seen.add('moved-away');
      } else {
        expect([oldHash, newHash], label).toContain(hash);
        seen.add(hash === oldHash ? 'old' : 'new');
      }
      // AND the next run recovers: writing the old tree again finds it exactly as it was (no change),
      // unless the crash came after the commit point
      const r = writeDist({ outDir: ws.outDir, files: oldTree });
      expect(r.ok, label).toBe(true);
      if (hash !== newHash) expect(r.ok && r.changed, label).toBe(false);
      expect(treeHash(ws.outDir), label).toBe(oldHash);
      expect(ws.leftovers(), label).toEqual([]);
    }
    expect([...seen].sort()).toEqual(['moved-away', 'new', 'old']);
  });
});

describe('writeDist: crash consistency (SIGKILL at any instant)', () => {
  it('a crash after each write step of a small tree leaves the old tree, or it moved aside, or the new tree', async () => {
    // GIVEN an old and a new generation of 4 files each (write steps: 4 files, index, marker, 2 renames, tmp removal)
    const oldTree = makeTree(1, 'old');
    const newTree = makeTree(1, 'new');
    const oldHash = ws.expectedHash(oldTree);
    const newHash = ws.expectedHash(newTree);
    const states: string[] = [];
    for (let n = 1; n <= 10; n++) {
      writeDist({ outDir: ws.outDir, files: oldTree });
      // WHEN the writer kills itself after its n-th write step
      const child = await runWriterChild(ws.outDir, newTree, { crashAfter: n });
      // THEN dist/ is never mixed, and the next run (alternately writing new and old) ends clean
      const label = `crash after step ${n}: ${describeExit(child)} ${child.stderr}`;
      states.push(`${n}:${describeExit(child)}:${crashState(oldHash, newHash, label)}`);
      if (n % 2 === 0) recoverWith(newTree, newHash, label);
      else recoverWith(oldTree, oldHash, label);
    }
    expect(states).toEqual([
      '1:SIGKILL:old',
      '2:SIGKILL:old',
      '3:SIGKILL:old',
      '4:SIGKILL:old',
      '5:SIGKILL:old', // index written
      '6:SIGKILL:old', // marker written: the new tree is complete, but not yet committed
      '7:SIGKILL:moved-away', // between the two renames: recovery renames the old tree back
      '8:SIGKILL:new', // the commit point passed
      '9:SIGKILL:new', // tmp folder removed, old tree not yet
      '10:exit 0:new',
    ]);
  });

  it('random crashes and random-delay kills of a ~300-file write never leave a mixed tree, and the next run cleans up', async () => {
    // GIVEN an old tree of 301 files and a new one of 280 (some changed, some dropped)
    const oldTree = makeTree(100, 'old');
    const newTree = makeTree(105, 'new', 9);
    const oldHash = ws.expectedHash(oldTree);
    const newHash = ws.expectedHash(newTree);
    const steps = newTree.size + 5;
    // and the time one uninterrupted child run takes, to spread the kills over
    writeDist({ outDir: ws.outDir, files: oldTree });
    const t0 = Date.now();
    expect((await runWriterChild(ws.outDir, newTree)).code).toBe(0);
    const fullRunMs = Date.now() - t0;
    const random = rng(SEED);
    const log: string[] = [];
    for (let i = 0; i < 16; i++) {
      // a no-op unless the last recovery wrote the new tree
      expect(writeDist({ outDir: ws.outDir, files: oldTree }).ok).toBe(true);
      expect(treeHash(ws.outDir)).toBe(oldHash);
      // WHEN the child dies after a random write step, or is killed after a random delay
      const crashAfter = 1 + Math.floor(random() * (steps + 10));
      const killAfterMs = Math.floor(random() * fullRunMs * 1.2);
      const child = await runWriterChild(ws.outDir, newTree, i % 2 === 0 ? { crashAfter } : { killAfterMs });
      // THEN dist/ is old, new, or moved aside whole; and the next run leaves exactly what it asked for
      const how = i % 2 === 0 ? `step ${crashAfter}` : `${killAfterMs}ms`;
      const label = `seed ${SEED} iteration ${i} (${how}): ${describeExit(child)} ${child.stderr}`;
      log.push(`${how}:${describeExit(child)}:${crashState(oldHash, newHash, label)}`);
      if (random() < 0.3) recoverWith(newTree, newHash, label);
      else recoverWith(oldTree, oldHash, label);
    }
    console.info(`crash seed ${SEED}, full run ${fullRunMs}ms, ${steps} steps: ${log.join(', ')}`);
  }, 300_000); // fsync-bound: seconds on an idle disk, minutes on a busy shared runner
});

describe('writeDist: an I/O error in the middle of a write', () => {
  it.skipIf(process.platform === 'win32')(
    'a file-size limit hit mid-write (EFBIG, as ENOSPC would be) exits 4 naming the file; the temp tree is removed and dist/ unchanged',
    async () => {
      // GIVEN a written dist/ and a new tree with one file larger than the child's file-size limit
      const oldTree = makeTree(3, 'old');
      writeDist({ outDir: ws.outDir, files: oldTree });
      const before = treeHash(ws.outDir);
      const next = new Map([...makeTree(3, 'new'), ['runtimes/rt-1/skr/big.yaml', 'x'.repeat(64 * 1024)]]);
      // WHEN a child writes it under `ulimit -f 16`
      const child = await runWriterChild(ws.outDir, next, { fileSizeLimitKiB: 16 });
      // THEN it exits 4 with the failing path and leaves no trace
      expect(child.code, child.stderr).toBe(4);
      expect(child.result).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_IO' } });
      const problem = child.result && !child.result.ok ? child.result.problem : undefined;
      expect(problem?.message).toMatch(
        /^EFBIG: file too large at .*\/\.dist\.tmp-\d+-[0-9a-f]{8}\/tree\/runtimes\/rt-1\/skr\/big\.yaml \(write\); dist\/ was left unchanged$/,
      );
      expect(treeHash(ws.outDir)).toBe(before);
      expect(ws.leftovers()).toEqual([]);
      expect(fs.existsSync(ws.lockPath)).toBe(false);
    },
  );
});
