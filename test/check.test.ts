// `synth --check` and `diff` (diffDist) run the synth pipeline up to the write: parts in worker
// threads for a large fleet, every byte of dist/ compared, only differing files staged, and dist/
// left as it is. Their report must be exactly what comparing the two whole trees in memory gives
// (diffTrees, the way diffDist worked before), whichever path rendered the fleet.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../bench/generate-fleet';
import { diffTrees, isEmptyDiff } from '../src/render/tree-diff';
import { diffDist, synth } from '../src/run/synth';
import { readCurrentDist } from './helpers/read-dist';
import { treeHash } from './write/dist-fixture';

const NOW = new Date('2026-11-21T00:00:00Z');
/** Parts from the first runtime file, two workers: the path a fleet of thousands takes. */
const PARTS = { KYMA_FLEET_WORKERS: '2', KYMA_FLEET_PARALLEL_MIN: '1' };
/** Everything in this thread. */
const SEQUENTIAL = { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' };

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-check-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Every file under dir (relPath -> text), as a fresh synth of the fleet writes it. */
function rendered(fleetDir: string): Map<string, string> {
  const out = fs.mkdtempSync(path.join(root, 'reference-'));
  fs.rmdirSync(out);
  expect(synth({ fleetDir, outDir: out, cwd: root, now: NOW, env: SEQUENTIAL }).exitCode).toBe(0);
  const files = readCurrentDist(out).files;
  fs.rmSync(out, { recursive: true, force: true });
  return new Map(files);
}

/** A generated fleet in a folder of its own (dist/ beside it), with dist/ rendered when `synthed`. */
function workspace(prefix: string, runtimes: number, seed: number, synthed: boolean): { dir: string; fleetDir: string; distDir: string } {
  const dir = fs.mkdtempSync(path.join(root, prefix));
  const fleetDir = path.join(dir, 'fleet');
  generateFleet(fleetDir, runtimes, seed);
  const distDir = path.join(dir, 'dist');
  if (synthed) expect(synth({ fleetDir, outDir: distDir, cwd: dir, now: NOW, env: SEQUENTIAL }).exitCode).toBe(0);
  return { dir, fleetDir, distDir };
}

const runtimeFiles = (fleetDir: string): string[] => fs.readdirSync(path.join(fleetDir, 'runtimes')).sort();

/** Edits of the fleet or of dist/ after dist/ was written, and how a whole-tree comparison sees them. */
const CASES: ReadonlyArray<{ name: string; edit: (fleetDir: string, distDir: string) => void }> = [
  { name: 'nothing changed', edit: () => {} },
  {
    name: 'one runtime changed (a cache TTL)',
    edit: (fleetDir) => {
      const file = path.join(fleetDir, 'runtimes', runtimeFiles(fleetDir)[3]!);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^kind: KymaRuntime$/m, 'kind: KymaRuntime').replace(/^spec:$/m, 'spec:\n  channel: fast'));
    },
  },
  {
    name: 'a runtime added and another removed',
    edit: (fleetDir) => {
      const [first, second] = runtimeFiles(fleetDir);
      const text = fs.readFileSync(path.join(fleetDir, 'runtimes', second!), 'utf8');
      const name = /^ {2}name: (\S+)$/m.exec(text)![1]!;
      fs.writeFileSync(
        path.join(fleetDir, 'runtimes', 'zz-added.yaml'),
        text
          .replace(`name: ${name}`, 'name: zz-added')
          .replace(/runtimeID: \S+/, 'runtimeID: 00000000-0000-4000-8000-00000000abcd')
          .replace(/^( {4}name: )c-\S+$/m, '$1c-zzadded'),
      );
      fs.rmSync(path.join(fleetDir, 'runtimes', first!));
    },
  },
  {
    name: 'a dist/ file edited by hand (the index still lists its old hash)',
    edit: (_fleetDir, distDir) => {
      const skr = path.join(distDir, 'runtimes', fs.readdirSync(path.join(distDir, 'runtimes')).sort()[0]!, 'skr', 'kustomization.yaml');
      fs.appendFileSync(skr, '# edited\n');
    },
  },
];

