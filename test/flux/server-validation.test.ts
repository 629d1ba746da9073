// Every rendered object of the example fleet, applied as Flux applies it to a real API server with the
// real CRDs, passes the server's validation and is stored as rendered: nothing pruned as unknown,
// nothing converted. What the server adds (CRD defaults) is listed separately in the test output.
// The garden/ Shoot patches (not applied by Flux) go through a server-side dry-run create against the
// stand-in Shoot CRD, and the GitOps wiring itself (dist/gitops/: Flux Kustomizations, Argo CD
// ApplicationSets, and the ArtifactGenerators with the CRD generated from source-watcher's API: see
// test/flux-controller/tools.ts) is accepted by the server and stored as rendered.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { REPO } from '../helpers/fleet-fixture';
import { CRD, createKebRuntimes, createNamespaces, getObject, reconcileInOrder } from './cluster-steps';
import { ensureFluxApply } from './flux-apply';
import { byRuntime, readFluxWiring, renderedObjects } from './flux-wiring';
import { ensureArtifactGeneratorCrd } from '../flux-controller/tools';
import { waitForCrdsServed } from '../flux-controller/landscape';
import { addedByServer, missingOrChanged, withoutServerFields } from './object-compare';

/** The example fleet's render, or another render's dist/ folder (KYMA_FLEET_FLUX_EXAMPLE_DIST), e.g. a mutated copy. */
const DIST = process.env.KYMA_FLEET_FLUX_EXAMPLE_DIST ? path.resolve(process.env.KYMA_FLEET_FLUX_EXAMPLE_DIST) : path.join(REPO, 'dist');
/** The source root spec.path is relative to: the folder holding dist/. */
const SOURCE_ROOT = path.dirname(DIST);
let cluster: TestCluster;

describeWithCluster('the render on a real API server: validated and stored as rendered', () => {
  beforeAll(async () => {
    await ensureFluxApply();
    cluster = await startTestCluster({ crds: 'all' });
    await createNamespaces(cluster, ['kcp-system', 'kyma-system', 'flux-system', 'argocd']);
  }, 20 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('every object of skr/, skr-config/ and kcp/ of every runtime, applied with Flux, is stored as rendered', async () => {
    const wiring = readFluxWiring(DIST);
    const problems: string[] = [];
    const defaults = new Map<string, Set<string>>();
    let compared = 0;
    // One runtime after the other: all runtimes share the SKR's Kyma CR name on this one cluster.
    for (const [runtime, ks] of byRuntime(wiring)) {
      await createKebRuntimes(cluster, SOURCE_ROOT, ks.filter((k) => k.target === 'kcp'));
      const results = await reconcileInOrder(ks, { sourceRoot: SOURCE_ROOT, kubeconfig: cluster.adminKubeconfig, revision: 'r1', healthTimeout: '10s' });
      for (const [name, r] of results) if (!r.ready) problems.push(`${name}: ${r.reason}: ${r.message}`);
      for (const k of ks) {
        for (const obj of renderedObjects(SOURCE_ROOT, k.specPath)) {
          const stored = await getObject(cluster, resourceOf(obj), obj.metadata.namespace, obj.metadata.name);
          if (!stored) {
            problems.push(`${runtime}: ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} is not on the cluster`);
            continue;
          }
          compared++;
          const live = withoutServerFields(stored);
          for (const p of missingOrChanged(obj, live)) problems.push(`${runtime}: ${obj.kind} ${obj.metadata.name}: ${p}`);
          // A Runtime also holds KEB's full spec: what it adds is not a default.
          if (obj.kind !== 'Runtime') {
            for (const added of addedByServer(obj, live)) setOf(defaults, obj.kind).add(added);
          }
        }
      }
    }
    printDefaults('objects applied by flux-apply', defaults);
    expect(compared).toBeGreaterThanOrEqual(20);
    expect(problems).toEqual([]);
  }, 15 * 60_000);

  it('every garden/ Shoot patch passes a server-side dry-run create against the stand-in Shoot CRD unchanged', async () => {
    const problems: string[] = [];
    let compared = 0;
    for (const runtime of fs.readdirSync(path.join(DIST, 'runtimes')).sort()) {
      const garden = path.join('dist', 'runtimes', runtime, 'garden');
      if (!fs.existsSync(path.join(SOURCE_ROOT, garden))) continue;
      for (const obj of renderedObjects(SOURCE_ROOT, garden)) {
        await createNamespaces(cluster, [obj.metadata.namespace]);
        const r = await cluster.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: JSON.stringify(obj), check: false });
        if (r.code !== 0) {
          problems.push(`${runtime}: ${obj.kind} ${obj.metadata.name} refused: ${r.stderr.trim()}`);
          continue;
        }
        compared++;
        for (const p of missingOrChanged(obj, withoutServerFields(JSON.parse(r.stdout)))) problems.push(`${runtime}: ${obj.kind} ${obj.metadata.name}: ${p}`);
      }
    }
    expect(compared).toBeGreaterThanOrEqual(5);
    expect(problems).toEqual([]);
  }, 10 * 60_000);

  it('the Flux Kustomizations and Argo CD ApplicationSets of dist/gitops/ are accepted and stored as rendered', async () => {
    const problems: string[] = [];
    const defaults = new Map<string, Set<string>>();
    const objects = [
      ...listed(path.join(DIST, 'gitops', 'flux')),
      ...listed(path.join(DIST, 'gitops', 'argocd')),
    ];
    expect(objects.filter((o) => o.kind === 'Kustomization').length).toBeGreaterThanOrEqual(14);
    expect(objects.filter((o) => o.kind === 'ApplicationSet').length).toBeGreaterThanOrEqual(2);
    expect(objects.filter((o) => o.kind === 'ArtifactGenerator').length).toBeGreaterThanOrEqual(1);
    await cluster.kubectl(['apply', '--server-side', '--field-manager=flux-install', '-f', await ensureArtifactGeneratorCrd()]);
    await waitForCrdsServed(cluster, ['artifactgenerators.source.extensions.fluxcd.io']);
    for (const obj of objects) {
      // A real create or update: server-side apply with kustomize-controller's field manager, as the
      // bootstrap Kustomization of ./dist/gitops/flux applies them (the Kustomizations are already on
      // the cluster from the first case, applied by flux-apply the same way).
      const r = await cluster.kubectl(['apply', '--server-side', '--field-manager=kustomize-controller', '-o', 'json', '-f', '-'], { input: JSON.stringify(obj), check: false });
      if (r.code !== 0) {
        problems.push(`${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} refused: ${r.stderr.trim()}`);
        continue;
      }
      const live = withoutServerFields(JSON.parse(r.stdout));
      for (const p of missingOrChanged(obj, live)) problems.push(`${obj.kind} ${obj.metadata.name}: ${p}`);
      for (const added of addedByServer(obj, live)) setOf(defaults, obj.kind).add(added);
    }
    printDefaults('dist/gitops/', defaults);
    expect(problems).toEqual([]);
  }, 10 * 60_000);
});

