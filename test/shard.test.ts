// kyma-fleet synth --shard I/N and kyma-fleet merge: the shard of a runtime file is a stable
// function of its path; merging the shards 1..N gives a dist/ byte-identical to a plain synth
// (whatever N, also with an empty shard); merge refuses shards that are missing, duplicated, of
// another N, stale or tampered with, and reports duplicates across shards as validate does. CLI
// cases run the real binary (npm run build first).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultShardOut, parseShardSpec, shardOf } from '../src/run/shard/assign';
import { EXAMPLE_FLEET, FleetFixture, NOW, REPO, type RunResult, runBinary } from './helpers/fleet-fixture';

/** sha256 over every file under dir (relative path and bytes), dotfiles included. */
function treeHash(dir: string): string {
  if (!fs.existsSync(dir)) return 'missing';
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      h.update(path.relative(dir, p) + '\0');
      if (e.isDirectory()) walk(p);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

const runtimeFiles = (fleetDir: string): string[] =>
  fs.readdirSync(path.join(fleetDir, 'runtimes')).filter((f) => f.endsWith('.yaml')).sort().map((f) => `runtimes/${f}`);

const shardDirs = (n: number): string[] => Array.from({ length: n }, (_, i) => defaultShardOut({ index: i + 1, of: n }));

/** Renders shards 1..n (each must succeed) and merges them into dist/. */
function renderShards(fx: FleetFixture, n: number): RunResult[] {
  return Array.from({ length: n }, (_, i) => {
    const r = fx.runBinary(['synth', '--shard', `${i + 1}/${n}`, '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    return r;
  });
}

const merge = (fx: FleetFixture, dirs: string[], ...extra: string[]): RunResult => fx.runBinary(['merge', ...dirs, '--now', NOW, ...extra]);

describe('shard assignment', () => {
  it.each([
    // Given a runtime file path and N, then its shard is (first 8 hex of sha256(path)) mod N, plus 1
    ['runtimes/acme-eu-dev-1.yaml', 1],
    ['runtimes/acme-eu-dev-1.yaml', 3],
    ['runtimes/acme-eu-prod-1.yaml', 3],
    ['runtimes/acme-us-prod-1.yaml', 3],
    ['runtimes/acme-eu-dev-1.yaml', 1024],
    ['runtimes/rt-00001.yaml', 7],
  ])('%s of %i shards is the documented hash (independent recomputation)', (rel, n) => {
    const head = BigInt('0x' + createHash('sha256').update(rel).digest('hex').slice(0, 8));
    expect(shardOf(rel, n)).toBe(Number(head % BigInt(n)) + 1);
  });

  it.each([
    // Pinned: a change here re-shards every CI matrix, so it must be deliberate.
    ['runtimes/acme-eu-dev-1.yaml', 3, 3],
    ['runtimes/acme-eu-prod-1.yaml', 3, 3],
    ['runtimes/acme-us-prod-1.yaml', 3, 2],
    ['runtimes/acme-eu-dev-1.yaml', 1024, 703],
    ['runtimes/rt-00001.yaml', 7, 6],
  ])('%s of %i shards is shard %i (pinned)', (rel, n, expected) => {
    expect(shardOf(rel, n)).toBe(expected);
  });

  it.each([1, 2, 3, 7, 64, 1024])('partitions 2,000 runtime files into shards 1..%i, the same whatever the order', (n) => {
    // Given many runtime file names in two orders
    const names = Array.from({ length: 2000 }, (_, i) => `runtimes/rt-${i.toString(36)}.yaml`);
    // When each is assigned a shard
    const forward = new Map(names.map((r) => [r, shardOf(r, n)]));
    const backward = new Map([...names].reverse().map((r) => [r, shardOf(r, n)]));
    // Then every file is in exactly one shard within 1..n, independent of order
    for (const [r, s] of forward) {
      expect(Number.isInteger(s) && s >= 1 && s <= n).toBe(true);
      expect(backward.get(r)).toBe(s);
    }
    // And for small N the shards are roughly even (no shard gets more than twice its share)
    if (n <= 7) {
      const counts = new Array<number>(n).fill(0);
      for (const s of forward.values()) counts[s - 1]!++;
      expect(Math.max(...counts)).toBeLessThan((2 * names.length) / n);
    }
  });

  it.each([
    ['1/1', { index: 1, of: 1 }],
    ['2/3', { index: 2, of: 3 }],
    ['1024/1024', { index: 1024, of: 1024 }],
    ['0/3', 'I/N'],
    ['4/3', 'between 1 and N'],
    ['1/1025', 'at most 1024'],
    ['1/0', 'I/N'],
    ['01/3', 'I/N'],
    ['1/3/5', 'I/N'],
    [' 1/3', 'I/N'],
    ['a/b', 'I/N'],
    ['', 'I/N'],
  ])('--shard %j parses as %j', (value, expected) => {
    const r = parseShardSpec(value);
    if (typeof expected === 'string') expect('problem' in r && r.problem).toContain(expected);
    else expect(r).toEqual(expected);
  });
});

describe('merge of all shards equals a plain synth', () => {
  let fx: FleetFixture;
  afterEach(() => fx?.cleanup());

  const exampleRuntimes = runtimeFiles(EXAMPLE_FLEET);
  /** The smallest N at which some shard of the example fleet holds no runtime. */
  const withEmpty = [2, 3, 4, 5, 6, 7, 8].find((n) => new Set(exampleRuntimes.map((r) => shardOf(r, n))).size < n)!;

  it.each([1, 2, 3, withEmpty])('example fleet in %i shards', (n) => {
    // Given the example fleet, with a runtime that warns and a file runtimes/ ignores
    fx = FleetFixture.example();
    fx.append('runtimes/acme-eu-prod-1.yaml', '  extensions:\n    falco:\n      destinations:\n        - name: central\n        - name: logging\n        - name: stdout\n');
    fx.write('runtimes/README.md', 'not a runtime\n');
    const plain = fx.runBinary(['synth', '--out', 'plain', '--now', NOW]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('[W_FALCO_DESTINATIONS]');

    // When every shard is rendered and the shards are merged
    const shards = renderShards(fx, n);
    const merged = merge(fx, shardDirs(n));

    // Then dist/ is byte for byte what plain synth wrote, with the same summary and warnings
    expect(merged.code, merged.stderr).toBe(0);
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(treeHash(path.join(fx.dir, 'plain')));
    expect(merged.stdout).toBe(plain.stdout.replace(/^plain:/, 'dist:'));
    expect(merged.stderr).toBe(plain.stderr);
    // And the shards hold each runtime once, in the shard shardOf assigns
    const listed = shardDirs(n).flatMap((d, i) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(fx.dir, d, 'shard.json'), 'utf8'));
      expect(manifest).toMatchObject({ kind: 'KymaFleetShard', version: 1, shard: i + 1, of: n });
      for (const r of manifest.runtimes) expect(shardOf(r.relPath, n)).toBe(i + 1);
      return manifest.runtimes.map((r: { relPath: string }) => r.relPath);
    });
    expect(listed.sort()).toEqual(exampleRuntimes);
    if (n === withEmpty) expect(shards.some((s) => /\(shard \d+ of \d+, 0 runtimes, 1 file\)/.test(s.stdout))).toBe(true);
    // And no shard folder holds GitOps wiring (it depends on every runtime)
    for (const d of shardDirs(n)) expect(fs.existsSync(path.join(fx.dir, d, 'gitops'))).toBe(false);

    // When merged again, then nothing is written
    const again = merge(fx, shardDirs(n));
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('dist: up to date, nothing written (7 runtimes)\n');
  });

  it('over an existing dist/: keeps what is unchanged, rewrites a changed runtime and a hand-edited file', () => {
    // Given a dist/ of the example fleet, then a changed runtime and a hand-edited file in dist/
    fx = FleetFixture.example();
    expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    const edited = path.join(fx.dir, 'dist/runtimes/acme-us-prod-1/skr/kustomization.yaml');
    fs.appendFileSync(edited, '# hand-edited\n');
    const plain = fx.runBinary(['synth', '--out', 'plain', '--now', NOW]);
    expect(plain.code).toBe(0);
    // When the shards are rendered and merged into that dist/
    renderShards(fx, 3);
    const merged = merge(fx, shardDirs(3));
    // Then dist/ is what a plain synth of the changed fleet writes, and only the two files that
    // differ were written (the changed runtime's Kyma CR and the hand-edited file)
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe('dist: written (7 runtimes, 2 files)\n');
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(treeHash(path.join(fx.dir, 'plain')));
  });

  it('generated fleet of 50 runtimes in 4 shards', () => {
    // Given a generated fleet (the benchmark's generator)
    fx = FleetFixture.example();
    fx.remove('.');
    const { generateFleet } = require(path.join(REPO, 'lib/bench/generate-fleet.js')) as { generateFleet: (dir: string, n: number, seed: number) => unknown };
    generateFleet(fx.fleetDir, 50, 42);
    const plain = fx.runBinary(['synth', '--out', 'plain', '--now', NOW]);
    expect(plain.code, plain.stderr).toBe(0);
    // When 4 shards are rendered and merged
    renderShards(fx, 4);
    const merged = merge(fx, shardDirs(4));
    // Then dist/ equals the plain synth byte for byte
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toBe('dist: written (50 runtimes, ' + /, (\d+ files)\)/.exec(plain.stdout)![1] + ')\n');
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(treeHash(path.join(fx.dir, 'plain')));
  });
});

