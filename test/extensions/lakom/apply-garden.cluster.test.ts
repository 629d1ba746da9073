// Lakom through `kyma-fleet apply garden` (the real binary) on the real API server of the test
// cluster (test/cluster/, stand-in Shoot CRD): the rendered shoot-lakom-service entry lands beside
// KIM's entries and the Falco entry, with the spec.resources entry of the trusted keys Secret; a
// runtime that opts out gets `disabled: true`; a changed scope replaces the entry in place; a second
// run writes nothing.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeWithCluster } from '../../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../../cluster/harness';
import { EXAMPLE_FLEET, NOW, runBinary } from '../../helpers/fleet-fixture';

type Rec = Record<string, any>;

const SHOOT_CRD = 'shoots.core.gardener.cloud';
const LAKOM = 'shoot-lakom-service';
const FALCO = 'shoot-falco-service';
const CONFIG = { apiVersion: 'lakom.extensions.gardener.cloud/v1alpha1', kind: 'LakomConfig' };
const KEYS = { name: 'acme-cosign-keys', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'acme-cosign-keys' } };

/** The example fleet's runtimes this test writes, with their Shoots. */
const RUNTIMES = {
  prod: { name: 'acme-eu-prod-1', runtimeID: '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01', namespace: 'garden-kyma-prod', shoot: 'c-3f1e8d6' },
  dev: { name: 'acme-eu-dev-1', runtimeID: '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63', namespace: 'garden-kyma-dev', shoot: 'c-1d2c3b4' },
  optedOut: { name: 'acme-us-dev-1', runtimeID: '7e6d5c4b-3a29-4180-8f7e-6d5c4b3a2915', namespace: 'garden-kyma-dev', shoot: 'c-7e6d5c4' },
} as const;
type Runtime = (typeof RUNTIMES)[keyof typeof RUNTIMES];

