// The folder beside the clone that the project's CI checkout has and a newcomer's clone has not:
// ../shared (the CRDs that `npm run import` reads, the design and reference notes). Tests that
// read it wrap themselves in describeWithShared(rel, name, fn): describe() when ../shared/<rel>
// exists; else, with CI unset, a skipped describe whose name carries one line naming what is
// missing; under CI=true a failing test instead (CI has ../shared: its absence is a broken checkout).
// KYMA_FLEET_SHARED points elsewhere (a test of this skip hides ../shared with it, issue 26).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../cluster/paths';
import { describeWithTool } from './describe-with-tool';

/** The shared folder: $KYMA_FLEET_SHARED, else ../shared beside the project. */
export function sharedDir(): string {
  return process.env.KYMA_FLEET_SHARED ? path.resolve(process.env.KYMA_FLEET_SHARED) : path.resolve(PROJECT_ROOT, '..', 'shared');
}

/** A path inside the shared folder. */
export function sharedPath(rel: string): string {
  return path.join(sharedDir(), ...rel.split('/'));
}

/** Why tests that need ../shared/<rel> cannot run here, or undefined when it exists. */
export function sharedMissingReason(rel: string): string | undefined {
  const where = sharedPath(rel);
  if (fs.existsSync(where)) return undefined;
  const shown = process.env.KYMA_FLEET_SHARED ? where : path.relative(PROJECT_ROOT, where);
  return `${shown} is missing (a clone without ../shared beside it); required under CI=true`;
}

/** describe() for tests that read ../shared/<rel>; skipped with one line where it is missing (CI unset). */
export function describeWithShared(rel: string, name: string, fn: () => void): void {
  const env = `KYMA_FLEET_SHARED_SKIP_${rel.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
  const reason = sharedMissingReason(rel);
  if (reason) process.env[env] = reason;
  else delete process.env[env];
  describeWithTool(`../shared/${rel}`, env, name, fn);
}
