// End to end, on one test cluster (issue 17, "Done means", first bullet): the example fleet, rendered
// by the real CLI and applied in the documented way (docs/applying.md: Flux applies kcp/, skr/, then
// skr-config/ once the CRDs exist; `kyma-fleet apply garden` writes the Shoot entries KIM does not
// manage), ends with the Kyma CR, the config CRs, the Runtime fragment and the Shoot entries in place,
// starting from a cluster WITHOUT the RegistryCacheConfig CRD; the real `kyma-fleet status` then
// reports every enabled extension of the runtime Ready (in effect).
//
// One cluster plays the KCP, the Garden and the runtime (SKR): it holds one kyma-system/default only,
// so the SKR part is that of ONE runtime, acme-eu-prod-2 (production: registry-cache and Falco
// enabled, with a Falco rule ConfigMap; Lakom too where the example fleet has it). The KCP and the
// Garden hold what the landscape has for every runtime of the fleet (a Runtime CR as KEB creates it,
// a Shoot with KIM's entries and runtime-id annotation), so `apply garden` runs over the whole fleet
// as its CI job does; only acme-eu-prod-2 has a kubeconfig-<runtimeID> Secret (pointing at this
// cluster, hence `skrApiServers: ["127.0.0.1:*"]` in place of the example's "*.kyma.ondemand.com" in the copy's fleet.yaml).
//
// Nobody runs the controllers here, so the test plays their part explicitly and minimally, each right
// after the change it reacts to in a landscape, through the status subresource where they use it:
// - Lifecycle Manager: installs the RegistryCacheConfig CRD when the Kyma CR enables registry-cache
//   (as the module would) and marks the listed modules Ready in the Kyma CR's status;
// - the registry-cache module: marks each RegistryCacheConfig Ready (condition RegistryCacheConfigured);
// - KIM: copies the Runtime's imageRegistryCache into the Shoot's registry-cache entry (the rendered
//   garden/ fragment's entry, with KIM's reg-cache-<uuid> Secret names and resources) and sets the
//   Runtime's condition RegistryCacheConfigured;
// - Gardener: reconciles the Shoot after each spec change (observedGeneration = generation,
//   lastOperation Reconcile Succeeded).
// So `status` runs three times: before `apply garden` (registry-cache Ready; Falco, and every other
// entry apply garden writes, Progressing (NotApplied)), right after it (Progressing: Gardener has not
// reconciled the new generation), and after Gardener's reconcile (every enabled extension Ready).
//
// The negative, in the first test: the old single-SKR-folder wiring of acme-eu-prod-2 (the committed
// fixture test/flux/fixtures/old-layout/) stalls on the same cluster: its dry-run fails on the
// missing CRD, reconcile after reconcile, and the Kyma CR is never applied, so the module (and with
// it the CRD) would never arrive.

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXTENSIONS } from '../../src/extensions';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { CRD, KEB_MANAGER, KLM_MANAGER, createNamespaces, getObject, kebRuntime, reconcileInOrder } from '../flux/cluster-steps';
import { ensureFluxApply, reconcile, type ReconcileResult } from '../flux/flux-apply';
import { byRuntime, inventoryId, readFluxWiring, readKustomizationFile, renderedObjects, type FluxKustomization } from '../flux/flux-wiring';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

type Rec = Record<string, any>;

