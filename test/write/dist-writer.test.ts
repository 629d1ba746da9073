import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FILE, readDistIndex, writeDist, type DistIndex, type Problem } from '../../src/write/dist-writer';
import { sha256 } from '../../src/lib/dist-index';
import { Workspace, treeHash, treeListing } from './dist-fixture';

const TREE = new Map([
  ['runtimes/rt-1/skr/kyma.yaml', 'kind: Kyma\n'],
  ['runtimes/rt-1/kcp/runtime.yaml', 'kind: Runtime\n'],
  ['runtimes/rt-2/skr/kyma.yaml', 'kind: Kyma # rt-2\n'],
  ['gitops/kustomization.yaml', 'resources: []\n'],
]);

let ws: Workspace;
beforeEach(() => {
  ws = Workspace.create();
});
afterEach(() => ws.cleanup());

function write(files: ReadonlyMap<string, string> = TREE, guard?: (previous: DistIndex | undefined) => Problem | undefined) {
  return writeDist({ outDir: ws.outDir, files, guard });
}

function stamps(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    const st = fs.lstatSync(path.join(root, rel));
    out[rel] = `${st.ino}:${st.mtimeMs}:${st.ctimeMs}`;
    if (st.isDirectory()) for (const n of fs.readdirSync(path.join(root, rel))) visit(rel === '' ? n : `${rel}/${n}`);
  };
  visit('');
  return out;
}

