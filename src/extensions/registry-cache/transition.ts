// Update rules of the registry-cache extension (ValidateRegistryConfigUpdate, and the Kyma
// webhook on UPDATE): a cache's volume size and storage class are immutable, and garbage
// collection cannot be switched back on once disabled. Checked against the previous render in
// dist/, so the operator learns it in the pull request rather than from a rejected update.

import { quote } from '../../lib/diagnostics';
import { parseGoDuration } from '../../lib/go-duration';
import type { RuleReporter } from '../types';

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

const ESCAPE_HATCH = 'to change it, remove the cache in one synth and add it again in a later one (its cached images are lost)';

export function validateRegistryCacheTransition(value: Rec, previous: readonly Rec[], reporter: RuleReporter): void {
  const before = new Map<string, Rec>();
  for (const m of previous) {
    const spec = rec(m.spec);
    if (m.kind === 'RegistryCacheConfig' && spec && typeof spec.upstream === 'string') before.set(spec.upstream, spec);
  }
  const caches = Array.isArray(value.caches) ? (value.caches as Rec[]) : [];
  caches.forEach((cache, i) => {
    const old = before.get(String(cache.upstream));
    if (!old) return;
    const oldVolume = rec(old.volume) ?? {};
    const newVolume = rec(cache.volume) ?? {};
    for (const field of ['size', 'storageClassName'] as const) {
      if (oldVolume[field] !== newVolume[field]) {
        reporter.report(
          ['caches', i, 'volume', field],
          'E_IMMUTABLE_FIELD',
          `Invalid value: ${quote(newVolume[field])}: field is immutable (the last synth rendered ${quote(oldVolume[field])}); ${ESCAPE_HATCH}`,
        );
      }
    }
    const ttl = (gc: unknown): bigint | undefined => {
      const t = rec(gc)?.ttl;
      if (typeof t !== 'string') return undefined;
      const parsed = parseGoDuration(t);
      return parsed.ok ? parsed.nanoseconds : undefined;
    };
    const oldTtl = ttl(old.garbageCollection);
    const newTtl = ttl(cache.garbageCollection);
    if (oldTtl === 0n && newTtl !== undefined && newTtl > 0n) {
      reporter.report(['caches', i, 'garbageCollection', 'ttl'], 'E_GC_REENABLE', `garbage collection cannot be enabled (ttl > 0) once it is disabled (ttl = 0); ${ESCAPE_HATCH}`);
    }
  });
}