const RUNTIME = 'acme-eu-prod-2';
const OLD_LAYOUT = path.join(__dirname, '..', 'flux', 'fixtures', 'old-layout');
const KCP_NAMESPACE = 'kcp-system';
const RUNTIME_ID_ANNOTATION = 'infrastructuremanager.kyma-project.io/runtime-id';
const REGISTRY_CACHE = 'registry-cache';
const KIM_MANAGER = 'infrastructure-manager';
const GARDENER_MANAGER = 'gardener-apiserver';
const CONTEXT = 'test-cluster';
const RCC_RESOURCE = 'registrycacheconfigs.core.kyma-project.io';
const KYMA_RESOURCE = 'kymas.operator.kyma-project.io';
const RUNTIME_RESOURCE = 'runtimes.infrastructuremanager.kyma-project.io';
/** Ready=False reasons that mean Flux tried to apply and failed (a failed dry-run among them). */
const APPLY_FAILED = new Set(['ReconciliationFailed', 'BuildFailed', 'PruneFailed', 'ArtifactFailed']);
const KYMA_ID = inventoryId({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' } });
const TIME = '2026-11-22T00:00:00Z';

/** A runtime of the fleet as the landscape knows it. */
interface FleetRuntime {
  name: string;
  runtimeID: string;
  globalAccountID: string;
  subaccountID: string;
  shootNamespace: string;
  shootName: string;
}

interface StatusFile {
  state: string;
  extensions: Record<string, { state: string; reason: string; message: string }>;
}

describeWithCluster('every rendered change takes effect: the example fleet applied as documented, end to end', () => {
  let cluster: TestCluster;
  let fx: FleetFixture;
  let runtimes: FleetRuntime[];

  beforeAll(async () => {
    await ensureFluxApply();
    // Kyma, Runtime, Kustomization and the stand-in Shoot; NOT the RegistryCacheConfig CRD.
    cluster = await startTestCluster({ crds: [CRD.kyma, CRD.runtime, CRD.kustomization, CRD.shoot] });
    // 1. The example fleet in a workspace (runtime API servers on 127.0.0.1 allowed), rendered by the CLI.
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', '  skrApiServers:\n    - "*.kyma.ondemand.com"\n', '  skrApiServers: ["127.0.0.1:*"]\n');
    const synth = fx.runBinary(['synth', '--now', NOW, '--no-cache']);
    expect(synth.code, synth.stderr).toBe(0);
    runtimes = fleetRuntimes(fx);
    await createNamespaces(cluster, [KCP_NAMESPACE, 'kyma-system', ...new Set(runtimes.map((r) => r.shootNamespace))]);
  }, 20 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
    fx?.cleanup();
  });

  // ---- the cluster, as the landscape's controllers and users see it ----

  async function api(method: string, apiPath: string, body?: unknown, contentType?: string): Promise<Rec> {
    const r = await cluster.request(method, apiPath, { ...(body === undefined ? {} : { body }), ...(contentType ? { contentType } : {}) });
    if (r.status >= 300) throw new Error(`${method} ${apiPath}: HTTP ${r.status}: ${r.body}`);
    return JSON.parse(r.body) as Rec;
  }
  const shootPath = (r: FleetRuntime, sub = ''): string => `/apis/core.gardener.cloud/v1beta1/namespaces/${r.shootNamespace}/shoots/${r.shootName}${sub}`;
  const runtimePath = (r: FleetRuntime, sub = ''): string => `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${KCP_NAMESPACE}/runtimes/${r.runtimeID.toLowerCase()}${sub}`;
  const kymaPath = (sub = ''): string => `/apis/operator.kyma-project.io/v1beta2/namespaces/kyma-system/kymas/default${sub}`;
  const mergePatch = (p: string, body: unknown, manager: string): Promise<Rec> => api('PATCH', `${p}?fieldManager=${manager}`, body, 'application/merge-patch+json');

  /** Gardener's part: the Shoot's current generation reconciled successfully. */
  async function gardenerReconciles(r: FleetRuntime, type: 'Create' | 'Reconcile' = 'Reconcile'): Promise<void> {
    const shoot = await api('GET', shootPath(r));
    await mergePatch(shootPath(r, '/status'), {
      status: {
        observedGeneration: shoot.metadata.generation,
        lastOperation: { type, state: 'Succeeded', progress: 100, description: 'Shoot cluster has been successfully reconciled.', lastUpdateTime: TIME },
        lastErrors: null,
      },
    }, GARDENER_MANAGER);
  }

  /** Runs the real `kyma-fleet status` (live: the admin kubeconfig, one context for KCP and Garden) and returns RUNTIME's status file. */
  function runStatus(): StatusFile {
    const r = fx.runBinary(['status', '--kubeconfig', cluster.adminKubeconfig, '--kcp-context', CONTEXT, '--garden-context', CONTEXT, '--now', NOW]);
    expect(r.code, `status: ${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stderr).toBe('');
    return parse(fs.readFileSync(fx.path(`status/${RUNTIME}.yaml`), 'utf8')) as StatusFile;
  }

  it('the old single SKR folder stalls without the RegistryCacheConfig CRD: its dry-run fails every time and the Kyma CR is never applied', async () => {
    expect((await cluster.kubectl(['get', 'crd', '-o', 'name'])).stdout).not.toContain(CRD.registryCacheConfig);
    const oldSkr = readKustomizationFile(path.join(OLD_LAYOUT, 'dist', 'gitops', 'flux', `${RUNTIME}-skr.yaml`));
    expect(renderedObjects(OLD_LAYOUT, oldSkr.specPath).map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Kyma', 'RegistryCacheConfig', 'RegistryCacheConfig', 'RegistryCacheConfig']);
    for (const revision of ['old-1', 'old-2', 'old-3']) {
      const r = await reconcile(oldSkr.file, { sourceRoot: OLD_LAYOUT, kubeconfig: cluster.adminKubeconfig, revision, healthTimeout: '3s' });
      expect(r.ready).toBe(false);
      expect(r.reason).toBe('ReconciliationFailed');
      expect(r.message).toMatch(/dry-run failed/);
      expect(r.message).toMatch(/RegistryCacheConfig/);
      expect(r.changeset.some((e) => e.id === KYMA_ID && e.action !== 'skipped')).toBe(false);
      expect(await getObject(cluster, KYMA_RESOURCE, 'kyma-system', 'default')).toBeUndefined();
    }
    // Leave the cluster as the next test expects it: no Kustomization of the old wiring.
    await cluster.kubectl(['delete', 'kustomizations.kustomize.toolkit.fluxcd.io', `${RUNTIME}-skr`, '-n', KCP_NAMESPACE, '--wait']);
  }, 10 * 60_000);

  it('rendered, applied in the documented order from a cluster without the extension CRD: everything in place, and status reports every enabled extension Ready', async () => {
    expect((await cluster.kubectl(['get', 'crd', '-o', 'name'])).stdout).not.toContain(CRD.registryCacheConfig);
    const dist = path.join(fx.dir, 'dist');
    const wiring = byRuntime(readFluxWiring(dist)).get(RUNTIME) ?? [];
    const target = (t: string): FluxKustomization => wiring.find((k) => k.target === t)!;
    expect(wiring.map((k) => k.target).sort()).toEqual(['kcp', 'skr', 'skr-config']);
    const rendered = (t: string): Rec[] => renderedObjects(fx.dir, target(t).specPath);
    const renderedKyma = rendered('skr').find((o) => o.kind === 'Kyma')!;
    const renderedConfigs = rendered('skr-config');
    const renderedRccs = renderedConfigs.filter((o) => o.kind === 'RegistryCacheConfig');
    const renderedRuntime = rendered('kcp').find((o) => o.kind === 'Runtime')!;
    const fragment = gardenFragment(dist, RUNTIME);
    const enabled = enabledExtensions(fragment);
    const me = runtimes.find((r) => r.name === RUNTIME)!;
    // The chosen runtime has what this test is about.
    expect(enabled).toEqual(expect.arrayContaining([REGISTRY_CACHE, 'falco']));
    expect(renderedRccs.length).toBeGreaterThanOrEqual(1);
    expect(renderedConfigs.some((o) => o.kind === 'ConfigMap')).toBe(true);
    const fleetWritten = fleetWrittenEntries(fragment);
    expect(fleetWritten.map((e) => e.type)).toContain('shoot-falco-service');
    console.log(`[e2e] ${RUNTIME}: enabled ${enabled.join(', ')}; apply garden writes ${fleetWritten.map((e) => e.type).join(', ')}`);

    // ---- 2. What the landscape has before the fleet acts ----
    // KCP: every runtime's Runtime CR, full, as KEB creates it, provisioned by KIM (status Ready).
    for (const r of runtimes) {
      const keb = kebRuntime(r.runtimeID.toLowerCase(), KCP_NAMESPACE) as Rec;
      keb.spec.shoot.name = r.shootName;
      keb.metadata.labels['kyma-project.io/global-account-id'] = r.globalAccountID;
      keb.metadata.labels['kyma-project.io/subaccount-id'] = r.subaccountID;
      await cluster.kubectl(['apply', '--server-side', `--field-manager=${KEB_MANAGER}`, '-f', '-'], { input: JSON.stringify(keb) });
      await mergePatch(runtimePath(r, '/status'), {
        status: {
          state: 'Ready',
          provisioningCompleted: true,
          conditions: [
            { type: 'Provisioned', status: 'True', reason: 'ConfigurationCompleted', message: 'Runtime processing completed successfully', lastTransitionTime: TIME },
            { type: 'KubeconfigReady', status: 'True', reason: 'GardenerClusterCRReady', message: 'Kubeconfig for the runtime is available', lastTransitionTime: TIME },
          ],
        },
      }, KIM_MANAGER);
    }
    // Garden: every runtime's Shoot with KIM's entries and runtime-id annotation, created and reconciled.
    const shootsBefore = new Map<string, Rec>();
    for (const r of runtimes) {
      await api('POST', `/apis/core.gardener.cloud/v1beta1/namespaces/${r.shootNamespace}/shoots?fieldManager=${KIM_MANAGER}`, {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: r.shootName, namespace: r.shootNamespace, annotations: { [RUNTIME_ID_ANNOTATION]: r.runtimeID } },
        spec: { region: 'eu-central-1', ...kimShootEntries() },
      });
      await gardenerReconciles(r, 'Create');
      shootsBefore.set(r.name, await api('GET', shootPath(r)));
    }
    // The runtime's kubeconfig Secret that KIM writes in the KCP: here it points at this same cluster.
    await api('POST', `/api/v1/namespaces/${KCP_NAMESPACE}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `kubeconfig-${me.runtimeID}`, namespace: KCP_NAMESPACE },
      data: { config: Buffer.from(fs.readFileSync(cluster.adminKubeconfig)).toString('base64') },
    });

    // ---- 3. Flux applies the runtime's wiring in dependsOn order, without the RegistryCacheConfig CRD ----
    const opts = { sourceRoot: fx.dir, kubeconfig: cluster.adminKubeconfig, revision: 'r1' };
    const first = await reconcileInOrder(wiring, { ...opts, healthTimeout: '3s' });
    const firstOf = (t: string): ReconcileResult => first.get(target(t).name)!;
    for (const [name, r] of first) expect(APPLY_FAILED.has(r.reason), `${name}: ${r.reason}: ${r.message}`).toBe(false);
    expect(firstOf('kcp').ready, firstOf('kcp').message).toBe(true);
    // skr: the Kyma CR is in; the Kustomization waits for the CRD its config objects need.
    expect(firstOf('skr').changeset.find((e) => e.id === KYMA_ID)?.action).toBe('created');
    expect(firstOf('skr').ready).toBe(false);
    expect(firstOf('skr').reason).toBe('HealthCheckFailed');
    // skr-config waits: not failed, its dependency is not Ready.
    expect(firstOf('skr-config').ready).toBe(false);
    expect(firstOf('skr-config').reason).toBe('DependencyNotReady');
    expect(firstOf('skr-config').changeset).toEqual([]);
    const liveKyma = (await getObject(cluster, KYMA_RESOURCE, 'kyma-system', 'default'))!;
    expect(liveKyma.spec.modules).toMatchObject(renderedKyma.spec.modules); // (plus the CRD's defaults)

    // Lifecycle Manager: the Kyma CR enables registry-cache, so the module arrives with its CRD; the
    // account labels it syncs; every listed module Ready.
    const modules = (renderedKyma.spec.modules as Rec[]).map((m) => m.name as string);
    expect(modules).toEqual(expect.arrayContaining([REGISTRY_CACHE, 'falco']));
    await cluster.installCrds([CRD.registryCacheConfig]);
    await mergePatch(kymaPath(), { metadata: { labels: { 'kyma-project.io/global-account-id': me.globalAccountID, 'kyma-project.io/subaccount-id': me.subaccountID } } }, KLM_MANAGER);
    await mergePatch(kymaPath('/status'), {
      status: {
        state: 'Ready',
        activeChannel: renderedKyma.spec.channel,
        modules: modules.map((name) => ({ name, channel: renderedKyma.spec.channel, fqdn: `kyma-project.io/module/${name}`, state: 'Ready', version: '1.0.0' })),
      },
    }, KLM_MANAGER);

    // Flux's next reconcile: everything Ready.
    const second = await reconcileInOrder(wiring, { ...opts, healthTimeout: '60s' });
    for (const [name, r] of second) expect(r.ready, `${name}: ${r.reason}: ${r.message}`).toBe(true);
    for (const o of renderedConfigs) {
      const live = await getObject(cluster, o.kind === 'ConfigMap' ? 'configmaps' : RCC_RESOURCE, o.metadata.namespace, o.metadata.name);
      expect(live, `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).toBeDefined();
      expect(o.kind === 'ConfigMap' ? live!.data : live!.spec).toEqual(o.kind === 'ConfigMap' ? o.data : o.spec);
    }
    const liveRuntime = (await getObject(cluster, RUNTIME_RESOURCE, KCP_NAMESPACE, me.runtimeID.toLowerCase()))!;
    expect(liveRuntime.spec.imageRegistryCache).toEqual(renderedRuntime.spec.imageRegistryCache);
    expect(liveRuntime.spec.shoot.name).toBe(me.shootName); // KEB's spec is still there

    // The registry-cache module: each RegistryCacheConfig configured.
    for (const o of renderedRccs) {
      await mergePatch(`/apis/core.kyma-project.io/v1beta1/namespaces/${o.metadata.namespace}/registrycacheconfigs/${o.metadata.name}/status`, {
        status: { state: 'Ready', conditions: [{ type: 'RegistryCacheConfigured', status: 'True', reason: 'RegistryCacheConfigured', message: '', lastTransitionTime: TIME }] },
      }, KIM_MANAGER);
    }
    // KIM: the Runtime's caches into the Shoot's registry-cache entry (the rendered entry, with its
    // Garden Secret copies named reg-cache-<uuid> and referenced from spec.resources), then its condition.
    const renderedCacheEntry = fragment.spec.extensions.find((e: Rec) => e.type === REGISTRY_CACHE);
    expect((renderedCacheEntry.providerConfig.caches as Rec[]).map((c) => c.upstream)).toEqual((liveRuntime.spec.imageRegistryCache as Rec[]).map((c) => c.config.upstream));
    await kimPatchesShoot(me, renderedCacheEntry);
    await mergePatch(runtimePath(me, '/status'), {
      status: {
        state: 'Ready',
        conditions: [
          ...((await api('GET', runtimePath(me))).status.conditions as Rec[]),
          { type: 'RegistryCacheConfigured', status: 'True', reason: 'RegistryCacheConfigured', message: '', lastTransitionTime: TIME },
        ],
      },
    }, KIM_MANAGER);
    await gardenerReconciles(me);
    const shootWithKim = await api('GET', shootPath(me));

    // ---- status before apply garden: registry-cache in effect, Falco (and every entry apply garden writes) NotApplied ----
    const before = runStatus();
    expect(before.extensions[REGISTRY_CACHE], 'registry-cache before apply garden').toMatchObject({ state: 'Ready', reason: 'Reconciled' });
    for (const e of fleetWritten) {
      const ext = extensionOfType(e.type);
      expect(before.extensions[ext], `${ext} before apply garden`).toMatchObject({ state: 'Progressing', reason: 'NotApplied' });
    }
    expect(before.extensions.falco!.message).toContain(`Shoot ${me.shootNamespace}/${me.shootName}: the rendered shoot-falco-service entry is not on the Shoot yet`);

    // ---- 4. kyma-fleet apply garden over the fleet, as its CI job runs it ----
    const applied = fx.runBinary(['apply', 'garden', '--kubeconfig', cluster.adminKubeconfig, '--garden-context', CONTEXT, '--now', NOW, '--allow-mass-change', '--output', 'json']);
    expect(applied.code, `${applied.stdout}${applied.stderr}`).toBe(0);
    const report = JSON.parse(applied.stdout) as Rec;
    expect(report.runtimes.find((x: Rec) => x.name === RUNTIME)).toMatchObject({ outcome: 'Applied', generation: shootWithKim.metadata.generation + 1 });
    for (const r of runtimes) {
      const old = r.name === RUNTIME ? shootWithKim : shootsBefore.get(r.name)!;
      const live = await api('GET', shootPath(r));
      const written = fleetWrittenEntries(gardenFragment(dist, r.name));
      // KIM's entries (registry-cache included) byte for byte and in place; then the fleet's entries.
      const kept = old.spec.extensions as Rec[];
      expect(JSON.stringify(live.spec.extensions.slice(0, kept.length)), r.name).toBe(JSON.stringify(kept));
      expect(sortByType(live.spec.extensions.slice(kept.length)), r.name).toStrictEqual(sortByType(written));
      // KIM's resources kept in place; the only others are those kyma-fleet records as its own.
      const oldResources = (old.spec.resources ?? []) as Rec[];
      expect(JSON.stringify((live.spec.resources ?? []).slice(0, oldResources.length)), r.name).toBe(JSON.stringify(oldResources));
      const own = String(live.metadata.annotations?.['kyma-fleet.dev/shoot-resources'] ?? '').split(',').filter(Boolean);
      expect((live.spec.resources ?? []).slice(oldResources.length).map((x: Rec) => x.name).sort(), r.name).toEqual(own.sort());
    }

    // Right after the write, Gardener has not reconciled the new generation: nothing reports Ready.
    const stale = runStatus();
    for (const ext of enabled) expect(stale.extensions[ext], `${ext} before Gardener reconciled`).toMatchObject({ state: 'Progressing', reason: 'ShootGenerationStale' });

    // ---- 5. Gardener reconciles the Shoot with the fleet's entries ----
    await gardenerReconciles(me);

    // ---- 6. status: every enabled extension of the runtime in effect ----
    const after = runStatus();
    for (const plugin of EXTENSIONS) {
      const expected = enabled.includes(plugin.name) ? { state: 'Ready', reason: 'Reconciled' } : { state: 'Disabled', reason: 'DisabledInFleet' };
      expect(after.extensions[plugin.name], plugin.name).toMatchObject(expected);
    }
    expect(after.state).toBe('Ready');
    expect(after.extensions[REGISTRY_CACHE]!.message).toContain(`${renderedRccs.length} RegistryCacheConfig${renderedRccs.length === 1 ? '' : 's'} Ready`);
    expect(after.extensions.falco!.message).toContain('module falco Ready');
    expect(after.extensions.falco!.message).toContain('shoot-falco-service matches the fleet, lastOperation Reconcile Succeeded');
    // The record status read: apply garden wrote this render into the runtime's Shoot.
    const record = JSON.parse(fs.readFileSync(fx.path('status/garden-apply.json'), 'utf8')) as Rec;
    expect(record.runtimes[RUNTIME]).toMatchObject({ outcome: 'Applied', generation: shootWithKim.metadata.generation + 1 });
  }, 15 * 60_000);

  /** KIM's patch of the Shoot: the registry-cache entry replaced or added, its reg-cache- resources rebuilt. */
  async function kimPatchesShoot(r: FleetRuntime, renderedEntry: Rec): Promise<void> {
    const shoot = await api('GET', shootPath(r));
    const resources = ((shoot.spec.resources ?? []) as Rec[]).filter((x) => !String(x.name).includes('reg-cache-'));
    const caches = (renderedEntry.providerConfig.caches as Rec[]).map((c) => {
      if (!c.secretReferenceName) return c;
      const name = `reg-cache-${randomUUID()}`;
      resources.push({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } });
      return { ...c, secretReferenceName: name };
    });
    const entry = { type: REGISTRY_CACHE, disabled: false, providerConfig: { ...renderedEntry.providerConfig, caches } };
    const extensions = shoot.spec.extensions as Rec[];
    const at = extensions.findIndex((e) => e.type === REGISTRY_CACHE);
    if (at >= 0) extensions[at] = entry;
    else extensions.push(entry);
    shoot.spec.resources = resources;
    await api('PUT', `${shootPath(r)}?fieldManager=${KIM_MANAGER}`, shoot);
  }
});

/** The runtimes of the workspace's fleet, with what the landscape knows of them. */
function fleetRuntimes(fx: FleetFixture): FleetRuntime[] {
  return fs.readdirSync(fx.path('runtimes')).filter((f) => f.endsWith('.yaml')).sort().map((f) => {
    const doc = parse(fs.readFileSync(fx.path(`runtimes/${f}`), 'utf8')) as Rec;
    const s = doc.spec;
    return { name: doc.metadata.name, runtimeID: s.runtimeID, globalAccountID: s.globalAccountID, subaccountID: s.subaccountID, shootNamespace: `garden-${s.shoot.project}`, shootName: s.shoot.name };
  });
}

/** KIM's entries on a Shoot it created (before any registry cache): DNS, certificates, network filter, OIDC, and the audit log Secret. */
function kimShootEntries(): { extensions: Rec[]; resources: Rec[] } {
  return {
    extensions: [
      { type: 'shoot-dns-service', providerConfig: { apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1', kind: 'DNSConfig', syncProvidersFromShootSpecDNS: true } },
      { type: 'shoot-cert-service', providerConfig: { apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1', kind: 'CertConfig', shootIssuers: { enabled: true } } },
      { type: 'shoot-networking-filter', disabled: true },
      { type: 'shoot-oidc-service', disabled: false },
    ],
    resources: [{ name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'auditlog-credentials' } }],
  };
}

/** The rendered garden/ Shoot fragment of a runtime (an empty spec when it has none). */
function gardenFragment(dist: string, runtime: string): Rec {
  const dir = path.join(dist, 'runtimes', runtime, 'garden');
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith('shoot-')) : undefined;
  return file ? (parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Rec) : { spec: {} };
}

/** The entries of a fragment that apply garden writes: every type but those KIM writes from the Runtime CR. */
function fleetWrittenEntries(fragment: Rec): Rec[] {
  const kimWritten = new Set(EXTENSIONS.filter((p) => p.shootEntryWrittenBy === 'kim').map((p) => p.shootExtensionType));
  return ((fragment.spec.extensions ?? []) as Rec[]).filter((e) => !kimWritten.has(e.type));
}

/** The extensions the fragment enables (an entry of their type without disabled: true), by extension name. */
function enabledExtensions(fragment: Rec): string[] {
  const entries = (fragment.spec.extensions ?? []) as Rec[];
  return EXTENSIONS.filter((p) => entries.some((e) => e.type === p.shootExtensionType && e.disabled !== true)).map((p) => p.name).sort();
}

function extensionOfType(type: string): string {
  const plugin = EXTENSIONS.find((p) => p.shootExtensionType === type);
  if (!plugin) throw new Error(`no extension renders Shoot entries of type ${type}`);
  return plugin.name;
}

function sortByType(entries: readonly Rec[]): Rec[] {
  return [...entries].sort((a, b) => String(a.type).localeCompare(String(b.type)));
}
