// Update rules of the registry-cache extension (ValidateRegistryConfigUpdate, and the Kyma
// webhook on UPDATE): a cache's volume size and storage class are immutable, and garbage
// collection cannot be switched back on once disabled. Checked against the previous render in
// dist/, so the operator learns it in the pull request rather than from a rejected update.
// Nor can a cache move to another namespace in one step: the Kyma registry-cache webhook refuses a
// RegistryCacheConfig whose upstream another one has in any namespace (Duplicate value), and Flux
// and Argo CD delete the old object only after the new one is applied, so the apply fails for good.

import { quote } from '../../lib/diagnostics';
import { parseGoDuration } from '../../lib/go-duration';
import type { RuleReporter } from '../types';
import { DEFAULT_NAMESPACE } from './render';

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

const ESCAPE_HATCH = 'to change it, remove the cache in one synth and add it again in a later one (its cached images are lost)';

export function validateRegistryCacheTransition(value: Rec, previous: readonly Rec[], reporter: RuleReporter): void {
  const before = new Map<string, Rec>();
  const namespaceOf = new Map<string, unknown>();
  for (const m of previous) {
    const spec = rec(m.spec);
    if (m.kind !== 'RegistryCacheConfig' || !spec || typeof spec.upstream !== 'string') continue;
    before.set(spec.upstream, spec);
    namespaceOf.set(spec.upstream, rec(m.metadata)?.namespace);
  }
  const caches = Array.isArray(value.caches) ? (value.caches as Rec[]) : [];
  const namespace = typeof value.namespace === 'string' ? value.namespace : DEFAULT_NAMESPACE;
  const moved = caches.map((c) => String(c.upstream)).filter((u) => namespaceOf.has(u) && namespaceOf.get(u) !== namespace);
  if (moved.length > 0) {
    const from = [...new Set(moved.map((u) => String(namespaceOf.get(u))))].sort();
    reporter.report(
      ['namespace'],
      'E_CACHE_NAMESPACE_MOVED',
      `cannot move the RegistryCacheConfig of ${moved.map((u) => quote(u)).join(', ')} from namespace ${from.map((n) => quote(n)).join(', ')} to ${quote(namespace)} in one synth: ` +
        'the registry-cache webhook refuses a second config for an upstream that one in any namespace has (Duplicate value), and the GitOps controller ' +
        `deletes the old one only after the new one is applied; ${ESCAPE_HATCH}`,
    );
  }
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
