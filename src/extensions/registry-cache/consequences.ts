// What a registry-cache change makes happen on a runtime, for the review (`kyma-fleet diff`, the
// plug-in's `consequences`, ../types.ts). Read from the Shoot's RegistryConfig, which lists every
// cache whether KIM or the fleet fills the Runtime CR: a cache whose upstream disappears is deleted
// with its volume (its images are lost); a new upstream adds a cache and its volume. A cache's volume
// size and storage class are immutable: validation refuses changing them in place (./transition.ts),
// and where a render changes them anyway the review counts it as what it must be, a removal and an
// addition. Sizes are compared as quantities (20Gi and 20480Mi are the same size). Pure.

import { parseQuantity } from '../../lib/quantity';
import type { ConsequenceRules, RenderedSide } from '../types';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

/** upstream -> its cache, from the Shoot entry; none when the entry is absent or disabled. */
function cachesOf(side: RenderedSide): Map<string, Rec> {
  const out = new Map<string, Rec>();
  const entry = side.shootEntry;
  if (!entry || entry.disabled === true) return out;
  const caches = rec(entry.providerConfig)?.caches;
  for (const c of Array.isArray(caches) ? caches : []) {
    const cache = rec(c);
    if (cache && typeof cache.upstream === 'string') out.set(cache.upstream, cache);
  }
  return out;
}

function sameSize(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x !== undefined && y !== undefined && x.sign === y.sign && x.value === y.value;
}

/** The volume of a cache cannot change in place: another size or storage class is a new cache. */
function sameVolume(a: Rec, b: Rec): boolean {
  const va = rec(a.volume) ?? {};
  const vb = rec(b.volume) ?? {};
  return sameSize(va.size, vb.size) && va.storageClassName === vb.storageClassName;
}

export const registryCacheConsequences: ConsequenceRules = {
  classes: [
    {
      id: 'cache-removed',
      label: 'cache removed (images lost)',
      severity: 'destructive',
      description:
        "the registry cache and its volume are deleted with every image it holds; the runtime's nodes pull from the upstream registry again (a volume size or storage class change is a removal and an addition)",
    },
    {
      id: 'cache-added',
      label: 'cache added',
      severity: 'routine',
      description: 'a registry cache with its own volume (a persistent volume claim of its size) starts on the runtime, empty; the nodes pull through it',
    },
  ],
  classify(before, after) {
    const a = cachesOf(before);
    const b = cachesOf(after);
    let removed = false;
    let added = false;
    for (const [upstream, cache] of a) {
      const next = b.get(upstream);
      if (!next) removed = true;
      else if (!sameVolume(cache, next)) removed = added = true;
    }
    for (const upstream of b.keys()) if (!a.has(upstream)) added = true;
    return [...(removed ? ['cache-removed'] : []), ...(added ? ['cache-added'] : [])];
  },
};
