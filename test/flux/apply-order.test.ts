// The SKR apply order, on a real API server, as Flux applies it (issues 15 and 17): on a runtime whose
// cluster has the Kyma CRD but not yet the RegistryCacheConfig CRD (the registry-cache module, which
// the Kyma CR enables, brings it), reconciling every generated Kustomization of the runtime in the
// dependsOn order of dist/gitops/flux/ never fails the Kyma CR: it is applied, and whatever needs the
// missing CRD waits. Once the test installs the CRD (as KLM would), every Kustomization becomes Ready.
// Against the single SKR folder rendered before the split this fails: the server-side dry-run of the
// RegistryCacheConfigs fails the whole Kustomization, Kyma CR included.
//
// Run on the example fleet (dist/, or KYMA_FLEET_FLUX_EXAMPLE_DIST: another render's dist/ folder, e.g.
// one extracted from an older commit to see this test fail) and on a generated fleet of 60 runtimes
// rendered by the real CLI.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { availableCrds, startTestCluster, type TestCluster } from '../cluster/harness';
import { NOW, REPO, runBinary } from '../helpers/fleet-fixture';
import { CRD, createKebRuntimes, createNamespaces, mapLimit, reconcileInOrder } from './cluster-steps';
import { ensureFluxApply, type ReconcileResult } from './flux-apply';
import { byRuntime, inventoryId, readFluxWiring, renderedObjects, type FluxKustomization } from './flux-wiring';

