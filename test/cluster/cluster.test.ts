// The test cluster itself (harness.ts, cli.ts): it starts and is ready with the pinned version, every
// imported CRD is Established, the stand-in Shoot behaves like an API object with a status
// subresource, authentication and RBAC answer 401/403 where they must, stop() and the CLI leave no
// process, folder or port behind, and the rendered SKR folder of the example fleet applies to it.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { describeWithCluster } from './describe-with-cluster';
import { availableCrds, startTestCluster, type TestCluster } from './harness';
import { PROJECT_ROOT } from './paths';
import { pidAlive } from './processes';
import { KUBERNETES_VERSION } from './tools';

/** True when something accepts connections on 127.0.0.1:port. */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

const KYMA = (name: string) => ({
  apiVersion: 'operator.kyma-project.io/v1beta2',
  kind: 'Kyma',
  metadata: { name, namespace: 'kyma-system' },
  spec: { channel: 'regular', modules: [{ name: 'registry-cache', managed: true }] },
});

const SHOOT = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'c-test', namespace: 'garden-test', annotations: { 'kyma-fleet.dev/test': 'yes' } },
  spec: {
    region: 'eu-central-1', // not typed by the stand-in: kept as sent
    extensions: [
      { type: 'registry-cache', providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io' }] } },
      { type: 'shoot-falco-service', disabled: true },
    ],
    resources: [{ name: 'ghcr-pull', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'ghcr-pull' } }],
  },
};

