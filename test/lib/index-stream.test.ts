// The index read a chunk at a time (src/lib/index-stream.ts): the entries of canonical text, the
// same as the careful parse gives, whatever the chunk size (lines and UTF-8 characters cut between
// chunks); anything but canonical text throws NotCanonicalIndex, so the caller reads it the careful way.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndex, serializeIndex } from '../../src/lib/dist-index';
import type { IndexView } from '../../src/lib/index-view';
import { indexEntries, indexRuns, NotCanonicalIndex } from '../../src/lib/index-stream';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'index-stream-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const f = path.join(dir, `index-${n++}.json`);
  fs.writeFileSync(f, text);
  return f;
}

const H = (c: string): string => c.repeat(64);
const ENTRIES: Array<readonly [string, string]> = [
  ['gitops/flux/kustomization.yaml', H('a')],
  ['runtimes/a-b/kcp/runtime-x.yaml', H('b')],
  ['runtimes/a/kcp/runtime-ä€𝄞.yaml', H('c')],
  ['runtimes/a/skr/kyma-default.yaml', H('d')],
];
const INPUTS = '  "inputs": {\n    "key": "x",\n    "seal": "' + '0'.repeat(64) + '"\n  },\n';

describe('indexEntries', () => {
  it.each([1, 2, 7, 64, 1 << 20])('reads canonical text as the careful parse does, %i bytes at a time', (chunk) => {
    const text = serializeIndex(ENTRIES);
    const view = parseIndex(text)!.view;
    const careful = Array.from({ length: view.size }, (_, i) => [view.relAt(i), view.hashAt(i)]);
    expect([...indexEntries(file(text), chunk)]).toEqual(careful);
    // With an inputs section after the files (not read here).
    const withInputs = text.replace(/  "version": 1\n}\n$/, `${INPUTS}  "version": 1\n}\n`);
    expect([...indexEntries(file(withInputs), chunk)]).toEqual(careful);
  });

  it('an index without files', () => {
    expect([...indexEntries(file(serializeIndex([])), 3)]).toEqual([]);
  });

  it.each([
    ['not an index', '{"version": 1}\n'],
    ['escaped path', serializeIndex([['runtimes/a"b/x.yaml', H('a')]])],
    ['upper-case hash', serializeIndex([['a', H('A')]])],
    ['short hash', serializeIndex([['a', H('a')]]).replace(H('a'), 'a'.repeat(63))],
    ['out of order', serializeIndex(ENTRIES).replace('gitops/flux/kustomization.yaml', 'zz')],
    ['duplicate', serializeIndex(ENTRIES).replace('runtimes/a-b/kcp/runtime-x.yaml', 'gitops/flux/kustomization.yaml')],
    ['cut off', serializeIndex(ENTRIES).slice(0, 200)],
    ['a comma after the last entry', serializeIndex(ENTRIES).replace(`${H('d')}"\n`, `${H('d')}",\n`)],
    ['no comma between entries', serializeIndex(ENTRIES).replace(`${H('a')}",\n`, `${H('a')}"\n`)],
    ['JSON formatted otherwise', JSON.stringify({ files: Object.fromEntries(ENTRIES), generator: 'kyma-fleet', version: 1 })],
  ])('%s: NotCanonicalIndex', (_name, text) => {
    expect(() => [...indexEntries(file(text), 5)]).toThrow(NotCanonicalIndex);
  });

  it('an I/O error is thrown as it is', () => {
    expect(() => [...indexEntries(path.join(dir, 'missing.json'))]).toThrow(/ENOENT/);
  });

  it('any set of paths, any chunk size', () => {
    const segment = fc.stringMatching(/^[a-z0-9äö€𝄞._-]{1,6}$/u);
    fc.assert(
      fc.property(fc.uniqueArray(fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')), { maxLength: 20 }), fc.integer({ min: 1, max: 300 }), (rels, chunk) => {
        const text = serializeIndex(rels.map((r, i) => [r, H('0123456789abcdef'[i % 16]!)] as const));
        const view = parseIndex(text)!.view;
        expect([...indexEntries(file(text), chunk)]).toEqual(Array.from({ length: view.size }, (_, i) => [view.relAt(i), view.hashAt(i)]));
      }),
      { numRuns: 60 },
    );
  });
});

