// Selectors that select nothing (issue 26, item 4): a group, policy or rollout ring whose selector
// matches no runtime is a warning at the requirement the runtimes miss, naming the labels the
// nearest runtimes carry; warnings never change the exit code; the verdict is the same with and
// without the run record (a reused runtime file still counts with its labels); `import runtimes`
// reports the groups its runtimes miss. On copies of the example fleet (runtimes carry geo: eu|us,
// tier: production|development|sandbox).

import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { PROJECT, landscapeRuntime, runtimeCR, writeDump } from '../onboard/kcp-dump';

let fx: FleetFixture;
afterEach(() => fx?.cleanup());

/** `fleet/<rel>:<line>:<col>` of `value` on the first line of a fleet file that contains `line`. */
function at(rel: string, line: string, value: string): string {
  const lines = fx.read(rel).split('\n');
  const i = lines.findIndex((l) => l.includes(line));
  if (i < 0) throw new Error(`${line} not in ${rel}`);
  return `fleet/${rel}:${i + 1}:${lines[i]!.indexOf(value) + 1}`;
}

const CASES: ReadonlyArray<{ name: string; edit: (fx: FleetFixture) => void; file: string; line: string; value: string; says: string }> = [
  {
    name: 'a group matchLabels value that no runtime has (geo: europe; they carry geo: eu)',
    edit: (f) => f.replace('groups/europe.yaml', 'geo: eu', 'geo: europe'),
    file: 'groups/europe.yaml',
    line: 'geo: europe',
    value: 'europe',
    says: 'warning at selector: the selector of group "europe" matches none of the 7 runtimes of the fleet; the runtimes carry geo: eu (4), geo: us (3) [W_SELECTOR_MATCHES_NONE]',
  },
  {
    name: 'a group expression over a label key no runtime has',
    edit: (f) => f.replace('groups/americas.yaml', 'key: geo', 'key: continent'),
    file: 'groups/americas.yaml',
    line: '- key: continent',
    value: 'key',
    says: 'the selector of group "americas" matches none of the 7 runtimes of the fleet; the runtimes carry no continent label (7)',
  },
  {
    name: 'a rollout ring',
    edit: (f) => f.append('fleet.yaml', '  rollout:\n    rings:\n      - name: canary\n        selector:\n          matchLabels:\n            ring: canary\n        bake: 24h\n'),
    file: 'fleet.yaml',
    line: 'ring: canary',
    value: 'canary',
    says: 'warning at rollout.rings[name=canary].selector: the selector of rollout ring "canary" matches none of the 7 runtimes of the fleet; the runtimes carry no ring label (7)',
  },
];

describe('W_SELECTOR_MATCHES_NONE', () => {
  for (const c of CASES) {
    it(`${c.name}: a warning at the requirement, with the labels the runtimes carry; exit 0`, async () => {
      fx = FleetFixture.example();
      const clean = await fx.validate();
      expect(clean.stderr).not.toContain('W_SELECTOR_MATCHES_NONE');
      c.edit(fx);
      const r = await fx.validate();
      expect(r.code, r.stderr).toBe(0);
      const lines = r.errLines.filter((l) => l.includes('W_SELECTOR_MATCHES_NONE'));
      expect(lines).toHaveLength(1);
      // At the value of the requirement (matchLabels value, or the expression's list item).
      const want = at(c.file, c.line, c.value);
      expect(lines[0]).toContain(`${want}: `);
      expect(lines[0]).toContain(c.says);
      expect(r.stdout).toMatch(/fleet: valid \(7 runtimes, 3 groups, 1 warning\)/);
    });
  }

  it('a policy whose selector matches nothing', async () => {
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', 'tier: production', 'tier: prod');
    const r = await fx.validate();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning at policies[name=production-runs-falco].selector: the selector of policy "production-runs-falco" matches none of the 7 runtimes of the fleet; the runtimes carry tier: development (3), tier: production (3), tier: sandbox (1) [W_SELECTOR_MATCHES_NONE]');
  });

  it('the same warning with the run record (runtime files reused, not parsed) as without it', async () => {
    fx = FleetFixture.example();
    const env = { XDG_CACHE_HOME: path.join(fx.dir, '.cache') };
    expect((await fx.run(['synth', '--now', NOW], env)).code).toBe(0);
    fx.replace('groups/europe.yaml', 'geo: eu', 'geo: europe');
    const cached = await fx.run(['validate', '--now', NOW], env);
    const uncached = await fx.run(['validate', '--now', NOW, '--no-cache'], env);
    expect(cached.stderr).toContain('W_SELECTOR_MATCHES_NONE');
    expect(cached.stderr).toBe(uncached.stderr);
  });

  it('no warning while a runtime file is invalid (its groups would only look empty)', async () => {
    fx = FleetFixture.example();
    fx.replace('groups/europe.yaml', 'geo: eu', 'geo: europe');
    fx.write('runtimes/broken.yaml', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\n');
    const r = await fx.validate();
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('W_SELECTOR_MATCHES_NONE');
  });
});

describe('import runtimes reports the groups its runtimes miss', () => {
  it('every example group (geo, tier) misses runtimes imported with plan/region/provider labels', async () => {
    fx = FleetFixture.example();
    writeDump(path.join(fx.dir, 'dump'), { runtimes: [0, 1, 2].map((i) => runtimeCR(landscapeRuntime(i))) });
    const r = await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--now', NOW, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const missed = r.errLines.filter((l) => l.includes('W_SELECTOR_MATCHES_NONE'));
    expect(missed.map((l) => l.slice(0, l.indexOf(':'))).sort()).toEqual(['fleet/groups/americas.yaml', 'fleet/groups/europe.yaml', 'fleet/groups/production.yaml']);
    expect(missed.find((l) => l.startsWith('fleet/groups/europe.yaml'))).toContain('matches none of the 3 imported runtimes; the runtimes carry no geo label (3)');
    const json = JSON.parse((await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--now', NOW, '--dry-run', '-o', 'json'])).stdout);
    expect(json.groupsMissed.map((d: { file: string }) => d.file)).toEqual(['fleet/groups/americas.yaml', 'fleet/groups/europe.yaml', 'fleet/groups/production.yaml']);
  });

  it('a group the imported runtimes do match is not reported', async () => {
    fx = FleetFixture.example();
    writeDump(path.join(fx.dir, 'dump'), { runtimes: [0].map((i) => runtimeCR(landscapeRuntime(i))) });
    const plan = String((await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--now', NOW, '--dry-run', '-o', 'json'])).stdout);
    const provider = JSON.parse(plan).wouldWrite[0].labels.provider as string;
    fx.replace('groups/europe.yaml', 'geo: eu', `provider: ${provider}`);
    const r = await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--now', NOW, '--dry-run']);
    expect(r.stderr).not.toContain('fleet/groups/europe.yaml');
    expect(r.stderr).toContain('fleet/groups/americas.yaml');
  });
});
