// Steps the Flux apply tests share on the test cluster (test/cluster/harness.ts): the namespaces and
// CRD names they need, a full Runtime created beforehand as KEB creates it, reading objects back,
// reconciling a runtime's Kustomizations in dependsOn order, and a bounded-concurrency map.

import * as path from 'node:path';
import type { TestCluster } from '../cluster/harness';
import { reconcile, type ReconcileResult } from './flux-apply';
import { dependsOnOrder, renderedObjects, type FluxKustomization } from './flux-wiring';

export const CRD = {
  kyma: 'kymas.operator.kyma-project.io',
  registryCacheConfig: 'registrycacheconfigs.core.kyma-project.io',
  runtime: 'runtimes.infrastructuremanager.kyma-project.io',
  kustomization: 'kustomizations.kustomize.toolkit.fluxcd.io',
  applicationSet: 'applicationsets.argoproj.io',
  shoot: 'shoots.core.gardener.cloud',
} as const;

/** The field manager KEB creates Runtime CRs with, and the one Lifecycle Manager writes Kyma CRs with. */
export const KEB_MANAGER = 'kyma-environment-broker';
export const KLM_MANAGER = 'lifecycle-manager';

/** Creates namespaces that exist on real KCP/SKR clusters (kube-system exists on any API server). */
export async function createNamespaces(cluster: TestCluster, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) });
  }
}

/** An object as stored (managedFields included), or undefined when the server says NotFound. */
export async function getObject(cluster: TestCluster, resource: string, namespace: string | undefined, name: string): Promise<Record<string, any> | undefined> {
  const r = await cluster.kubectl(['get', resource, name, ...(namespace ? ['-n', namespace] : []), '-o', 'json', '--show-managed-fields'], { check: false });
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${resource} ${name}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as Record<string, any>;
}

/**
 * A Runtime with the full spec the real CRD requires (shoot, provider, networking, security), as KEB
 * creates it before anything of kyma-fleet's reaches the KCP; named like the fleet's fragment.
 */
export function kebRuntime(name: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name,
      namespace,
      labels: { 'kyma-project.io/runtime-id': name, 'kyma-project.io/broker-plan-name': 'aws' },
    },
    spec: {
      shoot: {
        name: `c-${name.slice(0, 7)}`,
        purpose: 'production',
        platformRegion: 'cf-eu10',
        region: 'eu-central-1',
        secretBindingName: 'sb-aws-kyma',
        provider: {
          type: 'aws',
          workers: [{ name: 'cpu-worker-0', machine: { type: 'm6i.large', image: { name: 'gardenlinux' } }, minimum: 3, maximum: 20 }],
        },
        networking: { nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.104.0.0/13' },
      },
      security: {
        administrators: ['admin@acme.example'],
        networking: { filter: { egress: { enabled: false } } },
      },
    },
  };
}

/** Creates KEB's Runtime for every Runtime fragment the kcp Kustomizations of the wiring render. */
export async function createKebRuntimes(cluster: TestCluster, sourceRoot: string, kcp: readonly FluxKustomization[]): Promise<void> {
  const runtimes = kcp.flatMap((k) => renderedObjects(sourceRoot, k.specPath).filter((o) => o.kind === 'Runtime'))
    .map((o) => kebRuntime(o.metadata.name, o.metadata.namespace));
  if (runtimes.length === 0) return;
  await cluster.kubectl(['apply', '--server-side', `--field-manager=${KEB_MANAGER}`, '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: runtimes }),
  });
}

/** Reconciles the Kustomizations in dependsOn order, one after the other; results by name. */
export async function reconcileInOrder(
  ks: readonly FluxKustomization[],
  opts: { sourceRoot: string; kubeconfig: string; revision: string; healthTimeout?: string },
): Promise<Map<string, ReconcileResult>> {
  const results = new Map<string, ReconcileResult>();
  // spec.path is relative to the root of the source the Kustomization reads (an ExternalArtifact: its folder)
  for (const k of dependsOnOrder(ks)) results.set(k.name, await reconcile(k.file, { ...opts, sourceRoot: path.join(opts.sourceRoot, k.sourceBase) }));
  return results;
}

/** Runs fn over items with at most `limit` at a time; results in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
