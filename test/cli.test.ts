// The real binary, as operators and CI run it: exit codes, output formats, annotations.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLocation, FleetFixture, NOW, REPO, runBinary } from './helpers/fleet-fixture';
import { runtime } from './hostile/catalogue';

describe('kyma-fleet binary', () => {
  it('validates the example fleet and exits 0', () => {
    const r = runBinary(['validate', '--now', NOW], REPO);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('fleet: valid (7 runtimes, 3 groups)\n');
    expect(r.stderr).toBe('');
  });

  it('prints machine-readable results with --output json', () => {
    const r = runBinary(['validate', '--output', 'json', '--now', NOW], REPO);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, errors: 0, warnings: 0, runtimes: 7, groups: 3, diagnostics: [] });
  });

  it('explains a runtime with the file and line of every value', () => {
    const r = runBinary(['explain', 'acme-eu-prod-2', '--now', NOW], REPO);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('runtime acme-eu-prod-2 (fleet/runtimes/acme-eu-prod-2.yaml)');
    const line = r.stdout.split('\n').find((l) => l.includes('caches[upstream=docker.io].volume.size'))!;
    expect(line).toMatch(/^  extensions\.registry-cache\.caches\[upstream=docker\.io\]\.volume\.size = "100Gi" +/);
    expect(line.replace(/^.*"100Gi" +/, '')).toBe(
      `${exampleLocation('runtimes/acme-eu-prod-2.yaml', 'size')} (runtime); overrides "20Gi" from ${exampleLocation('fleet.yaml', 'size')} (defaults), "50Gi" from ${exampleLocation('groups/production.yaml', 'size')} (group production)`,
    );
    expect(r.stdout).toMatch(/extensions\.falco\.autoUpdate = true\s+default of falco/);
  });

  it('explains as JSON with layers, extensions and provenance', () => {
    const r = runBinary(['explain', 'acme-us-dev-1', '--output', 'json', '--now', NOW], REPO);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.layers.map((l: { layer: string; name: string }) => `${l.layer}:${l.name}`)).toEqual(['defaults:defaults', 'group:americas', 'runtime:acme-us-dev-1']);
    expect(e.extensions).toEqual([
      { name: 'falco', state: 'disabled' },
      { name: 'lakom', state: 'disabled' },
      { name: 'registry-cache', state: 'disabled' },
    ]);
    const enabled = e.values.find((v: { path: string }) => v.path === 'extensions.registry-cache.enabled');
    expect(enabled.value).toBe(false);
    expect(enabled.source).toEqual({ layer: 'runtime', name: 'acme-us-dev-1', location: exampleLocation('runtimes/acme-us-dev-1.yaml', 'enabled') });
    expect(enabled.overrides).toEqual([{ value: true, source: { layer: 'defaults', name: 'defaults', location: exampleLocation('fleet.yaml', 'enabled', 2) } }]);
  });

  it('exits 2 for an unknown runtime name and suggests the closest one', () => {
    const r = runBinary(['explain', 'acme-eu-prod-3', '--now', NOW], REPO);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: runtime "acme-eu-prod-3" not found in fleet (did you mean "acme-eu-prod-1"?)\n');
  });

  it.each([
    [['validate', '--output', 'yaml']],
    [['validate', '--bogus']],
    [['frobnicate']],
    [['explain']],
    [['validate', '--now', 'yesterday']],
  ])('exits 2 on a usage error: %j', (args) => {
    const r = runBinary(args, REPO);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toBe('');
  });

  it('prints help and version with exit 0', () => {
    expect(runBinary(['--help'], REPO).code).toBe(0);
    const v = runBinary(['--version'], REPO);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('exits 1 when the fleet folder does not exist', () => {
    const r = runBinary(['validate', '--fleet', 'no-such-folder'], REPO);
    expect(r.code).toBe(1);
    expect(r.errLines[0]).toBe('no-such-folder:1:1: error: fleet folder not found or not a folder (ENOENT) [E_FLEET_NOT_FOUND]');
  });

  describe('on a broken fleet', () => {
    let fx: FleetFixture;
    beforeAll(() => {
      fx = FleetFixture.example();
      fx.write('runtimes/bad.yaml', runtime('bad', '  channel: Regular\n  extensions:\n    registry-cache:\n      caches:\n        - upstream: https://docker.io\n'));
    });
    afterAll(() => fx.cleanup());

    it('reports every error with file:line:col and exits 1', () => {
      const r = fx.runBinary(['validate', '--now', NOW]);
      expect(r.code).toBe(1);
      expect(r.errLines).toEqual([
        'fleet/runtimes/bad.yaml:13:12: error at channel: must be lowercase letters only (got "Regular") [E_CHANNEL]',
        'fleet/runtimes/bad.yaml:17:21: error at extensions.registry-cache.caches[upstream=https://docker.io].upstream: Invalid value: "https://docker.io": drop "https://": an upstream is host[:port], without scheme: write "docker.io" [E_REGCACHE_UPSTREAM]',
        'fleet: 2 errors',
      ]);
    });

    it('adds GitHub annotations when GITHUB_ACTIONS=true', () => {
      const r = fx.runBinary(['validate', '--now', NOW], { GITHUB_ACTIONS: 'true' });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        '::error file=fleet/runtimes/bad.yaml,line=13,col=12,title=E_CHANNEL at channel::must be lowercase letters only (got "Regular")\n',
      );
    });

    it('lists diagnostics as JSON with --output json', () => {
      const r = fx.runBinary(['validate', '--output', 'json', '--now', NOW]);
      expect(r.code).toBe(1);
      const j = JSON.parse(r.stdout);
      expect(j.ok).toBe(false);
      expect(j.diagnostics[0]).toEqual({
        severity: 'error',
        code: 'E_CHANNEL',
        file: 'fleet/runtimes/bad.yaml',
        line: 13,
        col: 12,
        field: 'channel',
        message: 'must be lowercase letters only (got "Regular")',
        // The regular expression only here, in JSON (issue 26).
        details: { pattern: '^[a-z]+$' },
      });
    });

    it('still explains a runtime of a broken fleet, with the errors on stderr and exit 1', () => {
      const r = fx.runBinary(['explain', 'acme-eu-dev-1', '--now', NOW]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('runtime acme-eu-dev-1');
      expect(r.stderr).toContain('[E_CHANNEL]');
    });
  });
});
