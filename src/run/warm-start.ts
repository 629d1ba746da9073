// The workers of a run's look at dist/ (src/write/tree-scan.ts warmWorkers), started by the CLI as
// soon as it knows the run's folders, before it loads the checker and the renderer: a worker's own
// start-up and its prelude (the fleet's runtimes/ listed and stamped) then take the core that was
// idle while this thread loaded them (at 10,000 runtimes the look at dist/ is what a run with one
// changed runtime waits for last). The plan (./plan.ts) takes them when they were started for its
// folders and stops them otherwise. This module loads only what starting them needs.

import * as path from 'node:path';
import { indexFileBytes } from '../lib/dist-index';
import type { WarmWorkers } from '../lib/sync-workers';
import { warmWorkers } from '../write/tree-scan';
import { threadLimit } from './parallel/threads';

export interface WarmStart {
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cwd: string;
  /** Whether the first worker lists and stamps the fleet's runtimes/ first (a run with a cache folder). */
  readonly prelude: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

interface Parked {
  readonly outDir: string;
  readonly fleetRoot: string;
  readonly prelude: boolean;
  readonly warm: WarmWorkers;
}

let parked: Parked | undefined;

/** Starts the warm workers a plan for these folders will want (none for a dist/ too small for them), and returns them. */
export function warmStart(start: WarmStart): WarmWorkers | undefined {
  parked?.warm.stop();
  const outDir = path.resolve(start.cwd, start.outDir);
  const fleetRoot = path.resolve(start.cwd, start.fleetDir);
  // The prelude's run start is earlier than the plan's: a file is taken as settled later, never sooner.
  const warm = startWarm(outDir, fleetRoot, start.prelude, threadLimit(start.env));
  parked = warm && { outDir, fleetRoot, prelude: start.prelude, warm };
  return warm;
}

/** The warm workers a plan of these folders wants: those warmStart started for them, else started now (any others are stopped). */
export function warmWorkersFor(outDir: string, fleetRoot: string, prelude: boolean, threads: number): WarmWorkers | undefined {
  return takeWarm(outDir, fleetRoot, prelude) ?? startWarm(outDir, fleetRoot, prelude, threads);
}

/** Stops the workers warmStart started, if any (the plan wants none). */
export function dropWarm(): undefined {
  parked?.warm.stop();
  parked = undefined;
  return undefined;
}

/** The workers a look at dist/ of this size wants, started now (tree-scan's warmWorkers); the first lists runtimes/ with `prelude`. */
function startWarm(outDir: string, fleetRoot: string, prelude: boolean, threads: number): WarmWorkers | undefined {
  return warmWorkers(indexFileBytes(outDir), threads, prelude ? { fleetDir: fleetRoot, runStart: Date.now() } : undefined);
}

/** The workers warmStart started for exactly these folders and prelude, once; any others are stopped. */
export function takeWarm(outDir: string, fleetRoot: string, prelude: boolean): WarmWorkers | undefined {
  const p = parked;
  parked = undefined;
  if (p && p.outDir === outDir && p.fleetRoot === fleetRoot && p.prelude === prelude) return p.warm;
  p?.warm.stop();
  return undefined;
}
