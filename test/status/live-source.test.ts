// The live status source against fake Kubernetes API servers (./fake-kube-api.ts): one for the
// KCP, one for the Garden and one per runtime cluster, driven through the real
// @kubernetes/client-node. Covers the failure mapping (404, 401, 403, 429, 5xx, timeouts,
// unreachable servers, broken JSON), kubeconfig refusal (exec, auth-provider, local files, and
// secrets whose server the fleet's skrApiServers do not allow), the concurrency bound and the
// sanitising of hostile server text (H62-H65, H68).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../src/observe/kube-client';
import { type LiveOptions, MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME, observeLive } from '../../src/observe/live-source';
import type { KubeObject, Observation, ObservedRuntime, RuntimeRef } from '../../src/observe/observed';
import { MAX_MESSAGE_LENGTH } from '../../src/observe/sanitize';
import { FakeKubeApi, InFlightMeter, type SeenRequest, status } from './fake-kube-api';
import { rccs } from './status-helpers';

const REPO = path.resolve(__dirname, '../..');
const KCP_NS = 'kcp-system';
const GARDEN_NS = 'garden-kyma-dev';

// ---------------------------------------------------------------------------------------------
// Fixture: a KCP, a Garden and one SKR per runtime, with all objects in place.

interface Runtime {
  readonly ref: RuntimeRef;
  readonly skr: FakeKubeApi;
  readonly skrToken: string;
}

interface Fleet {
  readonly dir: string;
  readonly kcp: FakeKubeApi;
  readonly garden: FakeKubeApi;
  readonly meter: InFlightMeter;
  readonly runtimes: Runtime[];
  readonly refs: RuntimeRef[];
  readonly kubeconfig: string;
  options(extra?: Partial<LiveOptions>): LiveOptions;
  /** All requests of all servers. */
  all(): SeenRequest[];
}

let cleanups: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  cleanups = [];
});
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
});

function runtimeID(i: number): string {
  return `8c2a7f5e-${String(i).padStart(4, '0')}-4d2a-9e1b-0000000000aa`;
}

interface FleetSpec {
  readonly count?: number;
  readonly delayMs?: number;
  readonly maxPageSize?: number;
  readonly kcpUser?: Record<string, unknown>;
  /** The user entry of runtime i's SKR kubeconfig secret. */
  readonly skrUser?: (i: number, token: string) => Record<string, unknown>;
  /** The server URL in runtime i's SKR kubeconfig secret (default: its fake server's URL). */
  readonly skrServer?: (i: number, url: string) => string;
  readonly ids?: (i: number) => string;
}

async function startFleet(spec: FleetSpec = {}): Promise<Fleet> {
  const count = spec.count ?? 2;
  const meter = new InFlightMeter();
  const common = { meter, delayMs: spec.delayMs, maxPageSize: spec.maxPageSize };
  const kcp = await FakeKubeApi.start({ token: 'kcp-token', ...common });
  const garden = await FakeKubeApi.start({ token: 'garden-token', typedListItems: true, ...common });
  cleanups.push(() => kcp.close(), () => garden.close());
  const runtimes: Runtime[] = [];
  for (let i = 1; i <= count; i++) {
    const skrToken = `skr-token-${i}`;
    const skr = await FakeKubeApi.start({ token: skrToken, ...common });
    cleanups.push(() => skr.close());
    const id = (spec.ids ?? runtimeID)(i);
    const ref: RuntimeRef = { name: `rt-${i}`, runtimeID: id, kcpNamespace: KCP_NS, shootName: `c-rt${i}`, shootNamespace: GARDEN_NS };
    kcp.add('runtimes', runtimeCR(ref));
    kcp.add('kymas', kcpKyma(ref));
    const user = spec.skrUser ? spec.skrUser(i, skrToken) : { token: skrToken };
    const server = spec.skrServer ? spec.skrServer(i, skr.url) : skr.url;
    kcp.add('secrets', kubeconfigSecret(ref, kubeconfigText([{ name: 'skr', server, user }])));
    garden.add('shoots', shoot(ref));
    skr.add('kymas', skrKyma(i));
    skr.add('registrycacheconfigs', rcc('team-b', 'docker-io', i), rcc('team-a', 'quay-io', i), rcc('team-a', 'ghcr-io', i));
    runtimes.push({ ref, skr, skrToken });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'live-source-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = path.join(dir, 'kubeconfig.yaml');
  fs.writeFileSync(
    kubeconfig,
    kubeconfigText([
      { name: 'kcp', server: kcp.url, user: spec.kcpUser ?? { token: 'kcp-token' } },
      { name: 'garden', server: garden.url, user: { token: 'garden-token' } },
    ]),
  );
  return {
    dir,
    kcp,
    garden,
    meter,
    runtimes,
    refs: runtimes.map((r) => r.ref),
    kubeconfig,
    // The fake runtime servers listen on 127.0.0.1 and random ports.
    options: (extra = {}) => ({ kubeconfig, kcpContext: 'kcp', gardenContext: 'garden', backoffMs: 10, skrApiServers: ['127.0.0.1:*'], ...extra }),
    all: () => [kcp, garden, ...runtimes.map((r) => r.skr)].flatMap((s) => s.requests),
  };
}

/** A kubeconfig with one context per entry (plain HTTP needs insecure-skip-tls-verify in the client). */
function kubeconfigText(entries: { name: string; server: string; user: Record<string, unknown> }[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server, 'insecure-skip-tls-verify': true } })),
    users: entries.map((e) => ({ name: `${e.name}-user`, user: e.user })),
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: `${e.name}-user` } })),
    'current-context': entries[0]!.name,
  });
}

