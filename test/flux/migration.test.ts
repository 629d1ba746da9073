// What Flux does to objects that already live on the clusters, on a real API server:
// - migration from the single SKR folder (a committed fixture of the old wiring of acme-eu-prod-2, under
//   fixtures/old-layout/) to skr/ + skr-config/: the RegistryCacheConfigs and Falco rule ConfigMaps are
//   never deleted (same UID) and end owned by <runtime>-skr-config; the same check fails when
//   <runtime>-skr prunes (a copy of the new wiring with prune: true);
// - server-side apply ownership of the Kyma CR: a module added by lifecycle-manager stays when the fleet
//   drops one of its own modules, and the dropped one goes;
// - the Runtime fragment (kcp/) merges into the Runtime KEB created and is refused, creating nothing,
//   where no Runtime exists;
// - flux-apply itself refuses Kustomization fields it does not emulate (fails loudly, applies nothing).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';
import { CRD, KEB_MANAGER, KLM_MANAGER, createNamespaces, getObject, kebRuntime, reconcileInOrder } from './cluster-steps';
import { ensureFluxApply, reconcile } from './flux-apply';
import { byRuntime, readFluxWiring, readKustomizationFile, renderedObjects, type FluxKustomization } from './flux-wiring';

const RUNTIME = 'acme-eu-prod-2';
const OLD_LAYOUT = path.join(__dirname, 'fixtures', 'old-layout');
const DIST = path.join(REPO, 'dist');
const OWNER_LABEL = 'kustomize.toolkit.fluxcd.io/name';

let cluster: TestCluster;
const tempDirs: string[] = [];

