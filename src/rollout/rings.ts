// Which ring a runtime is in: the first ring whose selector matches its labels, else the implicit
// last ring `rest`. Pure.

import { cmp } from '../lib/diagnostics';
import { selectorMatches } from '../lib/labels';
import { REST_RING, type RolloutConfig } from '../validate/rollout-options';

/** Every ring's name in rollout order, `rest` last. */
export function ringNames(config: RolloutConfig): string[] {
  return [...config.rings.map((r) => r.name), REST_RING];
}

/** The ring of a runtime with these labels. */
export function ringOf(labels: Readonly<Record<string, string>>, config: RolloutConfig): string {
  for (const ring of config.rings) if (selectorMatches(ring.selector, labels)) return ring.name;
  return REST_RING;
}

/** The runtimes of every ring (names sorted), every ring present, in rollout order. */
export function runtimesByRing(runtimes: ReadonlyArray<{ readonly name: string; readonly labels: Readonly<Record<string, string>> }>, config: RolloutConfig): Map<string, string[]> {
  const out = new Map<string, string[]>(ringNames(config).map((n) => [n, []]));
  for (const r of runtimes) out.get(ringOf(r.labels, config))!.push(r.name);
  for (const names of out.values()) names.sort(cmp);
  return out;
}
