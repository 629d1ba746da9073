import { describe, it, expect } from 'vitest';
import { registryCacheExtension } from '../../../src/extensions/registry-cache';
import { registryCacheDefaults } from '../../../src/extensions/registry-cache/defaults';
import { kimSyncOptionSchema, prepareRegistryCacheState } from '../../../src/extensions/registry-cache/options';
import { validateLayer, validateResolved } from '../../../src/extensions/registry-cache/rules';
import { registryCacheSchema } from '../../../src/extensions/registry-cache/schema';
import type { RuleEnvironment } from '../../../src/extensions/types';

const env: RuleEnvironment<unknown> = { state: undefined, files: new Map(), now: new Date(0) };

describe('registryCacheExtension', () => {
  it('declares the names, the keyed list and its parts', () => {
    expect(registryCacheExtension).toMatchObject({
      name: 'registry-cache',
      shootExtensionType: 'registry-cache',
      defaultModuleName: 'registry-cache',
      keyedLists: [{ path: ['caches'], key: 'upstream' }],
      schema: registryCacheSchema,
      validateLayer,
      validateResolved,
      defaults: registryCacheDefaults,
    });
    expect(registryCacheExtension.description).toMatch(/\S/);
    expect(registryCacheExtension.prepare).toBe(prepareRegistryCacheState);
    expect(registryCacheExtension.fleetOptions).toEqual({ 'kim.registryCacheSync': kimSyncOptionSchema });
    expect(registryCacheExtension.filesToLoad).toBeUndefined();
  });

  it('reports through the reporter it is given, with paths relative to the extension', () => {
    const reported: unknown[] = [];
    registryCacheExtension.validateLayer!(
      { caches: [{ upstream: 'docker.io' }, { upstream: 'docker.io' }] },
      { report: (path, code) => reported.push([path, code]) },
      env,
    );
    expect(reported).toEqual([[['caches', 1, 'upstream'], 'E_REGCACHE_DUPLICATE']]);
  });
});

describe('registryCacheDefaults', () => {
  it('defaults the namespace to kyma-system', () => {
    expect(registryCacheDefaults({ enabled: true, caches: [{ upstream: 'docker.io' }] })).toEqual({
      namespace: 'kyma-system',
    });
  });

  it('leaves a namespace a layer set, and writes no admission defaults (size, ttl)', () => {
    expect(registryCacheDefaults({ enabled: true, namespace: 'registry', caches: [{ upstream: 'docker.io' }] })).toEqual(
      {},
    );
  });
});
