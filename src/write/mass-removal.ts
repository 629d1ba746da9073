// The guard of a synth's write against removing much of a landscape at once: a wrong --fleet path
// or a bad merge must not orphan half the runtimes (Fleet spec.removalGuard.maxShare). Used by
// synth and by merge (src/run/), as the guard of the write's commit.

import type { IndexView } from '../lib/dist-index';
import type { DistIndex, Problem } from './dist-writer';

/** Runtime folder names listed in an index (`runtimes/<name>/...`), one binary search per runtime. */
function runtimesOf(view: IndexView): Set<string> {
  const out = new Set<string>();
  for (let i = view.lowerBound('runtimes/'); i < view.size; ) {
    const rel = view.relAt(i);
    if (!rel.startsWith('runtimes/')) break;
    const end = rel.indexOf('/', 9);
    if (end < 0) {
      i++; // a file directly in runtimes/ (not written by kyma-fleet)
      continue;
    }
    const name = rel.slice(9, end);
    if (end > 9) out.add(name);
    i = view.folder(rel.slice(0, end))[1];
  }
  return out;
}

/**
 * Refuses to remove more than `maxShare` of the previously rendered runtimes (`after`: the runtime
 * names of the new tree) at once; removing one is always allowed.
 */
export function massRemovalProblem(previous: DistIndex | undefined, after: ReadonlySet<string>, maxShare: number): Problem | undefined {
  if (!previous) return undefined;
  const before = runtimesOf(previous.view);
  const removed = [...before].filter((r) => !after.has(r)).sort();
  if (removed.length < 2 || removed.length <= maxShare * before.size) return undefined;
  const shown = removed.slice(0, 10).join(', ') + (removed.length > 10 ? `, … (${removed.length - 10} more)` : '');
  return {
    code: 'E_MASS_REMOVAL',
    message: `synth would remove ${removed.length} of ${before.size} runtimes from dist/ (${shown}), more than the allowed share of ${Math.round(maxShare * 100)}% (Fleet spec.removalGuard.maxShare); if that is intended, run again with --allow-mass-removal`,
    paths: removed.map((r) => `runtimes/${r}/`),
  };
}
