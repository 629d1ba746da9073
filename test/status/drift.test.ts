// Drift of a Shoot entry's providerConfig (src/status/drift.ts): the core compares plainly (list
// entries by name); an extension's own spellings and renames come from its status hook's drift
// rules, in its folder (registry-cache: caches by upstream, sizes as quantities, ttl as Go
// durations, the credentials Secret by presence because KIM renames it).

import { describe, expect, it } from 'vitest';
import { registryCacheDrift } from '../../src/extensions/registry-cache/drift';
import { EXTENSIONS } from '../../src/extensions';
import { driftOf, MAX_DIFFS } from '../../src/status/drift';

const P = 'spec.extensions[type=x].providerConfig';
const cache = (c: Record<string, unknown>) => ({ caches: [{ upstream: 'docker.io', ...c }] });

describe('drift of a providerConfig', () => {
  it.each([
    ['a ttl KIM writes as metav1.Duration', cache({ garbageCollection: { ttl: '168h' } }), cache({ garbageCollection: { ttl: '168h0m0s' } })],
    ['a size in another unit', cache({ volume: { size: '1Gi' } }), cache({ volume: { size: '1024Mi' } })],
    ['the credentials Secret KIM copies as reg-cache-<uuid>', cache({ secretReferenceName: 'ghcr-pull' }), cache({ secretReferenceName: 'reg-cache-0f1e2d3c' })],
    ['caches in another order', { caches: [{ upstream: 'a.io' }, { upstream: 'b.io' }] }, { caches: [{ upstream: 'b.io' }, { upstream: 'a.io' }] }],
  ])('is none for %s with the registry-cache rules, and some without them', (_what, expected, live) => {
    expect(driftOf(expected, live, P, registryCacheDrift)).toEqual([]);
    expect(driftOf(expected, live, P)).not.toEqual([]);
  });

  it('reports a real difference with the registry-cache rules', () => {
    expect(driftOf(cache({ volume: { size: '1Gi' } }), cache({ volume: { size: '2Gi' } }), P, registryCacheDrift)).toEqual([`${P}.caches[upstream=docker.io].volume.size is "2Gi"; the fleet renders "1Gi"`]);
    expect(driftOf(cache({ secretReferenceName: 'ghcr-pull' }), cache({}), P, registryCacheDrift)).toEqual([
      `${P}.caches[upstream=docker.io].secretReferenceName is not set; the fleet references the credentials Secret "ghcr-pull" (KIM names its Garden copy reg-cache-<uuid>)`,
    ]);
  });

  it('matches list entries by name in the core, and compares fields the fragment leaves unset not at all', () => {
    const expected = { destinations: [{ name: 'logging' }, { name: 'central', enabled: true }] };
    expect(driftOf(expected, { destinations: [{ name: 'central', enabled: true, extra: 1 }, { name: 'logging' }] }, P)).toEqual([]);
    expect(driftOf(expected, { destinations: [{ name: 'central', enabled: false }] }, P)).toEqual([
      `${P}.destinations[name=logging] is missing; the fleet renders it`,
      `${P}.destinations[name=central].enabled is false; the fleet renders true`,
    ]);
  });

  it('stops at MAX_DIFFS differences', () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${String(i).padStart(2, '0')}`, i]));
    expect(driftOf(many, {}, P)).toHaveLength(MAX_DIFFS);
  });

  it('takes the rules from the extension that owns the entry (ExtensionPlugin.shootDrift)', () => {
    expect(EXTENSIONS.find((e) => e.name === 'registry-cache')?.shootDrift).toBe(registryCacheDrift);
  });
});