describe('merge refusals', () => {
  // The example fleet rendered once in 3 shards (and shard 1 of 2); every case copies them.
  let base: FleetFixture;
  let fx: FleetFixture;
  beforeAll(() => {
    base = FleetFixture.example();
    renderShards(base, 3);
    expect(base.runBinary(['synth', '--shard', '1/2', '--now', NOW]).code).toBe(0);
  });
  afterAll(() => base?.cleanup());
  afterEach(() => fx?.cleanup());

  const withShards = (): FleetFixture => {
    const f = FleetFixture.example();
    for (const d of [...shardDirs(3), 'dist.shard-1-of-2']) fs.cpSync(path.join(base.dir, d), path.join(f.dir, d), { recursive: true });
    return f;
  };
  const shardFile = (f: FleetFixture, dir: string, rel: string): string => path.join(f.dir, dir, rel);
  /** A runtime file of the example fleet that shard i of 3 renders. */
  const runtimeOfShard = (i: number): string => runtimeFiles(EXAMPLE_FLEET).find((r) => shardOf(r, 3) === i)!;
  /** A file that shard i of 3 rendered for its first runtime. */
  const renderedIn = (i: number): string => `runtimes/${path.basename(runtimeOfShard(i), '.yaml')}/skr/kustomization.yaml`;

  interface Refusal {
    readonly name: string;
    readonly given?: (f: FleetFixture) => void;
    readonly shards: string[];
    readonly args?: string[];
    readonly code: number;
    /** Every pattern must match a line of stderr. */
    readonly lines: RegExp[];
  }

  const all3 = shardDirs(3);
  const cases: Refusal[] = [
    {
      name: 'a missing shard',
      shards: [all3[0]!, all3[2]!],
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:5:9: error at of: shard 2 of 3 is missing: merge needs the folders of all shards 1 to 3 .*\[E_SHARD_SET\]$/],
    },
    {
      name: 'a shard passed twice',
      given: (f) => fs.cpSync(path.join(f.dir, all3[1]!), path.join(f.dir, 'copy-of-2'), { recursive: true }),
      shards: [...all3, 'copy-of-2'],
      code: 1,
      lines: [/^copy-of-2\/shard\.json:4:12: error at shard: shard 2 of 3 is passed twice \(also dist\.shard-2-of-3\/\); pass each shard folder once \[E_SHARD_SET\]$/],
    },
    {
      name: 'shards of different N',
      shards: ['dist.shard-1-of-2', ...all3.slice(1)],
      code: 1,
      lines: [/^dist\.shard-2-of-3\/shard\.json:5:9: error at of: shard 2 of 3, but dist\.shard-1-of-2\/shard\.json is shard 1 of 2: .*same N \[E_SHARD_SET\]$/],
    },
    {
      name: 'a fleet.yaml edited after sharding (stale key)',
      given: (f) => f.append('fleet.yaml', '# edited\n'),
      shards: all3,
      code: 1,
      lines: [1, 2, 3].map((i) => new RegExp(`^dist\\.shard-${i}-of-3/shard\\.json:6:10: error at key: shard ${i} of 3 was rendered from other fleet-wide inputs than fleet/ holds now .*kyma-fleet synth --shard ${i}/3\\) \\[E_SHARD_STALE\\]$`)),
    },
    {
      name: 'a merge at another --now than the shards, across a Falco version expiry (stale epoch)',
      shards: all3,
      args: ['--now', '2026-07-01T00:00:00Z'],
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:7:12: error at epoch: .*same --now or SOURCE_DATE_EPOCH \[E_SHARD_STALE\]$/],
    },
    {
      name: 'a runtime file added after sharding',
      given: (f) => {
        const text = f.read('runtimes/acme-eu-dev-1.yaml');
        f.write('runtimes/acme-eu-dev-9.yaml', text.replace('name: acme-eu-dev-1', 'name: acme-eu-dev-9').replace('1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63', '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c99').replace('name: c-1d2c3b4', 'name: c-1d2c3b9'));
      },
      shards: all3,
      code: 1,
      lines: [new RegExp(`^fleet/runtimes/acme-eu-dev-9\\.yaml:1:1: error: this runtime file is in no shard \\(added after the shards were rendered\\?\\); it belongs to shard ${shardOf('runtimes/acme-eu-dev-9.yaml', 3)} of 3: .*\\[E_SHARD_STALE\\]$`)],
    },
    {
      name: 'a runtime file edited after sharding',
      given: (f) => f.replace(runtimeOfShard(2), 'region:', '# edited\n  region:'),
      shards: all3,
      code: 1,
      lines: [new RegExp(`^fleet/${runtimeOfShard(2).replace(/\./g, '\\.')}:1:1: error: this runtime file changed after dist\\.shard-2-of-3/ was rendered; render it again \\(kyma-fleet synth --shard 2/3\\) \\[E_SHARD_STALE\\]$`)],
    },
    {
      name: 'a runtime file removed after sharding',
      given: (f) => f.remove(runtimeOfShard(3)),
      shards: all3,
      code: 1,
      lines: [new RegExp(`^dist\\.shard-3-of-3/shard\\.json:\\d+:\\d+: error at runtimes\\[\\d+\\]\\.relPath: ${runtimeOfShard(3).replace(/\./g, '\\.')} is no longer a runtime file of the fleet .*\\[E_SHARD_STALE\\]$`)],
    },
    {
      name: 'a rendered file edited in a shard folder (tampered)',
      given: (f) => fs.appendFileSync(shardFile(f, all3[1]!, renderedIn(2)), '# edited\n'),
      shards: all3,
      code: 1,
      lines: [new RegExp(`^dist\\.shard-2-of-3/${renderedIn(2).replace(/\./g, '\\.')}:1:1: error: does not match the hash that \\.kyma-fleet-index\\.json records for it .*\\[E_SHARD_TAMPERED\\]$`)],
    },
    {
      name: 'a rendered file deleted from a shard folder',
      given: (f) => fs.rmSync(shardFile(f, all3[2]!, renderedIn(3))),
      shards: all3,
      code: 1,
      lines: [new RegExp(`^dist\\.shard-3-of-3/${renderedIn(3).replace(/\./g, '\\.')}:1:1: error: cannot read file \\(ENOENT\\).*\\[E_SHARD_TAMPERED\\]$`)],
    },
    {
      name: 'an edited shard.json',
      given: (f) => {
        const file = shardFile(f, all3[0]!, 'shard.json');
        fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"runtimes": [', '"runtimes": [ '));
      },
      shards: all3,
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:1:1: error: does not match the hash that \.kyma-fleet-index\.json records for it .*\[E_SHARD_TAMPERED\]$/],
    },
    {
      name: 'a stale and a tampered shard at once, reporting both',
      given: (f) => {
        f.append('fleet.yaml', '# edited\n');
        fs.appendFileSync(shardFile(f, all3[1]!, renderedIn(2)), '# edited\n');
      },
      shards: all3,
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:6:10: error at key: .*\[E_SHARD_STALE\]$/, /^dist\.shard-2-of-3\/runtimes\/.*:1:1: error: does not match the hash .*\[E_SHARD_TAMPERED\]$/],
    },
    {
      name: 'a folder without shard.json',
      given: (f) => fs.mkdirSync(path.join(f.dir, 'empty')),
      shards: [...all3, 'empty'],
      code: 1,
      lines: [/^empty\/shard\.json:1:1: error: missing: empty\/ is not a shard folder; .*\[E_SHARD_MANIFEST\]$/],
    },
    {
      name: 'a folder that does not exist',
      shards: [...all3, 'nowhere'],
      code: 1,
      lines: [/^nowhere\/shard\.json:1:1: error: missing: nowhere\/ does not exist; .*\[E_SHARD_MANIFEST\]$/],
    },
    {
      name: 'a shard.json that is not JSON',
      given: (f) => fs.writeFileSync(shardFile(f, all3[0]!, 'shard.json'), '{\n  "kind": "KymaFleetShard",\n  oops\n}\n'),
      shards: all3,
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:3:3: error: not valid JSON .*\[E_SHARD_MANIFEST\]$/],
    },
    {
      name: 'a shard.json of another shape',
      given: (f) => {
        const file = shardFile(f, all3[0]!, 'shard.json');
        fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"version": 1', '"version": 2'));
      },
      shards: all3,
      code: 1,
      lines: [/^dist\.shard-1-of-3\/shard\.json:3:14: error at version: must be 1 .*\[E_SHARD_MANIFEST\]$/],
    },
    {
      name: 'a dist/ that kyma-fleet does not own (exit 4)',
      given: (f) => {
        fs.mkdirSync(path.join(f.dir, 'dist'));
        fs.writeFileSync(path.join(f.dir, 'dist', 'notes.txt'), 'mine\n');
      },
      shards: all3,
      code: 4,
      lines: [/^dist: error: dist\/ was not written by kyma-fleet .*\[E_DIST_NOT_OWNED\]$/],
    },
  ];

  it.each(cases)('refuses $name', (c) => {
    // Given the shards of the example fleet and the case's change
    fx = withShards();
    c.given?.(fx);
    const before = treeHash(path.join(fx.dir, 'dist'));
    // When they are merged
    const r = merge(fx, c.shards, ...(c.args ?? []));
    // Then merge exits with the case's code, names the problem, and leaves dist/ as it was
    expect(r.code, r.stderr).toBe(c.code);
    for (const pattern of c.lines) expect(r.errLines.some((l) => pattern.test(l)), `${pattern}\n${r.stderr}`).toBe(true);
    expect(r.stdout).toBe('');
    expect(treeHash(path.join(fx.dir, 'dist'))).toBe(before);
  });

  it('guards against mass removal unless --allow-mass-removal', () => {
    // Given a dist/ of the full example fleet, and shards of the fleet without three runtimes
    fx = FleetFixture.example();
    expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
    for (const r of runtimeFiles(EXAMPLE_FLEET).slice(0, 3)) fx.remove(r);
    renderShards(fx, 2);
    // When merged, then the removal guard refuses (exit 1), and with --allow-mass-removal merges
    const refused = merge(fx, shardDirs(2));
    expect(refused.code).toBe(1);
    expect(refused.errLines[0]).toMatch(/^dist: error: synth would remove 3 of 7 runtimes from dist\/ .*\[E_MASS_REMOVAL\]$/);
    const allowed = merge(fx, shardDirs(2), '--allow-mass-removal');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/^dist: written \(4 runtimes, \d+ files?, \d+ files removed\)\n$/);
  });
});