function runtimeCR(ref: RuntimeRef): Record<string, unknown> {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: ref.runtimeID.toLowerCase(),
      namespace: KCP_NS,
      labels: { 'kyma-project.io/runtime-id': ref.runtimeID },
      managedFields: [{ manager: 'kim', operation: 'Update' }],
    },
    spec: { shoot: { name: ref.shootName } },
    status: { state: 'Ready' },
  };
}

function kcpKyma(ref: RuntimeRef): Record<string, unknown> {
  return {
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'Kyma',
    metadata: { name: ref.runtimeID.toLowerCase(), namespace: KCP_NS },
    spec: { channel: 'regular', modules: [{ name: 'registry-cache' }] },
    status: { state: 'Ready' },
  };
}

function shoot(ref: RuntimeRef): Record<string, unknown> {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: ref.shootName, namespace: GARDEN_NS, generation: 3 },
    spec: { extensions: [{ type: 'registry-cache' }] },
    status: { observedGeneration: 3, lastOperation: { state: 'Succeeded' } },
  };
}

function kubeconfigSecret(ref: RuntimeRef, kubeconfig: string, key = 'config'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `kubeconfig-${ref.runtimeID}`, namespace: KCP_NS },
    type: 'Opaque',
    data: { [key]: Buffer.from(kubeconfig).toString('base64') },
  };
}

function skrKyma(i: number): Record<string, unknown> {
  return {
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'Kyma',
    metadata: { name: 'default', namespace: 'kyma-system' },
    status: { state: 'Ready', modules: [{ name: 'registry-cache', state: 'Ready', message: `skr ${i}` }] },
  };
}

function rcc(ns: string, name: string, i: number): Record<string, unknown> {
  return {
    apiVersion: 'core.kyma-project.io/v1beta1',
    kind: 'RegistryCacheConfig',
    metadata: { name, namespace: ns, uid: `uid-${i}-${ns}-${name}` },
    spec: { upstream: `${name.replace('-', '.')}` },
    status: { state: 'Ready' },
  };
}

function names(objs: readonly KubeObject[]): string[] {
  return objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}

function only(obs: Observation, name: string): ObservedRuntime {
  const r = obs.runtimes.get(name);
  if (!r) throw new Error(`no runtime ${name}`);
  return r;
}

