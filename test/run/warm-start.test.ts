// The workers the CLI starts before it loads the checker and the renderer (src/run/warm-start.ts):
// handed to the plan of exactly the folders (and prelude) they were started for, once; stopped for
// any other. test/incremental.test.ts shows a plan taking them and its loader using their listing.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeWarm, warmStart } from '../../src/run/warm-start';

let dir: string;
let outDir: string;
let fleetRoot: string;
const env = { KYMA_FLEET_WORKERS: '2' };

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-warm-start-'));
  outDir = path.join(dir, 'dist');
  fleetRoot = path.join(dir, 'fleet');
  fs.mkdirSync(outDir);
  fs.mkdirSync(path.join(fleetRoot, 'runtimes'), { recursive: true });
  // Only its size counts here: over 1.8 MB, the plan starts a worker ahead (src/write/tree-scan.ts warmWorkers).
  fs.writeFileSync(path.join(outDir, '.kyma-fleet-index.json'), 'x'.repeat(2_000_000));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('warm workers started by the CLI', () => {
  it('are handed once to the plan of the folders they were started for (paths as the plan resolves them)', () => {
    const started = warmStart({ fleetDir: 'fleet', outDir: 'dist', cwd: dir, prelude: true, env });
    expect(started).toBeDefined();
    expect(takeWarm(outDir, fleetRoot, true)).toBe(started);
    expect(takeWarm(outDir, fleetRoot, true)).toBeUndefined();
    started!.stop();
  });

  it.each([
    ['another out folder', () => takeWarm(path.join(dir, 'elsewhere'), fleetRoot, true)],
    ['another fleet folder', () => takeWarm(outDir, path.join(dir, 'other-fleet'), true)],
    ['a plan that wants the listing of runtimes/ they were not asked for', () => takeWarm(outDir, fleetRoot, false)],
  ])('are stopped, not handed on, for %s', (_label, take) => {
    const started = warmStart({ fleetDir: 'fleet', outDir: 'dist', cwd: dir, prelude: true, env });
    expect(take()).toBeUndefined();
    // Stopped: none is left to take a task.
    expect(started!.take()).toBeUndefined();
    expect(takeWarm(outDir, fleetRoot, true)).toBeUndefined();
  });

  it('a second start stops the first', () => {
    const first = warmStart({ fleetDir: 'fleet', outDir: 'dist', cwd: dir, prelude: false, env });
    const second = warmStart({ fleetDir: 'fleet', outDir: 'dist', cwd: dir, prelude: false, env });
    expect(first!.take()).toBeUndefined();
    expect(takeWarm(outDir, fleetRoot, false)).toBe(second);
    second!.stop();
  });

  it('starts none for a dist/ too small for workers, or a single thread', () => {
    expect(warmStart({ fleetDir: 'fleet', outDir: 'no-dist', cwd: dir, prelude: true, env })).toBeUndefined();
    expect(warmStart({ fleetDir: 'fleet', outDir: 'dist', cwd: dir, prelude: true, env: { KYMA_FLEET_WORKERS: '1' } })).toBeUndefined();
    expect(takeWarm(outDir, fleetRoot, true)).toBeUndefined();
  });
});