/** Ready=False reasons that mean Flux tried to apply and failed (a failed dry-run among them). */
const APPLY_FAILED = new Set(['ReconciliationFailed', 'BuildFailed', 'PruneFailed', 'ArtifactFailed']);
const KYMA_ID = inventoryId({ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default', namespace: 'kyma-system' } });

let cluster: TestCluster;
const tempDirs: string[] = [];
/** CRDs a case installed as the modules' CRDs (deleted again before the next case). */
const installedByModules = new Set<string>();

describeWithCluster('Flux apply order of the SKR on a real API server', () => {
  beforeAll(async () => {
    await ensureFluxApply();
    cluster = await startTestCluster({ crds: [CRD.kyma, CRD.runtime, CRD.kustomization] });
    await createNamespaces(cluster, ['kcp-system', 'kyma-system']);
  }, 20 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('example fleet: the Kyma CR is applied before its RegistryCacheConfig CRD exists, and everything is Ready once it does', async () => {
    const distDir = process.env.KYMA_FLEET_FLUX_EXAMPLE_DIST ? path.resolve(process.env.KYMA_FLEET_FLUX_EXAMPLE_DIST) : path.join(REPO, 'dist');
    const report = await checkApplyOrder(path.dirname(distDir), distDir);
    expect(report.runtimesWithRegistryCache).toBeGreaterThanOrEqual(5);
    expect(report.problems).toEqual([]);
  }, 15 * 60_000);

  it('generated fleet of 60 runtimes, rendered by the CLI: the same', async () => {
    await resetCluster();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-flux-order-'));
    tempDirs.push(dir);
    generateFleet(path.join(dir, 'fleet'), 60, 17);
    const synth = runBinary(['synth', '--fleet', 'fleet', '--out', 'dist', '--now', NOW], dir);
    expect(synth.code, synth.stderr).toBe(0);
    const report = await checkApplyOrder(dir, path.join(dir, 'dist'));
    expect(report.runtimesWithRegistryCache).toBeGreaterThanOrEqual(50);
    expect(report.problems).toEqual([]);
  }, 30 * 60_000);
});

/** Back to a cluster without the RegistryCacheConfig CRD and without anything a previous case applied. */
async function resetCluster(): Promise<void> {
  const crds = await cluster.kubectl(['get', 'crd', '-o', 'name']);
  for (const name of installedByModules) if (crds.stdout.includes(name)) await cluster.deleteCrd(name);
  await cluster.kubectl(['delete', 'kustomizations.kustomize.toolkit.fluxcd.io', '--all', '-n', 'kcp-system', '--wait']);
  await cluster.kubectl(['delete', 'runtimes.infrastructuremanager.kyma-project.io', '--all', '-n', 'kcp-system', '--wait']);
  await cluster.kubectl(['delete', 'kymas.operator.kyma-project.io', '--all', '-A', '--wait']);
  await cluster.kubectl(['delete', 'configmaps', '-A', '-l', 'kustomize.toolkit.fluxcd.io/namespace', '--wait']);
}

interface OrderReport {
  runtimesWithRegistryCache: number;
  problems: string[];
}

/**
 * Reconciles every runtime's Kustomizations (runtimes side by side, each runtime's in dependsOn order)
 * on a cluster without the RegistryCacheConfig CRD, checks that no apply failed and the Kyma CR was
 * applied; installs the CRD, reconciles again and checks that everything is Ready and applied.
 */
async function checkApplyOrder(sourceRoot: string, distDir: string): Promise<OrderReport> {
  const wiring = readFluxWiring(distDir);
  const runtimes = [...byRuntime(wiring).entries()];
  const problems: string[] = [];
  const holds = (k: FluxKustomization, kind: string) => renderedObjects(sourceRoot, k.specPath).some((o) => o.kind === kind);
  const withRegistryCache = runtimes.filter(([, ks]) => ks.some((k) => holds(k, 'RegistryCacheConfig')));
  // The CRDs the modules bring: RegistryCacheConfig, and whatever else the wiring health-checks.
  const moduleCrds = [...new Set([CRD.registryCacheConfig as string, ...wiring.flatMap((k) => k.healthChecks)
    .filter((h) => h.kind === 'CustomResourceDefinition').map((h) => h.name)])].sort();
  const unknown = moduleCrds.filter((name) => !availableCrds().includes(name));
  expect(unknown, 'health-checked CRDs that imports/crds/ does not have').toEqual([]);
  moduleCrds.forEach((name) => installedByModules.add(name));
  const crdsNow = await cluster.kubectl(['get', 'crd', '-o', 'name']);
  for (const name of moduleCrds) expect(crdsNow.stdout).not.toContain(name);

  // The KCP side: KEB has created every Runtime before kyma-fleet's fragment arrives.
  await createKebRuntimes(cluster, sourceRoot, wiring.filter((k) => k.target === 'kcp'));
  const opts = { sourceRoot, kubeconfig: cluster.adminKubeconfig, revision: 'r1' };

  // Step 1: no RegistryCacheConfig CRD yet (a health check on it would wait for the whole interval: cut it short).
  let started = Date.now();
  const first = await mapLimit(runtimes, 4, async ([runtime, ks]) => ({ runtime, ks, results: await reconcileInOrder(ks, { ...opts, healthTimeout: '3s' }) }));
  console.log(`${runtimes.length} runtimes reconciled without the RegistryCacheConfig CRD in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const { runtime, ks, results } of first) {
    for (const k of ks) {
      const r = results.get(k.name)!;
      if (APPLY_FAILED.has(r.reason)) problems.push(`before the CRD: ${k.name} failed to apply (${r.reason}): ${firstLine(r.message)}`);
      if (holds(k, 'Kyma') && !appliedKyma(r)) problems.push(`before the CRD: ${k.name} did not apply the Kyma CR of ${runtime} (${r.reason})`);
    }
  }
  const kyma = await cluster.kubectl(['get', 'kymas.operator.kyma-project.io', '-n', 'kyma-system', 'default', '-o', 'name'], { check: false });
  if (kyma.code !== 0) problems.push(`before the CRD: no Kyma CR kyma-system/default on the cluster: ${kyma.stderr.trim()}`);

  // Step 2: the modules' CRDs arrive; every Kustomization reconciles to Ready.
  await cluster.installCrds(moduleCrds);
  started = Date.now();
  const second = await mapLimit(runtimes, 4, async ([runtime, ks]) => ({ runtime, ks, results: await reconcileInOrder(ks, { ...opts, healthTimeout: '60s' }) }));
  console.log(`${runtimes.length} runtimes reconciled with the modules' CRDs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const { ks, results } of second) {
    for (const k of ks) {
      const r = results.get(k.name)!;
      if (!r.ready) problems.push(`after the CRD: ${k.name} is not Ready (${r.reason}): ${firstLine(r.message)}`);
    }
  }
  const stored = JSON.parse((await cluster.kubectl(['get', 'registrycacheconfigs.core.kyma-project.io', '-A', '-o', 'json'])).stdout) as { items: Array<{ metadata: { name: string; namespace: string } }> };
  const storedIds = new Set(stored.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
  for (const [, ks] of withRegistryCache) {
    for (const o of ks.flatMap((k) => renderedObjects(sourceRoot, k.specPath)).filter((o) => o.kind === 'RegistryCacheConfig')) {
      if (!storedIds.has(`${o.metadata.namespace}/${o.metadata.name}`)) problems.push(`after the CRD: RegistryCacheConfig ${o.metadata.namespace}/${o.metadata.name} is not on the cluster`);
    }
  }
  return { runtimesWithRegistryCache: withRegistryCache.length, problems: [...new Set(problems)] };
}

function appliedKyma(r: ReconcileResult): boolean {
  return r.changeset.some((e) => e.id === KYMA_ID && ['created', 'configured', 'unchanged'].includes(e.action));
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 300);
}
