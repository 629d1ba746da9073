// The index as a sorted view (write/index-file.ts) and the writer's keep(): a run that keeps 10,000
// runtimes hands the writer 10,000 folders instead of 100,000 files, and the writer copies their
// index lines as they are. Both must give exactly what the per-file path gives.

import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDist, writeDist } from '../../src/write/dist-writer';
import { INDEX_FILE, IndexBytes, IndexTextBuilder, IndexView, indexLine, parseIndex, serializeIndex, sha256 } from '../../src/lib/dist-index';
import { treeHash, Workspace } from './dist-fixture';

const HEX = fc.stringMatching(/^[0-9a-f]{64}$/);

/** The index parser before the view existed (JSON.parse, then sort): the reference for verdicts and entries. */
function referenceEntries(text: string): Array<[string, string]> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { version, generator, files } = data as Record<string, unknown>;
  if (version !== 1 || generator !== 'kyma-fleet' || typeof files !== 'object' || files === null || Array.isArray(files)) return undefined;
  const out: Array<[string, string]> = [];
  for (const key of Object.keys(files).sort()) {
    const hash = (files as Record<string, unknown>)[key];
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) return undefined;
    out.push([key, hash]);
  }
  return out;
}

function entriesOf(view: IndexView): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < view.size; i++) out.push([view.relAt(i), view.hashAt(i)]);
  return out;
}

