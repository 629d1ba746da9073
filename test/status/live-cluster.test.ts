// `kyma-fleet status` against a real kube-apiserver (the test cluster of test/cluster/): the real
// binary, a real kubeconfig with a CA and tokens, the real CRDs and the stand-in Shoot.
//
// The objects are those of the shipped sample dump (fleet-status-sample/, what the dump-based tests
// read), created the way the landscape creates them: the KCP Runtime CR in full (as KEB does), the
// rendered Runtime fragment merged into it server-side (field manager kustomize-controller, as Flux
// applies kcp/), the KCP Kyma and the Shoot (its generation brought to the dump's by real spec
// updates); on the runtime the rendered Kyma CR and RegistryCacheConfigs applied server-side, the
// labels Lifecycle Manager syncs, and every status written through the status subresource. The
// runtime's kubeconfig-<runtimeID> Secret points at the same test cluster (so the fleet declares
// skrApiServers: ["127.0.0.1:*"]). One cluster serves the KCP, the Garden and the runtime, so the
// runtimes are observed one at a time (only that runtime's Secret exists; one kyma-system/default).
//
// Checked: the states read back equal the committed fleet/status/ of the dump tests (the server
// accepts every status of the dump; asserted), except where the dump says "not dumped"; a wrong
// token is the global failure (exit 5, nothing written); the narrow user without rights on Shoots gets Unknown (Forbidden) from exactly
// the Shoot reads; a Secret pointing outside skrApiServers is refused and never contacted.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { observeLive } from '../../src/observe/live-source';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture, NOW, REPO, runBinary } from '../helpers/fleet-fixture';
import { SAMPLE_DUMP } from './status-helpers';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; spec?: any; status?: any };

const CRDS = ['runtimes.infrastructuremanager.kyma-project.io', 'kymas.operator.kyma-project.io', 'registrycacheconfigs.core.kyma-project.io', 'shoots.core.gardener.cloud'];
const PLURALS: Record<string, string> = { Runtime: 'runtimes', Kyma: 'kymas', RegistryCacheConfig: 'registrycacheconfigs', Shoot: 'shoots' };
const GOLDEN = path.join(REPO, 'fleet/status');

/** The API path of an object, or of its collection (name undefined), or of its status subresource. */
function apiPath(o: Obj, name: string | undefined = o.metadata.name, sub = ''): string {
  const base = `/apis/${o.apiVersion}/namespaces/${o.metadata.namespace}/${PLURALS[o.kind]}`;
  return name === undefined ? base : `${base}/${name}${sub}`;
}

/** Every object of a dump folder (Lists flattened), by file, as kubectl printed them. */
function dumpObjects(dir: string): Obj[] {
  const out: Obj[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) continue;
    const docs = entry.name.endsWith('.json') ? [JSON.parse(fs.readFileSync(file, 'utf8'))] : parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS());
    for (const d of docs) out.push(...(d.kind === 'List' ? d.items : [d]));
  }
  return out;
}

/** What a client sends to create the object: no status, no server-owned metadata. */
function forCreate(o: Obj): Obj {
  const { status: _status, ...rest } = structuredClone(o);
  for (const k of ['resourceVersion', 'uid', 'creationTimestamp', 'generation', 'managedFields', 'finalizers', 'selfLink']) delete rest.metadata[k];
  return rest;
}

/** The rendered objects of a runtime (any folder under dist/runtimes/<name>/), by kind. */
function rendered(distDir: string, runtime: string, kind: string): Obj[] {
  const out: Obj[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml') && e.name !== 'kustomization.yaml') {
        const o = parse(fs.readFileSync(p, 'utf8')) as Obj;
        if (o.kind === kind) out.push(o);
      }
    }
  };
  walk(path.join(distDir, 'runtimes', runtime));
  return out;
}

function kubeconfig(contexts: Record<string, { server: string; caPem: string; token: string }>): string {
  const names = Object.keys(contexts);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.map((n) => ({ name: n, cluster: { server: contexts[n]!.server, 'certificate-authority-data': Buffer.from(contexts[n]!.caPem).toString('base64') } })),
    users: names.map((n) => ({ name: n, user: { token: contexts[n]!.token } })),
    contexts: names.map((n) => ({ name: n, context: { cluster: n, user: n } })),
    'current-context': names[0],
  });
}

