// For test files that need the upstream oracle: describeWithOracle(name, fn) is describe(), or a
// skipped describe whose name carries the one-line reason when the global setup found no Go (CI
// unset). Under CI=true the global setup fails the run instead, and this fails too if it gets here.

import { describe, it } from 'vitest';
import { ORACLE_SKIP_ENV } from './tools';

export function oracleSkipReason(): string | undefined {
  return process.env[ORACLE_SKIP_ENV] || undefined;
}

export function describeWithOracle(name: string, fn: () => void): void {
  const reason = oracleSkipReason();
  if (reason && process.env.CI === 'true') {
    describe(name, () => {
      it('has the upstream oracle (required under CI=true)', () => {
        throw new Error(`upstream oracle unavailable under CI=true: ${reason}`);
      });
    });
  } else if (reason) {
    describe.skip(`${name} (skipped: ${reason})`, fn);
  } else {
    describe(name, fn);
  }
}
