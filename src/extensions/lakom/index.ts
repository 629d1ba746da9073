// The Lakom extension (Gardener `shoot-lakom-service`, image signature verification) as a plug-in:
// wires this folder's schema, fleet option, admission rules and rendering into the contract of
// ../types.ts. No Kyma module (defaultModuleName absent) and no defaults: an unset scope is left to
// the landscape. Its Shoot entry is written by `kyma-fleet apply garden` (KIM does not manage it).

import type { ExtensionPlugin } from '../types';
import { lakomConsequences } from './consequences';
import { LAKOM_FLEET_OPTION, type LakomState, prepareLakomState } from './options';
import { renderLakom } from './render';
import { validateLayer, validateResolved } from './rules';
import { lakomFleetOptionSchema, lakomSchema, lakomUnknownFieldHints } from './schema';
import { lakomConfigSchema } from './provider-config-schema';

export type { LakomState } from './options';

export const lakomExtension: ExtensionPlugin<LakomState> = {
  name: 'lakom',
  description: 'Lakom image signature verification (Gardener extension shoot-lakom-service)',
  shootExtensionType: 'shoot-lakom-service',
  schema: lakomSchema,
  fleetOptions: { [LAKOM_FLEET_OPTION]: lakomFleetOptionSchema },
  unknownFieldHints: lakomUnknownFieldHints,
  keyedLists: [],
  prepare: prepareLakomState,
  validateLayer,
  validateResolved,
  render: renderLakom,
  providerConfigSchema: lakomConfigSchema,
  consequences: lakomConsequences,
};
