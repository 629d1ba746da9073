// vitest global setup of the test cluster: builds (or reuses from the tool cache) etcd, kube-apiserver
// and kubectl once per run and hands their paths to the test processes through environment variables
// (tools.ts BINARY_ENV), which startTestCluster reads. Without Go, and CI unset, it sets a skip reason
// instead (KYMA_FLEET_CLUSTER_SKIP), printed once here; describeWithCluster skips with it. Under
// CI=true a missing Go or a failed build fails the run. A build that fails where Go is present fails
// the run too: that is a real problem, not a machine without Go.

import { ensureClusterBinaries, findGo, BINARY_ENV, binariesFromEnv } from './tools';
import { SKIP_ENV } from './skip-env';

export default async function setup(): Promise<void> {
  delete process.env[SKIP_ENV];
  if (binariesFromEnv()) return; // given by the caller (e.g. a developer's own build)
  const ci = process.env.CI === 'true';
  if (!findGo()) {
    const where = process.env.KYMA_FLEET_GO ? `KYMA_FLEET_GO=${process.env.KYMA_FLEET_GO} is not a working go` : 'no `go` on PATH or /usr/local/go/bin/go';
    const reason = `no Go toolchain (${where}): the real-cluster tests are skipped (see docs/testing.md)`;
    if (ci) throw new Error(`CI=true requires the test cluster, but there is ${reason.split(':')[0]}`);
    process.env[SKIP_ENV] = reason;
    process.stderr.write(`test cluster: ${reason}\n`);
    return;
  }
  const started = Date.now();
  const binaries = await ensureClusterBinaries((line) => process.stderr.write(`test cluster: ${line}\n`));
  process.env[BINARY_ENV.kubeApiserver] = binaries.kubeApiserver;
  process.env[BINARY_ENV.kubectl] = binaries.kubectl;
  process.env[BINARY_ENV.etcd] = binaries.etcd;
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) process.stderr.write(`test cluster: binaries ready after ${seconds.toFixed(0)} s\n`);
}
