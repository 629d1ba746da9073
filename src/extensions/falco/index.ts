// The Falco extension (Gardener `shoot-falco-service`) as a plug-in: wires the schema, the
// FalcoProfile preparation, the admission rules and the mutator defaults into the contract the
// loader, validator and resolver know (../types.ts).

import type { ExtensionPlugin } from '../types';
import { falcoConsequences } from './consequences';
import { falcoDefaults } from './defaults';
import { renderFalco } from './render';
import { type FalcoState, falcoProfilePath, prepareFalcoState } from './profile';
import { validateLayer, validateResolved } from './rules';
import { falcoProfileOptionSchema, falcoSchema, falcoUnknownFieldHints } from './schema';
import { falcoServiceConfigSchema } from './provider-config-schema';
import { falcoScaffold } from './scaffold';
import { falcoSnapshot } from './snapshot';

export type { FalcoState } from './profile';

export const falcoExtension: ExtensionPlugin<FalcoState> = {
  name: 'falco',
  description: 'Falco runtime threat detection (Gardener extension shoot-falco-service)',
  shootExtensionType: 'shoot-falco-service',
  defaultModuleName: 'falco',
  schema: falcoSchema,
  fleetOptions: { falcoProfile: falcoProfileOptionSchema },
  unknownFieldHints: falcoUnknownFieldHints,
  keyedLists: [{ path: ['destinations'], key: 'name' }],
  filesToLoad(fleetSpec) {
    const path = falcoProfilePath(fleetSpec);
    return path === undefined ? [] : [path];
  },
  prepare: prepareFalcoState,
  timeThresholds: (state) => (state.profile?.versions ?? []).flatMap((v) => (v.expiresAt === undefined ? [] : [v.expiresAt])),
  validateLayer,
  validateResolved,
  defaults: falcoDefaults,
  render: renderFalco,
  providerConfigSchema: falcoServiceConfigSchema,
  snapshot: falcoSnapshot,
  scaffold: falcoScaffold,
  consequences: falcoConsequences,
};
