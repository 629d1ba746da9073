// The fast path of the YAML gate (src/lib/yaml/fast-yaml.ts) must be invisible: whenever it accepts a
// text, its data and position index equal those of the full `yaml` path (parseWithYamlPackage), and
// the full path finds nothing to report. Two generators:
//   - "common" documents in the shape fleet files have (block maps and sequences, `- key: v` items,
//     plain/quoted scalars, comments, blank lines, both sequence indentation styles): the fast path
//     must accept every one, and agree;
//   - "noisy" documents built from the same trees with hostile scalars and keys spliced in (YAML
//     indicators, `: `, ` #`, escapes, non-decimal numbers, reserved and duplicate keys, tabs,
//     continuation lines, markers): whenever the fast path accepts one, it must agree.
// A re-run of a failure: fc.assert(..., { seed: SEED, path: '<path from the report>' }).

import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fastParseYaml } from '../../src/lib/yaml/fast-yaml';
import { findForbiddenCharacters, isForbiddenChar, parseFleetYaml, parseWithYamlPackage } from '../../src/lib/yaml/parse-yaml';

const SEED = 0x66796d6c; // "fyml"
const NUM_RUNS = 1500;

type Tree = { kind: 'map'; entries: Array<[string, Tree]> } | { kind: 'seq'; items: Tree[] } | { kind: 'scalar'; text: string };

const commonKey = fc.constantFrom('name', 'channel', 'spec', 'labels', 'x', 'a-b', 'a.b', 'kyma-project.io/region', '_k', 'runtimeID', 'ttl', 'enabled', 'k8s');
const commonScalar = fc.oneof(
  fc.constantFrom('fast', 'regular', 'docker.io', 'https://mirror.example.com/v2', 'a#b', 'a:b', '10Gi', '720h', '2026-11-22', 'yes', 'no', 'on', 'NaN', 'Infinity', 'e1'),
  fc.constantFrom('0', '1', '-7', '42', '3.25', '1.10', '-0.5', '9007199254740991'),
  fc.constantFrom('true', 'false', 'True', 'FALSE', 'null', 'Null', '~'),
  fc.constantFrom('[]', '{}', ''), // '' is `key:` with nothing after it (null)
  fc.constantFrom('"quoted"', '"with: colon # and hash"', "'single'", "'it''s'", "''", '""', '"a\'b"', "'a\"b'"),
  fc.stringMatching(/^[a-z][a-z0-9.\/-]{0,12}$/),
);

function treeArb(key: fc.Arbitrary<string>, scalar: fc.Arbitrary<string>): fc.Arbitrary<Tree> {
  const { tree } = fc.letrec<{ tree: Tree; map: Tree; seq: Tree; scalar: Tree }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('scalar'), tie('map'), tie('seq')),
    map: fc
      .uniqueArray(fc.tuple(key, tie('tree')), { minLength: 1, maxLength: 5, selector: ([k]) => k })
      .map((entries) => ({ kind: 'map' as const, entries })),
    seq: fc.array(tie('tree'), { minLength: 1, maxLength: 4 }).map((items) => ({ kind: 'seq' as const, items })),
    scalar: scalar.map((text) => ({ kind: 'scalar' as const, text })),
  }));
  return fc.uniqueArray(fc.tuple(key, tree), { minLength: 1, maxLength: 6, selector: ([k]) => k }).map((entries) => ({ kind: 'map' as const, entries }));
}

interface Style {
  /** Sequences under a key at the key's own column (`key:\n- a`) instead of indented. */
  readonly flushSeq: boolean;
  readonly indent: number;
  /** Comment and blank lines are inserted where this picks true. */
  readonly noise: () => boolean;
  readonly trailingComment: () => boolean;
}

/** Block YAML of a tree (the root is a map). */
function render(tree: Tree, style: Style): string {
  const out: string[] = [];
  const comment = (col: number) => {
    if (style.noise()) out.push(' '.repeat(col) + '# note: - [x] "q"');
    if (style.noise()) out.push('');
  };
  const tail = () => (style.trailingComment() ? ' # c' : '');
  const node = (t: Tree, col: number, prefix: string): void => {
    // prefix: text already on the current line before this node ("key:" or "- ")
    if (t.kind === 'scalar') {
      out.push(`${prefix} ${t.text}${tail()}`.replace(/^(\s*-) {2}/, '$1 '));
      return;
    }
    if (t.kind === 'map') {
      t.entries.forEach(([k, v], i) => {
        comment(col);
        const lead = i === 0 && prefix.endsWith('- ') ? prefix : ' '.repeat(col);
        if (v.kind === 'scalar') out.push(v.text === '' ? `${lead}${k}:` : `${lead}${k}: ${v.text}${tail()}`);
        else {
          out.push(`${lead}${k}:`);
          const childCol = v.kind === 'seq' && style.flushSeq ? col : col + style.indent;
          node(v, childCol, '');
        }
      });
      return;
    }
    for (const item of t.items) {
      comment(col);
      const dash = ' '.repeat(col) + '- ';
      if (item.kind === 'scalar') out.push(`${dash}${item.text || '~'}${tail()}`);
      else if (item.kind === 'map') node(item, col + 2, dash);
      else {
        // a sequence in a sequence: `-` alone, the inner sequence indented below
        out.push(dash.trimEnd());
        node(item, col + 2, '');
      }
    }
  };
  node(tree, 0, '');
  return out.join('\n') + '\n';
}

