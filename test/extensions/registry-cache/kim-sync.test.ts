// The fleet option kim.registryCacheSync, owned by the registry-cache folder: prepare() reads it from
// Fleet.spec.kim, and the render contributes the Runtime CR field spec.imageRegistryCache only while
// KIM does not sync the caches itself. With the option off, a runtime whose cache is off or unset
// still gets `imageRegistryCache: []` (so KIM removes the Shoot extension).

import { describe, expect, it } from 'vitest';
import { prepareRegistryCacheState, type RegistryCacheState } from '../../../src/extensions/registry-cache/options';
import { renderRegistryCache } from '../../../src/extensions/registry-cache/render';

const runtime = { name: 'rt', runtimeID: '8B7C6D5E-4F3A-4B2C-9D1E-0F9A8B7C6D52', shootName: 'c-8b7c6d5', shootProject: 'kyma-prod' };

function render(state: 'enabled' | 'disabled' | 'unset', kim: RegistryCacheState | undefined) {
  return renderRegistryCache({
    state,
    config: state === 'enabled' ? { namespace: 'kyma-system', caches: [{ upstream: 'docker.io' }] } : {},
    runtime,
    env: { state: kim, files: new Map(), now: new Date(0) },
  });
}

describe('kim.registryCacheSync', () => {
  it('is read from Fleet.spec.kim; anything but true is false', () => {
    expect(prepareRegistryCacheState({ fleetSpec: { kim: { registryCacheSync: true } } })).toEqual({ kimSyncsCaches: true });
    expect(prepareRegistryCacheState({ fleetSpec: { kim: { registryCacheSync: false } } })).toEqual({ kimSyncsCaches: false });
    expect(prepareRegistryCacheState({ fleetSpec: { kim: {} } })).toEqual({ kimSyncsCaches: false });
    expect(prepareRegistryCacheState({ fleetSpec: {} })).toEqual({ kimSyncsCaches: false });
    expect(prepareRegistryCacheState({ fleetSpec: { kim: 'yes', registryCacheSync: true } })).toEqual({ kimSyncsCaches: false });
  });

  it('off (or not prepared): the render owns spec.imageRegistryCache in every state', () => {
    for (const kim of [{ kimSyncsCaches: false }, undefined]) {
      expect(render('unset', kim).runtimeSpec).toEqual({ imageRegistryCache: [] });
      expect(render('disabled', kim).runtimeSpec).toEqual({ imageRegistryCache: [] });
      const enabled = render('enabled', kim).runtimeSpec as { imageRegistryCache: Array<{ name: string; namespace: string; config: unknown }> };
      expect(enabled.imageRegistryCache.map(({ name, namespace, config }) => ({ name, namespace, config }))).toEqual([
        { name: expect.any(String), namespace: 'kyma-system', config: { upstream: 'docker.io' } },
      ]);
    }
  });

  it('on: no Runtime CR field in any state, everything else unchanged', () => {
    const on = { kimSyncsCaches: true };
    const off = { kimSyncsCaches: false };
    for (const state of ['enabled', 'disabled', 'unset'] as const) {
      const synced = render(state, on);
      expect(synced).not.toHaveProperty('runtimeSpec');
      const { runtimeSpec: _owned, ...rest } = render(state, off);
      expect(Object.keys(synced).sort()).toEqual(Object.keys(rest).sort());
      expect(synced.shootExtension).toEqual(rest.shootExtension);
      expect(synced.shootResources).toEqual(rest.shootResources);
    }
  });
});
