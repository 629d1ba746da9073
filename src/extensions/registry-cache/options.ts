// The registry-cache fleet option `Fleet.spec.kim.registryCacheSync`, read once per run into the
// plug-in's state: whether the landscape's KIM syncs RegistryCacheConfigs into the Runtime CR itself
// (its RegistryCacheConfig controller). Then KIM owns Runtime.spec.imageRegistryCache and the
// render contributes no Runtime CR field (./render.ts). The schema has already checked the shape;
// a value of another type counts as false.

import type { JsonSchema, PrepareInput } from '../types';

/** Name of the option: property registryCacheSync of the core's `kim` option group. */
export const KIM_SYNC_OPTION = 'kim.registryCacheSync';

export const kimSyncOptionSchema: JsonSchema = {
  type: 'boolean',
  description:
    'true where KIM runs its RegistryCacheConfig controller (--registry-cache-config-controller-enabled): it then owns Runtime.spec.imageRegistryCache and no Runtime fragments are written. @default false',
};

export interface RegistryCacheState {
  /** Fleet.spec.kim.registryCacheSync === true. */
  readonly kimSyncsCaches: boolean;
}

export function prepareRegistryCacheState(input: Pick<PrepareInput, 'fleetSpec'>): RegistryCacheState {
  const kim = input.fleetSpec.kim;
  const sync = typeof kim === 'object' && kim !== null && (kim as Record<string, unknown>).registryCacheSync === true;
  return { kimSyncsCaches: sync };
}