describeWithCluster('the test cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster();
    await cluster.kubectl(['create', 'namespace', 'kyma-system']);
    await cluster.kubectl(['create', 'namespace', 'garden-test']);
  });
  afterAll(() => cluster?.stop());

  it('is ready, serves the pinned Kubernetes version and verifies with its CA', async () => {
    const ready = await cluster.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    const version = JSON.parse((await cluster.request('GET', '/version')).body) as { gitVersion: string };
    expect(version.gitVersion).toBe(KUBERNETES_VERSION);
    const kubectlVersion = JSON.parse((await cluster.kubectl(['version', '-o', 'json'])).stdout) as { serverVersion: { gitVersion: string }; clientVersion: { gitVersion: string } };
    expect(kubectlVersion.serverVersion.gitVersion).toBe(KUBERNETES_VERSION);
    expect(kubectlVersion.clientVersion.gitVersion).toBe(KUBERNETES_VERSION);
  });

  it('has every CRD of imports/crds/ installed and Established, the stand-in Shoot among them', async () => {
    const names = availableCrds();
    expect(names).toContain('shoots.core.gardener.cloud');
    expect(names).toContain('kustomizations.kustomize.toolkit.fluxcd.io');
    expect(names).toContain('applicationsets.argoproj.io');
    const list = JSON.parse((await cluster.kubectl(['get', 'customresourcedefinitions', '-o', 'json'])).stdout) as {
      items: Array<{ metadata: { name: string; labels?: Record<string, string> }; status: { conditions: Array<{ type: string; status: string }> } }>;
    };
    const established = list.items.filter((c) => c.status.conditions.some((x) => x.type === 'Established' && x.status === 'True')).map((c) => c.metadata.name).sort();
    expect(established).toEqual(names);
    expect(list.items.find((c) => c.metadata.name === 'shoots.core.gardener.cloud')!.metadata.labels).toEqual({ 'kyma-fleet.dev/test-stand-in': 'true' });
  });

  it('lets the admin create a Kyma CR and a stand-in Shoot, and update the Shoot through its status subresource', async () => {
    await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(KYMA('admin-kyma')) });
    const kyma = JSON.parse((await cluster.kubectl(['get', 'kyma', 'admin-kyma', '-n', 'kyma-system', '-o', 'json'])).stdout) as { spec: { modules: Array<{ name: string }> } };
    expect(kyma.spec.modules.map((m) => m.name)).toEqual(['registry-cache']);

    await cluster.kubectl(['apply', '--server-side', '--field-manager=kyma-fleet', '-f', '-'], { input: JSON.stringify(SHOOT) });
    const status = { observedGeneration: 1, lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, description: 'done', lastUpdateTime: '2026-11-25T12:00:00Z' }, lastErrors: [] };
    await cluster.kubectl(['patch', 'shoot', 'c-test', '-n', 'garden-test', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    // a status sent to the main resource is ignored: the status subresource is real
    await cluster.kubectl(['patch', 'shoot', 'c-test', '-n', 'garden-test', '--type=merge', '-p', JSON.stringify({ status: { observedGeneration: 7 } })]);
    const shoot = JSON.parse((await cluster.kubectl(['get', 'shoot', 'c-test', '-n', 'garden-test', '-o', 'json', '--show-managed-fields'])).stdout) as typeof SHOOT & { status: typeof status; metadata: { generation: number; managedFields: Array<{ manager: string; subresource?: string }> } };
    expect(shoot.status).toEqual(status);
    expect(shoot.spec).toEqual(SHOOT.spec); // unknown fields (region) and providerConfig kept as sent
    expect(shoot.metadata.annotations).toEqual(SHOOT.metadata.annotations);
    expect(shoot.metadata.generation).toBe(1);
    expect(shoot.metadata.managedFields.map((f) => `${f.manager}${f.subresource ? `/${f.subresource}` : ''}`)).toEqual(expect.arrayContaining(['kyma-fleet', 'kubectl-patch/status']));
  });

  it('refuses in the stand-in Shoot what gardener-apiserver refuses in those fields', async () => {
    const bad = (spec: object) => cluster.kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], { check: false, input: JSON.stringify({ ...SHOOT, metadata: { name: 'c-bad', namespace: 'garden-test' }, spec }) });
    const duplicate = await bad({ extensions: [{ type: 'falco' }, { type: 'falco' }] });
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toContain('spec.extensions[].type: Duplicate value');
    const badRef = await bad({ resources: [{ name: 'x', resourceRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' } }] });
    expect(badRef.code).not.toBe(0);
    expect(badRef.stderr).toContain('resourceRef: Unsupported value');
    const badType = await bad({ extensions: [{ type: 'Registry_Cache' }] });
    expect(badType.code).not.toBe(0);
    expect(badType.stderr).toContain('spec.extensions[0].type');
  });

  it('gives the narrow user 403 on Shoots and lets it work with Kyma CRs', async () => {
    for (const args of [['get', 'shoots', '-A'], ['get', 'shoot', 'c-test', '-n', 'garden-test']]) {
      const denied = await cluster.kubectl(args, { as: 'narrow', check: false });
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toMatch(/Forbidden.*User "kyma-fleet-narrow" cannot (list|get) resource "shoots" in API group "core.gardener.cloud"/);
    }
    const raw = await cluster.request('GET', '/apis/core.gardener.cloud/v1beta1/namespaces/garden-test/shoots/c-test', { as: 'narrow' });
    expect(raw.status).toBe(403);

    await cluster.kubectl(['apply', '--server-side', '-f', '-'], { as: 'narrow', input: JSON.stringify(KYMA('narrow-kyma')) });
    const got = await cluster.kubectl(['get', 'kyma', 'narrow-kyma', '-n', 'kyma-system', '-o', 'name'], { as: 'narrow' });
    expect(got.stdout.trim()).toBe('kyma.operator.kyma-project.io/narrow-kyma');
    expect((await cluster.request('GET', '/apis/operator.kyma-project.io/v1beta2/namespaces/kyma-system/kymas', { as: 'narrow' })).status).toBe(200);
  });

  it('answers 401 to a wrong token and to none on a resource', async () => {
    expect((await cluster.request('GET', '/api/v1/namespaces', { token: 'not-a-token' })).status).toBe(401);
    const anonymous = await cluster.request('GET', '/api/v1/namespaces', { token: '' });
    expect(anonymous.status).toBe(403); // anonymous is authenticated as system:anonymous, and RBAC forbids it
    const kubeconfig = path.join(cluster.dir, 'wrong.kubeconfig');
    fs.writeFileSync(kubeconfig, fs.readFileSync(cluster.adminKubeconfig, 'utf8').replace(cluster.adminToken, 'not-a-token'));
    const res = spawnSync(cluster.binaries.kubectl, [`--kubeconfig=${kubeconfig}`, 'get', 'namespaces'], { encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('You must be logged in to the server');
  });

  it('deletes a CRD with its objects and installs it again; refuses an unknown CRD name', async () => {
    const crd = 'registrycaches.core.kyma-project.io';
    const collection = '/apis/core.kyma-project.io/v1beta1/namespaces/kyma-system/registrycaches';
    await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify({ apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCache', metadata: { name: 'default', namespace: 'kyma-system' }, spec: {} }) });
    await cluster.deleteCrd(crd);
    expect((await cluster.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`)).status).toBe(404);
    expect((await cluster.request('GET', collection)).status).toBe(404);
    expect(await cluster.installCrds([crd])).toEqual([crd]);
    const list = await cluster.request('GET', collection);
    expect(list.status).toBe(200);
    expect((JSON.parse(list.body) as { items: unknown[] }).items).toEqual([]); // the old object went with the CRD
    await expect(cluster.installCrds(['nosuch.example.com'])).rejects.toThrow(/no CRD nosuch.example.com in .*imports\/crds \(available: applicationsets.argoproj.io, /);
  });

  it('applies the rendered SKR folders of the example fleet with server-side apply', async () => {
    for (const target of ['skr', 'skr-config']) {
      const folder = path.join(PROJECT_ROOT, 'dist', 'runtimes', 'acme-eu-prod-2', target);
      if (target !== 'skr' && !fs.existsSync(folder)) continue; // skr is required; skr-config only where the render has it
      const built = await cluster.kubectl(['kustomize', folder]);
      const namespaces = new Set(parseAllDocuments(built.stdout).map((d) => (d.toJS() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace).filter((n): n is string => !!n));
      for (const ns of namespaces) {
        await cluster.kubectl(['create', 'namespace', ns, '--dry-run=client', '-o', 'yaml']).then((r) => cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: r.stdout }));
      }
      const applied = await cluster.kubectl(['apply', '--server-side', '--field-manager=kyma-fleet-test', '-k', folder]);
      expect(applied.stdout).toMatch(/serverside-applied/);
    }
    const kyma = JSON.parse((await cluster.kubectl(['get', 'kyma', 'default', '-n', 'kyma-system', '-o', 'json'])).stdout) as { spec: { modules: Array<{ name: string }> } };
    expect(kyma.spec.modules.map((m) => m.name)).toContain('registry-cache');
  });
});

describeWithCluster('stopping a test cluster', () => {
  it('stop() ends its processes, frees its ports and removes its folder; a second stop() is a no-op', async () => {
    const cluster = await startTestCluster({ crds: [] });
    const { pids, ports, dir } = cluster;
    expect(pidAlive(pids.apiserver) && pidAlive(pids.etcd)).toBe(true);
    expect(await portOpen(ports.apiserver)).toBe(true);
    expect(await portOpen(ports.etcdClient)).toBe(true);
    await cluster.stop();
    await cluster.stop();
    expect(pidAlive(pids.apiserver)).toBe(false);
    expect(pidAlive(pids.etcd)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
    for (const port of Object.values(ports)) expect(await portOpen(port)).toBe(false);
  });

  it('a test process killed with SIGKILL (no exit handlers run) leaves nothing behind: the watchdog ends its cluster', async () => {
    const compiled = spawnSync('npx', ['tsc', '-p', 'test/cluster/tsconfig.json'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0);
    const script = `require(${JSON.stringify(path.join(PROJECT_ROOT, 'lib', 'test', 'cluster', 'harness.js'))}).startTestCluster({ crds: [] })
      .then((c) => { process.stdout.write(JSON.stringify({ dir: c.dir, pids: c.pids, ports: c.ports }) + '\\n'); setInterval(() => {}, 1000); },
            (e) => { process.stderr.write(e.message); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.on('close', (code) => reject(new Error(`cluster process exited with ${code}: ${stderr}`)));
    });
    const { dir, pids, ports } = JSON.parse(line) as { dir: string; pids: { etcd: number; apiserver: number }; ports: Record<string, number> };
    expect(pidAlive(pids.apiserver)).toBe(true);
    child.kill('SIGKILL');
    const deadline = Date.now() + 15_000;
    while ((pidAlive(pids.apiserver) || pidAlive(pids.etcd) || fs.existsSync(dir)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(pidAlive(pids.apiserver)).toBe(false);
    expect(pidAlive(pids.etcd)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
    for (const port of Object.values(ports)) expect(await portOpen(port)).toBe(false);
  });

  it('npm run test-cluster -- start/stop runs a background cluster and leaves nothing behind', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-cli-')), 'cluster');
    try {
      const run = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('npm', ['run', '-s', 'test-cluster', '--', ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => { stdout += d; });
        child.stderr.on('data', (d: Buffer) => { stderr += d; });
        child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
      });
      const started = await run(['start', '--dir', dir]);
      expect(started.code, started.stderr).toBe(0);
      const kubeconfig = started.stdout.trimEnd().split('\n').at(-1)!;
      expect(kubeconfig).toBe(path.join(dir, 'admin.kubeconfig'));
      const state = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')) as { pids: { etcd: number; apiserver: number }; ports: Record<string, number>; binaries: { kubectl: string } };
      const get = spawnSync(state.binaries.kubectl, [`--kubeconfig=${kubeconfig}`, 'get', 'crd', 'shoots.core.gardener.cloud', '-o', 'name'], { encoding: 'utf8' });
      expect(get.stdout.trim(), get.stderr).toBe('customresourcedefinition.apiextensions.k8s.io/shoots.core.gardener.cloud');

      const stopped = await run(['stop', '--dir', dir]);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(pidAlive(state.pids.apiserver)).toBe(false);
      expect(pidAlive(state.pids.etcd)).toBe(false);
      expect(fs.existsSync(dir)).toBe(false);
      for (const port of Object.values(state.ports)) expect(await portOpen(port)).toBe(false);
    } finally {
      // a failed assertion must not leave the background cluster running
      spawnSync('npm', ['run', '-s', 'test-cluster', '--', 'stop', '--dir', dir], { cwd: PROJECT_ROOT });
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