const styleArb = fc.record({ flushSeq: fc.boolean(), indent: fc.constantFrom(2, 4), seed: fc.integer() }).map(({ flushSeq, indent, seed }) => {
  let s = seed | 0;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    return (s >>> 16) % 7 === 0;
  };
  return { flushSeq, indent, noise: next, trailingComment: next } satisfies Style;
});

function agree(text: string): { accepted: boolean } {
  const fast = fastParseYaml(text);
  if (!fast) return { accepted: false };
  const full = parseWithYamlPackage(text, 'f.yaml');
  expect(full.diagnostics, text).toEqual([]);
  expect(isDeepStrictEqual(fast.data, full.data), `data differs for:\n${text}`).toBe(true);
  expect(fast.positions.toJSON(), text).toEqual(full.positions.toJSON());
  return { accepted: true };
}

describe('fast YAML path', () => {
  it('accepts every common-shape document and agrees with the yaml package', () => {
    console.info(`[fast-check] fast-yaml › common: seed=${SEED} numRuns=${NUM_RUNS}`);
    fc.assert(
      fc.property(treeArb(commonKey, commonScalar), styleArb, (tree, style) => {
        const text = render(tree, style);
        // `-` alone (a sequence directly in a sequence) is left to the full parser by design.
        const nestedSeq = /^\s*-$/m.test(text);
        expect(agree(text).accepted || nestedSeq, `fast path gave up on:\n${text}`).toBe(true);
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
  });

  it('agrees with the yaml package whenever it accepts a noisy document', () => {
    const noisyKey = fc.oneof({ arbitrary: commonKey, weight: 12 }, fc.constantFrom('null', 'true', '1', '__proto__', '<<', 'a b', '"q"', 'k:', 'K', '-x', '.inf', 'k'.repeat(1100)));
    const noisyScalar = fc.oneof(
      { arbitrary: commonScalar, weight: 20 },
      fc.constantFrom('&a x', '*a', '!tag x', '|', '>', '%x', '@x', '`x', '{a: 1}', '[1, 2]', '? x', ', x', '- x', '-', ':x', 'a: b', 'a #b', 'a:', '"a\\nb"', '"a\\"', "'a", '"a" b', "'a'#c"),
      fc.constantFrom('007', '0x1F', '0o17', '1e3', '.5', '1.', '+1', '-0', '.inf', '-.Inf', '.nan', '99999999999999999999', '1_000', '0b101'),
      fc.constantFrom('a\tb', 'x  ', '---', '...', '#x'),
    );
 const splice = fc.oneof({ arbitrary: fc.constant(''), weight: 8 }, fc.constantFrom('\n  continued', '\n---\nb: 1', '\n%YAML 1.2', '\n\tz: 1', '\nx: 1\nx: 2', '\n  - stray', '\n - odd'));
    let accepted = 0;
    let total = 0;
    fc.assert(
      fc.property(treeArb(noisyKey, noisyScalar), styleArb, splice, (tree, style, tail) => {
        const text = render(tree, style) + tail;
        total++;
        if (agree(text).accepted) accepted++;
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // Both sides of the property are exercised.
    console.info(`[fast-yaml] noisy: fast path took ${accepted} of ${total}`);
    expect(accepted).toBeGreaterThan(total / 10);
    expect(accepted).toBeLessThan(total);
  });

  it('takes the fast path for the example fleet and the generated bench fleet shapes', () => {
    const root = path.join(__dirname, '..', '..', 'fleet');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.yaml')) files.push(p);
      }
    };
    walk(root);
    const runtimeFiles = files.filter((f) => f.includes(`${path.sep}runtimes${path.sep}`));
    expect(runtimeFiles.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8').replace(/\r\n?/g, '\n');
      const { accepted } = agree(text);
      if (runtimeFiles.includes(f)) expect(accepted, f).toBe(true);
    }
  });

  it("the character gate's native pre-check agrees with the per-character rule on every BMP character", () => {
    const mismatches: string[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x0a) continue;
      const found = findForbiddenCharacters(`a${String.fromCharCode(cp)}b`).length > 0;
      if (found !== isForbiddenChar(cp)) mismatches.push(cp.toString(16));
    }
    expect(mismatches).toEqual([]);
    expect(findForbiddenCharacters('ok \u{1F600} text')).toEqual([]);
  });

  it('leaves every error to the full path: the gate reports exactly what it reported before', () => {
    const cases = ['a: 1\na: 2\n', 'a: 007\n', 'a: &x 1\nb: *x\n', '<<: {}\n', '__proto__: 1\n', 'a: !!str 1\n', '%YAML 1.2\n---\na: 1\n', 'a: 1\n---\nb: 2\n', 'a:\n\tb: 1\n'];
    for (const text of cases) {
      expect(fastParseYaml(text.replace(/\r\n?/g, '\n')), text).toBeUndefined();
      const viaGate = parseFleetYaml(Buffer.from(text), 'f.yaml');
      expect(viaGate.diagnostics.length, text).toBeGreaterThan(0);
    }
  });
});
