// The programs of the test cluster, built from source by their Go wrapper modules under
// test/cluster/go/ into the tool cache (go-tool-cache.ts): kube-apiserver and kubectl of one pinned
// Kubernetes release, and etcd as its store. The versions here must match the go.mod files.

import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from './go-tool-cache';
import { CLUSTER_GO_DIR } from './paths';

export const KUBERNETES_VERSION = 'v1.34.4';
export const ETCD_VERSION = 'v3.6.16';

const GO_DIR = CLUSTER_GO_DIR;

/** Version stamps the Kubernetes release build sets (kubectl version and /version show them). */
const K8S_VERSION_PKG = 'k8s.io/component-base/version';
const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(KUBERNETES_VERSION)!;

export const KUBERNETES_TOOL: GoToolSpec = {
  name: `kubernetes-${KUBERNETES_VERSION}`,
  moduleDir: path.join(GO_DIR, 'kubernetes'),
  binaries: { 'kube-apiserver': './kube-apiserver', kubectl: './kubectl' },
  ldflags: [
    `-X ${K8S_VERSION_PKG}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${K8S_VERSION_PKG}.gitMajor=${major}`,
    `-X ${K8S_VERSION_PKG}.gitMinor=${minor}`,
    `-X ${K8S_VERSION_PKG}.gitTreeState=clean`,
  ].join(' '),
  env: { CGO_ENABLED: '0' },
};

export const ETCD_TOOL: GoToolSpec = {
  name: `etcd-${ETCD_VERSION}`,
  moduleDir: path.join(GO_DIR, 'etcd'),
  binaries: { etcd: '.' },
  env: { CGO_ENABLED: '0' },
};

/** Absolute paths of the cluster's programs. */
export interface ClusterBinaries {
  kubeApiserver: string;
  kubectl: string;
  etcd: string;
}

/** Environment variables through which the global setup hands the binaries to test processes. */
export const BINARY_ENV = {
  kubeApiserver: 'KYMA_FLEET_KUBE_APISERVER',
  kubectl: 'KYMA_FLEET_KUBECTL',
  etcd: 'KYMA_FLEET_ETCD',
} as const;

export { findGo };

/** Builds (or reuses from the tool cache) etcd, kube-apiserver and kubectl. */
export async function ensureClusterBinaries(log?: (line: string) => void): Promise<ClusterBinaries & { builtSeconds: Record<string, number> }> {
  const etcd = await ensureGoTool(ETCD_TOOL, { log });
  const kubernetes = await ensureGoTool(KUBERNETES_TOOL, { log });
  return {
    etcd: etcd.binaries.etcd,
    kubeApiserver: kubernetes.binaries['kube-apiserver'],
    kubectl: kubernetes.binaries.kubectl,
    builtSeconds: { etcd: etcd.seconds, kubernetes: kubernetes.seconds },
  };
}

/** The binaries handed over by the global setup (or set by hand), if all three are set. */
export function binariesFromEnv(env: NodeJS.ProcessEnv = process.env): ClusterBinaries | undefined {
  const kubeApiserver = env[BINARY_ENV.kubeApiserver];
  const kubectl = env[BINARY_ENV.kubectl];
  const etcd = env[BINARY_ENV.etcd];
  return kubeApiserver && kubectl && etcd ? { kubeApiserver, kubectl, etcd } : undefined;
}
