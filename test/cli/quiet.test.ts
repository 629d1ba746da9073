// --quiet keeps only errors, through the built binary: no summary lines, no warnings (with their
// GitHub annotations), while errors, their annotations and an --output json document stay.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

let fx: FleetFixture;
beforeAll(() => {
  // Three Falco destinations on one runtime: a warning (W_FALCO_DESTINATIONS), the fleet stays valid.
  fx = FleetFixture.example().append('runtimes/acme-us-dev-2.yaml', '        - name: logging\n        - name: opensearch\n          resourceSecretName: opensearch-secret\n');
});
afterAll(() => fx.cleanup());

const WARNING = /warning at extensions\.falco\.destinations\[name=[a-z]+\]\.name: .*\[W_FALCO_DESTINATIONS\]/;

describe('--quiet', () => {
  it('without it: a summary and the warning (the cases below show both go)', () => {
    const r = fx.runBinary(['validate', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('fleet: valid (7 runtimes, 3 groups, 1 warning)\n');
    expect(r.stderr).toMatch(WARNING);
  });

  it.each([[['validate', '--now', NOW, '--quiet']], [['-q', 'validate', '--now', NOW]], [['synth', '--now', NOW, '-q']], [['diff', '--now', NOW, '-q']], [['explain', 'acme-us-dev-2', '--now', NOW, '-q']]])(
    'prints nothing when all is well: %j',
    (args) => {
      const r = fx.runBinary(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    },
  );

  it('keeps the errors and drops the warnings; under GitHub Actions the ::error annotations only', () => {
    fx.replace('runtimes/acme-eu-prod-2.yaml', 'upstream: docker.io', 'upstream: https://docker.io');
    try {
      // --out: no previous render (synth above wrote dist/; its immutable fields are not the point here).
      const plain = fx.runBinary(['validate', '--now', NOW, '--out', 'none']);
      expect(plain.stderr).toMatch(WARNING);
      const r = fx.runBinary(['validate', '--now', NOW, '--out', 'none', '-q']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.errLines).toEqual([expect.stringMatching(/^fleet\/runtimes\/acme-eu-prod-2\.yaml:\d+:\d+: error at extensions\.registry-cache\.caches\[upstream=https:\/\/docker\.io\]\.upstream: .*\[E_REGCACHE_UPSTREAM\]$/), 'fleet: 1 error, 1 warning']);
      const gh = fx.runBinary(['validate', '--now', NOW, '--out', 'none', '-q'], { GITHUB_ACTIONS: 'true' });
      expect(gh.stdout.split('\n').filter((l) => l !== '')).toEqual([expect.stringMatching(/^::error file=fleet\/runtimes\/acme-eu-prod-2\.yaml,/)]);
      expect(plain.stdout).toBe('');
      expect(fx.runBinary(['validate', '--now', NOW, '--out', 'none'], { GITHUB_ACTIONS: 'true' }).stdout).toMatch(/^::warning /m);
    } finally {
      fx.replace('runtimes/acme-eu-prod-2.yaml', 'upstream: https://docker.io', 'upstream: docker.io');
    }
  });

  it('still prints the --output json document', () => {
    const r = fx.runBinary(['validate', '--now', NOW, '-q', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, warnings: 1 });
    expect(r.stderr).toBe('');
  });
});