describe('checks across shards', () => {
  let fx: FleetFixture;
  afterEach(() => fx?.cleanup());

  /** The first runtime file in shard 1 of 2 and the first in shard 2 of 2. */
  const [inOne, inTwo] = [1, 2].map((i) => runtimeFiles(EXAMPLE_FLEET).find((r) => shardOf(r, 2) === i)!) as [string, string];
  const valueOf = (rel: string, key: string): string => new RegExp(`^\\s*${key}: (\\S+)$`, 'm').exec(fs.readFileSync(path.join(EXAMPLE_FLEET, rel), 'utf8'))![1]!;

  it.each([
    {
      name: 'a runtime ID declared in two shards',
      code: 'E_DUPLICATE_RUNTIME_ID',
      given: (f: FleetFixture) => f.replace(inTwo, `runtimeID: ${valueOf(inTwo, 'runtimeID')}`, `runtimeID: ${valueOf(inOne, 'runtimeID').toUpperCase()}`),
      names: [inOne, inTwo],
    },
    {
      name: 'a Shoot declared in two shards',
      code: 'E_DUPLICATE_SHOOT',
      given: (f: FleetFixture) => {
        const block = /shoot:\n\s+name: \S+\n\s+project: \S+/;
        f.replace(inTwo, block.exec(f.read(inTwo))![0], block.exec(f.read(inOne))![0]);
      },
      names: [inOne, inTwo],
    },
    {
      name: 'an empty fleet',
      code: 'E_EMPTY_FLEET',
      given: (f: FleetFixture) => {
        for (const r of runtimeFiles(EXAMPLE_FLEET)) f.remove(r);
      },
      names: [],
    },
  ])('reports $name exactly as validate does', ({ code, given, names }) => {
    // Given a fleet whose problem only shows across shards
    fx = FleetFixture.example();
    given(fx);
    const validated = fx.runBinary(['validate', '--now', NOW]);
    expect(validated.code).toBe(1);
    const expected = validated.errLines.filter((l) => l.endsWith(`[${code}]`));
    expect(expected.length).toBeGreaterThan(0);
    for (const n of names) expect(expected.join('\n')).toContain(`fleet/${n}`);
    // When each shard renders (each is valid on its own) and the shards are merged
    renderShards(fx, 2);
    const r = merge(fx, shardDirs(2));
    // Then merge reports the same lines as validate, exit 1, nothing written
    expect(r.code).toBe(1);
    expect(r.errLines.filter((l) => l.endsWith(`[${code}]`))).toEqual(expected);
    expect(fs.existsSync(path.join(fx.dir, 'dist'))).toBe(false);
  });
});