interface StatusFile {
  state: string;
  extensions: Record<string, { state: string; reason: string; message: string; lastTransitionTime: string }>;
}

describeWithCluster('kyma-fleet status against the test cluster', () => {
  let cluster: TestCluster;
  let fx: FleetFixture;
  let dist: string;
  let adminConfig: string;
  const sample = {
    runtimes: dumpObjects(path.join(SAMPLE_DUMP, 'kcp')).filter((o) => o.kind === 'Runtime'),
    kcpKymas: dumpObjects(path.join(SAMPLE_DUMP, 'kcp')).filter((o) => o.kind === 'Kyma'),
    shoots: dumpObjects(path.join(SAMPLE_DUMP, 'garden')),
    skr: (name: string) => dumpObjects(path.join(SAMPLE_DUMP, 'runtimes', name)),
  };
  /** Status writes the server refused: `<kind> <ns>/<name>` → the server's message. */
  const refused = new Map<string, string>();

  async function ok(method: string, p: string, body?: unknown, contentType?: string): Promise<any> {
    const r = await cluster.request(method, p, { body, contentType });
    if (r.status >= 300) throw new Error(`${method} ${p}: HTTP ${r.status}: ${r.body}`);
    return JSON.parse(r.body);
  }

  /** Writes `status` through the status subresource; a refusal (422) is recorded, not thrown. */
  async function writeStatus(o: Obj, status: unknown): Promise<number> {
    const r = await cluster.request('PATCH', apiPath(o, o.metadata.name, '/status'), { body: { status }, contentType: 'application/merge-patch+json' });
    if (r.status === 422) refused.set(`${o.kind} ${o.metadata.namespace}/${o.metadata.name}`, (JSON.parse(r.body) as { message: string }).message);
    else if (r.status !== 200) throw new Error(`status of ${o.kind} ${o.metadata.name}: HTTP ${r.status}: ${r.body}`);
    return r.status;
  }

  /** Server-side apply of a rendered object, as Flux applies it. */
  async function applyRendered(o: Obj): Promise<void> {
    await cluster.kubectl(['apply', '--server-side', '--field-manager=kustomize-controller', '-f', '-'], { input: JSON.stringify(o) });
  }

  function runStatus(config: string, writeDir: string, extra: string[] = []) {
    return runBinary(['status', '--kubeconfig', config, '--kcp-context', 'kcp', '--garden-context', 'garden', '--write', writeDir, '--now', NOW, ...extra], fx.dir);
  }

  function readStatus(dir: string, name: string): StatusFile {
    return parse(fs.readFileSync(path.join(dir, `${name}.yaml`), 'utf8')) as StatusFile;
  }

  function golden(name: string): StatusFile['extensions'] {
    return (parse(fs.readFileSync(path.join(GOLDEN, `${name}.yaml`), 'utf8')) as StatusFile).extensions;
  }

  /** Makes the runtime cluster (SKR) be `name`'s, and only its kubeconfig Secret exist. */
  async function becomeRuntime(name: string): Promise<void> {
    await cluster.kubectl(['delete', 'registrycacheconfigs', '--all', '--all-namespaces', '--wait']);
    await cluster.kubectl(['delete', 'kymas', '-n', 'kyma-system', 'default', '--ignore-not-found', '--wait']);
    await cluster.kubectl(['delete', 'secrets', '-n', 'kcp-system', '--all', '--wait']);
    const objects = sample.skr(name);
    // The Kyma CR as rendered, the account labels Lifecycle Manager syncs, and its status.
    const kyma = rendered(dist, name, 'Kyma')[0]!;
    const liveKyma = objects.find((o) => o.kind === 'Kyma')!;
    await applyRendered(kyma);
    await ok('PATCH', apiPath(kyma), { metadata: { labels: liveKyma.metadata.labels } }, 'application/merge-patch+json');
    await writeStatus(kyma, liveKyma.status);
    // The rendered RegistryCacheConfigs the dump has, with their status.
    for (const rcc of rendered(dist, name, 'RegistryCacheConfig')) {
      const live = objects.find((o) => o.kind === 'RegistryCacheConfig' && o.spec.upstream === rcc.spec.upstream);
      if (!live) continue;
      await applyRendered(rcc);
      await writeStatus(rcc, live.status);
    }
    // The runtime's kubeconfig Secret in the KCP, pointing at this cluster.
    expect(sample.runtimes.some((r) => r.metadata.name === kcpName(name)), `a Runtime CR for ${name}`).toBe(true);
    const runtimeID = runtimeIdOf(name);
    await ok('POST', '/api/v1/namespaces/kcp-system/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `kubeconfig-${runtimeID}`, namespace: 'kcp-system' },
      data: { config: Buffer.from(kubeconfig({ skr: { server: cluster.server, caPem: cluster.caPem, token: cluster.adminToken } })).toString('base64') },
    });
  }

  function runtimeIdOf(name: string): string {
    const text = fs.readFileSync(fx.path(`runtimes/${name}.yaml`), 'utf8');
    return (parse(text) as { spec: { runtimeID: string } }).spec.runtimeID;
  }
  function kcpName(name: string): string {
    return runtimeIdOf(name).toLowerCase();
  }

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: CRDS });
    for (const ns of ['kcp-system', 'kyma-system', 'garden-kyma-prod', 'garden-kyma-dev']) await cluster.kubectl(['create', 'namespace', ns]);

    // The example fleet, allowing runtime API servers on 127.0.0.1, rendered.
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', '  skrApiServers:\n    - "*.kyma.ondemand.com"\n', '  skrApiServers: ["127.0.0.1:*"]\n');
    dist = path.join(fx.dir, 'dist');
    const synth = fx.runBinary(['synth', '--out', 'dist', '--now', NOW]);
    expect(synth.code, synth.stderr).toBe(0);

    // KCP: the Runtime CRs in full, as KEB creates them (without the field the fleet renders), the
    // rendered fragment merged in, then their status; the KCP Kymas.
    for (const rt of sample.runtimes) {
      const created = forCreate(rt);
      delete created.spec.imageRegistryCache;
      await ok('POST', apiPath(rt, undefined), created);
      const fleetName = fs.readdirSync(fx.path('runtimes')).map((f) => f.replace(/\.yaml$/, '')).find((n) => kcpName(n) === rt.metadata.name);
      const fragment = fleetName ? rendered(dist, fleetName, 'Runtime')[0] : undefined;
      if (fragment) await applyRendered(fragment);
      await writeStatus(rt, rt.status);
      // What the server stored is the full object: nothing KEB sent was pruned.
      const stored = await ok('GET', apiPath(rt));
      const { imageRegistryCache: _a, ...storedSpec } = stored.spec;
      expect(storedSpec).toEqual(created.spec);
      expect(stored.status.conditions).toEqual(rt.status.conditions);
    }
    for (const kyma of sample.kcpKymas) {
      await ok('POST', apiPath(kyma, undefined), forCreate(kyma));
      await writeStatus(kyma, kyma.status);
    }

    // Garden: the Shoots, with their generation brought to the dump's by real spec updates, then
    // their status (observedGeneration, lastOperation, lastErrors).
    for (const shoot of sample.shoots) {
      const generation = shoot.metadata.generation as number;
      const created = forCreate(shoot);
      if (generation > 1) created.spec.kymaFleetTestRevision = 0;
      await ok('POST', apiPath(shoot, undefined), created);
      for (let i = 1; i <= generation - 2; i++) await ok('PATCH', apiPath(shoot), { spec: { kymaFleetTestRevision: i } }, 'application/merge-patch+json');
      if (generation > 1) await ok('PATCH', apiPath(shoot), { spec: { kymaFleetTestRevision: null } }, 'application/merge-patch+json');
      await writeStatus(shoot, shoot.status);
      const stored = await ok('GET', apiPath(shoot));
      expect(stored.metadata.generation).toBe(generation);
      expect(stored.spec).toEqual(created.spec.kymaFleetTestRevision === undefined ? created.spec : { ...created.spec, kymaFleetTestRevision: undefined });
    }

    adminConfig = path.join(fx.dir, 'admin.kubeconfig');
    const admin = { server: cluster.server, caPem: cluster.caPem, token: cluster.adminToken };
    fs.writeFileSync(adminConfig, kubeconfig({ kcp: admin, garden: admin }));
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    fx?.cleanup();
  });

  const WITH_SKR = fs.readdirSync(path.join(SAMPLE_DUMP, 'runtimes')).sort();

  it('reads back, runtime by runtime, the states the dump tests expect for the same objects', async () => {
    const out = path.join(fx.dir, 'out');
    for (const name of WITH_SKR) {
      await becomeRuntime(name);
      const r = runStatus(adminConfig, path.join(out, name));
      expect(r.stderr, name).toBe('');
      expect(r.code, name).toBe(0);
      const live = readStatus(path.join(out, name), name).extensions;
      expect(live, name).toEqual(golden(name));
    }
    // Every status of the sample dump is one the real CRDs accept (acme-us-prod-1's failed config
    // included: `state: Failed` with its condition False), so live and dump agree on every runtime.
    expect([...refused.keys()]).toEqual([]);
    expect(golden('acme-us-prod-1')['registry-cache']).toMatchObject({ state: 'Failed', reason: 'RegistryCacheConfigFailed' });

    // A runtime the dump has no cluster for: live, it has no kubeconfig Secret (NoCredentials).
    const sandbox = readStatus(path.join(out, WITH_SKR[0]!), 'acme-eu-sandbox').extensions;
    expect(golden('acme-eu-sandbox')['registry-cache']!.reason).toBe('NotDumped');
    expect(sandbox['registry-cache']).toMatchObject({
      state: 'Unknown',
      reason: 'NoCredentials',
      message: `runtime cluster (SKR) not read: no secret kcp-system/kubeconfig-${runtimeIdOf('acme-eu-sandbox')} on the KCP; the runtime cannot be reached`,
    });
    expect(sandbox['falco']).toEqual(golden('acme-eu-sandbox')['falco']);
  }, 300_000);

  it('a RegistryCacheConfig whose failure the CRD refused is never Ready: Pending is Progressing, a False condition Failed', async () => {
    // GIVEN acme-us-prod-1's cluster, and KIM's Runtime condition no longer False (it says nothing)
    await becomeRuntime('acme-us-prod-1');
    const rt = sample.runtimes.find((r) => r.metadata.name === kcpName('acme-us-prod-1'))!;
    const conditions = rt.status.conditions.filter((c: { status: string }) => c.status !== 'False');
    await writeStatus(rt, { ...rt.status, state: 'Ready', conditions });
    const rcc = rendered(dist, 'acme-us-prod-1', 'RegistryCacheConfig').find((o) => o.spec.upstream === 'us-docker.pkg.dev')!;
    const name = `RegistryCacheConfig kyma-system/us-docker.pkg.dev`;

    // WHEN KIM writes Pending first (SetStatusPending), then its `state: Error` is refused, so the
    // object stays Pending (condition Unknown)
    expect(await writeStatus(rcc, { state: 'Pending', conditions: [{ type: 'RegistryCacheConfigured', status: 'Unknown', reason: 'RegistryCacheConfigured', message: '', lastTransitionTime: '2026-11-21T23:00:00Z' }] })).toBe(200);
    refused.clear();
    expect(await writeStatus(rcc, { state: 'Error', conditions: [{ type: 'RegistryCacheConfigured', status: 'False', reason: 'RegistryCacheGardenClusterConfigurationFailed', message: 'boom', lastTransitionTime: '2026-11-21T23:05:00Z' }] })).toBe(422);
    const stored = await ok('GET', apiPath(rcc));
    expect(stored.status.state).toBe('Pending');
    let r = runStatus(adminConfig, path.join(fx.dir, 'out-pending'));
    expect(r.code, r.stderr).toBe(0);

    // THEN it is Progressing, not Ready
    expect(readStatus(path.join(fx.dir, 'out-pending'), 'acme-us-prod-1').extensions['registry-cache']).toMatchObject({
      state: 'Progressing',
      reason: 'RegistryCacheConfigPending',
      message: `${name}: state Pending, condition RegistryCacheConfigured Unknown (RegistryCacheConfigured)`,
    });

    // WHEN a controller that could write its condition (in a write the CRD accepts) left it False
    expect(await writeStatus(rcc, { state: 'Pending', conditions: [{ type: 'RegistryCacheConfigured', status: 'False', reason: 'RegistryCacheGardenClusterConfigurationFailed', message: 'failed to sync secret', lastTransitionTime: '2026-11-21T23:05:00Z' }] })).toBe(200);
    r = runStatus(adminConfig, path.join(fx.dir, 'out-false'));
    expect(r.code, r.stderr).toBe(0);

    // THEN it is Failed, with the condition's message
    expect(readStatus(path.join(fx.dir, 'out-false'), 'acme-us-prod-1').extensions['registry-cache']).toMatchObject({
      state: 'Failed',
      reason: 'RegistryCacheConfigFailed',
      message: `${name}: state Pending but condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed): failed to sync secret`,
    });

    // (back to the dump's Runtime status for the other tests)
    await writeStatus(rt, rt.status);
  }, 120_000);

  it('a wrong token is the global failure: exit 5, nothing written', () => {
    const wrong = path.join(fx.dir, 'wrong.kubeconfig');
    fs.writeFileSync(wrong, kubeconfig({ kcp: { server: cluster.server, caPem: cluster.caPem, token: 'not-a-token' }, garden: { server: cluster.server, caPem: cluster.caPem, token: cluster.adminToken } }));
    const out = path.join(fx.dir, 'out-wrong');
    const r = runStatus(wrong, out);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^status: error: Unauthorized: KCP \(context "kcp"\): (get (runtimes\.infrastructuremanager\.kyma-project\.io|kymas\.operator\.kyma-project\.io|secrets) kcp-system\/\S+|list runtimes\.infrastructuremanager\.kyma-project\.io in namespace kcp-system): 401 Unauthorized; check the credentials of that context \(nothing written\)\n$/);
    expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    expect(fs.existsSync(`${out}.lock`)).toBe(false);
  });

  it('the narrow user (no rights on Shoots) gets Unknown (Forbidden) from exactly the Shoot reads', async () => {
    await becomeRuntime('acme-eu-prod-1');
    const narrow = { server: cluster.server, caPem: cluster.caPem, token: cluster.narrowToken };
    const config = path.join(fx.dir, 'narrow.kubeconfig');
    fs.writeFileSync(config, kubeconfig({ kcp: narrow, garden: narrow }));

    // The reporter's own view: only the Garden failed, with 403, on the Shoot of each runtime.
    const refs = fs
      .readdirSync(fx.path('runtimes'))
      .map((f) => f.replace(/\.yaml$/, ''))
      .sort()
      .map((name) => {
        const spec = (parse(fs.readFileSync(fx.path(`runtimes/${name}.yaml`), 'utf8')) as { spec: { runtimeID: string; shoot: { name: string; project: string } } }).spec;
        return { name, runtimeID: spec.runtimeID, kcpNamespace: 'kcp-system', shootName: spec.shoot.name, shootNamespace: `garden-${spec.shoot.project}` };
      });
    const obs = await observeLive(refs, { kubeconfig: config, kcpContext: 'kcp', gardenContext: 'garden', skrApiServers: ['127.0.0.1:*'] });
    expect(obs.global).toBeUndefined();
    for (const ref of refs) {
      const o = obs.runtimes.get(ref.name)!;
      expect(o.failures.filter((f) => f.cluster !== 'skr' || ref.name === 'acme-eu-prod-1'), ref.name).toEqual([
        {
          cluster: 'garden',
          reason: 'Forbidden',
          message: `get shoots.core.gardener.cloud ${ref.shootNamespace}/${ref.shootName}: 403 Forbidden: shoots.core.gardener.cloud "${ref.shootName}" is forbidden: User "kyma-fleet-narrow" cannot get resource "shoots" in API group "core.gardener.cloud" in the namespace "${ref.shootNamespace}"`,
        },
      ]);
      expect(o.read.has('kcp'), ref.name).toBe(true);
      expect(o.read.has('garden'), ref.name).toBe(false);
    }
    expect([...obs.runtimes.get('acme-eu-prod-1')!.read].sort()).toEqual(['kcp', 'skr']);

    // The binary's report: every extension Unknown (Forbidden), quoting the Shoot read.
    const out = path.join(fx.dir, 'out-narrow');
    const r = runStatus(config, out);
    expect(r.code, r.stderr).toBe(0);
    for (const ref of refs) {
      const status = readStatus(out, ref.name);
      expect(status.state).toBe('Unknown');
      for (const [ext, e] of Object.entries(status.extensions)) {
        expect({ ext, state: e.state, reason: e.reason }).toEqual({ ext, state: 'Unknown', reason: 'Forbidden' });
        expect(e.message).toBe(`Garden cluster not read: get shoots.core.gardener.cloud ${ref.shootNamespace}/${ref.shootName}: 403 Forbidden: shoots.core.gardener.cloud "${ref.shootName}" is forbidden: User "kyma-fleet-narrow" cannot get resource "shoots" in API group "core.gardener.cloud" in the namespace "${ref.shootNamespace}"`);
      }
    }
  });

  it('a kubeconfig Secret whose server skrApiServers does not allow is refused for its runtime, naming the Secret and the host', async () => {
    await becomeRuntime('acme-eu-prod-1');
    // GIVEN the example fleet as it ships, which allows only the landscape's domain
    const strict = FleetFixture.example();
    try {
      expect(strict.read('fleet.yaml')).toContain('  skrApiServers:\n    - "*.kyma.ondemand.com"\n');
      const out = path.join(strict.dir, 'out');
      const r = strict.runBinary(['status', '--kubeconfig', adminConfig, '--kcp-context', 'kcp', '--garden-context', 'garden', '--write', out, '--now', NOW, '--output', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const id = runtimeIdOf('acme-eu-prod-1');
      const rc = readStatus(out, 'acme-eu-prod-1').extensions['registry-cache']!;
      expect(rc).toMatchObject({
        state: 'Unknown',
        reason: 'RefusedCredentials',
        message: `runtime cluster (SKR) not read: the kubeconfig in secret kcp-system/kubeconfig-${id} (key config) points at ${new URL(cluster.server).host}, which skrApiServers in fleet.yaml does not allow (no pattern of skrApiServers allows it; allowed: *.kyma.ondemand.com); nothing was sent there`,
      });
    } finally {
      strict.cleanup();
    }
  });

  it('without --kubeconfig and the context options, status reads the clusters of $KUBECONFIG through its current-context, as kubectl would', async () => {
    // GIVEN the admin kubeconfig (current-context kcp: the test cluster serves as KCP and Garden) in
    // $KUBECONFIG behind a file that does not exist (skipped, as kubectl skips it)
    await becomeRuntime('acme-eu-prod-1');
    const explicit = path.join(fx.dir, 'out-explicit');
    const implicit = path.join(fx.dir, 'out-kubeconfig-env');
    expect(runStatus(adminConfig, explicit).code).toBe(0);
    const r = runBinary(['status', '--write', implicit, '--now', NOW], fx.dir, { KUBECONFIG: [path.join(fx.dir, 'absent.kubeconfig'), adminConfig].join(path.delimiter) });
    // THEN the same status as with --kubeconfig FILE --kcp-context kcp --garden-context garden
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const name of fs.readdirSync(explicit).filter((f) => f.endsWith('.yaml'))) {
      expect(fs.readFileSync(path.join(implicit, name), 'utf8'), name).toBe(fs.readFileSync(path.join(explicit, name), 'utf8'));
    }
  });
});
