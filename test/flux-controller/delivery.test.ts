// The delivery itself, by the real Flux kustomize-controller v1.9.6 (built from the Go module proxy,
// tools.ts), reconciling what the real CLI rendered (`kyma-fleet synth`) from a source served by the
// harness (artifact-server.ts: source-controller does not build from the proxy), on a KCP test cluster,
// with one SKR test cluster per runtime (landscape.ts). The test only bootstraps ONE root Kustomization
// at <flux.path>/gitops/flux, as docs/applying.md tells a user to; everything else is the controller's.
// One controller and KCP for the file; every case its own fleet in its own KCP namespace and its own
// SKR clusters.
//
// Scenarios (issue 25), each with what breaks it:
// a. first enablement before the RegistryCacheConfig CRD exists on the runtime: the Kyma CR is
//    applied, <rt>-skr-config waits (DependencyNotReady, never a failed apply); once the CRD arrives
//    (as lifecycle-manager's module would bring it) everything is Ready without a person.
//    Broken (a permanent case below): the render with `dependsOn` removed from skr-config: its dry-run
//    fails on the missing kind, which the same check reports.
// b. a revision that fails for good (a skr-config object the API server refuses) and then a fixing
//    revision: the fix is applied without a person. Broken by hand once: a "fix" that the server still
//    refuses (volume.size `sixty`): the test times out with skr-config ReconciliationFailed.
// c. a runtime removed from the fleet: its Kustomizations are deleted (and its shard's, when the shard
//    is left empty), nothing on its clusters is (Kyma CR, RegistryCacheConfigs, Runtime CR on the KCP
//    keep their UIDs). Broken (a permanent case
//    below): the render without `deletionPolicy` (Flux's default MirrorPrune): the controller deletes
//    the RegistryCacheConfigs, which the same check reports.
// d. modules lifecycle-manager put into the runtime's Kyma CR survive every reconcile and a fleet
//    change. KLM creates the SKR Kyma CR once, with a plain Create and no field owner
//    (lifecycle-manager c5b83f1 internal/remote/skr_context.go CreateOrFetchKyma, client.New without
//    a FieldOwner: the API server records the manager `manager`, from the binary's user agent, with
//    operation Update); it never writes the SKR spec afterwards. The test creates it that way
//    (fieldManager=manager), and also adds one module by server-side apply as `lifecycle-manager`
//    (the owner name test/flux assumes). Broken by hand once:
//    KYMA_FLEET_FLUX_CONTROLLER_ARGS=--override-manager=manager (kustomize-controller then takes over
//    that manager's fields, as it does kubectl's) removes KLM's module and fails this case.
// e. what a person adds with kubectl, through any subcommand (apply --server-side, client-side apply,
//    edit, patch), is removed at the next reconcile of <rt>-skr: kustomize-controller takes over every
//    field manager whose name starts with `kubectl`. Broken by hand once: the same additions made
//    under a field manager not starting with kubectl stay, and the case fails.
// f. a commit that changes one runtime costs that runtime's Kustomizations and no others: with
//    `flux.artifacts: per-runtime` (the default) the changed runtime's ExternalArtifact is the only one
//    the generators revise, and kustomize-controller downloads only it (three times: kcp, skr,
//    skr-config) and the root's source; no other runtime's or shard's Kustomization fetches anything.
//    Broken (a permanent case below): the same fleet with `whole-source`: every Kustomization of the
//    fleet fetches the whole source again, which the same count reports.
//
// Controller flags: --requeue-dependency=5s (default 30s) so a Kustomization waiting for its dependsOn
// is looked at again sooner; KYMA_FLEET_FLUX_CONTROLLER_ARGS adds flags (space separated).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../cluster/harness';
import { describeWithFluxController } from './describe-with-flux-controller';
import { FleetWorkspace } from './fleet-workspace';
import type { FluxNode } from './flux-tree';
import { CRDS, FleetDelivery, FluxLandscape, formatStatus, getObject, type KsStatus } from './landscape';