describe('synth --check and diff report what a whole-tree comparison reports', () => {
  for (const { name, edit } of CASES) {
    for (const [how, env] of [['parts in two workers', PARTS], ['one thread', SEQUENTIAL]] as const) {
      it(`${name} (${how})`, () => {
        const { dir, fleetDir, distDir } = workspace('case-', 40, 5, true);
        edit(fleetDir, distDir);
        const before = treeHash(distDir);
        const expected = diffTrees(readCurrentDist(distDir).files, rendered(fleetDir));
        expect(isEmptyDiff(expected)).toBe(name === 'nothing changed');

        const r = diffDist({ fleetDir, outDir: distDir, cwd: dir, now: NOW, env });
        expect(r.exitCode, JSON.stringify(r.diagnostics.slice(0, 3))).toBe(0);
        expect(r.parts).toBe(env === PARTS ? 2 : undefined);
        expect(r.diff).toEqual(expected);
        // dist/ as it was, and nothing left beside it.
        expect(treeHash(distDir)).toBe(before);
        expect(fs.readdirSync(dir).sort()).toEqual(['dist', 'fleet']);
        fs.rmSync(dir, { recursive: true, force: true });
      }, 120_000);
    }
  }

  it('a file the index lists but dist/ lost shows as changed (synth would write it again)', () => {
    const { dir, fleetDir, distDir } = workspace('lost-', 12, 8, true);
    const runtime = fs.readdirSync(path.join(distDir, 'runtimes')).sort()[2]!;
    const lost = `runtimes/${runtime}/kcp/kustomization.yaml`;
    const text = fs.readFileSync(path.join(distDir, lost), 'utf8');
    fs.rmSync(path.join(distDir, lost));
    const r = diffDist({ fleetDir, outDir: distDir, cwd: dir, now: NOW, env: PARTS });
    expect(r.diff).toMatchObject({ added: [], changed: [lost], removed: [], runtimes: { added: [], removed: [], changed: [runtime] } });
    // Its patch is the whole file, from nothing.
    expect(r.diff!.patches.get(lost)).toBe(diffTrees(new Map(), new Map([[lost, text]])).patches.get(lost));
  }, 120_000);

  it('no dist/ yet (nor the folders above it): every file is added, and nothing is created', () => {
    const { dir, fleetDir } = workspace('fresh-', 10, 4, false);
    const r = diffDist({ fleetDir, outDir: path.join(dir, 'dist'), cwd: dir, now: NOW, env: PARTS });
    expect(r.diff).toEqual(diffTrees(new Map(), rendered(fleetDir)));
    expect(fs.readdirSync(dir)).toEqual(['fleet']);
    // Below folders that do not exist either: the staging folder's parents are removed again.
    const deep = diffDist({ fleetDir, outDir: path.join(dir, 'build', 'out', 'dist'), cwd: dir, now: NOW, env: SEQUENTIAL });
    expect(deep.diff).toEqual(r.diff);
    expect(fs.readdirSync(dir)).toEqual(['fleet']);
  }, 120_000);

  it('an invalid fleet reports its errors and no diff, and a dist/ kyma-fleet does not own is refused (exit 4), untouched', () => {
    const { dir, fleetDir, distDir } = workspace('refused-', 10, 4, false);
    fs.mkdirSync(distDir);
    fs.writeFileSync(path.join(distDir, 'notes.txt'), 'mine\n');
    const refused = diffDist({ fleetDir, outDir: distDir, cwd: dir, now: NOW, env: PARTS });
    expect(refused).toMatchObject({ exitCode: 4, problem: { code: 'E_DIST_NOT_OWNED' } });
    expect(refused.diff).toBeUndefined();
    expect(fs.readdirSync(distDir)).toEqual(['notes.txt']);
    const file = path.join(fleetDir, 'runtimes', runtimeFiles(fleetDir)[0]!);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^spec:$/m, 'spec:\n  channel: Fast'));
    const invalid = diffDist({ fleetDir, outDir: distDir, cwd: dir, now: NOW, env: PARTS });
    expect(invalid.exitCode).toBe(1);
    expect(invalid.diff).toBeUndefined();
    expect(invalid.diagnostics.some((d) => d.severity === 'error' && d.field === 'channel')).toBe(true);
  }, 120_000);
});