// Paths over a small alphabet, so that prefixes, '/' against '-', '0' and '.', and the characters
// JSON escapes all meet.
const segment = fc.stringMatching(/^[ab0./-]{1,3}$|^[ab]"$|^\\a$|^é$|^\u{1F600}$|^\u0001$|^__proto__$|^10$/u);
const relPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
const entries = fc.dictionary(relPath, HEX, { maxKeys: 25 }).map((d) => Object.entries(d).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

describe('IndexView: the index as a sorted list', () => {
  it('reads what serializeIndex writes back to the same entries, record and text', () => {
    fc.assert(
      fc.property(entries, (es) => {
        const text = serializeIndex(es);
        const index = parseIndex(text)!;
        expect(entriesOf(index.view)).toEqual(es);
        expect(Object.entries(index.files).sort(([a], [b]) => (a < b ? -1 : 1))).toEqual(es);
        expect(serializeIndex(entriesOf(index.view))).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('reads every other valid JSON form (reindented, unsorted, escaped) like JSON.parse does', () => {
    fc.assert(
      fc.property(entries, fc.integer({ min: 0, max: 4 }), fc.boolean(), (es, indent, reverse) => {
        const files = Object.fromEntries(reverse ? [...es].reverse() : es);
        const text = JSON.stringify({ version: 1, files, generator: 'kyma-fleet' }, null, indent);
        const index = parseIndex(text);
        expect(index && entriesOf(index.view)).toEqual(referenceEntries(text));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same verdict and entries as JSON.parse on damaged index text', () => {
    // One character replaced, inserted or deleted anywhere in a canonical text.
    const damaged = entries.chain((es) => {
      const text = serializeIndex(es);
      return fc.tuple(fc.constant(text), fc.nat({ max: text.length }), fc.constantFrom('replace', 'insert', 'delete'), fc.constantFrom('"', '\\', ',', '\n', ' ', 'A', 'f', '0', '}', '/', '\u0000', '\ud800'));
    });
    fc.assert(
      fc.property(damaged, ([text, at, how, ch]) => {
        const broken = how === 'insert' ? text.slice(0, at) + ch + text.slice(at) : how === 'delete' ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + ch + text.slice(at + 1);
        const index = parseIndex(broken);
        expect(index ? entriesOf(index.view) : undefined).toEqual(referenceEntries(broken));
      }),
      { numRuns: 1500 },
    );
  });

  it('finds entries, folders and runs of lines as a scan of the entries would', () => {
    fc.assert(
      fc.property(entries, relPath, fc.nat(), fc.nat(), (es, probe, x, y) => {
        const text = serializeIndex(es);
        // Text-backed (canonical) and list-backed views answer alike.
        for (const view of [parseIndex(text)!.view, IndexView.fromSorted(es.map(([r]) => r), es.map(([, h]) => h))]) {
          const at = es.findIndex(([r]) => r === probe);
          expect(view.find(probe)).toBe(at);
          expect(view.hashOf(probe)).toBe(at < 0 ? undefined : es[at]![1]);
          const inside = es.map(([r], i) => [r, i] as const).filter(([r]) => r.startsWith(`${probe}/`));
          const [from, to] = view.folder(probe);
          expect(to - from).toBe(inside.length);
          if (inside.length > 0) expect(from).toBe(inside[0]![1]);
          expect(view.hasFolder(probe)).toBe(inside.length > 0);
          expect([...view.relsIn(probe)]).toEqual(inside.map(([r]) => r));
          const lo = es.length === 0 ? 0 : x % (es.length + 1);
          const hi = es.length === 0 ? 0 : lo + (y % (es.length - lo + 1));
          const lines = serializeIndex(es.slice(lo, hi));
          expect(view.linesOf(lo, hi)).toBe(hi > lo ? lines.slice('{\n  "files": {\n'.length, lines.indexOf('\n  },')) : '');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('answers a sequence of searches (ascending, descending, shuffled) as a scan would, wherever the last one ended', () => {
    // lowerBound gallops from its last answer: every order of questions must give the scan's answers.
    const order = fc.constantFrom('ascending', 'descending', 'as drawn');
    fc.assert(
      fc.property(entries, fc.array(relPath, { maxLength: 30 }), order, (es, drawn, how) => {
        const probes = how === 'as drawn' ? drawn : [...drawn].sort();
        if (how === 'descending') probes.reverse();
        // Present entries too, so that hits (not only misses) follow each other.
        const mixed = probes.flatMap((p, i) => (es.length > 0 ? [p, es[i % es.length]![0]] : [p]));
        for (const view of [parseIndex(serializeIndex(es))!.view, IndexView.fromSorted(es.map(([r]) => r), es.map(([, h]) => h))]) {
          for (const probe of mixed) {
            const scan = es.findIndex(([r]) => !(r < probe));
            expect(view.lowerBound(probe)).toBe(scan < 0 ? es.length : scan);
            expect(view.find(probe)).toBe(es.findIndex(([r]) => r === probe));
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('IndexBytes (a worker\'s view of the index as bytes) finds the hashes the text view finds, in any order of questions', () => {
    const order = fc.constantFrom('ascending', 'descending', 'as drawn');
    fc.assert(
      fc.property(entries, fc.array(relPath, { maxLength: 30 }), order, (es, drawn, how) => {
        const text = serializeIndex(es);
        const bytes = IndexBytes.fromCanonicalBytes(Buffer.from(text, 'utf8'));
        // Escaped paths: not canonical bytes (the worker then reads it as the main thread did).
        expect(bytes === undefined).toBe(text.includes('\\'));
        if (!bytes) return;
        expect(bytes.size).toBe(es.length);
        es.forEach(([rel], i) => expect(bytes.relAt(i)).toBe(rel));
        const probes = how === 'as drawn' ? drawn : [...drawn].sort();
        if (how === 'descending') probes.reverse();
        for (const probe of probes.flatMap((p, i) => (es.length > 0 ? [p, es[(i * 7) % es.length]![0]] : [p]))) {
          const at = es.findIndex(([r]) => r === probe);
          expect(bytes.hashOf(probe)).toBe(at < 0 ? undefined : es[at]![1]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('IndexBytes refuses bytes whose line structure is not canonical', () => {
    const text = serializeIndex([['a/b', 'a'.repeat(64)], ['a/c', 'b'.repeat(64)]]);
    const broken = [text.replace('    "a/c"', '   "a/c"'), text.replace('": "b', '":"b'), text.replace(',\n', '\n'), text.replace('b'.repeat(64), 'b'.repeat(63)), text.slice(0, -2), text.replace('a/c', 'a\nc')];
    for (const b of broken) expect(IndexBytes.fromCanonicalBytes(Buffer.from(b)), JSON.stringify(b)).toBeUndefined();
    expect(IndexBytes.fromCanonicalBytes(Buffer.from(serializeIndex([])))!.size).toBe(0);
  });

  it('reads kyma-fleet\'s own text (ours) to the same entries, and still refuses text with escapes', () => {
    fc.assert(
      fc.property(entries, (es) => {
        const text = serializeIndex(es);
        const ours = IndexView.fromCanonicalText(text, true);
        // Escaped paths are not canonical for the line reader either way: JSON.parse reads them.
        expect(ours === undefined).toBe(text.includes('\\'));
        if (!ours) return;
        expect(entriesOf(ours)).toEqual(es);
        expect(ours.linesOf(0, ours.size)).toBe(IndexView.fromSorted(es.map(([r]) => r), es.map(([, h]) => h)).linesOf(0, es.length));
      }),
      { numRuns: 400 },
    );
  });
});

describe('IndexTextBuilder: the index text in chunks', () => {
  it('joins to exactly serializeIndex, with its sha256 and length, whether the pieces are lines or runs of lines', () => {
    // Up to ~3 MB of index: several chunks, and chunk boundaries at every kind of piece.
    const big = fc.integer({ min: 0, max: 25_000 }).map((n) => Array.from({ length: n }, (_, i) => [`runtimes/rt-${String(i).padStart(6, '0')}/skr/kyma-default.yaml`, sha256(String(i))] as const));
    fc.assert(
      fc.property(big, fc.array(fc.integer({ min: 1, max: 9000 }), { maxLength: 8 }), (es, cuts) => {
        const text = serializeIndex(es);
        const b = new IndexTextBuilder();
        // Pieces: single lines and runs of lines, cut at the given sizes.
        let i = 0;
        for (const n of [...cuts, Number.MAX_SAFE_INTEGER]) {
          const run = es.slice(i, i + n);
          if (run.length > 0) b.add(run.map(([r, h]) => indexLine(r, h)).join(',\n'));
          i += run.length;
        }
        const built = b.finish();
        expect(built.chunks.join('')).toBe(text);
        expect(built.length).toBe(text.length);
        expect(built.digest).toBe(sha256(text));
        if (text.length > 2 << 20) expect(built.chunks.length).toBeGreaterThan(1);
      }),
      { numRuns: 25 },
    );
  });
});

describe('DistSession.keep: unchanged runtimes kept as folders', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = Workspace.create();
  });
  afterEach(() => ws.cleanup());

  /** A dist/ tree of runtimes (runtimes/<r>/<target>/<file>) and their GitOps files. */
  const runtimeName = fc.constantFrom('a', 'a-b', 'a0', 'ab', 'b', 'b.c', 'c', 'd');
  const runtimeFiles = fc.dictionary(fc.stringMatching(/^(skr|kcp|garden)\/[a-z0-9]{1,3}\.yaml$/), fc.string({ maxLength: 12 }), { minKeys: 1, maxKeys: 4 });
  const fleetTree = fc.dictionary(runtimeName, runtimeFiles, { minKeys: 1, maxKeys: 8 });

  function filesOf(tree: Record<string, Record<string, string>>, gitops: boolean): Map<string, string> {
    const files = new Map<string, string>();
    for (const [r, own] of Object.entries(tree)) {
      for (const [rel, content] of Object.entries(own)) files.set(`runtimes/${r}/${rel}`, content);
      if (gitops) files.set(`gitops/flux/${r}-skr.yaml`, `wiring of ${r}`);
    }
    if (gitops) files.set('gitops/flux/kustomization.yaml', Object.keys(tree).sort().join(','));
    return files;
  }

  it('keeping folders and files gives the same dist/ and index as reusing each file, on every plan', () => {
    const scenario = fc.record({
      before: fleetTree,
      after: fleetTree,
      keep: fc.array(runtimeName, { maxLength: 8 }),
      // Which kept folders the walk may skip: none (every kept entry is listed), all, or some.
      trusted: fc.constantFrom('none', 'all', 'some'),
      // The commit prepared first (synth prepares while its workers look at dist/), or not.
      prepared: fc.boolean(),
    });
    fc.assert(
      fc.property(scenario, ({ before, after, keep, trusted, prepared }) => {
        const out = path.join(ws.dir, `k-${Math.random().toString(16).slice(2)}`);
        const old = filesOf(before, true);
        expect(writeDist({ outDir: out, files: old }).ok).toBe(true);
        // Kept runtimes (those dist/ has) keep their folder and GitOps file; the rest is written anew.
        const kept = [...new Set(keep)].filter((r) => r in before).sort();
        const next = filesOf({ ...after, ...Object.fromEntries(kept.map((r) => [r, before[r]!])) }, true);
        const keptFolders = kept.map((r) => `runtimes/${r}`);
        const keptFiles = kept.map((r) => `gitops/flux/${r}-skr.yaml`);
        const isKept = (rel: string) => keptFiles.includes(rel) || keptFolders.some((f) => rel.startsWith(`${f}/`));
        const indexText = fs.readFileSync(path.join(out, INDEX_FILE), 'utf8');

        const trustedDirs = trusted === 'none' ? undefined : new Set(trusted === 'all' ? keptFolders : keptFolders.filter((_, i) => i % 2 === 0));
        const opened = openDist({ outDir: out, verify: false, trustedDirs });
        if (!opened.ok) throw new Error(opened.problem.message);
        for (const [rel, content] of [...next].sort(([a], [b]) => (a < b ? -1 : 1))) if (!isKept(rel)) opened.session.add(rel, content);
        opened.session.keep(keptFolders, keptFiles, sha256(indexText));
        if (prepared) opened.session.prepare();
        const r = opened.session.commit();

        expect(r.ok).toBe(true);
        expect(treeHash(out)).toBe(ws.expectedHash(next));
        expect(fs.readFileSync(path.join(out, INDEX_FILE), 'utf8')).toBe(serializeIndex([...next].map(([rel, c]) => [rel, sha256(c)] as const)));
        if (r.ok) expect(r.removed).toBe([...old.keys()].filter((k) => !next.has(k)).length);
        expect(fs.readdirSync(ws.dir).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('keeping all but the changed runtimes (keepAllBut) gives the same dist/ and index as reusing each file, on every plan', () => {
    // The same runtimes before and after (as keepAllBut's caller requires); `changed` are rendered
    // anew (their folder and their GitOps file cut out of the kept ranges), the others kept.
    const scenario = fc.record({
      before: fleetTree,
      changes: fc.dictionary(runtimeName, runtimeFiles, { maxKeys: 4 }),
      trusted: fc.boolean(),
      prepared: fc.boolean(),
    });
    fc.assert(
      fc.property(scenario, ({ before, changes, trusted, prepared }) => {
        const out = path.join(ws.dir, `ab-${Math.random().toString(16).slice(2)}`);
        expect(writeDist({ outDir: out, files: filesOf(before, true) }).ok).toBe(true);
        const changed = Object.keys(changes).filter((r) => r in before).sort();
        const next = filesOf({ ...before, ...Object.fromEntries(changed.map((r) => [r, changes[r]!])) }, true);
        const except = changed.flatMap((r) => [`runtimes/${r}`, `gitops/flux/${r}-skr.yaml`]);
        const isCut = (rel: string) => except.some((x) => rel === x || rel.startsWith(`${x}/`));
        const indexText = fs.readFileSync(path.join(out, INDEX_FILE), 'utf8');
        const keptFolders = Object.keys(before).filter((r) => !changed.includes(r)).map((r) => `runtimes/${r}`);
        const opened = openDist({ outDir: out, verify: false, ...(trusted ? { trustedDirs: new Set(keptFolders) } : {}) });
        if (!opened.ok) throw new Error(opened.problem.message);
        for (const [rel, content] of [...next].sort(([a], [b]) => (a < b ? -1 : 1))) if (isCut(rel)) opened.session.add(rel, content);
        opened.session.keepAllBut(['gitops', 'runtimes'], except, sha256(indexText));
        if (prepared) opened.session.prepare();
        const r = opened.session.commit();

        expect(r.ok).toBe(true);
        expect(treeHash(out)).toBe(ws.expectedHash(next));
        expect(fs.readFileSync(path.join(out, INDEX_FILE), 'utf8')).toBe(serializeIndex([...next].map(([rel, c]) => [rel, sha256(c)] as const)));
        expect(fs.readdirSync(ws.dir).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('keepAllBut: another index than the planned one is refused (E_DIST_CHANGED); an added file it keeps is a caller bug', () => {
    const files = filesOf({ a: { 'skr/x.yaml': 'x' }, b: { 'skr/y.yaml': 'y' } }, true);
    expect(writeDist({ outDir: ws.outDir, files }).ok).toBe(true);
    const before = treeHash(ws.outDir);
    const digest = sha256(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'));
    const open = () => {
      const opened = openDist({ outDir: ws.outDir, verify: false });
      if (!opened.ok) throw new Error(opened.problem.message);
      return opened.session;
    };
    const stale = open();
    stale.add('runtimes/b/skr/y.yaml', 'y2');
    stale.keepAllBut(['gitops', 'runtimes'], ['runtimes/b'], sha256('another index'));
    expect(stale.commit()).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_CHANGED' } });
    expect(treeHash(ws.outDir)).toBe(before);
    // b's folder not cut out, yet written: both written and kept.
    const both = open();
    both.add('runtimes/b/skr/y.yaml', 'y2');
    both.keepAllBut(['gitops', 'runtimes'], ['runtimes/a'], digest);
    expect(() => both.commit()).toThrow(/both written and reused/);
    both.abort();
    expect(treeHash(ws.outDir)).toBe(before);
  });

  it('a prepared commit publishes nothing until commit(), takes no more files, and lets go of dist/ on abort', () => {
    expect(writeDist({ outDir: ws.outDir, files: base }).ok).toBe(true);
    const before = treeHash(ws.outDir);
    const digest = sha256(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'));
    const open = () => {
      const opened = openDist({ outDir: ws.outDir, verify: false });
      if (!opened.ok) throw new Error(opened.problem.message);
      opened.session.add('runtimes/b/skr/y.yaml', 'y2');
      opened.session.keep(['runtimes/a'], ['gitops/flux/a-skr.yaml'], digest);
      return opened.session;
    };
    // Prepared, then aborted: dist/ as it was, no staging tree, the lock free for the next write.
    const aborted = open();
    aborted.prepare();
    expect(treeHash(ws.outDir)).toBe(before);
    expect(() => aborted.add('runtimes/c/skr/z.yaml', 'z')).toThrow(/prepared/);
    expect(() => aborted.prepare()).toThrow(/prepared already/);
    aborted.abort();
    expect(treeHash(ws.outDir)).toBe(before);
    expect(ws.leftovers()).toEqual([]);
    // A guard that refuses refuses at commit, whatever commit() is given then.
    const refused = open();
    refused.prepare(() => ({ code: 'E_MASS_REMOVAL', message: 'no', paths: [] }));
    expect(refused.commit()).toMatchObject({ ok: false, exitCode: 1, problem: { code: 'E_MASS_REMOVAL' } });
    expect(treeHash(ws.outDir)).toBe(before);
    // Prepared, then committed: the write is published.
    const published = open();
    published.prepare();
    expect(published.commit()).toMatchObject({ ok: true, changed: true, written: 1, removed: 0 });
    expect(treeHash(ws.outDir)).toBe(ws.expectedHash(new Map([...base].map(([rel, c]) => [rel, rel === 'runtimes/b/skr/y.yaml' ? 'y2' : c]))));
    expect(ws.leftovers()).toEqual([]);
  });

  it('a large tree with one runtime changed is patched from the kept ranges, kept files untouched (the fast path)', () => {
    // GIVEN 40 runtimes in dist/
    const tree = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`rt-${String(i).padStart(2, '0')}`, { 'skr/kyma.yaml': `k${i}`, 'kcp/runtime.yaml': `r${i}` }]));
    const out = ws.outDir;
    expect(writeDist({ outDir: out, files: filesOf(tree, false) }).ok).toBe(true);
    const inode = fs.statSync(path.join(out, 'runtimes/rt-05/skr/kyma.yaml')).ino;
    const indexText = fs.readFileSync(path.join(out, INDEX_FILE), 'utf8');
    // WHEN rt-07 is rendered anew and the other 39 are kept (the walk skips half of them)
    const kept = Object.keys(tree).filter((r) => r !== 'rt-07').map((r) => `runtimes/${r}`);
    const opened = openDist({ outDir: out, verify: false, trustedDirs: new Set(kept.filter((_, i) => i % 2 === 0)) });
    if (!opened.ok) throw new Error(opened.problem.message);
    opened.session.add('runtimes/rt-07/kcp/runtime.yaml', 'r7');
    opened.session.add('runtimes/rt-07/skr/kyma.yaml', 'changed');
    opened.session.keep(kept, [], sha256(indexText));
    const r = opened.session.commit();
    // THEN only that file changed; kept files were not touched
    expect(r).toMatchObject({ ok: true, changed: true, written: 1, removed: 0 });
    expect(fs.readFileSync(path.join(out, 'runtimes/rt-07/skr/kyma.yaml'), 'utf8')).toBe('changed');
    expect(fs.statSync(path.join(out, 'runtimes/rt-05/skr/kyma.yaml')).ino).toBe(inode);
    expect(treeHash(out)).toBe(ws.expectedHash(new Map([...filesOf(tree, false)].map(([rel, c]) => [rel, rel === 'runtimes/rt-07/skr/kyma.yaml' ? 'changed' : c]))));
  });

  it('an index of several chunks: an identical write changes nothing, a changed one writes the same index as serializeIndex', () => {
    // GIVEN a tree whose index is over 1 MB (written and compared in chunks)
    const files = new Map(Array.from({ length: 9_000 }, (_, i) => [`runtimes/rt-${String(i).padStart(5, '0')}/skr/registrycacheconfig-docker.io.yaml`, `n: ${i}\n`] as const));
    expect(writeDist({ outDir: ws.outDir, files }).ok).toBe(true);
    const text = fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8');
    expect(text.length).toBeGreaterThan(1 << 20);
    expect(text).toBe(serializeIndex([...files].map(([rel, c]) => [rel, sha256(c)] as const)));
    // WHEN the same tree is written again THEN nothing changes
    expect(writeDist({ outDir: ws.outDir, files })).toMatchObject({ ok: true, changed: false, indexDigest: sha256(text) });
    // WHEN one file changes THEN the index is the full serialisation of the new tree
    files.set('runtimes/rt-07000/skr/registrycacheconfig-docker.io.yaml', 'changed\n');
    const r = writeDist({ outDir: ws.outDir, files });
    const after = fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8');
    expect(r).toMatchObject({ ok: true, changed: true, indexDigest: sha256(after) });
    expect(after).toBe(serializeIndex([...files].map(([rel, c]) => [rel, sha256(c)] as const)));
  }, 120_000);

  it('a write opened with the index the caller read before uses it only while dist/ holds exactly those bytes', () => {
    const entriesOfSession = (known?: { bytes: Buffer; text: string }) => {
      const opened = openDist({ outDir: ws.outDir, verify: false, knownIndex: known });
      if (!opened.ok) throw new Error(opened.problem.message);
      const entries = entriesOf(opened.session.previous!.view);
      opened.session.abort();
      return entries;
    };
    // GIVEN dist/ and its index as synth read it
    const first = new Map([
      ['runtimes/a/skr/x.yaml', 'x'],
      ['runtimes/b/skr/y.yaml', 'y'],
    ]);
    expect(writeDist({ outDir: ws.outDir, files: first }).ok).toBe(true);
    const bytes = fs.readFileSync(path.join(ws.outDir, INDEX_FILE));
    const known = { bytes, text: bytes.toString('utf8') };
    // THEN while dist/ is unchanged the known index is dist/'s index
    expect(entriesOfSession(known)).toEqual(entriesOfSession());
    // WHEN another run rewrote dist/ in between THEN the write goes by what dist/ holds now
    expect(writeDist({ outDir: ws.outDir, files: new Map([['runtimes/a/skr/x.yaml', 'x2']]) }).ok).toBe(true);
    expect(entriesOfSession(known)).toEqual([['runtimes/a/skr/x.yaml', sha256('x2')]]);
  });

  const base = new Map([
    ['runtimes/a/skr/x.yaml', 'x'],
    ['runtimes/b/skr/y.yaml', 'y'],
    ['gitops/flux/a-skr.yaml', 'g'],
  ]);

  it.each([
    ['another index than the caller planned with', (digest: string) => ({ folders: ['runtimes/a'], files: [], digest: sha256(`${digest}x`) }), 'runtimes/a/'],
    ['a folder the index does not hold', (digest: string) => ({ folders: ['runtimes/c'], files: [], digest }), 'runtimes/c/'],
    ['a file the index does not list', (digest: string) => ({ folders: [], files: ['gitops/flux/c-skr.yaml'], digest }), 'gitops/flux/c-skr.yaml'],
  ])('keeping what dist/ does not hold is refused with E_DIST_CHANGED and nothing changes: %s', (_label, ask, named) => {
    expect(writeDist({ outDir: ws.outDir, files: base }).ok).toBe(true);
    const before = treeHash(ws.outDir);
    const digest = sha256(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'));
    const { folders, files, digest: given } = ask(digest);
    const opened = openDist({ outDir: ws.outDir, verify: false });
    if (!opened.ok) throw new Error(opened.problem.message);
    opened.session.add('runtimes/b/skr/y.yaml', 'y2');
    opened.session.keep(folders, files, given);
    const r = opened.session.commit();
    expect(r).toMatchObject({ ok: false, exitCode: 4, problem: { code: 'E_DIST_CHANGED' } });
    if (!r.ok) expect(r.problem.message).toContain(named);
    expect(treeHash(ws.outDir)).toBe(before);
    expect(ws.leftovers()).toEqual([]);
  });

  it.each([
    ['a file added inside a kept folder', ['runtimes/a'], [], 'runtimes/a/skr/new.yaml', /both written and reused/],
    ['a kept file added again', [], ['gitops/flux/a-skr.yaml'], 'gitops/flux/a-skr.yaml', /both written and reused/],
    ['a file where a kept folder is', ['runtimes/a'], [], 'runtimes/a', /both a file and a folder/],
    ['a file below a kept file', [], ['gitops/flux/a-skr.yaml'], 'gitops/flux/a-skr.yaml/x', /both a file and a folder/],
    ['a file kept twice (also inside a kept folder)', ['runtimes/a'], ['runtimes/a/skr/x.yaml'], undefined, /kept twice/],
  ])('a caller bug throws at commit and leaves dist/ unchanged: %s', (_label, folders, files, added, message) => {
    expect(writeDist({ outDir: ws.outDir, files: base }).ok).toBe(true);
    const before = treeHash(ws.outDir);
    const digest = sha256(fs.readFileSync(path.join(ws.outDir, INDEX_FILE), 'utf8'));
    const opened = openDist({ outDir: ws.outDir, verify: false });
    if (!opened.ok) throw new Error(opened.problem.message);
    if (added) opened.session.add(added, 'new');
    opened.session.keep(folders, files, digest);
    expect(() => opened.session.commit()).toThrow(message);
    expect(treeHash(ws.outDir)).toBe(before);
    expect(ws.leftovers()).toEqual([]);
  });
});
