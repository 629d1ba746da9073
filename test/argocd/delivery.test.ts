// Delivery of one runtime's Argo CD Applications to a real SKR test cluster with gitops-engine's sync
// (issue 25, scenarios b-f). A KCP test cluster holds Argo CD's CRDs, the rendered ApplicationSets,
// KIM's kubeconfig Secret of the runtime and the cluster Secret the real `kyma-fleet register argocd`
// wrote from it; the real ApplicationSet controller (argo-cd v3.2.12) makes
// the Applications; each step of the application controller is argocd-fleet's `app-tick`, which
// re-enacts appcontroller.go's operation/retry/auto-sync logic around gitops-engine's real sync
// (see appcontroller.go's header for exactly what is re-enacted) on a virtual clock, so the rendered
// backoff (30 s x2 up to 10 m) is honoured without waiting for it. The fleet is the example fleet
// rendered by the real CLI; the runtime is acme-eu-prod-2 (registry-cache and Falco).
//
// Each scenario also runs with its property broken, on the same clusters:
//   b: without spec.syncPolicy.retry (the automated default, 5 tries) the config never arrives
//      after the CRD does: auto-sync does not retry a revision whose sync failed;
//   c: with retry.refresh false the fix is never synced: the retry re-syncs the failing revision and
//      auto-sync is skipped while that operation runs;
//   d: with preserveResourcesOnDeletion false the Applications carry the resources finalizer, so
//      deleting them cascades (argo-cd's controller deletes every managed object);
//   e: with Replace=true the module lifecycle-manager added is removed; with ClientSideApplyMigration
//      on (Argo CD's default) a module a person added with client-side `kubectl apply` is removed;
//   f: KIM rotates the runtime's kubeconfig and the old credential is revoked: the cluster Secret
//      written before the rotation is refused by the SKR (argo-cd's own resolution of the Secret and
//      REST config, clustercheck.go) and a sync through it fails, until `register argocd` runs again.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture } from '../helpers/fleet-fixture';
import type { ArgoContext, TickResult } from './argocd-fleet';
import { describeWithArgoCD } from './describe-with-argocd';
import {
  ARGO_NS, Clock, FleetRepo, appSetRound, applicationNames, argoContext, bootstrapAppSets, clusterCheck, clusterName, clusterSecrets, getApplication,
  installArgoCd, issueSkrCredential, outcomesOf, putKimKubeconfig, registerArgoCd, revokeSkrCredential, tick, type SkrCredential,
} from './landscape';

const RUNTIME = 'acme-eu-prod-2';
const RCC_CRD = 'registrycacheconfigs.core.kyma-project.io';

// each step runs Argo CD code against real API servers; on a loaded 2-core machine a scenario takes minutes
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

