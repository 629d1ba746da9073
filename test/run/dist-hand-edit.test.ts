// A hand edit in dist/ (issue 26, item 3): `synth` and `synth --check` always agree on whether
// dist/ is current, a plain synth restores the edited file, and nothing blames a fleet file (or
// advises removing a cache) for what was changed in dist/. Through the built CLI (npm run build
// first), with a cache folder of the test's own so the run record of a plain synth is in play.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture, NOW, type RunResult } from '../helpers/fleet-fixture';

const SIZE_FILE = 'runtimes/acme-eu-dev-1/skr-config/registrycacheconfig-docker.io.yaml';
const KYMA_FILE = 'runtimes/acme-eu-dev-1/skr/kyma-default.yaml';

let fx: FleetFixture;
afterEach(() => fx?.cleanup());

function cli(args: string[]): RunResult {
  return fx.runBinary([...args, '--now', NOW], { XDG_CACHE_HOME: path.join(fx.dir, '.cache') });
}
const dist = (rel: string): string => path.join(fx.dir, 'dist', rel);

/** Nothing in the output blames the fleet or advises a destructive step. */
function expectNoBlame(r: RunResult): void {
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(/^fleet\//m);
  expect(all).not.toContain('E_IMMUTABLE_FIELD');
  expect(all).not.toMatch(/remove the cache|images are lost/);
}

describe('a file of dist/ edited by hand', () => {
  it('a cache size: --check and synth agree, synth restores it, no fleet file is blamed', () => {
    fx = FleetFixture.example();
    expect(cli(['synth']).code).toBe(0);
    const original = fs.readFileSync(dist(SIZE_FILE), 'utf8');
    expect(original).toContain('size: 20Gi');
    fs.writeFileSync(dist(SIZE_FILE), original.replace('size: 20Gi', 'size: 99Gi'));

    const check = cli(['synth', '--check']);
    expectNoBlame(check);
    expect(check.code).toBe(3);
    expect(check.stderr).toContain(`changed  ${SIZE_FILE}`);
    expect(check.stderr).toContain(`dist/${SIZE_FILE}:1:1: warning: edited by hand since the last synth`);

    const validate = cli(['validate']);
    expectNoBlame(validate);
    expect(validate.code).toBe(0);

    const synth = cli(['synth']);
    expectNoBlame(synth);
    expect(synth.code).toBe(0);
    expect(synth.stdout).toContain('written (7 runtimes, 1 file)');
    expect(fs.readFileSync(dist(SIZE_FILE), 'utf8')).toBe(original);

    expect(cli(['synth', '--check'])).toMatchObject({ code: 0 });
    expect(cli(['synth']).stdout).toContain('up to date, nothing written');
  });

  it('a file no check reads, and a deleted one: synth restores both and then agrees with --check', () => {
    fx = FleetFixture.example();
    expect(cli(['synth']).code).toBe(0);
    const kyma = fs.readFileSync(dist(KYMA_FILE), 'utf8');
    const size = fs.readFileSync(dist(SIZE_FILE), 'utf8');
    fs.writeFileSync(dist(KYMA_FILE), kyma.replace('channel: ', 'channel: x'));
    fs.rmSync(dist(SIZE_FILE));
    expect(cli(['synth', '--check']).code).toBe(3);
    const synth = cli(['synth']);
    expect(synth.code).toBe(0);
    expect(synth.stdout).toContain('written (7 runtimes, 2 files)');
    expect(fs.readFileSync(dist(KYMA_FILE), 'utf8')).toBe(kyma);
    expect(fs.readFileSync(dist(SIZE_FILE), 'utf8')).toBe(size);
    expect(cli(['synth', '--check']).code).toBe(0);
  });

  it('without a run record (a fresh clone with a committed dist/): synth restores the edit too', () => {
    fx = FleetFixture.example();
    expect(cli(['synth']).code).toBe(0);
    const kyma = fs.readFileSync(dist(KYMA_FILE), 'utf8');
    fs.writeFileSync(dist(KYMA_FILE), kyma.replace('channel: ', 'channel: x'));
    fs.rmSync(path.join(fx.dir, '.cache'), { recursive: true, force: true });
    expect(cli(['synth', '--check']).code).toBe(3);
    expect(cli(['synth']).stdout).toContain('written (7 runtimes, 1 file)');
    expect(fs.readFileSync(dist(KYMA_FILE), 'utf8')).toBe(kyma);
  });

  it('a fleet change with a hand edit: the write staged before the look at dist/ lets go of it, and the run is done again', () => {
    fx = FleetFixture.example();
    expect(cli(['synth']).code).toBe(0);
    const kyma = fs.readFileSync(dist(KYMA_FILE), 'utf8');
    fs.writeFileSync(dist(KYMA_FILE), kyma.replace('channel: ', 'channel: x'));
    fx.replace('runtimes/acme-eu-prod-2.yaml', 'ttl: 72h', 'ttl: 96h');
    const synth = cli(['synth']);
    expectNoBlame(synth);
    expect(synth.code).toBe(0);
    expect(fs.readFileSync(dist(KYMA_FILE), 'utf8')).toBe(kyma);
    expect(fs.readFileSync(dist('runtimes/acme-eu-prod-2/skr-config/registrycacheconfig-ghcr.io.yaml'), 'utf8')).toContain('96h');
    expect(fs.existsSync(path.join(fx.dir, 'dist.lock'))).toBe(false);
    expect(cli(['synth', '--check']).code).toBe(0);
  });

  it('a file touched with the same bytes costs one verifying run and changes nothing', () => {
    fx = FleetFixture.example();
    expect(cli(['synth']).code).toBe(0);
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(dist(KYMA_FILE), later, later);
    const synth = cli(['synth']);
    expect(synth.code).toBe(0);
    expect(synth.stdout).toContain('up to date, nothing written');
    expect(synth.stderr).toBe('');
  });
});
