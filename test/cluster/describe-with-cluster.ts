// For test files that need the real test cluster: describeWithCluster(name, fn) is describe(), or a
// skipped describe whose name carries the one-line reason when the global setup found no Go (CI unset).
// Under CI=true the global setup fails the run instead, so these tests are never skipped there.

import { describeWithTool, toolSkipReason } from '../helpers/describe-with-tool';
import { SKIP_ENV } from './skip-env';

/** Why the real-cluster tests are skipped in this run, or undefined when they run. */
export function clusterSkipReason(): string | undefined {
  return toolSkipReason(SKIP_ENV);
}

export function describeWithCluster(name: string, fn: () => void): void {
  describeWithTool('test cluster', SKIP_ENV, name, fn);
}