/** A TCP port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** An exec credential plugin that prints an ExecCredential with `token` (node, no shell). */
function execUser(token: string): Record<string, unknown> {
  const cred = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token, expirationTimestamp: '2999-01-01T00:00:00Z' } });
  return { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(cred)})`] } };
}

// ---------------------------------------------------------------------------------------------

describe('observeLive: what the clusters report', () => {
  it('reads the Runtime CR, both Kymas, the Shoot and the RegistryCacheConfigs of every runtime (GET mode)', async () => {
    // GIVEN two runtimes, asked for in reverse order, and an SKR that lists its configs unsorted
    const fleet = await startFleet({ count: 2, ids: (i) => (i === 2 ? '8C2A7F5E-0002-4D2A-9E1B-0000000000BB' : runtimeID(i)) });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    r1.skr.script('/registrycacheconfigs', () => ({
      json: { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfigList', metadata: {}, items: [rcc('team-b', 'docker-io', 1), rcc('team-a', 'quay-io', 1), rcc('team-a', 'ghcr-io', 1)] },
    }));

    // WHEN observed
    const obs = await observeLive([r2.ref, r1.ref], fleet.options());

    // THEN nothing failed, the map keeps the order asked for, and every object is there
    expect(obs.global).toBeUndefined();
    expect(obs.warnings).toEqual([]);
    expect([...obs.runtimes.keys()]).toEqual(['rt-2', 'rt-1']);
    for (const [i, rt] of [r1, r2].entries()) {
      const o = only(obs, rt.ref.name);
      expect(o.ref).toEqual(rt.ref);
      expect([...o.read]).toEqual(['kcp', 'garden', 'skr']);
      expect(o.failures).toEqual([]);
      expect(o.runtimeCR?.metadata.name).toBe(rt.ref.runtimeID.toLowerCase());
      expect(o.runtimeCR?.metadata).not.toHaveProperty('managedFields');
      expect(o.kcpKyma?.kind).toBe('Kyma');
      expect(o.shoot?.metadata.name).toBe(rt.ref.shootName);
      expect(o.skrKyma?.status).toMatchObject({ modules: [{ message: `skr ${i + 1}` }] });
      expect(names(rccs(o))).toEqual(['team-a/ghcr-io', 'team-a/quay-io', 'team-b/docker-io']);
    }
    // the Runtime and KCP Kyma are named after the lowercase runtime ID, the secret after the ID itself
    expect(fleet.kcp.requestsTo('/runtimes/8c2a7f5e-0002-4d2a-9e1b-0000000000bb')).toHaveLength(1);
    expect(fleet.kcp.requestsTo('/secrets/kubeconfig-8C2A7F5E-0002-4D2A-9E1B-0000000000BB')).toHaveLength(1);
    // each SKR was reached with the token from its own secret
    expect(r1.skr.requests.every((r) => r.authorization === `Bearer ${r1.skrToken}`)).toBe(true);
    expect(r2.skr.requests.every((r) => r.authorization === `Bearer ${r2.skrToken}`)).toBe(true);
  });

  it('LIST mode reads each namespace with paged lists and gives the same observation', async () => {
    // GIVEN three runtimes and servers that return at most two items per page
    const fleet = await startFleet({ count: 3, maxPageSize: 2 });

    // WHEN observed with GETs and then with lists
    const byGet = await observeLive(fleet.refs, fleet.options());
    const before = fleet.kcp.requests.length;
    const byList = await observeLive(fleet.refs, fleet.options({ listThreshold: 0 }));

    // THEN the observations are equal
    expect(byList).toEqual(byGet);
    // AND the second run listed runtimes and kymas page by page instead of getting them
    const listRequests = fleet.kcp.requests.slice(before);
    const runtimeLists = listRequests.filter((r) => r.path === `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${KCP_NS}/runtimes`);
    expect(runtimeLists.map((r) => r.query.get('continue'))).toEqual([null, '2']);
    expect(runtimeLists[0]!.query.get('limit')).toBe('500');
    expect(listRequests.filter((r) => /\/runtimes\/|\/kymas\//.test(r.path))).toEqual([]);
    // AND the Garden (a typed API server: list items without kind) was listed too
    expect(fleet.garden.requests.slice(-2).map((r) => r.path)).toEqual([`/apis/core.gardener.cloud/v1beta1/namespaces/${GARDEN_NS}/shoots`, `/apis/core.gardener.cloud/v1beta1/namespaces/${GARDEN_NS}/shoots`]);
    expect(only(byList, 'rt-1').shoot?.kind).toBe('Shoot');
  });

  it('an absent object is "not found" on a read cluster, not a failure; a missing secret is NoCredentials', async () => {
    // GIVEN rt-1 without a KCP Kyma and without a Shoot, rt-2 without its kubeconfig secret
    const fleet = await startFleet({ count: 2 });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    fleet.kcp.script(`/kymas/${r1.ref.runtimeID}`, status(404, 'NotFound', `kymas.operator.kyma-project.io "${r1.ref.runtimeID}" not found`));
    fleet.garden.script(`/shoots/${r1.ref.shootName}`, status(404, 'NotFound', 'not found'));
    fleet.kcp.script(`/secrets/kubeconfig-${r2.ref.runtimeID}`, status(404, 'NotFound', 'secrets "x" not found'));

    // WHEN observed
    const obs = await observeLive(fleet.refs, fleet.options());

    // THEN rt-1 has KCP and Garden read without those objects
    const o1 = only(obs, 'rt-1');
    expect([...o1.read]).toEqual(['kcp', 'garden', 'skr']);
    expect(o1.kcpKyma).toBeUndefined();
    expect(o1.shoot).toBeUndefined();
    expect(o1.runtimeCR).toBeDefined();
    expect(o1.failures).toEqual([]);
    // AND rt-2's SKR is unread for lack of credentials; its SKR was never contacted
    const o2 = only(obs, 'rt-2');
    expect([...o2.read]).toEqual(['kcp', 'garden']);
    expect(o2.failures).toEqual([
      { cluster: 'skr', reason: 'NoCredentials', message: `no secret ${KCP_NS}/kubeconfig-${r2.ref.runtimeID} on the KCP; the runtime cannot be reached` },
    ]);
    expect(o2.skrObjects).toEqual(new Map());
    expect(r2.skr.requests).toEqual([]);
  });

  it('a secret without the key `config` is NoCredentials; an unparseable kubeconfig is InvalidData', async () => {
    const fleet = await startFleet({ count: 2 });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    fleet.kcp.add('secrets', kubeconfigSecret(r1.ref, 'whatever', 'kubeconfig'));
    fleet.kcp.add('secrets', kubeconfigSecret(r2.ref, 'clusters: [\n  - &a {name: x}\n'));

    const obs = await observeLive(fleet.refs, fleet.options());

    expect(only(obs, 'rt-1').failures).toEqual([
      { cluster: 'skr', reason: 'NoCredentials', message: `secret ${KCP_NS}/kubeconfig-${r1.ref.runtimeID} on the KCP has no key "config"` },
    ]);
    expect(only(obs, 'rt-2').failures).toEqual([
      { cluster: 'skr', reason: 'InvalidData', message: expect.stringMatching(/^the kubeconfig in secret .* \(key config\) is not a valid kubeconfig \(E_\w+ at line \d+\)$/) },
    ]);
  });
});

describe('observeLive: failures', () => {
  it('401 from the KCP is a global Unauthorized failure and stops the run: no request after it', async () => {
    // GIVEN a KCP that rejects the token (slowly, so every request of the first wave has arrived)
    const fleet = await startFleet({ count: 5 });
    let firstAnswerAt = Infinity;
    fleet.kcp.script(
      () => true,
      () => {
        firstAnswerAt = Math.min(firstAnswerAt, performance.now() + 300);
        return { ...status(401, 'Unauthorized', 'Unauthorized'), delayMs: 300 };
      },
    );

    // WHEN observed
    const obs = await observeLive(fleet.refs, fleet.options({ concurrency: 2 }));
    await new Promise((r) => setTimeout(r, 200));

    // THEN the run failed globally, naming the context
    expect(obs.global).toEqual({
      reason: 'Unauthorized',
      message: expect.stringMatching(/^KCP \(context "kcp"\): get (runtimes|kymas|secrets)\S* kcp-system\/\S+: 401 Unauthorized; check the credentials of that context$/),
    });
    // AND every runtime is present with nothing read
    expect([...obs.runtimes.keys()]).toEqual(fleet.refs.map((r) => r.name));
    for (const o of obs.runtimes.values()) expect([...o.read]).toEqual([]);
    // AND no request reached any server after the first 401 was sent, and no SKR was contacted
    const late = fleet.all().filter((r) => r.at > firstAnswerAt);
    expect(late).toEqual([]);
    expect(fleet.runtimes.flatMap((r) => r.skr.requests)).toEqual([]);
    expect(fleet.kcp.requests.length).toBeLessThanOrEqual(2 * 3); // the first wave of two runtimes
  });

  it('401 from the Garden during the list phase stops the run before any runtime is read', async () => {
    const fleet = await startFleet({ count: 3 });
    fleet.garden.script(() => true, status(401, 'Unauthorized', 'Unauthorized'));

    const obs = await observeLive(fleet.refs, fleet.options({ listThreshold: 0 }));

    expect(obs.global?.reason).toBe('Unauthorized');
    expect(obs.global?.message).toMatch(/^Garden \(context "garden"\): list shoots.core.gardener.cloud in namespace garden-kyma-dev: 401 Unauthorized/);
    expect(fleet.kcp.requestsTo('/secrets/')).toEqual([]);
    expect(fleet.runtimes.flatMap((r) => r.skr.requests)).toEqual([]);
  });

  it('403 on one SKR makes only that runtime\'s skr unread (Forbidden), naming verb and resource', async () => {
    // GIVEN rt-2's SKR forbids listing RegistryCacheConfigs
    const fleet = await startFleet({ count: 2 });
    const r2 = fleet.runtimes[1]!;
    const forbidden =
      'registrycacheconfigs.core.kyma-project.io is forbidden: User "system:serviceaccount:kyma-system:reporter" cannot list resource "registrycacheconfigs" in API group "core.kyma-project.io" at the cluster scope';
    r2.skr.script('/registrycacheconfigs', status(403, 'Forbidden', forbidden, { group: 'core.kyma-project.io', kind: 'registrycacheconfigs' }));

    // WHEN observed
    const obs = await observeLive(fleet.refs, fleet.options());

    // THEN rt-1 is fully read; rt-2 has KCP and Garden but not its SKR
    expect(obs.global).toBeUndefined();
    expect([...only(obs, 'rt-1').read]).toEqual(['kcp', 'garden', 'skr']);
    const o2 = only(obs, 'rt-2');
    expect([...o2.read]).toEqual(['kcp', 'garden']);
    expect(o2.runtimeCR).toBeDefined();
    expect(o2.skrKyma).toBeUndefined(); // read, but the cluster as a whole was not
    expect(o2.failures).toEqual([
      { cluster: 'skr', reason: 'Forbidden', message: `list registrycacheconfigs.core.kyma-project.io in all namespaces: 403 Forbidden: ${forbidden}` },
    ]);
    // AND a 403 is not retried
    expect(r2.skr.requestsTo('/registrycacheconfigs')).toHaveLength(1);
  });

  it('reads the SKR kinds the status hooks declare, whatever the extension: each kind listed, a 403 on any makes the SKR unread', async () => {
    // GIVEN a second kind besides RegistryCacheConfig; rt-1 has two of it, rt-2 forbids listing it
    const RCC = { group: 'core.kyma-project.io', version: 'v1beta1', plural: 'registrycacheconfigs', kind: 'RegistryCacheConfig' };
    const WIDGET = { group: 'widgets.example.dev', version: 'v1', plural: 'widgets', kind: 'Widget' };
    const widget = (ns: string, name: string) => ({ apiVersion: 'widgets.example.dev/v1', kind: 'Widget', metadata: { name, namespace: ns }, status: { state: 'Ready' } });
    const fleet = await startFleet({ count: 2 });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    r1.skr.script('/apis/widgets.example.dev/v1/widgets', () => ({ json: { apiVersion: 'widgets.example.dev/v1', kind: 'WidgetList', metadata: {}, items: [widget('b', 'w2'), widget('a', 'w1'), { kind: 'Gadget', metadata: { name: 'x' } }] } }));
    r2.skr.script('/apis/widgets.example.dev/v1/widgets', status(403, 'Forbidden', 'widgets.widgets.example.dev is forbidden'));

    // WHEN observed with both kinds
    const obs = await observeLive(fleet.refs, fleet.options({ skrKinds: [RCC, WIDGET] }));

    // THEN rt-1 has both lists, sorted, the item of another kind a warning
    const o1 = only(obs, 'rt-1');
    expect([...o1.read]).toEqual(['kcp', 'garden', 'skr']);
    expect([...o1.skrObjects.keys()]).toEqual(['RegistryCacheConfig', 'Widget']);
    expect(names(o1.skrObjects.get('Widget')!)).toEqual(['a/w1', 'b/w2']);
    expect(obs.warnings).toEqual([{ where: 'live:skr/rt-1:/apis/widgets.example.dev/v1/widgets', pointer: '/items/2', message: expect.stringContaining('Gadget') }]);
    // AND rt-2's SKR is unread, naming the forbidden list
    const o2 = only(obs, 'rt-2');
    expect([...o2.read]).toEqual(['kcp', 'garden']);
    expect(o2.skrObjects).toEqual(new Map());
    expect(o2.failures).toEqual([{ cluster: 'skr', reason: 'Forbidden', message: expect.stringMatching(/^list widgets\.widgets\.example\.dev in all namespaces: 403 Forbidden/) }]);

    // AND with no kinds declared only the Kyma is read from the SKR
    const before = r1.skr.requests.length;
    const none = await observeLive([r1.ref], fleet.options({ skrKinds: [] }));
    expect([...only(none, 'rt-1').read]).toEqual(['kcp', 'garden', 'skr']);
    expect(only(none, 'rt-1').skrObjects).toEqual(new Map());
    expect(r1.skr.requests.slice(before).map((r) => r.path)).toEqual(['/apis/operator.kyma-project.io/v1beta2/namespaces/kyma-system/kymas/default']);
  });

  it('403 on a KCP list falls back to GETs (RBAC may grant get only)', async () => {
    const fleet = await startFleet({ count: 2 });
    fleet.kcp.script((r) => r.path.endsWith('/runtimes'), status(403, 'Forbidden', 'cannot list runtimes'));

    const obs = await observeLive(fleet.refs, fleet.options({ listThreshold: 0 }));

    expect(obs.global).toBeUndefined();
    for (const o of obs.runtimes.values()) {
      expect([...o.read]).toEqual(['kcp', 'garden', 'skr']);
      expect(o.runtimeCR).toBeDefined();
    }
    expect(fleet.kcp.requests.filter((r) => /\/runtimes\/.+/.test(r.path))).toHaveLength(2);
  });

  it('429 with Retry-After: 1 is retried after at least a second', async () => {
    // GIVEN the Garden throttles the first GET of rt-1's Shoot
    const fleet = await startFleet({ count: 1 });
    fleet.garden.script('/shoots/', (_r, n) =>
      n === 1 ? { ...status(429, 'TooManyRequests', 'too many requests, please try again later'), headers: { 'retry-after': '1' } } : undefined,
    );

    // WHEN observed (with a tiny backoff base, so only Retry-After can explain the wait)
    const obs = await observeLive(fleet.refs, fleet.options({ backoffMs: 1 }));

    // THEN the Shoot was read on the second attempt, which came ≥ ~1 s after the first
    const o = only(obs, 'rt-1');
    expect(o.failures).toEqual([]);
    expect(o.shoot).toBeDefined();
    const attempts = fleet.garden.requestsTo('/shoots/');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('500 then 200 is retried; 503 on every attempt is ServerError after 1 + retries attempts', async () => {
    const fleet = await startFleet({ count: 2 });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    r1.skr.script('/kymas/default', (_r, n) => (n === 1 ? status(500, 'InternalError', 'etcdserver: leader changed') : undefined));
    r2.skr.script('/kymas/default', status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));

    const obs = await observeLive(fleet.refs, fleet.options({ retries: 2 }));

    expect(only(obs, 'rt-1').failures).toEqual([]);
    expect(only(obs, 'rt-1').skrKyma).toBeDefined();
    expect(r1.skr.requestsTo('/kymas/default')).toHaveLength(2);
    expect(only(obs, 'rt-2').failures).toEqual([
      {
        cluster: 'skr',
        reason: 'ServerError',
        message: 'get kymas.operator.kyma-project.io kyma-system/default: HTTP 503 (after 3 attempts): the server is currently unable to handle the request',
      },
    ]);
    expect(r2.skr.requestsTo('/kymas/default')).toHaveLength(3);
  });

  it('a Retry-After above the limit is not waited for', async () => {
    const fleet = await startFleet({ count: 1 });
    fleet.runtimes[0]!.skr.script('/kymas/default', { ...status(429, 'TooManyRequests', 'slow down'), headers: { 'retry-after': '3600' } });

    const started = performance.now();
    const obs = await observeLive(fleet.refs, fleet.options());

    expect(performance.now() - started).toBeLessThan(5_000);
    expect(only(obs, 'rt-1').failures).toEqual([
      { cluster: 'skr', reason: 'ServerError', message: expect.stringMatching(/HTTP 429: slow down \(Retry-After 3600 s is above the 30 s limit; not retried\)$/) },
    ]);
  });

  it('a server slower than timeoutMs is a Timeout for that cluster of that runtime only', async () => {
    const fleet = await startFleet({ count: 2 });
    fleet.runtimes[1]!.skr.script('/registrycacheconfigs', () => ({ json: {}, delayMs: 5_000 }));

    const obs = await observeLive(fleet.refs, fleet.options({ timeoutMs: 1_000 }));

    expect([...only(obs, 'rt-1').read]).toEqual(['kcp', 'garden', 'skr']);
    expect(only(obs, 'rt-2').failures).toEqual([
      { cluster: 'skr', reason: 'Timeout', message: 'list registrycacheconfigs.core.kyma-project.io in all namespaces: no complete answer within 1000 ms' },
    ]);
    expect(fleet.runtimes[1]!.skr.requestsTo('/registrycacheconfigs')).toHaveLength(1); // timeouts are not retried
  });

  it('truncated JSON, a wrong kind and a broken list item are InvalidData or warnings, never a crash', async () => {
    const fleet = await startFleet({ count: 3 });
    const [r1, r2, r3] = fleet.runtimes as [Runtime, Runtime, Runtime];
    r1.skr.script('/kymas/default', { raw: '{"apiVersion":"operator.kyma-project.io/v1beta2","kind":"Ky' });
    r2.skr.script('/kymas/default', { json: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'default', namespace: 'kyma-system' } } });
    r3.skr.script('/registrycacheconfigs', {
      json: { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfigList', metadata: {}, items: [rcc('a', 'ok', 3), 'junk', { kind: 'RegistryCacheConfig', metadata: {} }] },
    });

    const obs = await observeLive(fleet.refs, fleet.options());

    expect(only(obs, 'rt-1').failures).toEqual([
      { cluster: 'skr', reason: 'InvalidData', message: 'get kymas.operator.kyma-project.io kyma-system/default: the response is not valid JSON' },
    ]);
    expect(only(obs, 'rt-2').failures).toEqual([
      { cluster: 'skr', reason: 'InvalidData', message: 'get kymas.operator.kyma-project.io kyma-system/default: expected operator.kyma-project.io/v1beta2 Kyma, got v1 Secret' },
    ]);
    const o3 = only(obs, 'rt-3');
    expect([...o3.read]).toEqual(['kcp', 'garden', 'skr']);
    expect(names(rccs(o3))).toEqual(['a/ok']);
    expect(obs.warnings).toEqual([
      { where: 'live:skr/rt-3:/apis/core.kyma-project.io/v1beta1/registrycacheconfigs', pointer: '/items/1', message: 'not an object; skipped' },
      { where: 'live:skr/rt-3:/apis/core.kyma-project.io/v1beta1/registrycacheconfigs', pointer: '/items/2', message: 'metadata.name is missing; skipped' },
    ]);
  });

  it('an unreachable SKR is Unreachable for that runtime; an unreachable KCP is a global failure', async () => {
    const fleet = await startFleet({ count: 2 });
    const r2 = fleet.runtimes[1]!;
    const port = await closedPort();
    fleet.kcp.add('secrets', kubeconfigSecret(r2.ref, kubeconfigText([{ name: 'skr', server: `http://127.0.0.1:${port}`, user: { token: 't' } }])));

    const obs = await observeLive(fleet.refs, fleet.options());
    expect([...only(obs, 'rt-1').read]).toEqual(['kcp', 'garden', 'skr']);
    expect(only(obs, 'rt-2').failures).toEqual([
      { cluster: 'skr', reason: 'Unreachable', message: expect.stringMatching(/^get kymas.operator.kyma-project.io kyma-system\/default: ECONNREFUSED/) },
    ]);

    fs.writeFileSync(
      fleet.kubeconfig,
      kubeconfigText([
        { name: 'kcp', server: `http://127.0.0.1:${port}`, user: { token: 'kcp-token' } },
        { name: 'garden', server: fleet.garden.url, user: { token: 'garden-token' } },
      ]),
    );
    const down = await observeLive(fleet.refs, fleet.options());
    expect(down.global).toEqual({ reason: 'Unreachable', message: expect.stringMatching(/^KCP \(context "kcp"\): get .*: ECONNREFUSED/) });
  });

  it('sanitises a hostile server message: no ANSI, no control characters, one line, at most 512 characters', async () => {
    const fleet = await startFleet({ count: 1 });
    const hostile = `\u001b[31mDENIED\u001b[0m\r\nline two\u0007\u202e${'A'.repeat(10 * 1024)}\u001b]8;;http://evil\u0007link\u001b]8;;\u0007`;
    fleet.garden.script('/shoots/', status(403, 'Forbidden', hostile));

    const obs = await observeLive(fleet.refs, fleet.options());

    const [failure] = only(obs, 'rt-1').failures;
    expect(failure?.cluster).toBe('garden');
    expect(failure?.reason).toBe('Forbidden');
    const message = failure!.message;
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(message).toMatch(/^get shoots.core.gardener.cloud garden-kyma-dev\/c-rt1: 403 Forbidden: DENIED line twoAAAA/);
    expect(message).toMatch(/…$/);
    // eslint-disable-next-line no-control-regex
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
});

