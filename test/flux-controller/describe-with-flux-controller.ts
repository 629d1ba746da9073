// For test files that run the real kustomize-controller: describeWithFluxController(name, fn) is
// describe(), or a skipped describe whose name carries the one-line reason when the global setup found
// no Go (CI unset). Under CI=true the global setup fails the run instead, and this fails too if it
// gets here. The same tests also need the test cluster, whose global setup skips on the same reason.

import { describeWithTool, toolSkipReason } from '../helpers/describe-with-tool';
import { SKIP_ENV as CLUSTER_SKIP_ENV } from '../cluster/skip-env';
import { FLUX_CONTROLLER_SKIP_ENV } from './tools';

export function fluxControllerSkipReason(): string | undefined {
  return toolSkipReason(FLUX_CONTROLLER_SKIP_ENV) ?? toolSkipReason(CLUSTER_SKIP_ENV);
}

export function describeWithFluxController(name: string, fn: () => void): void {
  const env = toolSkipReason(FLUX_CONTROLLER_SKIP_ENV) ? FLUX_CONTROLLER_SKIP_ENV : CLUSTER_SKIP_ENV;
  describeWithTool('real Flux controller', env, name, fn);
}