describe('synth --shard', () => {
  let fx: FleetFixture;
  afterEach(() => fx?.cleanup());

  it('fails only the shard that holds an invalid runtime, writing nothing for it', () => {
    // Given an invalid runtime file in shard 2 of 3
    fx = FleetFixture.example();
    const bad = runtimeFiles(EXAMPLE_FLEET).find((r) => shardOf(r, 3) === 2)!;
    fx.replace(bad, /runtimeID: \S+/.exec(fx.read(bad))![0], 'runtimeID: not-a-uuid');
    // When each shard renders
    const runs = [1, 2, 3].map((i) => fx.runBinary(['synth', '--shard', `${i}/3`, '--now', NOW]));
    // Then shard 2 exits 1 with the error line and writes nothing; the others do not read that file
    expect(runs.map((r) => r.code)).toEqual([0, 1, 0]);
    expect(runs[1]!.errLines[0]).toMatch(new RegExp(`^fleet/${bad.replace(/\./g, '\\.')}:\\d+:\\d+: error at runtimeID: `));
    expect(runs[1]!.errLines.at(-1)).toBe('fleet: 1 error; dist.shard-2-of-3/ left unchanged');
    expect(fs.existsSync(path.join(fx.dir, 'dist.shard-2-of-3'))).toBe(false);
    expect(runs[0]!.stderr + runs[2]!.stderr).toBe('');
  });

  it('validates the fleet-wide layers in every shard', () => {
    // Given an invalid fleet.yaml
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', 'channel: regular', 'channel: Regular');
    // When any shard renders, then it fails with the fleet.yaml error
    for (const i of [1, 2]) {
      const r = fx.runBinary(['synth', '--shard', `${i}/2`, '--now', NOW]);
      expect(r.code).toBe(1);
      expect(r.errLines[0]).toMatch(/^fleet\/fleet\.yaml:\d+:\d+: error at defaults\.channel: /);
    }
  });

  it('writes to --out when given, and shard.json is deterministic', () => {
    fx = FleetFixture.example();
    const a = fx.runBinary(['synth', '--shard', '2/3', '--out', 'a', '--now', NOW]);
    const b = fx.runBinary(['synth', '--shard', '2/3', '--out', 'b', '--now', NOW, '--no-cache'], { TZ: 'Pacific/Kiritimati', LC_ALL: 'tr_TR.UTF-8' });
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toMatch(/^a: written \(shard 2 of 3, \d+ runtimes?, \d+ files?\)\n$/);
    expect(treeHash(path.join(fx.dir, 'a'))).toBe(treeHash(path.join(fx.dir, 'b')));
    const text = fs.readFileSync(path.join(fx.dir, 'a', 'shard.json'), 'utf8');
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + '\n');
    expect(Object.keys(JSON.parse(text))).toEqual(['kind', 'version', 'shard', 'of', 'key', 'epoch', 'runtimes']);
    expect(fs.existsSync(path.join(fx.dir, 'dist.shard-2-of-3'))).toBe(false);
  });
});

