// vitest global setup, first of all: starts every Go tool build of the test run at once, a few at a
// time, and returns without waiting. On a cold machine the builds of the test cluster, the oracle, the
// real controllers, the registry-cache webhook and actionlint otherwise run one after another, each
// downloading its modules and linking on one core while the other waits; side by side, downloads and
// links overlap with compiles. Each harness's own global setup (or test) then calls ensureGoTool for
// its tool as before and waits on the build lock this process holds (go-tool-cache.ts), or finds it
// built; a build that fails here is built again there and reported there. Without Go it does nothing.

import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { ETCD_TOOL, KUBERNETES_TOOL } from '../cluster/tools';
import { ACTIONLINT_SPEC } from '../actionlint/actionlint';
import { ARGOCD_TOOL } from '../argocd/argocd-fleet';
import { FLUX_APPLY_TOOL } from '../flux/flux-apply';
import { ARTIFACT_GENERATOR_CRD_TOOL, KUSTOMIZE_CONTROLLER_TOOL } from '../flux-controller/tools';
import { falcoUnavailableReason, oracleToolSpecs } from '../oracle/tools';
import { webhookToolSpec } from '../registry-cache-webhook/webhook';

/** Builds at once: each `go build` uses both cores already; three keep them busy through downloads and links. */
const PARALLEL = 3;

export default function setup(): void {
  if (!findGo() || process.env.KYMA_FLEET_NO_PREBUILD === '1') return;
  const oracle = oracleToolSpecs();
  // The longest first.
  const specs: GoToolSpec[] = [
    KUBERNETES_TOOL,
    ARGOCD_TOOL,
    oracle.admission,
    oracle.lakom,
    KUSTOMIZE_CONTROLLER_TOOL,
    webhookToolSpec(),
    FLUX_APPLY_TOOL,
    ETCD_TOOL,
    oracle.kim,
    ...(falcoUnavailableReason() ? [] : [oracle.falco]),
    ACTIONLINT_SPEC,
    ARTIFACT_GENERATOR_CRD_TOOL,
  ];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < specs.length) {
      const spec = specs[next++]!;
      // Reported, if it fails again, by the setup or test that needs the tool.
      await ensureGoTool(spec).catch(() => undefined);
    }
  };
  for (let i = 0; i < PARALLEL; i++) void worker();
}