/**
 * indexRuns read as a merge reads it (src/run/base-diff.ts): `same` asks `after` whether the offered
 * lines are its next ones; a run of n stands for after's next n entries. Gives every entry of the
 * file, runs spelled out, and how many entries came as runs.
 */
function readRuns(text: string, after: IndexView, chunk: number): { entries: Array<readonly [string, string]>; skipped: number } {
  let j = 0;
  let skipped = 0;
  const entries: Array<readonly [string, string]> = [];
  for (const run of indexRuns(file(text), (lines) => after.sameLines(j, lines), chunk)) {
    if (typeof run === 'number') {
      for (let k = j; k < j + run; k++) entries.push([after.relAt(k), after.hashAt(k)]);
      j += run;
      skipped += run;
      continue;
    }
    const [rel] = run;
    while (j < after.size && after.relAt(j) < rel) j++;
    if (j < after.size && after.relAt(j) === rel) j++;
    entries.push(run);
  }
  return { entries, skipped };
}

describe('indexRuns: an index compared a block of lines at a time with one the caller has', () => {
  const many = (n: number, hash: (i: number) => string): Array<readonly [string, string]> =>
    Array.from({ length: n }, (_, i) => [`runtimes/r-${String(i).padStart(4, '0')}/kcp/runtime-${i}.yaml`, hash(i)] as const);

  it('skips the lines that are the same and reads the ones that differ', () => {
    const after = many(400, () => H('a'));
    const before = after.map(([rel, hash], i) => [rel, i === 123 || i === 300 ? H('b') : hash] as const);
    const { entries, skipped } = readRuns(serializeIndex(before), parseIndex(serializeIndex(after))!.view, 1 << 20);
    expect(entries).toEqual(before);
    // All but the two that differ, less the lines read while a differing block was halved.
    expect(skipped).toBeGreaterThan(380);
  });

  it('a line out of order just before a run of lines the caller has: NotCanonicalIndex', () => {
    const after = many(50, () => H('a'));
    // "zz" sorts after every runtime path, yet comes first; the rest are after's lines.
    const text = serializeIndex(after).replace('    "runtimes/r-0000', '    "zz": "' + H('c') + '",\n    "runtimes/r-0000');
    const view = parseIndex(serializeIndex(after))!.view;
    // A caller that vouches for after's lines from its first entry on, whatever came before them.
    expect(() => [...indexRuns(file(text), (lines) => view.sameLines(0, lines))]).toThrow(/out of order/);
  });

  it("any two indexes, any chunk size: the entries are the file's", () => {
    const rel = fc.stringMatching(/^[a-z0-9äö€/._-]{1,12}$/u);
    fc.assert(
      fc.property(fc.uniqueArray(rel, { maxLength: 120 }), fc.uniqueArray(rel, { maxLength: 120 }), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 1, max: 700 }), (a, extra, salt, chunk) => {
        const hash = (r: string, k: number): string => H('0123456789abcdef'[(r.length * 7 + k) % 16]!);
        const after = a.map((r) => [r, hash(r, 0)] as const);
        // Before: most of after, some hashes changed, some entries dropped, some added.
        const before = [...a.filter((_, i) => (i + salt) % 9 !== 0).map((r, i) => [r, hash(r, i % 11 === salt % 11 ? 1 : 0)] as const), ...extra.filter((r) => !a.includes(r)).map((r) => [r, hash(r, 2)] as const)];
        const text = serializeIndex(before);
        const careful = parseIndex(text)!.view;
        const { entries } = readRuns(text, parseIndex(serializeIndex(after))!.view, chunk);
        expect(entries).toEqual(Array.from({ length: careful.size }, (_, i) => [careful.relAt(i), careful.hashAt(i)]));
      }),
      { numRuns: 150 },
    );
  });
});
