// How many threads a run may keep busy, on its own: the plan asks it, and so does the CLI before it
// loads the checker and the renderer (src/run/warm-start.ts).

import * as os from 'node:os';

/** How many threads a run may keep busy: KYMA_FLEET_WORKERS, else the cores (at most 4). */
export function threadLimit(env: NodeJS.ProcessEnv = process.env): number {
  const forced = env.KYMA_FLEET_WORKERS;
  return forced !== undefined && /^[0-9]{1,2}$/.test(forced) ? Number(forced) : Math.min(os.availableParallelism(), 4);
}