/** Ready=False reasons that mean the controller tried and failed (not: waited). */
const FAILED = new Set(['ReconciliationFailed', 'BuildFailed', 'ArtifactFailed', 'HealthCheckFailed', 'PruneFailed']);
const KYMA = 'kymas.operator.kyma-project.io';
const RCC = 'registrycacheconfigs.core.kyma-project.io';
const RUNTIME = 'runtimes.infrastructuremanager.kyma-project.io';

let landscape: FluxLandscape;
const workspaces: FleetWorkspace[] = [];

interface Case {
  ws: FleetWorkspace;
  delivery: FleetDelivery;
  skrs: Map<string, TestCluster>;
}

/** A generated fleet, rendered by the CLI, in its own KCP namespace, each runtime with its own SKR cluster. */
async function newCase(label: string, opts: { runtimes: number; seed: number; edit?: (ws: FleetWorkspace, d: FleetDelivery) => void }): Promise<Case> {
  const ws = FleetWorkspace.generate({ runtimes: opts.runtimes, seed: opts.seed, kcpNamespace: `kcp-${label}`, prefix: `kyma-fleet-flux-${label}-` });
  workspaces.push(ws);
  ws.synth();
  let delivery = new FleetDelivery(landscape, ws.repoDir, ws.distDir);
  if (opts.edit) {
    opts.edit(ws, delivery);
    delivery = new FleetDelivery(landscape, ws.repoDir, ws.distDir);
  }
  await delivery.prepareKcp();
  const levels = (nodes: FluxNode[]): number => (nodes.length === 0 ? 0 : 1 + Math.max(...nodes.map((n) => levels(n.children))));
  console.log(`[flux-controller] ${label}: the root lists ${delivery.tree.top.length} Kustomizations; ${levels(delivery.tree.top)} levels below it, ${delivery.tree.all.length} Kustomizations`);
  const skrs = new Map<string, TestCluster>();
  const runtimes = [...new Set(delivery.tree.leaves.map((n) => n.runtime))].sort();
  const clusters = await Promise.all(runtimes.map(() => landscape.startSkr()));
  for (const [i, runtime] of runtimes.entries()) {
    skrs.set(runtime, clusters[i]!);
    await delivery.connect(runtime, clusters[i]!);
  }
  return { ws, delivery, skrs };
}

async function endCase(c: Case | undefined): Promise<void> {
  if (!c) return;
  for (const skr of c.skrs.values()) await landscape.stopSkr(skr);
}

function leaf(d: FleetDelivery, runtime: string, target: string): FluxNode {
  const n = d.tree.leaves.find((l) => l.runtime === runtime && l.target === target);
  if (!n) throw new Error(`the render has no ${target} Kustomization for ${runtime}`);
  return n;
}

/** The runtimes of a render that have config objects needing the RegistryCacheConfig CRD. */
function runtimesWithCaches(d: FleetDelivery): string[] {
  return d.tree.leaves.filter((n) => n.target === 'skr-config' && n.objects.some((o) => o.kind === 'RegistryCacheConfig')).map((n) => n.runtime);
}

/** Polls every Kustomization of the render and records each (name, reason, message) it was seen with. */
class History {
  readonly seen = new Map<string, KsStatus>();
  async sample(d: FleetDelivery): Promise<Map<string, KsStatus | undefined>> {
    const all = await d.statuses();
    for (const s of all.values()) if (s?.ready) this.seen.set(`${s.namespace}/${s.name}|${s.reason}|${s.message}`, s);
    return all;
  }
  failures(): string[] {
    return [...this.seen.values()].filter((s) => s.ready === 'False' && FAILED.has(s.reason ?? '')).map(formatStatus);
  }
}

const moduleNames = (kyma: Record<string, any> | undefined): string[] => ((kyma?.spec?.modules ?? []) as Array<{ name: string }>).map((m) => m.name).sort();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Scenario a, up to the point where the CRD is missing: bootstraps, waits until the Kyma CR is on
 * every runtime, then watches for `watchMs` and returns what it saw. The positive case asserts no
 * failure was seen; the negative one (dependsOn removed) that one was.
 */