describe('writeDist: writing and replacing dist/', () => {
  it('first write creates dist/ with every file and a deterministic index of their hashes', () => {
    // GIVEN no dist/ yet
    // WHEN the tree is written
    const r = write();
    // THEN every file is there with its content, the index lists each with its sha256, and nothing else is left
    expect(r).toEqual({ indexDigest: expect.stringMatching(/^[0-9a-f]{64}$/), indexStamp: expect.stringMatching(/^[0-9]+:[0-9]+:[0-9]+:/), ok: true, changed: true, written: 4, removed: 0 });
    for (const [rel, content] of TREE) expect(fs.readFileSync(path.join(ws.outDir, rel), 'utf8')).toBe(content);
    expect(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8')).toBe(
      [
        '{',
        '  "files": {',
        `    "gitops/kustomization.yaml": "${sha256('resources: []\n')}",`,
        `    "runtimes/rt-1/kcp/runtime.yaml": "${sha256('kind: Runtime\n')}",`,
        `    "runtimes/rt-1/skr/kyma.yaml": "${sha256('kind: Kyma\n')}",`,
        `    "runtimes/rt-2/skr/kyma.yaml": "${sha256('kind: Kyma # rt-2\n')}"`,
        '  },',
        '  "generator": "kyma-fleet",',
        '  "version": 1',
        '}',
        '',
      ].join('\n'),
    );
    expect(readDistIndex(ws.outDir)?.files['gitops/kustomization.yaml']).toBe(sha256('resources: []\n'));
    expect(ws.leftovers()).toEqual([]);
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('a second identical write changes nothing: same inodes, same mtimes, no temp folder', () => {
    // GIVEN a written dist/
    write();
    const before = stamps(ws.outDir);
    const parentBefore = fs.readdirSync(ws.dir).sort();
    // WHEN the same tree is written again
    const r = write();
    // THEN it reports no change and not one inode or mtime moved
    expect(r).toEqual({ indexDigest: expect.stringMatching(/^[0-9a-f]{64}$/), indexStamp: expect.stringMatching(/^[0-9]+:[0-9]+:[0-9]+:/), ok: true, changed: false, written: 0, removed: 0 });
    expect(stamps(ws.outDir)).toEqual(before);
    expect(fs.readdirSync(ws.dir).sort()).toEqual(parentBefore);
  });

  it('a write that drops files removes them and their emptied folders', () => {
    // GIVEN a written dist/ with two runtimes
    write();
    // WHEN rt-1 is no longer part of the tree
    const next = new Map([...TREE].filter(([rel]) => !rel.startsWith('runtimes/rt-1/')));
    const r = write(next);
    // THEN rt-1's files and folders are gone and the index no longer lists them
    // (the two files that stay are moved as they are: nothing is written but the index)
    expect(r).toEqual({ indexDigest: expect.stringMatching(/^[0-9a-f]{64}$/), indexStamp: expect.stringMatching(/^[0-9]+:[0-9]+:[0-9]+:/), ok: true, changed: true, written: 0, removed: 2 });
    expect(fs.existsSync(path.join(ws.outDir, 'runtimes/rt-1'))).toBe(false);
    expect(Object.keys(readDistIndex(ws.outDir)?.files ?? {})).toEqual(['gitops/kustomization.yaml', 'runtimes/rt-2/skr/kyma.yaml']);
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(next));
  });

  it('a changed write never writes into the old tree: a hard link to an old file keeps its content', () => {
    // GIVEN a written dist/ and a hard link to one of its files outside dist/
    write();
    const owned = path.join(ws.outDir, 'runtimes/rt-1/skr/kyma.yaml');
    const link = path.join(ws.dir, 'kyma.link');
    fs.linkSync(owned, link);
    const fileIno = fs.statSync(owned).ino;
    // WHEN that file changes
    const r = write(new Map([...TREE, ['runtimes/rt-1/skr/kyma.yaml', 'kind: Kyma # changed\n']]));
    // THEN dist/ holds a new file (a new inode), and the old inode was never written
    expect(r).toMatchObject({ ok: true, changed: true });
    expect(fs.readFileSync(owned, 'utf8')).toBe('kind: Kyma # changed\n');
    expect(fs.readFileSync(link, 'utf8')).toBe('kind: Kyma\n');
    expect(fs.statSync(owned).ino).not.toBe(fileIno);
  });

  it('a hand-edited owned file is overwritten and a leftover empty folder removed', () => {
    // GIVEN a written dist/ where someone edited a file and left an empty folder
    write();
    fs.writeFileSync(path.join(ws.outDir, 'runtimes/rt-1/skr/kyma.yaml'), 'kind: Edited\n');
    fs.mkdirSync(path.join(ws.outDir, 'runtimes/empty'));
    // WHEN the same tree is written
    const r = write();
    // THEN the write is a change and dist/ is exactly the tree again
    expect(r).toMatchObject({ ok: true, changed: true });
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(TREE));
  });

  it('an owned file deleted by hand is written again', () => {
    // GIVEN a written dist/ with one owned file deleted
    write();
    fs.rmSync(path.join(ws.outDir, 'gitops/kustomization.yaml'));
    // WHEN the same tree is written
    const r = write();
    // THEN it is back
    expect(r).toMatchObject({ ok: true, changed: true });
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(TREE));
  });

  it('an empty dist/ without index is taken over, and a missing parent folder is created', () => {
    // GIVEN an empty dist/ (e.g. created by a checkout) and a second output under a missing parent
    fs.mkdirSync(ws.outDir);
    // WHEN both are written
    const r = write();
    const nested = writeDist({ outDir: path.join(ws.dir, 'a/b/out'), files: TREE });
    // THEN both hold the tree
    expect(r).toMatchObject({ ok: true, changed: true, removed: 0 });
    expect(nested).toMatchObject({ ok: true, changed: true });
    expect(treeHash(ws.outDir)).toBe(treeHash(path.join(ws.dir, 'a/b/out')));
  });

  it('the tree and its index do not depend on the insertion order of the files map', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...TREE], { minLength: 4, maxLength: 4 }), (entries) => {
        // GIVEN the same files inserted in another order
        const out = path.join(ws.dir, `perm-${Math.random().toString(16).slice(2)}`);
        // WHEN written
        expect(writeDist({ outDir: out, files: new Map(entries) }).ok).toBe(true);
        // THEN the tree equals the reference byte for byte
        expect(treeHash(out)).toBe(ws.expectedHash(TREE));
      }),
      { numRuns: 10 },
    );
  });

  it('writing tree A and then tree B leaves exactly B, whatever A and B are', () => {
    const seg = fc.stringMatching(/^[a-z]{1,3}$/);
    const name = fc.stringMatching(/^[a-z0-9]{1,4}\.yaml$/);
    const relPath = fc.tuple(fc.array(seg, { maxLength: 2 }), name).map(([dirs, file]) => [...dirs, file].join('/'));
    const tree = fc.dictionary(relPath, fc.string({ maxLength: 20 }), { maxKeys: 12 }).map((d) => new Map(Object.entries(d)));
    fc.assert(
      fc.property(tree, tree, (a, b) => {
        // GIVEN dist/ holding tree A
        const out = path.join(ws.dir, `ab-${Math.random().toString(16).slice(2)}`);
        expect(writeDist({ outDir: out, files: a }).ok).toBe(true);
        // WHEN tree B is written over it
        const r = writeDist({ outDir: out, files: b });
        // THEN dist/ equals a fresh write of B and the counts say what happened
        const removed = [...a.keys()].filter((k) => !b.has(k)).length;
        expect(r).toMatchObject({ ok: true, removed: r.ok && r.changed ? removed : 0 });
        expect(treeHash(out)).toBe(ws.expectedHash(b));
        expect(fs.readdirSync(ws.dir).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });
});

describe('writeDist: refusals leave dist/ unchanged', () => {
  it('foreign files in dist/ are listed and refused with exit 4', () => {
    // GIVEN a written dist/ plus a file kyma-fleet did not write
    write();
    fs.writeFileSync(path.join(ws.outDir, 'runtimes/rt-1/notes.txt'), 'mine');
    const before = treeHash(ws.outDir);
    // WHEN a different tree is written
    const r = write(new Map([['only.yaml', 'x\n']]));
    // THEN the write is refused and dist/ is byte-identical
    expect(r).toEqual({
      ok: false,
      exitCode: 4,
      problem: {
        code: 'E_DIST_FOREIGN',
        message: `dist/ holds 1 entry kyma-fleet did not write (not in ${INDEX_FILE}): dist/runtimes/rt-1/notes.txt; move them out of dist/`,
        paths: ['dist/runtimes/rt-1/notes.txt'],
      },
    });
    expect(treeHash(ws.outDir)).toBe(before);
    expect(ws.leftovers()).toEqual([]);
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('more than 20 foreign files: the message names 20, the paths list all', () => {
    // GIVEN 25 foreign files
    write();
    for (let i = 0; i < 25; i++) fs.writeFileSync(path.join(ws.outDir, `extra-${String(i).padStart(2, '0')}.yaml`), '');
    // WHEN written
    const r = write();
    // THEN
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem.message).toContain('dist/ holds 25 entries');
    expect(r.problem.message).toContain('dist/extra-19.yaml and 5 more;');
    expect(r.problem.message).not.toContain('extra-20');
    expect(r.problem.paths).toHaveLength(25);
  });

  it('a dist/ that is a symlink is refused and its target is untouched', () => {
    // GIVEN dist/ -> a folder elsewhere (think .git/hooks)
    const target = path.join(ws.dir, 'hooks');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'pre-commit'), '#!/bin/sh\n');
    fs.symlinkSync(target, ws.outDir);
    const before = treeHash(target);
    // WHEN written
    const r = write();
    // THEN exit 4, the link and its target are as they were
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_SYMLINK' } });
    expect(r.ok || r.problem.message).toBe(`dist/ is a symlink (to ${target}); kyma-fleet never writes through a symlink: replace it with a folder`);
    expect(fs.readlinkSync(ws.outDir)).toBe(target);
    expect(treeHash(target)).toBe(before);
    expect(ws.leftovers()).toEqual([]);
  });

  it('a symlink inside dist/ is a foreign entry, and what it points to is untouched', () => {
    // GIVEN a written dist/ whose runtime folder was replaced by a link to another repository
    write();
    const elsewhere = path.join(ws.dir, 'other-repo');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'kyma.yaml'), 'precious\n');
    fs.rmSync(path.join(ws.outDir, 'runtimes/rt-2'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(ws.outDir, 'runtimes/rt-2'));
    const before = treeHash(ws.dir);
    // WHEN written
    const r = write();
    // THEN refused, naming the link
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_FOREIGN', paths: ['dist/runtimes/rt-2'] } });
    expect(r.ok || r.problem.message).toContain('dist/runtimes/rt-2 (symlink or special file)');
    expect(treeHash(ws.dir)).toBe(before);
  });

  it('a non-empty dist/ without index is refused: it was not written by kyma-fleet', () => {
    // GIVEN a dist/ of some other tool
    fs.mkdirSync(path.join(ws.outDir, 'manifests'), { recursive: true });
    fs.writeFileSync(path.join(ws.outDir, 'manifests/app.yaml'), 'kind: App\n');
    const before = treeHash(ws.outDir);
    // WHEN written
    const r = write();
    // THEN
    expect(r).toEqual({
      ok: false,
      exitCode: 4,
      problem: {
        code: 'E_DIST_NOT_OWNED',
        message: 'dist/ was not written by kyma-fleet (no .kyma-fleet-index.json); move it away or empty it',
        paths: [ws.outDir],
      },
    });
    expect(treeHash(ws.outDir)).toBe(before);
  });

  it('a corrupt index is refused', () => {
    // GIVEN a written dist/ whose index was mangled
    write();
    fs.writeFileSync(path.join(ws.outDir, INDEX_FILE), '{"version": 2}');
    const before = treeHash(ws.outDir);
    // WHEN written
    const r = write();
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_INDEX' } });
    expect(treeHash(ws.outDir)).toBe(before);
    expect(readDistIndex(ws.outDir)).toBeUndefined();
  });

  it('a dist that is a file is refused', () => {
    // GIVEN dist is a regular file
    fs.writeFileSync(ws.outDir, 'not a folder');
    // WHEN written
    const r = write();
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_NOT_DIR' } });
    expect(fs.readFileSync(ws.outDir, 'utf8')).toBe('not a folder');
  });

  it('a guard refusal exits 1, changes nothing, and the guard saw the previous index', () => {
    // GIVEN a written dist/ and a guard that refuses mass removal
    write();
    const before = treeHash(ws.outDir);
    const seen: Array<DistIndex | undefined> = [];
    const guard = (previous: DistIndex | undefined): Problem => {
      seen.push(previous);
      return { code: 'E_MASS_REMOVAL', message: '2 of 2 runtimes would vanish' };
    };
    // WHEN an empty tree is written
    const r = write(new Map(), guard);
    // THEN the guard's problem comes back with exit 1, and dist/ and the lock are untouched
    expect(r).toEqual({ ok: false, exitCode: 1, problem: { code: 'E_MASS_REMOVAL', message: '2 of 2 runtimes would vanish' } });
    expect(seen).toEqual([readDistIndex(ws.outDir)]);
    expect(treeHash(ws.outDir)).toBe(before);
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('the guard sees no previous index on the first write', () => {
    // GIVEN no dist/
    const seen: Array<DistIndex | undefined> = [];
    // WHEN written with a guard that accepts
    const r = write(TREE, (previous) => void seen.push(previous));
    // THEN
    expect(r.ok).toBe(true);
    expect(seen).toEqual([undefined]);
  });

  it('a guard that throws still releases the lock', () => {
    // GIVEN a guard with a bug
    // WHEN written
    // THEN the error propagates and no lock is left behind
    expect(() =>
      write(TREE, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(fs.existsSync(ws.lockPath)).toBe(false);
  });

  it('an output path that is not a file inside dist/ is a caller bug and throws before anything is touched', () => {
    for (const bad of ['', '/etc/passwd', 'a//b', 'a/../b', '..', './a', 'a/', 'a\\b', 'a\0b', INDEX_FILE]) {
      expect(() => write(new Map([[bad, 'x']])), bad).toThrow(/invalid output path/);
    }
    expect(() => write(new Map([['a', 'x'], ['a/b', 'y']]))).toThrow(/both a file and a folder/);
    expect(() => writeDist({ outDir: 'dist', files: TREE })).toThrow(/absolute/);
    expect(fs.readdirSync(ws.dir)).toEqual([]);
  });
});

describe('writeDist: recovery of what a killed run left behind', () => {
  it('dist/ missing next to a whole .dist.old-* (killed between the renames) is renamed back first', () => {
    // GIVEN a run died after moving dist/ away and before moving the new tree in
    write();
    const oldIndex = readDistIndex(ws.outDir);
    fs.renameSync(ws.outDir, path.join(ws.dir, '.dist.old-4242-0123abcd'));
    fs.mkdirSync(path.join(ws.dir, '.dist.tmp-4242-89abcdef/tree'), { recursive: true });
    // WHEN the next run writes
    const seen: Array<DistIndex | undefined> = [];
    const r = write(TREE, (previous) => void seen.push(previous));
    // THEN the guard saw the restored tree, the write was a no-op on it, and no leftovers remain
    expect(seen).toEqual([oldIndex]);
    expect(r).toEqual({ indexDigest: expect.stringMatching(/^[0-9a-f]{64}$/), indexStamp: expect.stringMatching(/^[0-9]+:[0-9]+:[0-9]+:/), ok: true, changed: false, written: 0, removed: 0 });
    expect(ws.leftovers()).toEqual([]);
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(TREE));
  });

  it('stray tmp and old trees are deleted, but nothing that merely looks like them', () => {
    // GIVEN leftovers of this writer and look-alikes that are not
    write();
    const ours = ['.dist.tmp-1-0123abcd', '.dist.old-2-89abcdef'];
    const lookAlikes = ['.dist.tmp-notes', '.dist.old-1-ABCDEF01', '.dist.tmp-1-0123abcdx', '.out.tmp-1-0123abcd', 'dist.bak', '.dist.x.tmp-1-0123abcd'];
    for (const n of [...ours, ...lookAlikes]) {
      fs.mkdirSync(path.join(ws.dir, n, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(ws.dir, n, 'sub/file'), n);
    }
    // WHEN the next run writes
    const r = write();
    // THEN only our leftovers are gone
    expect(r.ok).toBe(true);
    for (const n of ours) expect(fs.existsSync(path.join(ws.dir, n)), n).toBe(false);
    for (const n of lookAlikes) expect(fs.readFileSync(path.join(ws.dir, n, 'sub/file'), 'utf8')).toBe(n);
  });

  it('dist/ missing next to two old trees is not guessed at: exit 4, both kept', () => {
    // GIVEN two old trees and no dist/ (cannot happen by the protocol, but a human might do it)
    write();
    fs.cpSync(ws.outDir, path.join(ws.dir, '.dist.old-1-0123abcd'), { recursive: true });
    fs.renameSync(ws.outDir, path.join(ws.dir, '.dist.old-2-89abcdef'));
    const before = treeListing(ws.dir);
    // WHEN written
    const r = write();
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_RECOVERY' } });
    expect(treeListing(ws.dir)).toEqual(before);
  });

  it('a look-alike of an old tree is never restored over a missing dist/', () => {
    // GIVEN no dist/ and a look-alike folder
    fs.mkdirSync(path.join(ws.dir, '.dist.old-backup'));
    // WHEN written
    const r = write();
    // THEN a fresh dist/ is written and the look-alike stays
    expect(r.ok).toBe(true);
    expect(fs.existsSync(path.join(ws.dir, '.dist.old-backup'))).toBe(true);
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(TREE));
  });
});

describe('writeDist: I/O errors', () => {
  it('a parent path that is a file gives exit 4 with the failing path', () => {
    // GIVEN --out below a regular file
    fs.writeFileSync(path.join(ws.dir, 'file'), '');
    // WHEN written
    const r = writeDist({ outDir: path.join(ws.dir, 'file/dist'), files: TREE });
    // THEN
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_IO' } });
    expect(r.ok || r.problem.message).toMatch(/^E(EXIST|NOTDIR): .* at .*file/);
  });

  it.skipIf(process.getuid?.() === 0)('a read-only parent folder gives exit 4 and leaves dist/ unchanged (EACCES)', () => {
    // GIVEN a written dist/ whose parent became read-only
    write();
    const before = treeHash(ws.outDir);
    fs.chmodSync(ws.dir, 0o555);
    try {
      // WHEN a changed tree is written
      const r = write(new Map([['x.yaml', 'x\n']]));
      // THEN
      expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_IO' } });
      expect(r.ok || r.problem.message).toContain('EACCES');
      expect(treeHash(ws.outDir)).toBe(before);
    } finally {
      fs.chmodSync(ws.dir, 0o755);
    }
    expect(ws.leftovers()).toEqual([]);
  });
});
