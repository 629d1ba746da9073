// The registry-cache extension plug-in: wires this folder's schema, rules and defaults into the
// contract of ../types.ts. Caches merge across layers by upstream. Its fleet option
// kim.registryCacheSync (./options.ts) says whether KIM writes the Runtime CR's caches itself.

import type { ExtensionPlugin } from '../types';
import { registryCacheConsequences } from './consequences';
import { registryCacheDefaults } from './defaults';
import { registryCacheDrift } from './drift';
import { KIM_SYNC_OPTION, kimSyncOptionSchema, prepareRegistryCacheState, type RegistryCacheState } from './options';
import { renderRegistryCache } from './render';
import { validateRegistryCacheTransition } from './transition';
import { validateLayer, validateResolved } from './rules';
import { registryCacheSchema } from './schema';
import { registryConfigSchema } from './provider-config-schema';
import { registryCacheStatus } from './status';
import { registryCacheScaffold } from './scaffold';
import { registryCacheTestedAgainst } from './tested-against';

export const registryCacheExtension: ExtensionPlugin<RegistryCacheState> = {
  name: 'registry-cache',
  description:
    'Pull-through caches for container registries (Gardener registry-cache extension, Kyma registry-cache module)',
  shootExtensionType: 'registry-cache',
  // KIM writes it from the Runtime CR's spec.imageRegistryCache, and removes any other writer's.
  shootEntryWrittenBy: 'kim',
  defaultModuleName: 'registry-cache',
  schema: registryCacheSchema,
  fleetOptions: { [KIM_SYNC_OPTION]: kimSyncOptionSchema },
  keyedLists: [{ path: ['caches'], key: 'upstream' }],
  skrConfigCrds: { RegistryCacheConfig: 'registrycacheconfigs.core.kyma-project.io' },
  prepare: prepareRegistryCacheState,
  validateLayer,
  validateResolved,
  transitionKinds: ['RegistryCacheConfig'],
  validateTransition: validateRegistryCacheTransition,
  defaults: registryCacheDefaults,
  render: renderRegistryCache,
  providerConfigSchema: registryConfigSchema,
  status: registryCacheStatus,
  shootDrift: registryCacheDrift,
  testedAgainst: registryCacheTestedAgainst,
  scaffold: registryCacheScaffold,
  consequences: registryCacheConsequences,
};
