// The registry-cache extension plug-in: wires this folder's schema, rules and defaults into the
// contract of ../types.ts. Caches merge across layers by upstream.

import type { ExtensionPlugin } from '../types';
import { registryCacheDefaults } from './defaults';
import { renderRegistryCache } from './render';
import { validateRegistryCacheTransition } from './transition';
import { validateLayer, validateResolved } from './rules';
import { registryCacheSchema } from './schema';
import { registryCacheStatus } from './status';

export const registryCacheExtension: ExtensionPlugin = {
  name: 'registry-cache',
  description:
    'Pull-through caches for container registries (Gardener registry-cache extension, Kyma registry-cache module)',
  shootExtensionType: 'registry-cache',
  // KIM writes it from the Runtime CR's spec.imageRegistryCache, and removes any other writer's.
  shootEntryWrittenBy: 'kim',
  defaultModuleName: 'registry-cache',
  schema: registryCacheSchema,
  keyedLists: [{ path: ['caches'], key: 'upstream' }],
  skrConfigCrds: { RegistryCacheConfig: 'registrycacheconfigs.core.kyma-project.io' },
  validateLayer,
  validateResolved,
  transitionKinds: ['RegistryCacheConfig'],
  validateTransition: validateRegistryCacheTransition,
  defaults: registryCacheDefaults,
  render: renderRegistryCache,
  status: registryCacheStatus,
};