describeWithCluster('Flux on objects that already exist (real API server)', () => {
  beforeAll(async () => {
    await ensureFluxApply();
    cluster = await startTestCluster({ crds: [CRD.kyma, CRD.registryCacheConfig, CRD.runtime, CRD.kustomization] });
    await createNamespaces(cluster, ['kcp-system', 'kyma-system']);
  }, 20 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migration to skr/ + skr-config/: the config objects keep their UID and end owned by <runtime>-skr-config', async () => {
    const newWiring = skrWiring(DIST);
    expect(newWiring.map((k) => k.target).sort()).toEqual(['skr', 'skr-config']);
    const outcome = await migrate(newWiring);
    expect(outcome.moved.length).toBeGreaterThanOrEqual(4); // 3 RegistryCacheConfigs and a Falco rule ConfigMap
    expect(outcome.notReady).toEqual([]);
    expect(outcome.problems).toEqual([]);
    for (const m of outcome.moved) expect(m.ownerAfter, m.id).toBe(`${RUNTIME}-skr-config`);
  }, 10 * 60_000);

  it('the same migration check fails when <runtime>-skr prunes (a copy of the new wiring with prune: true)', async () => {
    const pruning = skrWiring(DIST).map((k) => (k.target === 'skr' ? withPrune(k) : k));
    const outcome = await migrate(pruning);
    expect(outcome.problems.length).toBeGreaterThan(0);
    expect(outcome.problems.join('\n')).toMatch(/deleted and re-created/);
  }, 10 * 60_000);

  it('Kyma CR: a module lifecycle-manager added stays when the fleet drops one of its own modules', async () => {
    await resetSkr();
    const runtime = 'acme-eu-dev-1';
    const skr = readFluxWiring(DIST).find((k) => k.runtime === runtime && k.target === 'skr')!;
    const opts = { sourceRoot: REPO, kubeconfig: cluster.adminKubeconfig, healthTimeout: '5s' };
    expect((await reconcile(skr.file, { ...opts, sourceRoot: path.join(REPO, skr.sourceBase), revision: 'r1' })).ready).toBe(true);
    const fleetModules = modulesOf(renderedObjects(REPO, skr.specPath).find((o) => o.kind === 'Kyma')!);
    const dropped = fleetModules.find((m) => !['registry-cache', 'falco'].includes(m))!;
    expect(dropped).toBeDefined();

    // Lifecycle Manager (or a user through it) adds a module with its own field manager.
    await cluster.kubectl(['apply', '--server-side', `--field-manager=${KLM_MANAGER}`, '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' }, spec: { modules: [{ name: 'keda', managed: true }] } }),
    });

    // The fleet drops one of its own modules: a changed fleet rendered by the CLI.
    const fx = FleetFixture.example();
    tempDirs.push(fx.dir);
    const file = `runtimes/${runtime}.yaml`;
    const doc = parseDocument(fx.read(file));
    const modules = (doc.getIn(['spec', 'modules']) as { toJSON(): Array<Record<string, unknown>> } | undefined)?.toJSON() ?? [];
    doc.setIn(['spec', 'modules'], [...modules.filter((m) => m.name !== dropped), { name: dropped, enabled: false }]);
    fx.write(file, doc.toString());
    const synth = fx.runBinary(['synth', '--now', NOW]);
    expect(synth.code, synth.stderr).toBe(0);
    const changedSkr = readFluxWiring(path.join(fx.dir, 'dist')).find((k) => k.runtime === runtime && k.target === 'skr')!;
    expect(modulesOf(renderedObjects(fx.dir, changedSkr.specPath).find((o) => o.kind === 'Kyma')!)).not.toContain(dropped);

    const r = await reconcile(changedSkr.file, { ...opts, sourceRoot: path.join(fx.dir, changedSkr.sourceBase), revision: 'r2' });
    expect(r.ready, r.message).toBe(true);
    const live = modulesOf((await getObject(cluster, 'kymas.operator.kyma-project.io', 'kyma-system', 'default'))!);
    expect(live).toContain('keda');
    expect(live).not.toContain(dropped);
    expect(live.sort()).toEqual([...fleetModules.filter((m) => m !== dropped), 'keda'].sort());
  }, 10 * 60_000);

  it('Runtime fragment: merges into the Runtime KEB created; refused, creating nothing, where no Runtime exists', async () => {
    const kcp = readFluxWiring(DIST).filter((k) => k.target === 'kcp');
    const [withRuntime, withoutRuntime] = kcp;
    const fragment = renderedObjects(REPO, withRuntime!.specPath).find((o) => o.kind === 'Runtime')!;
    const keb = kebRuntime(fragment.metadata.name, fragment.metadata.namespace);
    await cluster.kubectl(['apply', '--server-side', `--field-manager=${KEB_MANAGER}`, '-f', '-'], { input: JSON.stringify(keb) });
    const opts = { sourceRoot: REPO, kubeconfig: cluster.adminKubeconfig, revision: 'r1' };

    const merged = await reconcile(withRuntime!.file, { ...opts, sourceRoot: path.join(REPO, withRuntime!.sourceBase) });
    expect(merged.ready, merged.message).toBe(true);
    const live = (await getObject(cluster, 'runtimes.infrastructuremanager.kyma-project.io', fragment.metadata.namespace, fragment.metadata.name))!;
    expect(live.spec.shoot).toEqual((keb.spec as Record<string, unknown>).shoot);
    expect(live.spec.security).toEqual((keb.spec as Record<string, unknown>).security);
    expect(live.spec.imageRegistryCache).toEqual(fragment.spec.imageRegistryCache);
    const managers = (live.metadata.managedFields as Array<{ manager: string; fieldsV1: Record<string, any> }>);
    expect(managers.find((m) => m.manager === 'kustomize-controller')?.fieldsV1['f:spec']).toHaveProperty(['f:imageRegistryCache']);
    expect(managers.find((m) => m.manager === KEB_MANAGER)?.fieldsV1['f:spec']).toHaveProperty(['f:shoot']);

    const other = renderedObjects(REPO, withoutRuntime!.specPath).find((o) => o.kind === 'Runtime')!;
    const refused = await reconcile(withoutRuntime!.file, { ...opts, sourceRoot: path.join(REPO, withoutRuntime!.sourceBase) });
    expect(refused.ready).toBe(false);
    expect(refused.reason).toBe('ReconciliationFailed');
    expect(refused.message).toMatch(/dry-run failed/);
    expect(refused.message).toMatch(/spec\.shoot|spec\.security|Required value/);
    expect(await getObject(cluster, 'runtimes.infrastructuremanager.kyma-project.io', other.metadata.namespace, other.metadata.name)).toBeUndefined();
  }, 10 * 60_000);
  it('flux-apply refuses a Kustomization field it does not emulate instead of applying differently from Flux', async () => {
    await resetSkr();
    const skr = readFluxWiring(DIST).find((k) => k.runtime === RUNTIME && k.target === 'skr')!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-flux-unsupported-'));
    tempDirs.push(dir);
    const file = path.join(dir, path.basename(skr.file));
    fs.writeFileSync(file, stringify({ ...skr.doc, spec: { ...skr.doc.spec, targetNamespace: 'elsewhere', postBuild: { substitute: { a: 'b' } } } }));
    await expect(reconcile(file, { sourceRoot: REPO, kubeconfig: cluster.adminKubeconfig })).rejects.toThrow(/spec\.postBuild, spec\.targetNamespace not implemented by flux-apply/);
    expect(await getObject(cluster, 'kustomizations.kustomize.toolkit.fluxcd.io', skr.namespace, skr.name)).toBeUndefined();
  }, 5 * 60_000);
});