describe('observeLive: credentials that run code (H62)', () => {
  it('refuses an exec user in the KCP context without --allow-exec and sends nothing', async () => {
    const fleet = await startFleet({ count: 1, kcpUser: execUser('exec-token') });

    const obs = await observeLive(fleet.refs, fleet.options());

    expect(obs.global).toEqual({
      reason: 'RefusedCredentials',
      message: 'context "kcp" (the KCP context) authenticates user "kcp-user" with an exec credential plugin (runs a local command); refused without --allow-exec',
    });
    expect(fleet.all()).toEqual([]);
  });

  it('refuses an auth-provider user too', async () => {
    const fleet = await startFleet({ count: 1, kcpUser: { 'auth-provider': { name: 'oidc', config: { 'idp-issuer-url': 'https://issuer' } } } });
    const obs = await observeLive(fleet.refs, fleet.options());
    expect(obs.global?.reason).toBe('RefusedCredentials');
    expect(obs.global?.message).toContain('an auth-provider (oidc)');
    expect(fleet.all()).toEqual([]);
  });

  it('a missing context is a global InvalidKubeconfig failure; an unreadable kubeconfig UnreadableKubeconfig with the OS error (not a credentials problem)', async () => {
    const fleet = await startFleet({ count: 1 });
    const missing = await observeLive(fleet.refs, fleet.options({ gardenContext: 'nope' }));
    expect(missing.global).toEqual({ reason: 'InvalidKubeconfig', message: `kubeconfig ${fleet.kubeconfig} has no context "nope" (the Garden context); it has: garden, kcp` });
    const unreadable = await observeLive(fleet.refs, fleet.options({ kubeconfig: path.join(fleet.dir, 'absent.yaml') }));
    expect(unreadable.global?.reason).toBe('UnreadableKubeconfig');
    expect(unreadable.global?.message).toMatch(/^cannot read kubeconfig .*absent\.yaml: ENOENT: no such file or directory/);
    const folder = await observeLive(fleet.refs, fleet.options({ kubeconfig: fleet.dir }));
    expect(folder.global?.reason).toBe('UnreadableKubeconfig');
    expect(folder.global?.message).toMatch(/^cannot read kubeconfig .*: EISDIR: illegal operation on a directory/);
  });

  it('refuses exec and auth-provider inside a runtime\'s kubeconfig secret, with or without --allow-exec; local files always', async () => {
    // GIVEN rt-1's secret uses an exec plugin (which would leave a marker file), rt-2's a
    // token-file (which would send a local file), rt-3's an auth-provider, rt-4's a plain token
    const marker = path.join(os.tmpdir(), `kyma-fleet-exec-ran-${process.pid}`);
    cleanups.push(() => fs.rmSync(marker, { force: true }));
    const markingExec = { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`] } };
    const secretFile = path.join(os.tmpdir(), 'not-for-the-skr');
    const fleet = await startFleet({
      count: 4,
      skrUser: (i, token) =>
        i === 1 ? markingExec : i === 2 ? { 'token-file': secretFile } : i === 3 ? { 'auth-provider': { name: 'oidc', config: { 'idp-issuer-url': 'https://issuer' } } } : { token },
    });
    const [r1, r2, r3] = fleet.runtimes as [Runtime, Runtime, Runtime];
    const secret = (r: Runtime) => `secret ${KCP_NS}/kubeconfig-${r.ref.runtimeID} (key config)`;

    // WHEN observed without and with --allow-exec (which is for the operator's own kubeconfig)
    const refused = await observeLive(fleet.refs, fleet.options());
    const allowed = await observeLive(fleet.refs, fleet.options({ allowExec: true }));

    // THEN either way rt-1 and rt-3 are RefusedCredentials, rt-2 too (local file), rt-4 was read
    for (const obs of [refused, allowed]) {
      expect(only(obs, 'rt-1').failures).toEqual([
        {
          cluster: 'skr',
          reason: 'RefusedCredentials',
          message: `the kubeconfig in ${secret(r1)} authenticates with an exec credential plugin (runs a local command); refused for kubeconfigs read from a cluster (--allow-exec applies to your own kubeconfig only)`,
        },
      ]);
      expect(only(obs, 'rt-2').failures).toEqual([
        {
          cluster: 'skr',
          reason: 'RefusedCredentials',
          message: `the kubeconfig in ${secret(r2)} uses token-file (local files or a proxy); refused for kubeconfigs read from a cluster`,
        },
      ]);
      expect(only(obs, 'rt-3').failures).toEqual([
        {
          cluster: 'skr',
          reason: 'RefusedCredentials',
          message: `the kubeconfig in ${secret(r3)} authenticates with an auth-provider (oidc) (may run a local command or contact an identity provider); refused for kubeconfigs read from a cluster (--allow-exec applies to your own kubeconfig only)`,
        },
      ]);
      expect([...only(obs, 'rt-4').read]).toEqual(['kcp', 'garden', 'skr']);
    }
    // AND the plugin never ran and the refused runtimes' servers never saw a request
    expect(fs.existsSync(marker)).toBe(false);
    for (const r of [r1, r2, r3]) expect(r.skr.requests).toEqual([]);
  });

  it('a secret whose server skrApiServers does not allow is refused for that runtime, and nothing is sent there', async () => {
    // GIVEN rt-1's secret names its (reachable) server as localhost, rt-2's as 127.0.0.1
    const fleet = await startFleet({ count: 2, skrServer: (i, url) => (i === 1 ? url.replace('127.0.0.1', 'localhost') : url) });
    const [r1, r2] = fleet.runtimes as [Runtime, Runtime];
    const port = new URL(r1.skr.url).port;

    // WHEN observed with the fleet's patterns
    const obs = await observeLive(fleet.refs, fleet.options({ skrApiServers: ['*.kyma.ondemand.com', '127.0.0.1:*'] }));

    // THEN rt-1 is RefusedCredentials naming the secret and the refused host; its server saw nothing
    expect(only(obs, 'rt-1').failures).toEqual([
      {
        cluster: 'skr',
        reason: 'RefusedCredentials',
        message: `the kubeconfig in secret ${KCP_NS}/kubeconfig-${r1.ref.runtimeID} (key config) points at localhost:${port}, which skrApiServers in fleet.yaml does not allow (no pattern of skrApiServers allows it; allowed: *.kyma.ondemand.com, 127.0.0.1:*); nothing was sent there`,
      },
    ]);
    expect([...only(obs, 'rt-1').read]).toEqual(['kcp', 'garden']);
    expect(r1.skr.requests).toEqual([]);
    // AND rt-2 was read
    expect([...only(obs, 'rt-2').read]).toEqual(['kcp', 'garden', 'skr']);
    expect(r2.skr.requests.length).toBeGreaterThan(0);
  });

  it('without skrApiServers no runtime cluster is contacted, and the message says what to declare', async () => {
    const fleet = await startFleet({ count: 2 });
    const obs = await observeLive(fleet.refs, fleet.options({ skrApiServers: undefined }));
    for (const r of fleet.runtimes) {
      expect(only(obs, r.ref.name).failures).toEqual([
        {
          cluster: 'skr',
          reason: 'RefusedCredentials',
          message: `the kubeconfig in secret ${KCP_NS}/kubeconfig-${r.ref.runtimeID} (key config) points at ${new URL(r.skr.url).host}; fleet.yaml declares no skrApiServers, so no runtime API server is trusted: add the landscape's API server domain, e.g. skrApiServers: ["*.kyma.ondemand.com"] (nothing was sent there)`,
        },
      ]);
      expect(r.skr.requests).toEqual([]);
    }
  });

  it('an exec plugin of the operator\'s kubeconfig that hangs is bounded by the request timeout', async () => {
    const hang = { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 4000)'] } };
    const fleet = await startFleet({ count: 1, kcpUser: hang });
    const started = performance.now();
    const obs = await observeLive(fleet.refs, fleet.options({ allowExec: true, timeoutMs: 1_500 }));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(obs.global).toBeUndefined();
    expect(only(obs, 'rt-1').failures).toContainEqual({ cluster: 'kcp', reason: 'Timeout', message: expect.stringMatching(/: no complete answer within 1500 ms$/) });
    expect(fleet.kcp.requests).toEqual([]);
  });

  it('with --allow-exec the KCP exec plugin runs and its token is used', async () => {
    const fleet = await startFleet({ count: 1, kcpUser: execUser('kcp-token') });
    const obs = await observeLive(fleet.refs, fleet.options({ allowExec: true }));
    expect(obs.global).toBeUndefined();
    expect([...only(obs, 'rt-1').read]).toEqual(['kcp', 'garden', 'skr']);
    expect(fleet.kcp.requests.every((r) => r.authorization === 'Bearer kcp-token')).toBe(true);
  });

  it('a 401 from an SKR is RefusedCredentials for that runtime, not a global failure', async () => {
    const fleet = await startFleet({ count: 2 });
    fleet.runtimes[0]!.skr.script(() => true, status(401, 'Unauthorized', 'Unauthorized'));
    const obs = await observeLive(fleet.refs, fleet.options());
    expect(obs.global).toBeUndefined();
    expect(only(obs, 'rt-1').failures.map((f) => [f.cluster, f.reason])).toEqual([['skr', 'RefusedCredentials']]);
    expect(only(obs, 'rt-1').failures[0]!.message).toMatch(/401 Unauthorized; the credentials of the runtime's kubeconfig secret were rejected$/);
    expect([...only(obs, 'rt-2').read]).toEqual(['kcp', 'garden', 'skr']);
  });
});