/** KIM's entries as KIM writes them (its registry-cache entry and its renamed credentials Secret). */
const KIM_EXTENSIONS: Rec[] = [
  { type: 'shoot-dns-service', providerConfig: { apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1', kind: 'DNSConfig', syncProvidersFromShootSpecDNS: true } },
  { type: 'registry-cache', providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io', secretReferenceName: 'reg-cache-1' }] } },
  { type: 'shoot-oidc-service', disabled: false },
];
const KIM_RESOURCES: Rec[] = [{ name: 'reg-cache-1', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-1' } }];

const shootPath = (r: Runtime): string => `/apis/core.gardener.cloud/v1beta1/namespaces/${r.namespace}/shoots/${r.shoot}`;

describeWithCluster('Lakom through kyma-fleet apply garden on a real API server', () => {
  let cluster: TestCluster;
  let ws: string;

  beforeAll(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-lakom-'));
    fs.cpSync(EXAMPLE_FLEET, path.join(ws, 'fleet'), { recursive: true });
    const synth = runBinary(['synth', '--now', NOW, '--no-cache'], ws);
    if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);
    cluster = await startTestCluster({ crds: [SHOOT_CRD] });
    for (const r of Object.values(RUNTIMES)) {
      const ns = await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: r.namespace } });
      if (ns.status !== 201 && ns.status !== 409) throw new Error(`namespace ${r.namespace}: ${ns.status}`);
      const shoot = await api('POST', `/apis/core.gardener.cloud/v1beta1/namespaces/${r.namespace}/shoots`, {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: r.shoot, namespace: r.namespace, annotations: { 'infrastructuremanager.kyma-project.io/runtime-id': r.runtimeID } },
        spec: { region: 'eu-central-1', extensions: KIM_EXTENSIONS, resources: KIM_RESOURCES },
      });
      if (shoot.status !== 201) throw new Error(`create shoot ${r.shoot}: ${shoot.status} ${JSON.stringify(shoot.body)}`);
    }
  }, 600_000);

  afterAll(async () => {
    await cluster?.stop();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  async function api(method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: Rec }> {
    const r = await cluster.request(method, apiPath, { as: 'admin', ...(body === undefined ? {} : { body }) });
    return { status: r.status, body: r.body ? (JSON.parse(r.body) as Rec) : {} };
  }

  async function getShoot(r: Runtime): Promise<Rec> {
    const got = await api('GET', shootPath(r));
    if (got.status !== 200) throw new Error(`get ${r.shoot}: ${got.status}`);
    return got.body;
  }

  function apply(...args: string[]): ReturnType<typeof runBinary> {
    return runBinary(['apply', 'garden', '--kubeconfig', cluster.adminKubeconfig, '--garden-context', 'test-cluster', '--now', NOW, '--allow-mass-change', ...args], ws);
  }

  /** The rendered entry of a type in the runtime's garden/ fragment in dist/. */
  function rendered(r: Runtime, type: string): Rec {
    const dir = path.join(ws, 'dist', 'runtimes', r.name, 'garden');
    const file = fs.readdirSync(dir).find((f) => f.startsWith('shoot-'))!;
    const fragment = parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Rec;
    return (fragment.spec.extensions as Rec[]).find((e) => e.type === type)!;
  }

  it('writes the Lakom entry beside KIM\'s entries and the Falco entry, with the trusted keys resource', async () => {
    const run = apply(RUNTIMES.prod.name, RUNTIMES.dev.name, RUNTIMES.optedOut.name, '--output', 'json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Rec;

    const prod = await getShoot(RUNTIMES.prod);
    const lakom = { type: LAKOM, providerConfig: { ...CONFIG, scope: 'KubeSystem', trustedKeysResourceName: 'acme-cosign-keys' } };
    expect(prod.spec.extensions).toStrictEqual([...KIM_EXTENSIONS, rendered(RUNTIMES.prod, FALCO), lakom]);
    expect(rendered(RUNTIMES.prod, LAKOM)).toStrictEqual(lakom);
    expect(prod.spec.resources).toStrictEqual([...KIM_RESOURCES, KEYS]);
    expect(prod.metadata.annotations['kyma-fleet.dev/shoot-resources']).toBe('acme-cosign-keys');
    expect(report.runtimes.find((x: Rec) => x.name === RUNTIMES.prod.name)).toMatchObject({ outcome: 'Applied', types: [FALCO, LAKOM] });

    // Enabled by the defaults only: no scope, no resource; Falco off there writes disabled: true.
    const dev = await getShoot(RUNTIMES.dev);
    expect(dev.spec.extensions).toStrictEqual([...KIM_EXTENSIONS, { type: FALCO, disabled: true }, { type: LAKOM, providerConfig: CONFIG }]);
    expect(dev.spec.resources).toStrictEqual(KIM_RESOURCES);

    // The runtime that opts out: disabled: true, the upstream opt-out of a landscape-wide extension.
    const optedOut = await getShoot(RUNTIMES.optedOut);
    expect(optedOut.spec.extensions.find((e: Rec) => e.type === LAKOM)).toStrictEqual({ type: LAKOM, disabled: true });
    expect(optedOut.spec.extensions.slice(0, KIM_EXTENSIONS.length)).toStrictEqual(KIM_EXTENSIONS);

    const again = apply(RUNTIMES.prod.name, RUNTIMES.dev.name, RUNTIMES.optedOut.name);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/0 written, 3 up to date/);
    expect((await getShoot(RUNTIMES.prod)).metadata.resourceVersion).toBe(prod.metadata.resourceVersion);
  });

  it('a changed scope replaces the Lakom entry in place; nothing else moves', async () => {
    const before = await getShoot(RUNTIMES.prod);
    const group = path.join(ws, 'fleet', 'groups', 'production.yaml');
    fs.writeFileSync(group, fs.readFileSync(group, 'utf8').replace('        scope: KubeSystem\n', '        scope: KubeSystemManagedByGardener\n'));
    const synth = runBinary(['synth', '--now', NOW], ws);
    expect(synth.code, synth.stderr).toBe(0);
    const run = apply(RUNTIMES.prod.name, '--output', 'json');
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as Rec).runtimes[0]).toMatchObject({ name: RUNTIMES.prod.name, outcome: 'Applied', types: [LAKOM] });
    const after = await getShoot(RUNTIMES.prod);
    const i = before.spec.extensions.findIndex((e: Rec) => e.type === LAKOM);
    expect(after.spec.extensions[i]).toStrictEqual({ type: LAKOM, providerConfig: { ...CONFIG, scope: 'KubeSystemManagedByGardener', trustedKeysResourceName: 'acme-cosign-keys' } });
    after.spec.extensions.forEach((e: Rec, j: number) => {
      if (j !== i) expect(JSON.stringify(e)).toBe(JSON.stringify(before.spec.extensions[j]));
    });
    expect(after.spec.resources).toStrictEqual(before.spec.resources);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
  });
});