/** The skr and skr-config Kustomizations of RUNTIME in a render. */
function skrWiring(distDir: string): FluxKustomization[] {
  return (byRuntime(readFluxWiring(distDir)).get(RUNTIME) ?? []).filter((k) => k.target !== 'kcp');
}

/** A copy of a Kustomization file with spec.prune: true, in a temporary folder. */
function withPrune(k: FluxKustomization): FluxKustomization {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-flux-prune-'));
  tempDirs.push(dir);
  const file = path.join(dir, path.basename(k.file));
  fs.writeFileSync(file, stringify({ ...k.doc, spec: { ...k.doc.spec, prune: true } }));
  // the same source as the original (its folder of the repository)
  return { ...readKustomizationFile(file), specPath: k.specPath, sourceBase: k.sourceBase };
}

function modulesOf(kyma: Record<string, any>): string[] {
  return ((kyma.spec?.modules ?? []) as Array<{ name: string }>).map((m) => m.name);
}

async function resetSkr(): Promise<void> {
  await cluster.kubectl(['delete', 'kustomizations.kustomize.toolkit.fluxcd.io', '--all', '-n', 'kcp-system', '--wait']);
  await cluster.kubectl(['delete', 'registrycacheconfigs.core.kyma-project.io', '--all', '-A', '--wait']);
  await cluster.kubectl(['delete', 'kymas.operator.kyma-project.io', '--all', '-A', '--wait']);
  await cluster.kubectl(['delete', 'configmaps', '-A', '-l', 'kustomize.toolkit.fluxcd.io/namespace', '--wait']);
}

interface MigrationOutcome {
  moved: Array<{ id: string; ownerAfter: string | undefined }>;
  notReady: string[];
  problems: string[];
}

/**
 * Applies the old single-folder wiring (revision "old"), then the given new wiring in dependsOn order
 * (revision "new"), and reports every config object that did not survive with its UID.
 */
async function migrate(newWiring: FluxKustomization[]): Promise<MigrationOutcome> {
  await resetSkr();
  const oldSkr = readKustomizationFile(path.join(OLD_LAYOUT, 'dist', 'gitops', 'flux', `${RUNTIME}-skr.yaml`));
  const first = await reconcile(oldSkr.file, { sourceRoot: OLD_LAYOUT, kubeconfig: cluster.adminKubeconfig, revision: 'old' });
  expect(first.ready, first.message).toBe(true);

  const configObjects = renderedObjects(OLD_LAYOUT, oldSkr.specPath).filter((o) => o.kind !== 'Kyma');
  const resource = (kind: string) => (kind === 'ConfigMap' ? 'configmaps' : 'registrycacheconfigs.core.kyma-project.io');
  const before = new Map<string, string>();
  for (const o of configObjects) {
    const live = await getObject(cluster, resource(o.kind), o.metadata.namespace, o.metadata.name);
    expect(live?.metadata.labels?.[OWNER_LABEL]).toBe(`${RUNTIME}-skr`);
    before.set(`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, live!.metadata.uid);
  }

  const results = await reconcileInOrder(newWiring, { sourceRoot: REPO, kubeconfig: cluster.adminKubeconfig, revision: 'new', healthTimeout: '5s' });
  const outcome: MigrationOutcome = { moved: [], notReady: [], problems: [] };
  for (const [name, r] of results) if (!r.ready) outcome.notReady.push(`${name}: ${r.reason}: ${r.message}`);
  for (const o of configObjects) {
    const id = `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
    const live = await getObject(cluster, resource(o.kind), o.metadata.namespace, o.metadata.name);
    if (!live) outcome.problems.push(`${id} was deleted`);
    else if (live.metadata.uid !== before.get(id)) outcome.problems.push(`${id} was deleted and re-created (UID ${before.get(id)} -> ${live.metadata.uid})`);
    outcome.moved.push({ id, ownerAfter: live?.metadata.labels?.[OWNER_LABEL] });
  }
  return outcome;
}
