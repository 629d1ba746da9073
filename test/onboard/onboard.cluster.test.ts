// The onboarding commands against a real kube-apiserver (test/cluster/) through the built CLI: the
// real Runtime, ModuleReleaseMeta and FalcoProfile CRDs, 300 Runtime CRs as KEB creates them (the
// hostile ones a real server accepts: missing labels, a runtime-id label that is no UUID, a Shoot
// name that is no DNS label, two CRs claiming one runtime ID, one in another namespace), read live
// with the kubeconfig's current context. import writes exactly the missing runtimes, they
// validate, synth renders them, a second import writes nothing; catalog and profile refresh read
// the same cluster (it serves as KCP and Garden).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { writeKubeconfig } from '../cluster/cluster-files';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { falcoProfile, generateLandscape, type Landscape, moduleReleaseMetas, PROJECT } from './kcp-dump';

const CRDS = ['runtimes.infrastructuremanager.kyma-project.io', 'modulereleasemetas.operator.kyma-project.io', 'falcoprofiles.falco.gardener.cloud'];
/** Faults a real API server refuses (a label value with spaces, an uppercase name) or that a client cannot set (deletionTimestamp). */
const SERVER_REFUSES = ['kyma-project.io/provider', 'being deleted', 'is not the lowercase runtime ID'];

describeWithCluster('onboarding from a real KCP', () => {
  let cluster: TestCluster;
  let fx: FleetFixture;
  let land: Landscape;
  let created: Landscape['runtimes'];

  const runtimeFiles = () => fs.readdirSync(fx.path('runtimes')).sort();

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: CRDS });
    for (const ns of ['kcp-system', 'kcp-other']) await cluster.kubectl(['create', 'namespace', ns]);
    land = generateLandscape(300);
    const refused = new Set(land.hostile.filter((h) => SERVER_REFUSES.includes(h.says)).map((h) => h.name));
    created = land.runtimes.filter((o) => !refused.has(o.metadata.name));
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...created, ...moduleReleaseMetas(), falcoProfile([{ version: '0.42.1', classification: 'supported' }, { version: '0.44.2', classification: 'supported' }])] }), timeoutMs: 120_000 });
    fx = FleetFixture.example();
  }, 600_000);

  afterAll(async () => {
    fx?.cleanup();
    await cluster?.stop();
  });

  it('import writes exactly the runtimes the fleet lacks, read live with the current context', () => {
    const before = runtimeFiles();
    const r = fx.runBinary(['import', 'runtimes', '--kubeconfig', cluster.adminKubeconfig, '--project', PROJECT, '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    const added = runtimeFiles().filter((f) => !before.includes(f));
    const ids = added.map((f) => (parse(fx.read(`runtimes/${f}`)) as { spec: { runtimeID: string } }).spec.runtimeID).sort();
    expect(ids).toEqual([...land.importable].sort());
    for (const h of land.hostile.filter((x) => !SERVER_REFUSES.includes(x.says))) {
      expect(r.errLines.some((l) => (l.includes(`/${h.name} `) || l.includes(`/${h.name}:`)) && l.includes(h.says)), `a line for ${h.name}: ${h.says}`).toBe(true);
    }
    expect(r.stdout).toContain(`${land.importable.length} new written`);
  });

  it('the imported runtimes validate and synth renders them', () => {
    const v = fx.runBinary(['validate', '--now', NOW]);
    expect(v.code, v.stderr).toBe(0);
    const s = fx.runBinary(['synth', '--out', 'dist', '--now', NOW]);
    expect(s.code, s.stderr).toBe(0);
    expect(fs.readdirSync(path.join(fx.dir, 'dist', 'runtimes'))).toHaveLength(runtimeFiles().length);
  });

  it('a second import writes nothing', () => {
    const before = new Map(runtimeFiles().map((f) => [f, fx.read(`runtimes/${f}`)]));
    const r = fx.runBinary(['import', 'runtimes', '--kubeconfig', cluster.adminKubeconfig, '--kcp-context', 'test-cluster', '--project', PROJECT]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(', 0 new');
    expect(new Map(runtimeFiles().map((f) => [f, fx.read(`runtimes/${f}`)]))).toEqual(before);
  });

  it('catalog refresh and profile refresh read the live cluster', () => {
    const c = fx.runBinary(['catalog', 'refresh', '--kubeconfig', cluster.adminKubeconfig]);
    expect(c.code, c.stderr).toBe(0);
    expect(fx.read('catalog/modules.yaml')).toContain('    - name: docker-registry\n      channels: [fast]\n');
    const p = fx.runBinary(['profile', 'refresh', '--kubeconfig', cluster.adminKubeconfig, '--garden-context', 'test-cluster', '--now', NOW]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toContain('FalcoProfile: vanished 0.40.0');
    expect(p.stdout).toContain('FalcoProfile: appeared 0.44.2 (supported)');
  });

  it('a rejected token fails the read as a whole (exit 5, nothing written)', () => {
    const before = runtimeFiles();
    const config = path.join(fx.dir, 'wrong-token.yaml');
    writeKubeconfig(config, { server: cluster.server, caPem: cluster.caPem, user: 'someone', token: 'not-a-valid-token' });
    const r = fx.runBinary(['import', 'runtimes', '--kubeconfig', config, '--project', PROJECT]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Unauthorized');
    expect(runtimeFiles()).toEqual(before);
  });
});
