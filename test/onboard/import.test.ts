// `kyma-fleet import runtimes --from DIR` over a realistic KCP dump (300 Runtime CRs of five plans,
// several providers and regions, some hostile; ./kcp-dump.ts), in a copy of the example fleet:
// exactly the missing runtimes are written, every refused CR gets its line, the fleet validates and
// synth renders them, a second import writes nothing; --dry-run, --strict, --output json, existing
// files, unreadable sources and an exec kubeconfig.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createFilesTogether, FleetWriteError } from '../../src/onboard/fleet-files';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { generateLandscape, type Landscape, landscapeRuntime, PROJECT, runtimeCR, writeDump } from './kcp-dump';

const COUNT = 300;

function listRuntimeFiles(fx: FleetFixture): string[] {
  return fs.readdirSync(fx.path('runtimes')).sort();
}

function snapshot(fx: FleetFixture): Map<string, string> {
  return new Map(listRuntimeFiles(fx).map((f) => [f, fx.read(`runtimes/${f}`)]));
}

describe('import runtimes from a dump of 300 Runtime CRs', () => {
  let fx: FleetFixture;
  let land: Landscape;
  let before: Map<string, string>;
  const importArgs = ['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--now', NOW];

  beforeAll(() => {
    fx = FleetFixture.example();
    land = generateLandscape(COUNT);
    writeDump(path.join(fx.dir, 'dump'), { runtimes: land.runtimes });
    before = snapshot(fx);
  });
  afterAll(() => fx.cleanup());

  it('--dry-run lists every importable runtime and writes nothing', async () => {
    const r = await fx.run([...importArgs, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.includes(': would write ('))).toHaveLength(land.importable.length);
    expect(r.stdout).toContain(`import: 302 Runtime CRs read, 0 already in the fleet, ${land.importable.length} new (dry run: nothing written)`);
    expect(snapshot(fx)).toEqual(before);
  });

  it('writes exactly the runtimes the fleet lacks, each with its identity and selector labels', async () => {
    const r = await fx.run(importArgs);
    expect(r.code, r.stderr).toBe(0);
    const added = listRuntimeFiles(fx).filter((f) => !before.has(f));
    expect(added).toHaveLength(land.importable.length);
    const ids = added.map((f) => (parse(fx.read(`runtimes/${f}`)) as { spec: { runtimeID: string } }).spec.runtimeID).sort();
    expect(ids).toEqual([...land.importable].sort());
    // Existing files are untouched, byte for byte.
    for (const [f, text] of before) expect(fx.read(`runtimes/${f}`)).toBe(text);
    // One file in full: identity from the CR and its labels, the project from --project.
    const first = land.runtimes.find((o) => o.metadata.labels['kyma-project.io/runtime-id'] === land.importable[0])!;
    const l = first.metadata.labels;
    const name = `${l['kyma-project.io/broker-plan-name'].replace(/_/g, '-')}-${first.spec.shoot.region}-${first.spec.shoot.name}`;
    const doc = parse(fx.read(`runtimes/${name}.yaml`));
    expect(doc).toEqual({
      apiVersion: 'kyma-fleet.dev/v1alpha1',
      kind: 'KymaRuntime',
      metadata: {
        name,
        labels: { plan: l['kyma-project.io/broker-plan-name'], region: l['kyma-project.io/region'], 'platform-region': l['kyma-project.io/platform-region'], provider: l['kyma-project.io/provider'] },
      },
      spec: {
        runtimeID: land.importable[0],
        globalAccountID: l['kyma-project.io/global-account-id'],
        subaccountID: l['kyma-project.io/subaccount-id'],
        region: first.spec.shoot.region,
        shoot: { name: first.spec.shoot.name, project: PROJECT },
      },
    });
    // Every hostile CR has its own line saying what is wrong.
    for (const h of land.hostile) {
      const line = r.errLines.find((x) => x.includes(': not imported: Runtime ') && (x.includes(`/${h.name} `) || x.includes(`/${h.name}:`)));
      expect(line, `a line for ${h.name}`).toBeDefined();
      expect(line).toContain(h.says);
    }
    // The fleet's own runtimes are not in this KCP: each is reported.
    for (const f of before.keys()) expect(r.stderr).toContain(`fleet/runtimes/${f}: warning: runtime ${f.replace(/\.yaml$/, '')} (runtime ID`);
    expect(r.stderr).toContain('kcp-other');
  });

  it('leaves a fleet that validates and renders every imported runtime', async () => {
    const v = await fx.validate();
    expect(v.code, v.stderr).toBe(0);
    const s = await fx.run(['synth', '--out', 'dist', '--now', NOW]);
    expect(s.code, s.stderr).toBe(0);
    const rendered = fs.readdirSync(path.join(fx.dir, 'dist', 'runtimes'));
    expect(rendered).toHaveLength(before.size + land.importable.length);
  });

  it('writes nothing on a second import', async () => {
    const now = snapshot(fx);
    const r = await fx.run(importArgs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${land.importable.length} already in the fleet, 0 new`);
    expect(snapshot(fx)).toEqual(now);
  });
});

describe('import runtimes: options and hostile sources', () => {
  let fx: FleetFixture;
  const land = generateLandscape(40);
  beforeAll(() => {
    fx = FleetFixture.example();
    writeDump(path.join(fx.dir, 'dump'), { runtimes: land.runtimes });
  });
  afterAll(() => fx.cleanup());

  it('--strict writes nothing and exits 1 when a CR cannot be imported or a fleet runtime is missing', async () => {
    const files = listRuntimeFiles(fx);
    const r = await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--strict']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('(--strict: nothing written)');
    expect(listRuntimeFiles(fx)).toEqual(files);
  });

  it('--output json reports what it would write, what it refused and what is missing', async () => {
    const r = await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--dry-run', '--output', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.wouldWrite).toHaveLength(land.importable.length);
    expect(out.notImported.map((n: { object: string }) => n.object.split('/')[1]).sort()).toEqual(land.hostile.map((h) => h.name).sort());
    expect(out.missingFromKcp).toHaveLength(7);
    expect(out.wouldWrite[0]).toMatchObject({ labels: { plan: expect.any(String), region: expect.any(String), provider: expect.any(String) } });
  });

  it('--label-from replaces the default label rules', async () => {
    const r = await fx.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT, '--dry-run', '--output', 'json', '--label-from', 'kyma-project.io/broker-plan-name=tier']);
    expect(r.code, r.stderr).toBe(0);
    const labels = JSON.parse(r.stdout).wouldWrite.map((w: { labels: Record<string, string> }) => Object.keys(w.labels).join());
    expect(new Set(labels)).toEqual(new Set(['tier']));
  });

  it('gives a runtime whose name an existing file has the runtime ID suffix and leaves that file alone', async () => {
    const victim = land.runtimes.find((o) => o.metadata.labels['kyma-project.io/runtime-id'] === land.importable[0])!;
    const name = `${victim.metadata.labels['kyma-project.io/broker-plan-name'].replace(/_/g, '-')}-${victim.spec.shoot.region}-${victim.spec.shoot.name}`;
    const squatter = fx.read('runtimes/acme-eu-dev-1.yaml').replace('name: acme-eu-dev-1', `name: ${name}`);
    const local = FleetFixture.example();
    try {
      fs.cpSync(path.join(fx.dir, 'dump'), path.join(local.dir, 'dump'), { recursive: true });
      local.remove('runtimes/acme-eu-dev-1.yaml').write(`runtimes/${name}.yaml`, squatter);
      const r = await local.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT]);
      expect(r.code, r.stderr).toBe(0);
      expect(local.read(`runtimes/${name}.yaml`)).toBe(squatter);
      expect(r.stdout).toContain(`fleet/runtimes/${name}-${land.importable[0]!.slice(0, 8)}.yaml: written`);
    } finally {
      local.cleanup();
    }
  });

  it.each([
    [['--from', 'nowhere'], 5, 'UnreadableDump'],
    [['--from', 'dump', '--kubeconfig', 'k.yaml'], 2, 'not both'],
    [[], 2, 'no kubeconfig: no --kubeconfig, no $KUBECONFIG'],
    [['--from', 'dump', '--kcp-context', 'kcp'], 2, 'only apply to a live cluster'],
  ])('refuses %j with exit %i', async (args, code, says) => {
    const r = await fx.run(['import', 'runtimes', '--project', PROJECT, ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(says);
  });

  it('requires --project', async () => {
    const r = await fx.run(['import', 'runtimes', '--from', 'dump']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--project PROJECT is required');
  });

  it('refuses a kubeconfig whose user runs a command, unless --allow-exec (nothing is run, nothing written)', async () => {
    const marker = path.join(fx.dir, 'exec-ran');
    fx.write('../kcp.yaml', [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: kcp, cluster: {server: "https://127.0.0.1:1"}}]',
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "touch ${marker}"]}}}]`,
      'contexts: [{name: kcp, context: {cluster: kcp, user: u}}]',
      'current-context: kcp',
      '',
    ].join('\n'));
    const r = await fx.run(['import', 'runtimes', '--kubeconfig', 'kcp.yaml', '--project', PROJECT]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('RefusedCredentials');
    expect(r.stderr).toContain('refused without --allow-exec');
    // The same file found through $KUBECONFIG, as kubectl finds it.
    const viaEnv = await fx.run(['import', 'runtimes', '--project', PROJECT], { KUBECONFIG: path.join(fx.dir, 'kcp.yaml') });
    expect(viaEnv.code).toBe(5);
    expect(viaEnv.stderr).toContain('refused without --allow-exec');
    expect(fs.existsSync(marker)).toBe(false);
    // With --allow-exec the plugin runs (its token then meets a closed port: Unreachable, exit 5).
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 't' } });
    fx.write('../kcp-allowed.yaml', fx.read('../kcp.yaml').replace(`touch ${marker}`, `touch ${marker}; echo '${credential.replace(/"/g, '\\"')}'`));
    const allowed = await fx.run(['import', 'runtimes', '--kubeconfig', 'kcp-allowed.yaml', '--allow-exec', '--timeout', '5', '--project', PROJECT]);
    expect(allowed.code).toBe(5);
    expect(allowed.stderr).not.toContain('refused without --allow-exec');
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('does not write a file the validator would refuse, and says why (a Shoot another runtime declares)', async () => {
    const local = FleetFixture.example();
    try {
      // acme-eu-prod-2 declares Shoot garden-kyma-prod/c-8b7c6d5; a new runtime on the same Shoot is refused.
      const clash = runtimeCR({ ...landscapeRuntime(7), shootName: 'c-8b7c6d5' });
      const fine = runtimeCR(landscapeRuntime(8));
      writeDump(path.join(local.dir, 'dump'), { runtimes: [clash, fine] });
      const r = await local.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT]);
      expect(r.code, r.stderr).toBe(0);
      const line = r.errLines.find((l) => l.includes(`not imported: Runtime kcp-system/${clash.metadata.name}`));
      expect(line).toContain('would not validate');
      expect(line).toContain('[E_DUPLICATE_SHOOT]');
      // The seven runtimes of the example and the one that validates; nothing of the refused one.
      expect(fs.readdirSync(local.path('runtimes'))).toHaveLength(8);
      expect(fs.readdirSync(local.path('runtimes')).some((f) => f.endsWith('-c-8b7c6d5.yaml'))).toBe(false);
      expect(r.stdout).toContain(`: written (runtime ID ${landscapeRuntime(8).runtimeID}`);
    } finally {
      local.cleanup();
    }
  });

  it('refuses an invalid fleet before reading anything into it', async () => {
    const local = FleetFixture.example();
    try {
      fs.cpSync(path.join(fx.dir, 'dump'), path.join(local.dir, 'dump'), { recursive: true });
      local.replace('runtimes/acme-eu-dev-1.yaml', 'region: eu-west-1', 'region: "eu west"');
      const files = fs.readdirSync(local.path('runtimes'));
      const r = await local.run(['import', 'runtimes', '--from', 'dump', '--project', PROJECT]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('fix the fleet before importing (nothing written)');
      expect(fs.readdirSync(local.path('runtimes'))).toEqual(files);
    } finally {
      local.cleanup();
    }
  });
});