describe('command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-shard-cli-'));
    fs.cpSync(EXAMPLE_FLEET, path.join(dir, 'fleet'), { recursive: true });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]): RunResult => runBinary(args, dir);

  it.each([
    [['synth', '--shard', '0/3'], /^error: --shard must be I\/N with whole numbers 1 ≤ I ≤ N ≤ 1024, e\.g\. --shard 2\/8 \(got "0\/3"\)$/],
    [['synth', '--shard', '4/3'], /^error: --shard: I must be between 1 and N \(got "4\/3"\)$/],
    [['synth', '--shard', '1/1025'], /^error: --shard: N must be at most 1024 \(got "1\/1025"\)$/],
    [['synth', '--shard', 'two/three'], /^error: --shard must be I\/N/],
    [['synth', '--shard'], /option '--shard <I\/N>' argument missing/],
    [['synth', '--shard', '1/2', '--check'], /^error: --check cannot be combined with --shard: /],
    [['synth', '--shard', '1/2', '--allow-empty'], /^error: --allow-empty cannot be combined with --shard: /],
    [['merge'], /missing required argument 'shard-dir'/],
    [['merge', 'x', '--shard', '1/2'], /unknown option '--shard'/],
  ])('kyma-fleet %j is a usage error (exit 2)', (args, message) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.errLines.some((l) => message.test(l)), r.stderr).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['fleet']);
  });

  it('lists merge and --shard in the help', () => {
    expect(run(['--help']).stdout).toMatch(/^\s+merge \[options\] <shard-dir\.\.\.>/m);
    expect(run(['synth', '--help']).stdout).toContain('--shard <I/N>');
  });
});
