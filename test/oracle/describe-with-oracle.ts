// For test files that need the upstream oracle: describeWithOracle(name, fn) is describe(), or a
// skipped describe whose name carries the one-line reason when the global setup found no Go (CI
// unset). Under CI=true the global setup fails the run instead, and this fails too if it gets here.
// describeWithFalco likewise for the Falco judge, which is also skipped where the Falco snapshot
// (../shared/upstream/) is absent.

import { describeWithTool, toolSkipReason } from '../helpers/describe-with-tool';
import { FALCO_SKIP_ENV, ORACLE_SKIP_ENV } from './tools';

export function oracleSkipReason(): string | undefined {
  return toolSkipReason(ORACLE_SKIP_ENV);
}

export function describeWithOracle(name: string, fn: () => void): void {
  describeWithTool('upstream oracle', ORACLE_SKIP_ENV, name, fn);
}

/** Why the Falco judge is skipped in this run (no Go, or no Falco snapshot), or undefined. */
export function falcoSkipReason(): string | undefined {
  return toolSkipReason(ORACLE_SKIP_ENV) ?? toolSkipReason(FALCO_SKIP_ENV);
}

export function describeWithFalco(name: string, fn: () => void): void {
  describeWithTool('Falco judge', oracleSkipReason() ? ORACLE_SKIP_ENV : FALCO_SKIP_ENV, name, fn);
}