describe('writing new files together', () => {
  it('creates none of them when one cannot be written, and leaves no temporary file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-together-'));
    try {
      fs.writeFileSync(path.join(dir, 'blocker'), 'a file, not a folder');
      const files = new Map([
        [path.join(dir, 'runtimes', 'a.yaml'), 'a'],
        [path.join(dir, 'runtimes', 'b.yaml'), 'b'],
        [path.join(dir, 'blocker', 'c.yaml'), 'c'],
      ]);
      expect(() => createFilesTogether(files, (p) => path.relative(dir, p))).toThrow(FleetWriteError);
      expect(fs.readdirSync(path.join(dir, 'runtimes'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never replaces an existing file: the run is undone', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-together-'));
    try {
      fs.writeFileSync(path.join(dir, 'b.yaml'), 'mine');
      const files = new Map([
        [path.join(dir, 'a.yaml'), 'a'],
        [path.join(dir, 'b.yaml'), 'b'],
      ]);
      let error: unknown;
      try {
        createFilesTogether(files, (p) => path.basename(p));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FleetWriteError);
      expect((error as FleetWriteError).exists).toBe(true);
      expect(fs.readdirSync(dir)).toEqual(['b.yaml']);
      expect(fs.readFileSync(path.join(dir, 'b.yaml'), 'utf8')).toBe('mine');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
