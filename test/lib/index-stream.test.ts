// The index read a chunk at a time (src/lib/index-stream.ts): the entries of canonical text, the
// same as the careful parse gives, whatever the chunk size (lines and UTF-8 characters cut between
// chunks); anything but canonical text throws NotCanonicalIndex, so the caller reads it the careful way.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndex, serializeIndex } from '../../src/lib/dist-index';
import { indexEntries, NotCanonicalIndex } from '../../src/lib/index-stream';

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
