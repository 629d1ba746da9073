// The fleet schemas are compiled to standalone ajv code at build time (scripts/write-validators.ts);
// every run uses that code instead of compiling. It must judge every document exactly as the
// validators compiled at run time do: same verdict, same errors (the diagnostics are made from
// them). Checked on every document of the example fleet and on many broken variants of them.

import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import { compileValidators, FLEET_KINDS, prebuiltValidators } from '../../src/validate/schema-check';
import type { FleetKind } from '../../src/validate/schema';

const SEED = 0x76616c64; // "vald"
const FLEET = path.join(__dirname, '..', '..', 'fleet');

function documents(): Array<{ kind: FleetKind; data: unknown; file: string }> {
  const out: Array<{ kind: FleetKind; data: unknown; file: string }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml')) {
        const data = parse(fs.readFileSync(p, 'utf8')) as { kind?: unknown };
        if (FLEET_KINDS.includes(data?.kind as FleetKind)) out.push({ kind: data.kind as FleetKind, data, file: p });
      }
    }
  };
  walk(FLEET);
  return out;
}

/** The errors of a validator as plain JSON (verbose errors carry the schema and data). */
function verdict(validate: (data: unknown) => boolean, data: unknown): string {
  const ok = validate(data);
  return JSON.stringify({ ok, errors: (validate as unknown as { errors?: unknown }).errors ?? null });
}

describe('build-time fleet validators', () => {
  const prebuilt = prebuiltValidators(EXTENSIONS);
  const compiled = compileValidators(EXTENSIONS);
  const docs = documents();

  it('exist and were built from the current schemas (npm run build)', () => {
    expect(prebuilt).toBeDefined();
    expect(docs.map((d) => d.kind)).toEqual(expect.arrayContaining(['Fleet', 'RuntimeGroup', 'KymaRuntime']));
  });

  it('judge every document of the example fleet as the run-time compiled ones do', () => {
    for (const d of docs) expect(verdict(prebuilt![d.kind], d.data), d.file).toBe(verdict(compiled[d.kind], d.data));
  });

  it('judge broken variants the same way (fields removed, retyped, added, values swapped)', () => {
    const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string({ maxLength: 8 }), fc.constant([]), fc.constant({}), fc.constant({ x: 1 }), fc.constant(['a']));
    let compared = 0;
    let invalid = 0;
    fc.assert(
      fc.property(fc.nat(docs.length - 1), fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete', 'set', 'add')), { minLength: 1, maxLength: 4 }), fc.array(junk, { minLength: 4, maxLength: 4 }), (which, edits, values) => {
        const doc = docs[which]!;
        const data = structuredClone(doc.data) as Record<string, unknown>;
        edits.forEach(([pick, op], i) => {
          // Walk to a random object inside the document, then edit one of its keys.
          let node: Record<string, unknown> = data;
          for (let depth = 0; depth < 4; depth++) {
            const keys = Object.keys(node).filter((k) => node[k] !== null && typeof node[k] === 'object');
            if (keys.length === 0) break;
            node = node[keys[(pick + depth) % keys.length]!] as Record<string, unknown>;
          }
          const keys = Object.keys(node);
          const key = op === 'add' || keys.length === 0 ? `extra${i}` : keys[pick % keys.length]!;
          if (op === 'delete') delete node[key];
          else node[key] = structuredClone(values[i]);
        });
        compared++;
        const expected = verdict(compiled[doc.kind], data);
        if (expected.startsWith('{"ok":false')) invalid++;
        expect(verdict(prebuilt![doc.kind], data)).toBe(expected);
      }),
      { seed: SEED, numRuns: 400 },
    );
    expect(compared).toBe(400);
    // Most variants are broken, so the errors are compared, not only the verdict.
    expect(invalid).toBeGreaterThan(200);
  });
});