describe('observeLive: bounded work', () => {
  it('keeps at most concurrency × MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME requests in flight', async () => {
    // GIVEN 10 runtimes and servers that take 40 ms per answer
    const fleet = await startFleet({ count: 10, delayMs: 40 });

    // WHEN observed with two workers
    const obs = await observeLive(fleet.refs, fleet.options({ concurrency: 2 }));

    // THEN all were read, never more than 2 × 4 requests were in flight, and work did overlap
    for (const o of obs.runtimes.values()) expect([...o.read]).toEqual(['kcp', 'garden', 'skr']);
    expect(fleet.meter.max).toBeLessThanOrEqual(2 * MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME);
    expect(fleet.meter.max).toBeGreaterThan(MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME);
  });

  it('with concurrency 1 one runtime at a time', async () => {
    const fleet = await startFleet({ count: 4, delayMs: 20 });
    await observeLive(fleet.refs, fleet.options({ concurrency: 1 }));
    expect(fleet.meter.max).toBeLessThanOrEqual(MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME);
  });

  it('rejects invalid options', async () => {
    const fleet = await startFleet({ count: 1 });
    await expect(observeLive(fleet.refs, fleet.options({ concurrency: 0 }))).rejects.toThrow(RangeError);
    await expect(observeLive(fleet.refs, fleet.options({ timeoutMs: Number.NaN }))).rejects.toThrow(/timeoutMs must be an integer/);
  });

  it('the compiled CommonJS module loads the ESM client and observes (node lib/, as the CLI runs it)', async () => {
    const built = path.join(REPO, 'lib/src/observe/live-source.js');
    expect(fs.existsSync(built), 'run `npm run build` first').toBe(true);
    const fleet = await startFleet({ count: 1 });
    const script = `
      const { observeLive } = require(${JSON.stringify(built)});
      observeLive(${JSON.stringify(fleet.refs)}, ${JSON.stringify(fleet.options())}).then((o) => {
        const r = o.runtimes.get('rt-1');
        process.stdout.write(JSON.stringify({ global: o.global, read: [...r.read], rccs: r.skrObjects.get('RegistryCacheConfig')?.length ?? 0 }));
      });`;
    // asynchronously: a synchronous spawn would block this process's fake servers
    const child = spawn(process.execPath, ['-e', script], { cwd: REPO });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ read: ['kcp', 'garden', 'skr'], rccs: 3 });
  });
});

describe('kube-client helpers', () => {
  it('parseRetryAfter reads seconds and HTTP dates; backoffDelay never undercuts Retry-After', () => {
    expect(parseRetryAfter('1')).toBe(1000);
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(backoffDelay(1, 250, 1000, () => 0)).toBe(1000);
    expect(backoffDelay(1, 250, 1000, () => 1)).toBe(1200);
    expect(backoffDelay(1, 250, undefined, () => 0)).toBe(125);
    expect(backoffDelay(3, 250, undefined, () => 1)).toBe(1000);
    expect(backoffDelay(20, 250, undefined, () => 1)).toBe(8000); // capped
  });
});