/**
 * The objects of the files a GitOps folder's kustomization.yaml lists, and of each shard's folder
 * (gitops/<controller>/shards/<id>/) that a listed shard object applies. The Argo CD shard
 * Applications themselves are left out: the test cluster has no Application CRD (test/argocd checks
 * them against argo-cd's own).
 */
function listed(dir: string): Array<Record<string, any>> {
  const list = parse(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return list.resources.flatMap((rel) => {
    const obj = parse(fs.readFileSync(path.join(dir, rel), 'utf8')) as Record<string, any>;
    const shard = obj.metadata?.labels?.['kyma-fleet.dev/shard'] as string | undefined;
    const isShard = shard !== undefined && obj.metadata?.labels?.['kyma-fleet.dev/runtime'] === undefined && (obj.kind === 'Kustomization' || obj.kind === 'Application');
    if (!isShard) return [obj];
    const inner = listed(path.join(dir, 'shards', shard));
    return obj.kind === 'Application' ? inner : [obj, ...inner];
  });
}

/** kubectl's name for an object's resource: kind.group (the singular form resolves through discovery). */
function resourceOf(obj: Record<string, any>): string {
  const group = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '';
  return group ? `${obj.kind.toLowerCase()}.${group}` : obj.kind.toLowerCase();
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

/** The fields the server added, per kind, once each (reported, not asserted: they are the CRDs' defaults). */
function printDefaults(what: string, defaults: Map<string, Set<string>>): void {
  const lines = [...defaults].sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([kind, paths]) => [...new Set([...paths].map((p) => p.replace(/\[\d+\]/g, '[*]')))].sort().map((p) => `  ${kind}${p}`));
  console.log(`fields the server added to ${what} (CRD defaults; not rendered, not compared):\n${lines.join('\n') || '  none'}`);
}
