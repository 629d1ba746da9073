// The parse cache returns exactly what parsing returns, survives damage, and is keyed by content.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parserFiles } from '../../src/load/parse-cache';
import { checkFleet } from '../../src/run/check';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

describe('the parse cache', () => {
  let fx: FleetFixture | undefined;
  let cacheDir: string;
  afterEach(() => {
    fx?.cleanup();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  const run = () => checkFleet({ fleetDir: fx!.fleetDir, cwd: fx!.dir, now: new Date(NOW), cacheDir });
  const plain = (r: ReturnType<typeof run>) => JSON.stringify({ d: r.diagnostics, s: r.runtimes.map((x) => [x.settings, x.assignments]) });

  it('gives the same result cold, warm, damaged and after an edit', () => {
    fx = FleetFixture.example();
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-cache-'));
    const uncached = plain(checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW) }));
    expect(plain(run())).toBe(uncached);
    const [folder] = fs.readdirSync(cacheDir);
    expect(folder).toMatch(/^parse-[0-9a-f]{16}$/);
    const buckets = fs.readdirSync(path.join(cacheDir, folder!));
    expect(buckets.length).toBeGreaterThan(1);
    for (const b of buckets) expect(b).toMatch(/^[0-9]{2}\.json$/);
    expect(plain(run())).toBe(uncached);
    // a damaged cache is ignored
    for (const b of buckets) fs.writeFileSync(path.join(cacheDir, folder!, b), '{"key": "x", "entr');
    expect(plain(run())).toBe(uncached);
    // an edited file is parsed again (keyed by content), including its diagnostics
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: Fast\n');
    const edited = run();
    expect(edited.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`)).toEqual([expect.stringMatching(/^fleet\/runtimes\/acme-eu-dev-1\.yaml:\d+:\d+ E_CHANNEL$/)]);
    expect(plain(run())).toBe(plain(edited));
  });

  it('keeps parse diagnostics of a broken file and reports them under the right name', () => {
    fx = FleetFixture.example();
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-cache-'));
    fx.write('runtimes/broken.yaml', 'a: [\n');
    const first = run().diagnostics.filter((d) => d.code === 'E_YAML_SYNTAX');
    const second = run().diagnostics.filter((d) => d.code === 'E_YAML_SYNTAX');
    expect(first.length).toBe(1);
    expect(second).toEqual(first);
    expect(second[0]!.file).toBe('fleet/runtimes/broken.yaml');
  });

  it('is keyed by the code of every module of the YAML gate (a changed parser never serves old parses)', () => {
    const names = parserFiles().map((f) => path.basename(f).replace(/\.(js|ts)$/, ''));
    expect(names).toEqual(expect.arrayContaining(['parse-yaml', 'positions', 'fast-yaml', 'text-checks']));
  });
});