describeWithArgoCD('Argo CD delivers a runtime with gitops-engine sync (scenarios b-f)', () => {
  let kcp: TestCluster;
  let skr: TestCluster;
  let fixture: FleetFixture;
  let repo: FleetRepo;
  let ctx: ArgoContext;
  let rt: Record<string, string>;
  /** The SKR credential KIM's kubeconfig Secret holds now. */
  let kimCredential: SkrCredential;
  const clock = new Clock();

  beforeAll(async () => {
    [kcp, skr] = await Promise.all([
      startTestCluster({ crds: [] }),
      startTestCluster({ crds: ['kymas.operator.kyma-project.io'] }),
    ]);
    await installArgoCd(kcp);
    await skr.kubectl(['create', 'namespace', 'kyma-system']);
    fixture = FleetFixture.example();
    repo = new FleetRepo(fixture.dir);
    // one shard: removing a runtime (scenario d) leaves its ApplicationSets in place, and the
    // ApplicationSet controller itself deletes the runtime's Applications
    repo.enableArgoCd({}, { shards: 1 });
    repo.synth();
    repo.commit('render');
    ctx = argoContext(kcp, repo);
    rt = repo.runtimeFiles().find((r) => r.runtime === RUNTIME || r.name === RUNTIME)!;
    expect(rt).toBeTruthy();
    // KIM's kubeconfig Secret for the runtime, then what a user runs: `kyma-fleet register argocd`
    kimCredential = await issueSkrCredential(skr, 'kim-admin-1');
    await putKimKubeconfig(kcp, rt.runtimeID!, kimCredential.kubeconfig);
    const registered = await registerArgoCd(kcp, repo);
    expect(outcomesOf(registered, rt.runtimeID!)).toEqual(['created']);
    await bootstrapAppSets(kcp, ctx, repo, clock);
    await appSetRound(ctx);
    expect(await applicationNames(kcp)).toEqual(expect.arrayContaining([rt.skrApp, rt.skrConfigApp]));
  }, 300_000);

  afterAll(async () => {
    await Promise.all([kcp?.stop(), skr?.stop()]);
    fixture?.cleanup();
  });

  /** Ticks until the app's operation completed or `max` ticks, advancing the clock past any backoff. */
  async function tickUntilDone(app: string, max: number, step = 660): Promise<TickResult[]> {
    const out: TickResult[] = [];
    for (let i = 0; i < max; i++) {
      const r = await tick(ctx, app, clock);
      out.push(r);
      if (!r.operation && r.operationState && r.operationState.phase !== 'Running') break;
      clock.advance(step);
    }
    return out;
  }

  const skrObjects = async (kind: string, ns = 'kyma-system') => {
    const r = await skr.kubectl(['get', kind, '-n', ns, '-o', 'json'], { check: false });
    return r.code === 0 ? (JSON.parse(r.stdout).items as any[]) : [];
  };

  async function patchApp(name: string, patch: unknown, type: 'merge' | 'json' = 'merge'): Promise<void> {
    await kcp.kubectl(['patch', 'application', '-n', ARGO_NS, name, '--type', type, '-p', JSON.stringify(patch)]);
  }

  /** Deletes an Application and lets the real ApplicationSet controller create it afresh (no operation history). */
  async function recreateApp(name: string): Promise<void> {
    await kcp.kubectl(['delete', 'application', '-n', ARGO_NS, name, '--wait=true']);
    await appSetRound(ctx);
    expect(await getApplication(kcp, name)).toBeTruthy();
  }

  it('b, broken: without retry (automated default: 5 tries) the config never arrives once the CRD exists', async () => {
    await patchApp(rt.skrConfigApp!, [{ op: 'remove', path: '/spec/syncPolicy/retry' }], 'json');
    const runs = await tickUntilDone(rt.skrConfigApp!, 10);
    const last = runs.at(-1)!;
    expect(last.operationState?.phase).toBe('Failed');
    expect(last.operationState?.retryCount).toBe(5);
    expect(last.operationState?.message).toMatch(/RegistryCacheConfig/);
    await skr.installCrds([RCC_CRD]);
    clock.advance(3600);
    const after = await tick(ctx, rt.skrConfigApp!, clock);
    expect(after.log.join('\n')).toMatch(/Skipping auto-sync: failed previous sync attempt/);
    expect(await skrObjects('registrycacheconfigs')).toEqual([]);
    // back to the state before: no CRD, the Application as the ApplicationSet renders it, no history
    await skr.deleteCrd(RCC_CRD);
    await recreateApp(rt.skrConfigApp!);
  });

  it('b: first enablement before the RegistryCacheConfig CRD exists: skr syncs the Kyma CR, skr-config fails and is retried, and converges once the CRD arrives', async () => {
    const skrRun = await tickUntilDone(rt.skrApp!, 3);
    expect(skrRun.at(-1)!.operationState).toMatchObject({ phase: 'Succeeded' });
    expect((await skrObjects('kymas')).map((k) => k.metadata.name)).toEqual(['default']);

    const first = await tick(ctx, rt.skrConfigApp!, clock);
    expect(first.operationState?.phase).toBe('Running'); // failed attempt, a retry is scheduled
    expect(first.operationState?.retryCount).toBe(1);
    expect(first.operationState?.message).toMatch(/RegistryCacheConfig/);
    clock.advance(65); // backoff 30s x 2^retryCount: the first retry after 60 s
    const second = await tick(ctx, rt.skrConfigApp!, clock);
    expect(second.operationState?.retryCount).toBe(2);

    await skr.installCrds([RCC_CRD]); // lifecycle-manager installs the module, with its CRD
    const rest = await tickUntilDone(rt.skrConfigApp!, 4);
    const done = rest.at(-1)!;
    expect(done.operationState?.phase).toBe('Succeeded');
    const rendered = fs.readdirSync(path.join(repo.distDir, 'runtimes', RUNTIME, 'skr-config')).filter((f) => f.startsWith('registrycacheconfig-'));
    expect((await skrObjects('registrycacheconfigs')).length).toBe(rendered.length);
    const settled = await tick(ctx, rt.skrConfigApp!, clock);
    expect(settled.sync.status).toBe('Synced');
  });

  /** Commits a RegistryCacheConfig the CRD refuses (volume.size "twenty"): a revision that fails for good. */
  function commitBroken(): string {
    const file = path.join(repo.distDir, 'runtimes', RUNTIME, 'skr-config', 'registrycacheconfig-docker.io.yaml');
    const doc = parse(fs.readFileSync(file, 'utf8'));
    doc.spec.volume = { ...(doc.spec.volume ?? {}), size: 'twenty' };
    fs.writeFileSync(file, stringify(doc));
    return repo.commit('a revision that fails for good');
  }

  /** The fix: the render again, with a new valid value (garbageCollection.ttl) so that its arrival shows on the runtime. */
  function commitFix(ttl: string): string {
    repo.synth();
    const file = path.join(repo.distDir, 'runtimes', RUNTIME, 'skr-config', 'registrycacheconfig-docker.io.yaml');
    const doc = parse(fs.readFileSync(file, 'utf8'));
    doc.spec.garbageCollection = { ttl };
    fs.writeFileSync(file, stringify(doc));
    return repo.commit(`the fix (ttl ${ttl})`);
  }

  const dockerIo = async () => (await skrObjects('registrycacheconfigs')).find((o) => o.metadata.name === 'docker.io');

  it('c, broken: without retry.refresh the fix is never synced (the failing revision is retried, auto-sync waits)', async () => {
    await patchApp(rt.skrConfigApp!, { spec: { syncPolicy: { retry: { refresh: false } } } });
    const bad = commitBroken();
    const r1 = await tick(ctx, rt.skrConfigApp!, clock);
    expect(r1.operationState?.syncResult?.revision).toBe(bad);
    expect(r1.operationState?.phase).toBe('Running');
    const fix = commitFix('169h');
    let last = r1;
    for (let i = 0; i < 5; i++) {
      clock.advance(660);
      last = await tick(ctx, rt.skrConfigApp!, clock);
      expect(last.operationState?.syncResult?.revision).toBe(bad);
      expect(last.operationState?.phase).toBe('Running');
      expect(last.log.join('\n')).toMatch(/Skipping auto-sync: another operation is in progress/);
    }
    expect(last.sync.revision).toBe(fix);
    // the operation keeps the retry strategy it started with: only a person ends it (argocd app
    // terminate-op; here: the Application is deleted and the ApplicationSet controller makes it anew)
    await recreateApp(rt.skrConfigApp!);
    expect((await dockerIo()).spec.garbageCollection.ttl).not.toBe('169h');
    const healed = await tickUntilDone(rt.skrConfigApp!, 3);
    expect(healed.at(-1)!.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: fix } });
    expect((await dockerIo()).spec.garbageCollection.ttl).toBe('169h');
  });

  it('c: a revision that fails for good followed by a fixing commit: with retry.refresh the fix is synced without a person', async () => {
    const bad = commitBroken();
    const r1 = await tick(ctx, rt.skrConfigApp!, clock);
    expect(r1.operationState).toMatchObject({ phase: 'Running', syncResult: { revision: bad } });
    expect(r1.operationState?.message).toMatch(/twenty|volume\.size|size/);
    clock.advance(65);
    const r2 = await tick(ctx, rt.skrConfigApp!, clock);
    expect(r2.operationState).toMatchObject({ phase: 'Running', syncResult: { revision: bad } });
    expect(r2.log.join('\n')).toMatch(/Retrying operation with latest revisions/);
    const fix = commitFix('170h');
    clock.advance(660);
    const r3 = await tickUntilDone(rt.skrConfigApp!, 3);
    expect(r3.at(-1)!.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: fix } });
    const cfg = await dockerIo();
    expect(cfg.spec.volume.size).not.toBe('twenty');
    expect(cfg.spec.garbageCollection.ttl).toBe('170h');
  });

  // ---- e: who owns the Kyma CR's modules ----

  const KYMA = { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' } };

  async function kyma(): Promise<any> {
    return JSON.parse((await skr.kubectl(['get', 'kymas', '-n', 'kyma-system', 'default', '-o', 'json', '--show-managed-fields'])).stdout);
  }

  const moduleNames = async () => ((await kyma()).spec.modules as Array<{ name: string }>).map((m) => m.name);

  /** lifecycle-manager adds a module with server-side apply under its own field manager. */
  async function klmAdds(name: string): Promise<void> {
    await skr.kubectl(['apply', '--server-side', '--field-manager=lifecycle-manager', '-f', '-'], { input: JSON.stringify({ ...KYMA, spec: { modules: [{ name }] } }) });
  }

  /** A person adds a module with `kubectl apply --server-side` (field manager kubectl). */
  async function personAddsServerSide(name: string): Promise<void> {
    await skr.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify({ ...KYMA, spec: { modules: [{ name }] } }) });
  }

  /** A person adds a module with client-side `kubectl apply` of the object they read (field manager kubectl-client-side-apply). */
  async function personAddsClientSide(name: string): Promise<void> {
    const k = await kyma();
    const obj = { ...KYMA, spec: { ...k.spec, modules: [...k.spec.modules, { name }] } };
    await skr.kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  }

  async function syncSkr(): Promise<TickResult> {
    clock.advance(60);
    const r = await tick(ctx, rt.skrApp!, clock, { sync: true });
    expect(r.operationState?.phase, r.log.join('\n')).toBe('Succeeded');
    return r;
  }

  const managers = async () => ((await kyma()).metadata.managedFields as Array<{ manager: string; operation: string }>).map((f) => `${f.manager}/${f.operation}`).sort();

  /** A person changes the Kyma CR with `kubectl patch` (field manager kubectl-patch, no last-applied annotation). */
  async function personPatches(name: string): Promise<void> {
    const k = await kyma();
    await skr.kubectl(['patch', 'kymas', '-n', 'kyma-system', 'default', '--type', 'merge', '-p', JSON.stringify({ spec: { modules: [...k.spec.modules, { name }] } })]);
  }

  async function record(label: string): Promise<string[]> {
    const mods = await moduleNames();
    const k = await kyma();
    console.log(`[argocd e] ${label}: modules ${JSON.stringify(mods)}; managers ${JSON.stringify(await managers())}; last-applied annotation ${k.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ? 'present' : 'absent'}`);
    return mods;
  }

  it('e: a module lifecycle-manager added survives a sync; what a person added with kubectl behaves as recorded here (ServerSideApply=true, ClientSideApplyMigration=false and on)', async () => {
    const app = await getApplication(kcp, rt.skrApp!);
    const options: string[] = app.spec.syncPolicy.syncOptions;
    expect(options).toContain('ServerSideApply=true');
    const rendered = await moduleNames();

    // rendered options. Client-side `kubectl apply` (manager kubectl-client-side-apply) is applied
    // last, so a patch made before it is not mixed up with the last-applied annotation it writes
    await klmAdds('klm-added');
    await personAddsServerSide('person-ssa');
    await personPatches('person-patch');
    await syncSkr();
    const patched = await record(`rendered ${JSON.stringify(options)}, after lifecycle-manager, kubectl apply --server-side and kubectl patch`);
    expect(patched).toEqual(expect.arrayContaining([...rendered, 'klm-added', 'person-ssa', 'person-patch']));
    await personAddsClientSide('person-csa');
    await syncSkr();
    const csa = await record(`rendered ${JSON.stringify(options)}, after client-side kubectl apply`);
    expect(csa).toEqual(expect.arrayContaining([...rendered, 'klm-added', 'person-ssa']));
    // k8s.io/kubectl's server-side apply (which gitops-engine runs) moves every field of the manager
    // that owns kubectl.kubernetes.io/last-applied-configuration to its own field manager and applies
    // again (pkg/cmd/apply/apply.go migrateToSSAIfNecessary), whatever ClientSideApplyMigration says:
    // the module added with client-side kubectl apply, and everything that manager owned, is removed
    expect(csa).not.toContain('person-csa');

    // broken on purpose, Argo CD's default (ClientSideApplyMigration on): gitops-engine first
    // client-side-applies the rendered object as kubectl-client-side-apply (sync_context.go
    // performClientSideApplyMigration), a three-way patch against the person's last-applied
    // annotation, which holds every module the person read: all modules the render does not list
    // go, lifecycle-manager's included
    await patchApp(rt.skrApp!, { spec: { syncPolicy: { syncOptions: options.filter((o) => !o.startsWith('ClientSideApplyMigration')) } } });
    await personAddsClientSide('person-csa');
    await syncSkr();
    const withMigration = await record('ClientSideApplyMigration on (option removed), after client-side kubectl apply');
    expect(withMigration.sort()).toEqual([...rendered].sort());

    // broken on purpose: Replace=true replaces the whole object, and lifecycle-manager's module goes
    await klmAdds('klm-added');
    expect(await moduleNames()).toContain('klm-added');
    await patchApp(rt.skrApp!, { spec: { syncPolicy: { syncOptions: [...options, 'Replace=true'] } } });
    await syncSkr();
    const replaced = await record('Replace=true (broken on purpose)');
    expect(replaced).not.toContain('klm-added');
    expect(replaced.sort()).toEqual([...rendered].sort());
    await appSetRound(ctx); // the rendered sync options back
    expect((await getApplication(kcp, rt.skrApp!)).spec.syncPolicy.syncOptions).toEqual(options);
  });

  // ---- f: KIM rotates the runtime's kubeconfig ----

  it('f: KIM rotates the kubeconfig and revokes the old credential: the stale cluster Secret is refused, `register argocd` renews it, and argo-cd reaches the runtime and syncs with the new one', async () => {
    const id = rt.runtimeID!.toLowerCase();
    const name = clusterName(id);
    const secretName = `kyma-fleet-cluster-${id}`;
    // before: argo-cd resolves register's Secret and reaches the SKR with KIM's first credential
    const before = await clusterCheck(ctx, name);
    expect(before, before.failure).toMatchObject({ resolved: true, reachable: true, server: skr.server, authKind: 'bearerToken', user: kimCredential.user });
    expect(before.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'kyma-fleet', 'kyma-fleet.dev/runtime-id': id });
    expect(before.namespaces).toContain('kyma-system');
    const written = (await clusterSecrets(kcp)).get(secretName);
    expect(written).toBeTruthy();

    // KIM: a new credential into the kubeconfig Secret, the old one revoked (the SKR answers 401 to it)
    const next = await issueSkrCredential(skr, 'kim-admin-2');
    await putKimKubeconfig(kcp, id, next.kubeconfig);
    await revokeSkrCredential(skr, kimCredential);

    // broken: the registration as it was before the rotation. argo-cd still resolves it, the SKR refuses it
    const stale = await clusterCheck(ctx, name);
    expect(stale).toMatchObject({ resolved: true, reachable: false, status: 401 });
    expect(stale.failure).toMatch(/Unauthorized/);
    // and a sync of the runtime's Application fails: the Kyma CR, deleted meanwhile, does not come back
    const kymaUid = async () => (await skrObjects('kymas')).find((k) => k.metadata.name === 'default')?.metadata.uid as string | undefined;
    const uidBefore = await kymaUid();
    expect(uidBefore).toBeTruthy();
    await skr.kubectl(['delete', 'kymas', '-n', 'kyma-system', 'default', '--wait=true']);
    clock.advance(60);
    const failed = await tick(ctx, rt.skrApp!, clock, { sync: true });
    console.log(`[argocd f] sync through the stale cluster Secret: ${JSON.stringify(failed.operationState?.message)}; log ${JSON.stringify(failed.log)}`);
    expect(failed.operationState).toMatchObject({ phase: 'Running', retryCount: 1 }); // failed attempt, retry scheduled (retry.limit -1)
    expect(failed.operationState?.message).toMatch(/the server has asked for the client to provide credentials/) // client-go's text for 401;
    expect(await kymaUid()).toBeUndefined();

    // the scheduled run of `register argocd` renews the registration from KIM's new kubeconfig
    const renewed = await registerArgoCd(kcp, repo);
    expect(outcomesOf(renewed, id)).toEqual(['updated']);
    const rewritten = (await clusterSecrets(kcp)).get(secretName);
    expect(rewritten.metadata.resourceVersion).not.toBe(written.metadata.resourceVersion);
    const after = await clusterCheck(ctx, name);
    expect(after, after.failure).toMatchObject({ resolved: true, reachable: true, server: skr.server, authKind: 'bearerToken', user: next.user });
    expect(after.namespaces).toContain('kyma-system');
    kimCredential = next;

    // the ApplicationSet controller keeps the runtime's Applications, and the operation's retry syncs
    await appSetRound(ctx);
    expect(await applicationNames(kcp)).toEqual(expect.arrayContaining([rt.skrApp, rt.skrConfigApp]));
    const healed = await tickUntilDone(rt.skrApp!, 3, 65);
    expect(healed.at(-1)!.operationState, JSON.stringify(healed.at(-1)!.log)).toMatchObject({ phase: 'Succeeded' });
    const uidAfter = await kymaUid();
    expect(uidAfter).toBeTruthy();
    expect(uidAfter).not.toBe(uidBefore);
    expect((await tick(ctx, rt.skrConfigApp!, clock)).sync.status).toBe('Synced');
  });

  // ---- d: a runtime leaves the fleet ----

  it('d: a runtime removed from the fleet: its Applications go and nothing on its cluster is deleted', async () => {
    const uids = async () => [...(await skrObjects('kymas')), ...(await skrObjects('registrycacheconfigs'))].map((o) => `${o.kind}/${o.metadata.name}/${o.metadata.uid}`).sort();
    const before = await uids();
    expect(before.length).toBeGreaterThan(1);
    const apps = [rt.kcpApp, rt.skrApp, rt.skrConfigApp].filter(Boolean) as string[];
    for (const a of apps) expect((await getApplication(kcp, a))?.metadata.finalizers ?? []).toEqual([]);

    fixture.remove(`runtimes/${RUNTIME}.yaml`);
    repo.synth();
    repo.commit(`remove ${RUNTIME}`);
    await bootstrapAppSets(kcp, ctx, repo, clock); // ApplicationSets of a shard that became empty leave with their file
    await appSetRound(ctx);
    await collectOrphans(kcp);
    const left = await applicationNames(kcp);
    for (const a of apps) expect(left).not.toContain(a);
    expect(left.length).toBeGreaterThan(0); // the other runtimes' kcp Applications stay
    expect(await uids()).toEqual(before);
    // the next run of `register argocd` removes the registration of the runtime that left the fleet
    const reg = await registerArgoCd(kcp, repo);
    expect(outcomesOf(reg, rt.runtimeID!)).toEqual(['deleted']);
    expect((await clusterSecrets(kcp)).has(`kyma-fleet-cluster-${rt.runtimeID!.toLowerCase()}`)).toBe(false);
    expect(await uids()).toEqual(before);
  });
});

/**
 * Stand-in for kube-controller-manager's garbage collector, which the test cluster does not run: an
 * ApplicationSet deleted from the cluster (its file left the bootstrap list) takes the Applications it
 * owns (ownerReferences, controller: true) with it, as background cascading deletion does.
 */
async function collectOrphans(kcp: TestCluster): Promise<void> {
  const sets = new Set((JSON.parse((await kcp.kubectl(['get', 'applicationsets', '-n', ARGO_NS, '-o', 'json'])).stdout).items as any[]).map((a) => a.metadata.uid));
  const apps = JSON.parse((await kcp.kubectl(['get', 'applications', '-n', ARGO_NS, '-o', 'json'])).stdout).items as any[];
  for (const app of apps) {
    const owner = (app.metadata.ownerReferences ?? []).find((o: any) => o.kind === 'ApplicationSet' && o.controller);
    if (owner && !sets.has(owner.uid)) await kcp.kubectl(['delete', 'application', '-n', ARGO_NS, app.metadata.name, '--wait=true']);
  }
}
