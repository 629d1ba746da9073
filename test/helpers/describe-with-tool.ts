// For test files that need a Go-built tool of the test run (the test cluster, the upstream oracle):
// describeWithTool(what, skipEnv, name, fn) is describe(), or a skipped describe whose name carries the
// one-line reason the tool's global setup left in `skipEnv` when it found no Go (CI unset). Under
// CI=true the global setup fails the run instead, and this fails too if it gets here.

import { describe, it } from 'vitest';

/** Why the tests of a tool are skipped in this run (the reason its global setup left), or undefined. */
export function toolSkipReason(skipEnv: string): string | undefined {
  return process.env[skipEnv] || undefined;
}

/** `what` names the tool in the failure under CI=true, e.g. "test cluster". */
export function describeWithTool(what: string, skipEnv: string, name: string, fn: () => void): void {
  const reason = toolSkipReason(skipEnv);
  if (reason && process.env.CI === 'true') {
    describe(name, () => {
      it(`has the ${what} (required under CI=true)`, () => {
        throw new Error(`${what} unavailable under CI=true: ${reason}`);
      });
    });
  } else if (reason) {
    describe.skip(`${name} (skipped: ${reason})`, fn);
  } else {
    describe(name, fn);
  }
}
