// apply garden against the fake API server (test/status/fake-kube-api.ts), for what a real server
// cannot be made to do on demand: a write answered 429 with Retry-After or 503 is retried; a write
// whose answer is slow or cut off fails that Shoot only (Timeout, InvalidData) and the others are
// written; a 401 on any read stops the whole run before a single write. The real-server behaviour
// (409 conflicts, generations, RBAC) is in apply-garden.cluster.test.ts.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyGarden, type GardenTarget } from '../../src/apply/apply-garden';
import { SHOOT_RUNTIME_ID_ANNOTATION } from '../../src/apply/shoot-entries';
import { FakeKubeApi, status } from '../status/fake-kube-api';

const TOKEN = 'garden-token';
const FALCO = { type: 'shoot-falco-service', providerConfig: { apiVersion: 'falco.extensions.gardener.cloud/v1alpha1', kind: 'FalcoServiceConfig', autoUpdate: true } };

function target(i: number): GardenTarget {
  return {
    name: `rt-${i}`,
    runtimeID: `8c2a7f5e-000${i}-4d2a-9e1b-00000000000${i}`,
    shootNamespace: 'garden-p',
    shootName: `c-${i}`,
    owned: { extensions: [FALCO], resources: [] },
  };
}

function shoot(t: GardenTarget): Record<string, unknown> {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: t.shootName, namespace: t.shootNamespace, resourceVersion: '7', generation: 3, annotations: { [SHOOT_RUNTIME_ID_ANNOTATION]: t.runtimeID } },
    spec: { extensions: [{ type: 'shoot-dns-service' }] },
  };
}

describe('apply garden on a fake API server (429, 5xx, slow and cut-off answers, 401)', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  async function setup(n: number): Promise<{ fake: FakeKubeApi; targets: GardenTarget[]; kubeconfig: string }> {
    const fake = await FakeKubeApi.start({ token: TOKEN });
    cleanup.push(() => fake.close());
    const targets = Array.from({ length: n }, (_, i) => target(i + 1));
    for (const t of targets) fake.add('shoots', shoot(t));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-garden-fake-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, fake.kubeconfig(TOKEN, 'garden'));
    return { fake, targets, kubeconfig };
  }

  const written = (t: GardenTarget): Record<string, unknown> => ({ ...shoot(t), metadata: { ...(shoot(t).metadata as object), generation: 4 } });
  const options = (kubeconfig: string, timeoutMs = 2_000) => ({ kubeconfig, gardenContext: 'garden', allowExec: false, concurrency: 4, timeoutMs, dryRun: false });

  it('retries a write answered 429 with Retry-After (after at least that long) and 503, then succeeds', async () => {
    const { fake, targets, kubeconfig } = await setup(2);
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-1'), (_r, n) => (n === 1 ? { ...status(429, 'TooManyRequests', 'slow down'), headers: { 'retry-after': '1' } } : { json: written(targets[0]!) }));
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-2'), (_r, n) => (n <= 2 ? status(503, 'ServiceUnavailable', 'etcd leader changed') : { json: written(targets[1]!) }));
    const run = await applyGarden(targets, options(kubeconfig));
    expect(run.global).toBeUndefined();
    expect(run.results.get('rt-1')).toMatchObject({ outcome: 'Applied', generation: 4, attempts: 1 });
    expect(run.results.get('rt-2')).toMatchObject({ outcome: 'Applied', generation: 4 });
    const patches1 = fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/c-1'));
    expect(patches1).toHaveLength(2);
    expect(patches1[1]!.at - patches1[0]!.at).toBeGreaterThanOrEqual(950);
    expect(fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/c-2'))).toHaveLength(3);
  });

  it('a slow or cut-off answer to a write fails that Shoot only; the others are written', async () => {
    const { fake, targets, kubeconfig } = await setup(3);
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-1'), { delayMs: 3_000, json: written(targets[0]!) });
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-2'), { raw: '{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Sho' });
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-3'), { json: written(targets[2]!) });
    const run = await applyGarden(targets, options(kubeconfig, 500));
    expect(run.global).toBeUndefined();
    expect(run.results.get('rt-1')).toMatchObject({ outcome: 'Failed', reason: 'Timeout' });
    expect(run.results.get('rt-2')).toMatchObject({ outcome: 'Failed', reason: 'InvalidData' });
    expect(run.results.get('rt-3')).toMatchObject({ outcome: 'Applied', generation: 4 });
  });

  it('a 401 on a read stops the run before any write', async () => {
    const { fake, targets, kubeconfig } = await setup(3);
    fake.script((r) => r.method === 'GET' && r.path.endsWith('/c-2'), status(401, 'Unauthorized', 'token expired'));
    const run = await applyGarden(targets, options(kubeconfig));
    expect(run.global).toMatchObject({ reason: 'Unauthorized' });
    expect(run.global!.message).toMatch(/Garden \(context "garden"\): get shoots.core.gardener.cloud garden-p\/c-2: 401 Unauthorized.*check the credentials of that context/);
    expect(fake.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('a write refused by admission (the server\'s 403 or 422) fails that Shoot with the server\'s message', async () => {
    const { fake, targets, kubeconfig } = await setup(2);
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-1'), status(403, 'Forbidden', 'admission webhook "validation.falco.extensions.gardener.cloud" denied the request: version not found in possible versions'));
    fake.script((r) => r.method === 'PATCH' && r.path.endsWith('/c-2'), status(422, 'Invalid', 'Shoot.core.gardener.cloud "c-2" is invalid: spec.extensions[1].type: Unsupported value'));
    const run = await applyGarden(targets, options(kubeconfig));
    expect(run.results.get('rt-1')).toMatchObject({ outcome: 'Failed', reason: 'Forbidden' });
    expect((run.results.get('rt-1') as { message: string }).message).toContain('version not found in possible versions');
    expect(run.results.get('rt-2')).toMatchObject({ outcome: 'Failed', reason: 'Invalid' });
    expect((run.results.get('rt-2') as { message: string }).message).toContain('spec.extensions[1].type: Unsupported value');
  });
});
