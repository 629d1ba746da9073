// `kyma-fleet profile refresh`: the Garden's FalcoProfile (a dump folder's garden/) becomes the
// snapshot fleet.yaml names, atomically; what appeared, was deprecated, expired or vanished is
// printed with the runtimes pinned to it, and which runtimes' resolved settings change or stop
// validating. The example fleet pins falcoVersion 0.42.1 in the production group (three runtimes)
// and acme-us-dev-2 takes the profile's default.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeProfileChange, falcoProfileSnapshot } from '../../src/extensions/falco/snapshot';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { falcoProfile, writeDump } from './kcp-dump';

const PROFILE = 'profiles/falco-profile.yaml';
const PRODUCTION = ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1'];
/** The runtimes on 0.42.1: the production group's pin, and acme-us-dev-2 by the profile's default. */
const ON_0_42_1 = ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-dev-2', 'acme-us-prod-1'];

/** The example's snapshot as the Garden would serve it. */
const CURRENT = [
  { version: '0.40.0', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z' },
  { version: '0.41.3', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z' },
  { version: '0.42.1', classification: 'supported' },
  { version: '0.43.0', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z' },
  { version: '0.44.1', classification: 'preview' },
];

describe('profile refresh', () => {
  let fx: FleetFixture;
  beforeEach(() => {
    fx = FleetFixture.example();
  });
  afterEach(() => fx.cleanup());

  const refresh = (versions: typeof CURRENT, ...extra: string[]) => {
    writeDump(path.join(fx.dir, 'dump'), { garden: [falcoProfile(versions)] });
    return fx.run(['profile', 'refresh', '--from', 'dump', '--now', NOW, ...extra]);
  };

  it('rewrites the snapshot in its canonical form and then finds nothing to do', async () => {
    const first = await refresh(CURRENT);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('fleet/profiles/falco-profile.yaml: written (no version changes, 0 runtimes affected)');
    const doc = parse(fx.read(PROFILE)) as { spec: { versions: { falco: Array<{ version: string }> } } };
    expect(doc.spec.versions.falco.map((v) => v.version)).toEqual(CURRENT.map((v) => v.version));
    const again = await refresh(CURRENT);
    expect(again.stdout).toContain('up to date, nothing written');
    expect(fs.readdirSync(fx.path('profiles'))).toEqual(['falco-profile.yaml']);
  });

  it('names a version that vanished and the runtimes pinned to it, which no longer validate', async () => {
    const r = await refresh(CURRENT.filter((v) => v.version !== '0.42.1'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`FalcoProfile: vanished 0.42.1: ${ON_0_42_1.join(', ')}`);
    for (const name of PRODUCTION) expect(r.stdout).toMatch(new RegExp(`${name}: no longer validates: .*version not found in possible versions`));
    // No supported version is left for the default: acme-us-dev-2 renders none.
    expect(r.stdout).toContain('acme-us-dev-2: extensions.falco.falcoVersion: "0.42.1" -> unset');
    const v = await fx.validate();
    expect(v.code).toBe(1);
  });

  it('names a version that appeared and the runtimes whose default moves to it', async () => {
    const r = await refresh([...CURRENT, { version: '0.44.2', classification: 'supported' }]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('FalcoProfile: appeared 0.44.2 (supported)');
    expect(r.stdout).toContain('acme-us-dev-2: extensions.falco.falcoVersion: "0.42.1" -> "0.44.2"');
    for (const name of PRODUCTION) expect(r.stdout).not.toContain(`${name}: extensions.falco`);
  });

  it('names a version that expired, and one newly deprecated, with the runtimes on it', async () => {
    const r = await refresh(CURRENT.map((v) => (v.version === '0.42.1' ? { ...v, classification: 'deprecated', expirationDate: '2026-11-01T00:00:00Z' } : v.version === '0.44.1' ? { ...v, classification: 'supported' } : v)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`FalcoProfile: expired 0.42.1 (expired 2026-11-01T00:00:00Z): ${ON_0_42_1.join(', ')}`);
    expect(r.stdout).toContain('acme-us-dev-2: extensions.falco.falcoVersion: "0.42.1" -> "0.44.1"');
    const later = describeProfileChange(fs.readFileSync(fx.path(PROFILE)), (falcoProfileSnapshot(falcoProfile(CURRENT.map((v) => (v.version === '0.44.1' ? { ...v, classification: 'deprecated', expirationDate: '2027-01-31T00:00:00Z' } : v))) as never) as { text: string }).text, new Date(NOW), [
      { name: 'rt-a', config: { falcoVersion: '0.44.1' } },
    ]);
    expect(later).toContainEqual({ kind: 'deprecated', item: '0.44.1', detail: 'expires 2027-01-31T00:00:00Z', runtimes: ['rt-a'] });
  });

  it('--dry-run prints the changes and writes nothing', async () => {
    const before = fx.read(PROFILE);
    const r = await refresh(CURRENT.filter((v) => v.version !== '0.42.1'), '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('vanished 0.42.1');
    expect(r.stdout).toContain('dry run, nothing written');
    expect(fx.read(PROFILE)).toBe(before);
  });

  it('refuses a profile the admission webhook could not use, and writes nothing', async () => {
    const before = fx.read(PROFILE);
    const r = await refresh([{ version: '0.45', classification: 'supported' }]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('must be a semantic version');
    expect(fx.read(PROFILE)).toBe(before);
  });

  it('fails when the Garden has no FalcoProfile falco, or the fleet names no snapshot', async () => {
    writeDump(path.join(fx.dir, 'empty'), {});
    const none = await fx.run(['profile', 'refresh', '--from', 'empty']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('the Garden has no FalcoProfile falco');
    fx.replace('fleet.yaml', '  falcoProfile: profiles/falco-profile.yaml\n', '');
    const unnamed = await fx.run(['profile', 'refresh', '--from', 'empty']);
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toContain('names no snapshot to refresh');
  });

  it('replaces the file atomically: a symlinked snapshot is refused', async () => {
    const target = path.join(fx.dir, 'elsewhere.yaml');
    fs.writeFileSync(target, 'x');
    fx.remove(PROFILE).symlink(PROFILE, target);
    const r = await refresh(CURRENT);
    expect(r.code).toBe(4);
    expect(fs.readFileSync(target, 'utf8')).toBe('x');
  });
});
