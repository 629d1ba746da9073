// For test files that need the real test cluster: describeWithCluster(name, fn) is describe(), or a
// skipped describe whose name carries the one-line reason when the global setup found no Go (CI unset).
// Under CI=true the global setup fails the run instead, so these tests are never skipped there.

import { describe, it } from 'vitest';
import { SKIP_ENV } from './skip-env';

/** Why the real-cluster tests are skipped in this run, or undefined when they run. */
export function clusterSkipReason(): string | undefined {
  return process.env[SKIP_ENV] || undefined;
}

export function describeWithCluster(name: string, fn: () => void): void {
  const reason = clusterSkipReason();
  if (reason && process.env.CI === 'true') {
    describe(name, () => {
      it('has the test cluster (required under CI=true)', () => {
        throw new Error(`test cluster unavailable under CI=true: ${reason}`);
      });
    });
  } else if (reason) {
    describe.skip(`${name} (skipped: ${reason})`, fn);
  } else {
    describe(name, fn);
  }
}
