// For test files that need the upstream oracle: describeWithOracle(name, fn) is describe(), or a
// skipped describe whose name carries the one-line reason when the global setup found no Go (CI
// unset). Under CI=true the global setup fails the run instead, and this fails too if it gets here.

import { describeWithTool, toolSkipReason } from '../helpers/describe-with-tool';
import { ORACLE_SKIP_ENV } from './tools';

export function oracleSkipReason(): string | undefined {
  return toolSkipReason(ORACLE_SKIP_ENV);
}

export function describeWithOracle(name: string, fn: () => void): void {
  describeWithTool('upstream oracle', ORACLE_SKIP_ENV, name, fn);
}
