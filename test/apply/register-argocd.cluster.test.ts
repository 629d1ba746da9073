// `kyma-fleet register argocd` against the test cluster, through the built CLI: one cluster serves as
// the KCP (KIM's kubeconfig-<runtimeID> Secrets in kcp-system), as Argo CD's cluster (cluster Secrets
// in argocd) and as the runtimes' API server the kubeconfigs point at (allowed by
// skrApiServers: ["127.0.0.1:*"]). Each case is one step of a registration's life: first
// registration, nothing to do, KIM's rotation of a kubeconfig, a runtime leaving the fleet, a
// kubeconfig Secret that disappears, a kubeconfig that must be refused, a dry run, Secrets of others,
// and a user without the rights the docs name. The cluster Secret is checked field by field against
// Argo CD's declarative format (test/argocd runs argo-cd's own code on it).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

type Rec = Record<string, any>;

function kubeconfig(server: string, caPem: string, user: Rec, contexts: string[] = ['kcp']): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'u', user }],
    contexts: contexts.map((n) => ({ name: n, context: { cluster: 'c', user: 'u' } })),
    'current-context': contexts[0],
  });
}

describeWithCluster('kyma-fleet register argocd against the test cluster', () => {
  let cluster: TestCluster;
  let fx: FleetFixture;
  let operatorConfig: string;
  const ids: Record<string, string> = {};

  const run = (...args: string[]) => fx.runBinary(['register', 'argocd', '--kubeconfig', operatorConfig, '--now', NOW, ...args]);
  const json = (...args: string[]): Rec => {
    const r = run('-o', 'json', ...args);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as Rec;
  };
  const outcomes = (doc: Rec): Record<string, string> => Object.fromEntries((doc.runtimes as Rec[]).map((e) => [e.runtime, e.outcome]));
  async function kimSecret(runtime: string, config: string | undefined): Promise<void> {
    const name = `kubeconfig-${ids[runtime]}`;
    await cluster.kubectl(['delete', 'secret', '-n', 'kcp-system', name, '--ignore-not-found']);
    if (config === undefined) return;
    const file = path.join(fx.dir, `${name}.yaml`);
    fs.writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'kcp-system' }, data: { config: Buffer.from(config).toString('base64') } }));
    await cluster.kubectl(['apply', '-f', file]);
  }
  async function registered(): Promise<Map<string, Rec>> {
    const out = await cluster.kubectl(['get', 'secrets', '-n', 'argocd', '-l', 'argocd.argoproj.io/secret-type=cluster', '-o', 'json']);
    return new Map((JSON.parse(out.stdout).items as Rec[]).map((s) => [s.metadata.name as string, s]));
  }
  const decoded = (s: Rec): Record<string, string> => Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: [] });
    for (const ns of ['kcp-system', 'argocd']) await cluster.kubectl(['create', 'namespace', ns]);
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', '  skrApiServers:\n    - "*.kyma.ondemand.com"\n', '  skrApiServers: ["127.0.0.1:*"]\n');
    for (const f of fs.readdirSync(fx.path('runtimes'))) {
      ids[f.replace(/\.yaml$/, '')] = String((parse(fx.read(`runtimes/${f}`)) as Rec).spec.runtimeID).toLowerCase();
    }
    operatorConfig = path.join(fx.dir, 'operator.kubeconfig');
    fs.writeFileSync(operatorConfig, kubeconfig(cluster.server, cluster.caPem, { token: cluster.adminToken }, ['kcp', 'argocd']));
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    if (fx) fs.rmSync(fx.dir, { recursive: true, force: true });
  });

  it('registers every runtime with a kubeconfig Secret, in Argo CD\'s declarative cluster format, and lists the others', async () => {
    await kimSecret('acme-eu-prod-1', kubeconfig(cluster.server, cluster.caPem, { token: cluster.adminToken }));
    await kimSecret('acme-eu-prod-2', kubeconfig(cluster.server, cluster.caPem, { token: cluster.narrowToken }));
    const doc = json();
    expect(doc.ok).toBe(true);
    expect(outcomes(doc)).toMatchObject({ 'acme-eu-prod-1': 'created', 'acme-eu-prod-2': 'created', 'acme-us-dev-1': 'not-registered' });
    expect((doc.runtimes as Rec[]).find((e) => e.runtime === 'acme-us-dev-1')).toMatchObject({ reason: 'NoCredentials' });
    expect(doc.counts).toMatchObject({ created: 2, 'not-registered': Object.keys(ids).length - 2 });

    const secrets = await registered();
    expect([...secrets.keys()].sort()).toEqual([`kyma-fleet-cluster-${ids['acme-eu-prod-1']}`, `kyma-fleet-cluster-${ids['acme-eu-prod-2']}`].sort());
    const s = secrets.get(`kyma-fleet-cluster-${ids['acme-eu-prod-1']}`)!;
    expect(s.metadata.labels).toStrictEqual({
      'argocd.argoproj.io/secret-type': 'cluster',
      'app.kubernetes.io/managed-by': 'kyma-fleet',
      'kyma-fleet.dev/runtime': 'acme-eu-prod-1',
      'kyma-fleet.dev/runtime-id': ids['acme-eu-prod-1'],
    });
    const data = decoded(s);
    expect(data.name).toBe(`kyma-${ids['acme-eu-prod-1']}`);
    expect(data.server).toBe(cluster.server);
    expect(JSON.parse(data.config!)).toStrictEqual({
      bearerToken: cluster.adminToken,
      tlsClientConfig: { caData: Buffer.from(cluster.caPem).toString('base64'), insecure: false },
    });
  });

  it('a second run changes nothing', async () => {
    const before = await registered();
    const doc = json();
    expect(doc.counts).toMatchObject({ created: 0, updated: 0, deleted: 0, unchanged: 2 });
    const after = await registered();
    for (const [name, s] of before) expect(after.get(name)!.metadata.resourceVersion, name).toBe(s.metadata.resourceVersion);
  });

  it('follows KIM\'s rotation of a kubeconfig (client certificates included)', async () => {
    const cert = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
    const key = Buffer.from('-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n').toString('base64');
    await kimSecret('acme-eu-prod-1', kubeconfig(cluster.server, cluster.caPem, { 'client-certificate-data': cert, 'client-key-data': key }));
    const r = run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('acme-eu-prod-1: registration renewed\n');
    expect(r.stdout).toContain('register argocd: 0 new, 1 renewed, 1 up to date, 0 removed,');
    const config = JSON.parse(decoded((await registered()).get(`kyma-fleet-cluster-${ids['acme-eu-prod-1']}`)!).config!);
    expect(config).toStrictEqual({ tlsClientConfig: { caData: Buffer.from(cluster.caPem).toString('base64'), certData: cert, insecure: false, keyData: key } });
  });

  it('a kubeconfig it must refuse (an exec plugin) is reported and leaves the registration as it was', async () => {
    const before = (await registered()).get(`kyma-fleet-cluster-${ids['acme-eu-prod-2']}`)!;
    await kimSecret('acme-eu-prod-2', kubeconfig(cluster.server, cluster.caPem, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'exit 1'] } }));
    const doc = json();
    const entry = (doc.runtimes as Rec[]).find((e) => e.runtime === 'acme-eu-prod-2')!;
    expect(entry).toMatchObject({ outcome: 'not-registered', reason: 'RefusedCredentials' });
    expect(entry.message).toContain(`kcp-system/kubeconfig-${ids['acme-eu-prod-2']}`);
    expect((await registered()).get(`kyma-fleet-cluster-${ids['acme-eu-prod-2']}`)!.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('never touches cluster Secrets it did not write', async () => {
    const foreign = path.join(fx.dir, 'foreign.yaml');
    fs.writeFileSync(
      foreign,
      stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'someone-elses', namespace: 'argocd', labels: { 'argocd.argoproj.io/secret-type': 'cluster', 'kyma-fleet.dev/runtime-id': ids['acme-us-dev-1'] } }, stringData: { name: 'x', server: 'https://x.example' } }),
    );
    await cluster.kubectl(['apply', '-f', foreign]);
    json();
    expect((await registered()).has('someone-elses')).toBe(true);
  });

  it('--dry-run says what it would do and writes nothing', async () => {
    fx.remove('runtimes/acme-eu-prod-1.yaml');
    const before = await registered();
    const r = run('--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('acme-eu-prod-1: would remove its registration\n');
    expect([...(await registered()).keys()].sort()).toEqual([...before.keys()].sort());
  });

  it('removes the registration of a runtime that left the fleet, and of one whose kubeconfig Secret is gone', async () => {
    await kimSecret('acme-eu-prod-2', undefined);
    const doc = json();
    expect(outcomes(doc)).toMatchObject({ 'acme-eu-prod-1': 'deleted', 'acme-eu-prod-2': 'deleted' });
    // one entry per runtime: the runtime whose Secret is gone is reported deleted once, with why
    const lost = (doc.runtimes as Array<{ runtime: string; outcome: string; reason?: string }>).filter((e) => e.runtime === 'acme-eu-prod-2');
    expect(lost).toEqual([expect.objectContaining({ outcome: 'deleted', reason: 'NoCredentials' })]);
    expect([...(await registered()).keys()]).toEqual(['someone-elses']);
  });

  it('without the right to write Argo CD\'s Secrets the run fails as a whole (exit 5) and names what it could not do', async () => {
    // The narrow user may read Secrets, not write them (test/cluster/cluster-files.ts NARROW_RULES).
    await kimSecret('acme-eu-prod-2', kubeconfig(cluster.server, cluster.caPem, { token: cluster.adminToken }));
    fs.writeFileSync(operatorConfig, kubeconfig(cluster.server, cluster.caPem, { token: cluster.narrowToken }, ['kcp', 'argocd']));
    const r = run('-o', 'json');
    expect(r.code).toBe(5);
    const doc = JSON.parse(r.stdout) as Rec;
    expect(doc).toMatchObject({ ok: false, exitCode: 5, failure: { reason: 'Forbidden' } });
    expect(doc.failure.message).toContain(`create secret argocd/kyma-fleet-cluster-${ids['acme-eu-prod-2']} (Argo CD): HTTP 403`);
    expect([...(await registered()).keys()]).toEqual(['someone-elses']);
  });
});