async function firstEnablementBeforeCrd(c: Case, watchMs: number): Promise<History> {
  const { delivery, skrs } = c;
  const history = new History();
  await delivery.publish();
  await delivery.bootstrap();
  await landscape.waitFor('the Kyma CR on every runtime', async () => {
    await history.sample(delivery);
    for (const skr of skrs.values()) if (!(await getObject(skr, KYMA, 'kyma-system', 'default'))) return false;
    return true;
  });
  const until = Date.now() + watchMs;
  while (Date.now() < until) {
    await history.sample(delivery);
    await sleep(500);
  }
  return history;
}

describeWithFluxController('Flux delivery by the real kustomize-controller', () => {
  beforeAll(async () => {
    const extra = (process.env.KYMA_FLEET_FLUX_CONTROLLER_ARGS ?? '').split(/\s+/).filter(Boolean);
    landscape = await FluxLandscape.start({ requeueDependency: '5s', extraControllerArgs: extra, log: (l) => console.log(`[flux-controller] ${l}`) });
  }, 30 * 60_000);

  afterAll(async () => {
    await landscape?.stop();
    for (const ws of workspaces) ws.remove();
  });

  it('a. first enablement before the RegistryCacheConfig CRD exists: the Kyma CR is applied, skr-config waits, and everything is Ready once the CRD arrives', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('first', { runtimes: 1, seed: 17 });
      const { delivery, skrs } = c;
      const [runtime] = runtimesWithCaches(delivery);
      expect(runtime, 'the generated runtime has registry caches').toBeDefined();
      const history = await firstEnablementBeforeCrd(c, 12_000);
      const now = await history.sample(delivery);
      // the Kyma CR went in as rendered, while the CRD the config objects need is missing
      const skr = skrs.get(runtime!)!;
      const kyma = await getObject(skr, KYMA, 'kyma-system', 'default');
      expect(moduleNames(kyma)).toEqual(moduleNames(leaf(delivery, runtime!, 'skr').objects.find((o) => o.kind === 'Kyma')));
      const config = now.get(`${leaf(delivery, runtime!, 'skr-config').namespace}/${leaf(delivery, runtime!, 'skr-config').name}`);
      expect(config?.ready, formatStatus(config!)).toBe('False');
      expect(config?.reason).toBe('DependencyNotReady');
      const skrKs = now.get(`${leaf(delivery, runtime!, 'skr').namespace}/${leaf(delivery, runtime!, 'skr').name}`);
      expect(skrKs?.ready, formatStatus(skrKs!)).not.toBe('True');
      expect(history.failures()).toEqual([]);

      // the module arrives with its CRD: nobody touches Flux
      await skr.installCrds([CRDS.registryCacheConfig]);
      await landscape.waitFor('every Kustomization Ready at the revision', async () => (await history.sample(delivery), delivery.allReady()), 180_000);
      expect(history.failures()).toEqual([]);
      const want = leaf(delivery, runtime!, 'skr-config').objects.filter((o) => o.kind === 'RegistryCacheConfig').map((o) => o.metadata.name).sort();
      const got = JSON.parse((await skr.kubectl(['get', RCC, '-n', 'kyma-system', '-o', 'json'])).stdout).items.map((o: any) => o.metadata.name).sort();
      expect(got).toEqual(want);
      // the KCP side: the fragment merged into KEB's Runtime
      const runtimeCr = leaf(delivery, runtime!, 'kcp').objects.find((o) => o.kind === 'Runtime')!;
      const live = await getObject(landscape.kcp, RUNTIME, runtimeCr.metadata.namespace, runtimeCr.metadata.name);
      expect(live?.spec.imageRegistryCache).toEqual(runtimeCr.spec.imageRegistryCache);
      expect(live?.spec.shoot.name, 'KEB fields untouched').toMatch(/^c-/);
    } finally {
      await endCase(c);
    }
  }, 15 * 60_000);

  it('a, broken: without skr-config dependsOn the first apply fails on the missing kind (what case a must never see)', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('nodeps', {
        runtimes: 1,
        seed: 17,
        edit: (ws, d) => {
          for (const n of d.tree.leaves.filter((l) => l.target === 'skr-config')) ws.editYaml(n.file, (doc) => delete doc.spec.dependsOn);
        },
      });
      const history = await firstEnablementBeforeCrd(c, 12_000);
      const failures = history.failures();
      expect(failures.length, 'the broken wiring fails an apply').toBeGreaterThan(0);
      expect(failures.join('\n')).toMatch(/RegistryCacheConfig/);
    } finally {
      await endCase(c);
    }
  }, 15 * 60_000);

  it('b. a revision that fails for good, then a fixing revision: the fix is applied without a person', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('fix', { runtimes: 1, seed: 17 });
      const { ws, delivery, skrs } = c;
      const [runtime] = runtimesWithCaches(delivery);
      const skr = skrs.get(runtime!)!;
      await skr.installCrds([CRDS.registryCacheConfig]);
      await delivery.publish();
      await delivery.bootstrap();
      await landscape.waitFor('revision 1 Ready', () => delivery.allReady(), 180_000);

      // revision 2: one more cache whose object the server refuses (volume.size is not a quantity);
      // kyma-fleet would refuse the fleet, so the commit edits the rendered file, as a bad merge could
      const configLeaf = leaf(delivery, runtime!, 'skr-config');
      // what skr-config reads at each revision (the commit's, or its ExternalArtifact's)
      const rev1 = (await delivery.revisionOf(configLeaf))!;
      const configDir = configLeaf.dir;
      const addCache = (size: string) => {
        const obj = { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfig', metadata: { name: 'quay.io', namespace: 'kyma-system', labels: { 'app.kubernetes.io/managed-by': 'kyma-fleet' } }, spec: { upstream: 'quay.io', volume: { size } } };
        fs.writeFileSync(path.join(configDir, 'registrycacheconfig-quay.io.yaml'), JSON.stringify(obj));
        ws.editYaml(path.join(configDir, 'kustomization.yaml'), (k) => {
          if (!k.resources.includes('registrycacheconfig-quay.io.yaml')) k.resources.push('registrycacheconfig-quay.io.yaml');
        });
      };
      addCache('fifty');
      await delivery.publish();
      const rev2 = await landscape.waitFor('the source of skr-config at revision 2', () => delivery.revisionOf(configLeaf));
      expect(rev2).not.toBe(rev1);
      const failed = await landscape.waitFor('skr-config fails revision 2', async () => {
        const s = await landscape.kustomization(configLeaf.namespace, configLeaf.name);
        return s && s.ready === 'False' && s.lastAttemptedRevision === rev2 && FAILED.has(s.reason ?? '') ? s : undefined;
      });
      expect(failed.lastAppliedRevision).toBe(rev1);
      expect(failed.message).toMatch(/quay\.io/);
      await sleep(8_000); // it stays failed: nothing retries it into success
      const still = await landscape.kustomization(configLeaf.namespace, configLeaf.name);
      expect(still?.ready).toBe('False');
      expect(still?.lastAppliedRevision).toBe(rev1);
      expect(await getObject(skr, RCC, 'kyma-system', 'quay.io')).toBeUndefined();

      // revision 3 fixes it: applied by the controller alone
      addCache('15Gi');
      await delivery.publish();
      await landscape.waitFor('revision 3 Ready everywhere', () => delivery.allReady(), 180_000);
      const rev3 = await delivery.revisionOf(configLeaf);
      const quay = await getObject(skr, RCC, 'kyma-system', 'quay.io');
      expect(quay?.spec.volume.size).toBe('15Gi');
      expect((await landscape.kustomization(configLeaf.namespace, configLeaf.name))?.lastAppliedRevision).toBe(rev3);
    } finally {
      await endCase(c);
    }
  }, 15 * 60_000);

  /**
   * Scenario f: publishes a commit that drops one module of one runtime and returns, per Kustomization of
   * the render, how many artifact downloads the controller made until everything was Ready again and
   * for `settleMs` after.
   */
  async function oneRuntimeCommit(c: Case, settleMs: number): Promise<{ changed: string; downloads: Map<string, number>; root: number; generatorRounds: number }> {
    const { ws, delivery, skrs } = c;
    for (const skr of skrs.values()) await skr.installCrds([CRDS.registryCacheConfig]);
    await delivery.publish();
    await delivery.bootstrap();
    await landscape.waitFor('every runtime Ready', () => delivery.allReady(), 300_000);
    await sleep(settleMs); // the first reconciles (and requeues) are over
    const changed = delivery.tree.leaves.map((n) => n.runtime).find((r) => fs.readFileSync(path.join(ws.fleetDir, 'runtimes', `${r}.yaml`), 'utf8').includes('    - name: nats\n'));
    expect(changed, 'a runtime with its own module nats').toBeDefined();
    // what each Kustomization downloads: the artifact its source publishes (by URL path)
    const urlOf = async (n: FluxNode): Promise<string> => {
      const resource = n.artifact ? 'externalartifacts.source.toolkit.fluxcd.io' : 'gitrepositories.source.toolkit.fluxcd.io';
      const o = await getObject(landscape.kcp, resource, n.sourceRef.namespace, n.sourceRef.name);
      return new URL(o!.status.artifact.url).pathname.slice(1);
    };
    const before = new Map([...landscape.artifacts.byName].map(([k, v]) => [k, v.downloads]));
    const rounds = landscape.sourceWatcher.rounds.length;
    ws.replace(`runtimes/${changed}.yaml`, '    - name: nats\n', '');
    ws.synth();
    await delivery.publish();
    await landscape.waitFor('the commit Ready', () => delivery.allReady(), 300_000);
    await sleep(settleMs);
    const fetched = (name: string): number => (landscape.artifacts.byName.get(name)?.downloads ?? 0) - (before.get(name) ?? 0);
    const downloads = new Map<string, number>();
    for (const n of delivery.tree.all) downloads.set(`${n.name}`, fetched(await urlOf(n)));
    return { changed: changed!, downloads, root: fetched(await urlOf({ ...delivery.tree.top[0]!, artifact: undefined, sourceRef: delivery.sourceRef })), generatorRounds: landscape.sourceWatcher.rounds.length - rounds };
  }

  it('f. per-runtime artifacts: a commit that changes one runtime makes only that runtime\'s Kustomizations fetch anything', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('cost', { runtimes: 4, seed: 29 });
      expect(c.delivery.tree.generators.length, 'the render cuts per-runtime artifacts').toBeGreaterThan(0);
      const { changed, downloads, root } = await oneRuntimeCommit(c, 10_000);
      const mine = c.delivery.tree.leaves.filter((n) => n.runtime === changed).map((n) => n.name);
      const others = [...downloads].filter(([name]) => !mine.includes(name));
      console.log(`[flux-controller] f (per-runtime): downloads after a one-runtime commit: ${[...downloads].map(([k, v]) => `${k}=${v}`).join(' ')}; the root's source ${root}`);
      for (const name of mine) expect(downloads.get(name), name).toBeGreaterThan(0);
      // each of the changed runtime's three Kustomizations fetched the one artifact they share once
      expect(mine.reduce((sum, name) => sum + Math.min(1, downloads.get(name)!), 0)).toBe(mine.length);
      expect(others.filter(([, n]) => n > 0)).toEqual([]);
      expect(root).toBeGreaterThan(0); // the root reads the commit itself
    } finally {
      await endCase(c);
    }
  }, 20 * 60_000);

  it('f, broken: with whole-source artifacts the same commit makes every Kustomization fetch the whole source', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('costws', {
        runtimes: 4,
        seed: 29,
        edit: (ws) => {
          ws.replace('fleet.yaml', '\nspec:\n', '\nspec:\n  gitops:\n    flux:\n      artifacts: whole-source\n');
          ws.synth();
        },
      });
      expect(c.delivery.tree.generators).toEqual([]);
      const { downloads } = await oneRuntimeCommit(c, 10_000);
      console.log(`[flux-controller] f (whole-source): downloads after a one-runtime commit: ${[...downloads].map(([k, v]) => `${k}=${v}`).join(' ')}`);
      // one artifact for all: every Kustomization fetched it after the commit
      expect(c.delivery.tree.all.length).toBeGreaterThan(3);
      expect(downloads.get(c.delivery.tree.all[0]!.name)).toBeGreaterThanOrEqual(c.delivery.tree.all.length);
    } finally {
      await endCase(c);
    }
  }, 20 * 60_000);

  /** Scenario c up to the removal; returns what was on the removed runtime's clusters before and after. */
  async function removeRuntime(c: Case) {
    const { ws, delivery, skrs } = c;
    for (const skr of skrs.values()) await skr.installCrds([CRDS.registryCacheConfig]);
    await delivery.publish();
    await delivery.bootstrap();
    await landscape.waitFor('every runtime Ready', () => delivery.allReady(), 240_000);
    const [gone, kept] = runtimesWithCaches(delivery);
    expect(gone && kept, 'two runtimes with caches').toBeTruthy();
    const goneLeaves = delivery.tree.leaves.filter((n) => n.runtime === gone);
    const previous = new Set(delivery.tree.all.map((n) => `${n.namespace}/${n.name}`));
    const skr = skrs.get(gone!)!;
    const runtimeCr = leaf(delivery, gone!, 'kcp').objects.find((o) => o.kind === 'Runtime')!;
    const snapshot = async () => ({
      kyma: (await getObject(skr, KYMA, 'kyma-system', 'default'))?.metadata.uid as string | undefined,
      rccs: Object.fromEntries(JSON.parse((await skr.kubectl(['get', RCC, '-n', 'kyma-system', '-o', 'json'])).stdout).items.map((o: any) => [o.metadata.name, o.metadata.uid])),
      runtime: (await getObject(landscape.kcp, RUNTIME, runtimeCr.metadata.namespace, runtimeCr.metadata.name))?.metadata.uid as string | undefined,
    });
    const before = await snapshot();
    expect(Object.keys(before.rccs).length).toBeGreaterThan(0);
    ws.removeRuntime(gone!);
    ws.synth();
    await delivery.publish();
    expect(delivery.tree.leaves.some((n) => n.runtime === gone)).toBe(false);
    // every Kustomization the new render no longer has (the runtime's, and its shard's when that
    // shard is now empty) is deleted by the level above it
    const dropped = [...previous].filter((k) => !delivery.tree.all.some((n) => `${n.namespace}/${n.name}` === k));
    expect(dropped).toEqual(expect.arrayContaining(goneLeaves.map((n) => `${n.namespace}/${n.name}`)));
    await landscape.waitFor(`the Kustomizations of ${gone} deleted`, async () => {
      const live = new Set((await landscape.kustomizations()).map((s) => `${s.namespace}/${s.name}`));
      return dropped.every((k) => !live.has(k));
    }, 180_000);
    await landscape.waitFor('the remaining runtime Ready at the new revision', () => delivery.allReady(), 180_000);
    return { before, after: await snapshot() };
  }

  it('c. a runtime removed from the fleet: its Kustomizations go, nothing on its clusters is deleted', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('remove', { runtimes: 2, seed: 17 });
      const { before, after } = await removeRuntime(c);
      expect(after).toEqual(before);
    } finally {
      await endCase(c);
    }
  }, 15 * 60_000);

  it('c, broken: without deletionPolicy (Flux default MirrorPrune) the same removal deletes the RegistryCacheConfigs', async () => {
    let c: Case | undefined;
    try {
      c = await newCase('mirror', {
        runtimes: 2,
        seed: 17,
        edit: (ws, d) => {
          for (const n of d.tree.leaves) ws.editYaml(n.file, (doc) => delete doc.spec.deletionPolicy);
        },
      });
      const { before, after } = await removeRuntime(c);
      expect(after).not.toEqual(before);
      expect(after.rccs).toEqual({});
      // what stays regardless: objects annotated kustomize.toolkit.fluxcd.io/prune: disabled
      expect(after.kyma).toBe(before.kyma);
      expect(after.runtime).toBe(before.runtime);
    } finally {
      await endCase(c);
    }
  }, 15 * 60_000);

  describe('d/e. others\' modules on the Kyma CR', () => {
    let c: Case | undefined;
    let runtime: string;
    let skr: TestCluster;
    let skrLeaf: FluxNode;

    /** Asks for a reconcile of <rt>-skr (as `flux reconcile ks` does) and waits until it was handled. */
    async function reconcileSkr(): Promise<void> {
      const token = await landscape.requestReconcile(skrLeaf.namespace, skrLeaf.name);
      await landscape.waitFor('the requested reconcile handled', async () => {
        const o = await getObject(landscape.kcp, 'kustomizations.kustomize.toolkit.fluxcd.io', skrLeaf.namespace, skrLeaf.name);
        return o?.status?.lastHandledReconcileAt === token && ((o.status.conditions ?? []) as any[]).some((x) => x.type === 'Ready' && x.status === 'True');
      });
    }

    beforeAll(async () => {
      c = await newCase('others', { runtimes: 1, seed: 17 });
      [runtime] = runtimesWithCaches(c.delivery) as [string];
      skr = c.skrs.get(runtime)!;
      skrLeaf = leaf(c.delivery, runtime, 'skr');
      await skr.installCrds([CRDS.registryCacheConfig]);
    }, 10 * 60_000);

    afterAll(() => endCase(c));

    it('d. lifecycle-manager\'s modules survive every reconcile and a fleet change', async () => {
      const { ws, delivery } = c!;
      const fleetModules = moduleNames(skrLeaf.objects.find((o) => o.kind === 'Kyma'));
      expect(fleetModules).not.toContain('cloud-manager');
      expect(fleetModules).not.toContain('docker-registry');
      // provisioning: KLM creates the SKR Kyma CR from the KCP Kyma (a plain Create, manager `manager`)
      const created = await skr.request('POST', '/apis/operator.kyma-project.io/v1beta2/namespaces/kyma-system/kymas?fieldManager=manager', {
        body: { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { channel: 'regular', modules: [{ name: 'cloud-manager' }, { name: 'istio' }] } },
      });
      expect(created.status, created.body).toBe(201);
      // and a module added by server-side apply as `lifecycle-manager` (the owner test/flux assumes)
      await skr.kubectl(['apply', '--server-side', '--field-manager=lifecycle-manager', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { modules: [{ name: 'docker-registry' }] } }),
      });
      await delivery.publish();
      await delivery.bootstrap();
      await landscape.waitFor('everything Ready', () => delivery.allReady(), 180_000);
      const others = ['cloud-manager', 'docker-registry'];
      expect(moduleNames(await getObject(skr, KYMA, 'kyma-system', 'default'))).toEqual([...fleetModules, ...others].sort());

      await reconcileSkr();
      await reconcileSkr();
      expect(moduleNames(await getObject(skr, KYMA, 'kyma-system', 'default'))).toEqual([...fleetModules, ...others].sort());

      // a fleet change: the runtime drops its own module `nats`; KLM's stay, the dropped one goes
      expect(fleetModules).toContain('nats');
      ws.replace(`runtimes/${runtime}.yaml`, '    - name: nats\n', '');
      ws.synth();
      await delivery.publish();
      await landscape.waitFor('the fleet change Ready', () => delivery.allReady(), 180_000);
      expect(moduleNames(await getObject(skr, KYMA, 'kyma-system', 'default'))).toEqual([...fleetModules.filter((m) => m !== 'nats'), ...others].sort());
    }, 15 * 60_000);

    it('e. what a person adds with kubectl (any subcommand) is removed at the next reconcile', async () => {
      const kyma = () => getObject(skr, KYMA, 'kyma-system', 'default');
      const base = moduleNames(await kyma());
      // 1. kubectl apply --server-side (field manager `kubectl`, operation Apply)
      await skr.kubectl(['apply', '--server-side', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { modules: [{ name: 'eventing' }] } }),
      });
      // 2. client-side kubectl apply of the live object with one module more (`kubectl-client-side-apply`, Update)
      const live = await kyma();
      const edited = { apiVersion: live!.apiVersion, kind: live!.kind, metadata: { name: 'default', namespace: 'kyma-system' }, spec: { ...live!.spec, modules: [...live!.spec.modules, { name: 'serverless' }] } };
      await skr.kubectl(['apply', '-f', '-'], { input: JSON.stringify(edited) });
      // 3. kubectl edit (`kubectl-edit`, Update), with an editor that adds one module
      const editor = path.join(c!.ws.dir, 'editor.js');
      fs.writeFileSync(editor, `const fs = require('fs'); const f = process.argv[2]; const t = fs.readFileSync(f, 'utf8');
if (!/\\n  modules:\\n/.test(t)) { console.error('no modules list'); process.exit(1); }
fs.writeFileSync(f, t.replace(/\\n  modules:\\n/, '\\n  modules:\\n  - name: transparent-proxy\\n'));\n`);
      const before = process.env.KUBE_EDITOR;
      process.env.KUBE_EDITOR = `${process.execPath} ${editor}`;
      try {
        await skr.kubectl(['edit', '-n', 'kyma-system', 'kymas.operator.kyma-project.io/default']);
      } finally {
        if (before === undefined) delete process.env.KUBE_EDITOR;
        else process.env.KUBE_EDITOR = before;
      }
      // 4. kubectl patch (`kubectl-patch`, Update)
      await skr.kubectl(['patch', '-n', 'kyma-system', 'kymas.operator.kyma-project.io/default', '--type=json', '-p', JSON.stringify([{ op: 'add', path: '/spec/modules/-', value: { name: 'application-connector' } }])]);
      const byKubectl = ['application-connector', 'eventing', 'serverless', 'transparent-proxy'];
      const added = await kyma();
      expect(moduleNames(added)).toEqual([...base, ...byKubectl].sort());
      const managers = (added!.metadata.managedFields as any[]).map((m) => `${m.manager}/${m.operation}`).sort();
      expect(managers).toEqual(expect.arrayContaining(['kubectl/Apply', 'kubectl-client-side-apply/Update', 'kubectl-edit/Update', 'kubectl-patch/Update']));

      // kustomize-controller renames every entry whose manager starts with `kubectl` (Update; `kubectl`
      // Apply exactly) to its own before it applies (fluxcd/pkg/ssa v0.76.2 patch.go matchFieldManager
      // is a prefix match), so the apply then drops what it does not render
      await reconcileSkr();
      const after = await kyma();
      const afterManagers = (after!.metadata.managedFields as any[]).map((m) => `${m.manager}/${m.operation}`).sort();
      console.log(`[flux-controller] e: Kyma CR modules after the next reconcile: ${moduleNames(after).join(', ')}; managers: ${afterManagers.join(', ')}`);
      expect(moduleNames(after)).toEqual(base);
      expect(afterManagers.filter((m) => m.startsWith('kubectl'))).toEqual([]);
      expect(after!.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], 'Flux strips kubectl\'s annotation').toBeUndefined();
      // lifecycle-manager's modules (case d) are still there
      expect(moduleNames(after)).toEqual(expect.arrayContaining(['cloud-manager', 'docker-registry']));
    }, 15 * 60_000);
  });
});
