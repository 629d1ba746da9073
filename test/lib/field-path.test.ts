// The shared field-path formatter (src/lib/field-path.ts, issue 26 item 5): a path written with list
// entries named by their key can be read back to the one entry it names (resolveField), whatever
// the key values are (spaces, brackets, quotes, '=', '.', unicode), so `caches[upstream=…]` is never
// ambiguous; and the rules for keeping a position (missing, empty, non-string, repeated key).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FieldNaming, formatSegments, identifyingValue, namedSegments, resolveField } from '../../src/lib/field-path';

const LISTS: FieldNaming['lists'] = [{ path: ['extensions', 'registry-cache', 'caches'], key: 'upstream' }];

describe('field paths', () => {
  it('names an entry by its key, and reads back to the same entry, for any key values', () => {
    const keyValue = fc.oneof(fc.string(), fc.constantFrom('docker.io', 'my-reg.io:5000', 'a]b', 'a=b', '"q"', 'x.y[0]', 'ü', ''), fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(fc.array(fc.record({ upstream: keyValue }, { requiredKeys: [] }), { minLength: 1, maxLength: 6 }), fc.nat(), (caches, n) => {
        const index = n % caches.length;
        const root = { extensions: { 'registry-cache': { caches } } };
        const path = ['extensions', 'registry-cache', 'caches', index, 'volume', 'size'];
        const segments = namedSegments(path, { root, lists: LISTS });
        const text = formatSegments(segments);
        expect(resolveField(text, root)).toEqual(path);
        // Named by key exactly when the key is a non-empty string no other entry has.
        const value = caches[index]!.upstream;
        const unique = typeof value === 'string' && value !== '' && caches.filter((c) => c.upstream === value).length === 1;
        expect(typeof segments[3] === 'object', text).toBe(unique);
      }),
      { numRuns: 500 },
    );
  });

  it('writes plain key values as they are and others as JSON strings', () => {
    expect(formatSegments(['caches', { key: 'upstream', value: 'my-reg.io:5000' }, 'upstream'])).toBe('caches[upstream=my-reg.io:5000].upstream');
    expect(formatSegments(['caches', { key: 'upstream', value: 'docker io' }])).toBe('caches[upstream="docker io"]');
    expect(formatSegments(['matchLabels', 'bad key!'])).toBe('matchLabels["bad key!"]');
  });

  it('keeps the position for a missing, empty, non-string or repeated key, and in lists nobody declared keyed', () => {
    const list = [{ upstream: 'a' }, { upstream: 'b' }, { upstream: 'a' }, { upstream: 7 }, {}, { upstream: '' }, 'x'];
    expect(list.map((_, i) => identifyingValue(list, i, 'upstream'))).toEqual([undefined, 'b', undefined, undefined, undefined, undefined, undefined]);
    const root = { rules: { custom: [{ file: 'a.yaml' }] } };
    expect(formatSegments(namedSegments(['rules', 'custom', 0, 'file'], { root, lists: LISTS }))).toBe('rules.custom[0].file');
  });

  it('refuses text that is not a field path, or names no single entry', () => {
    const root = { caches: [{ upstream: 'a' }, { upstream: 'a' }] };
    expect(resolveField('caches[upstream=a]', root)).toBeUndefined();
    expect(resolveField('caches[upstream=zz]', root)).toBeUndefined();
    expect(resolveField('.caches', root)).toBeUndefined();
    expect(resolveField('caches[0]upstream', root)).toBeUndefined();
    expect(resolveField('caches[1].upstream', root)).toEqual(['caches', 1, 'upstream']);
  });
});
