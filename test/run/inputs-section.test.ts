// The inputs section of dist/'s index (src/run/committed-record.ts inputsSection): the lines of
// runtimes whose records are the trusted record's own are taken from the index that record
// describes, the others are written from their records; either way readCommitted reads back what
// the entries say. (test/incremental.test.ts compares whole indexes with a cold synth's.)

import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/lib/digest';
import { EMPTY_FILES, VERSION_END } from '../../src/lib/index-text';
import { inputsSection, readCommitted } from '../../src/run/committed-record';
import type { RuntimeRecord } from '../../src/run/run-record';
import type { RuntimeEntry } from '../../src/run/stages';

function record(name: string, input: string): RuntimeRecord {
  return {
    digest: sha256(`file of ${name}`),
    identity: { name, runtimeID: `id-${name}`, shoot: { name: `c-${name}`, project: 'p' }, at: { name: { line: 4, col: 9 }, runtimeID: { line: 9, col: 14 }, shootName: { line: 12, col: 11 } }, labels: { tier: 'dev' } },
    diagnostics: [],
    input: sha256(input),
    targets: ['skr', 'kcp'],
  };
}

/** An index without files whose inputs section lists `entries`. */
function indexText(entries: readonly RuntimeEntry[], previous?: string): string {
  return EMPTY_FILES + inputsSection({ key: 'k'.repeat(64), thresholds: [], epoch: 0, gitops: '{}', entries, ...(previous !== undefined ? { previous } : {}) })(sha256(EMPTY_FILES)) + VERSION_END;
}

const entry = (relPath: string, r: RuntimeRecord, recorded: boolean): RuntimeEntry => ({ relPath, record: r, kept: true, ...(recorded ? { recorded } : {}) });

describe('the inputs section of a synth', () => {
  it("takes the lines of recorded runtimes from the previous index and writes the others from their records", () => {
    const a = record('a', 'one');
    const b = record('b', 'one');
    const before = indexText([entry('runtimes/a.yaml', a, false), entry('runtimes/b.yaml', b, false)]);
    // A previous index whose line for a says another input than a's record (what a recorded line is taken for: the line, not the record).
    const marked = before.replace(a.input, sha256('marked'));
    expect(marked).not.toBe(before);
    const b2 = record('b', 'two');
    const after = indexText([entry('runtimes/a.yaml', a, true), entry('runtimes/b.yaml', b2, false)], marked);
    const read = readCommitted(after);
    expect(read?.runtimes['runtimes/a.yaml']?.input).toBe(sha256('marked'));
    expect(read?.runtimes['runtimes/b.yaml']?.input).toBe(b2.input);
    // Not recorded, a's line is written from its record.
    const fresh = readCommitted(indexText([entry('runtimes/a.yaml', a, false), entry('runtimes/b.yaml', b2, false)], marked));
    expect(fresh?.runtimes['runtimes/a.yaml']?.input).toBe(a.input);
  });

  it('writes the line of a recorded runtime the previous index does not list, and gives the same text as without a previous index', () => {
    const a = record('a', 'one');
    const c = record('c', 'three');
    const previous = indexText([entry('runtimes/a.yaml', a, false)]);
    const withPrevious = indexText([entry('runtimes/a.yaml', a, true), entry('runtimes/c.yaml', c, true)], previous);
    expect(withPrevious).toBe(indexText([entry('runtimes/a.yaml', a, false), entry('runtimes/c.yaml', c, false)]));
    expect(Object.keys(readCommitted(withPrevious)!.runtimes)).toEqual(['runtimes/a.yaml', 'runtimes/c.yaml']);
  });
});
