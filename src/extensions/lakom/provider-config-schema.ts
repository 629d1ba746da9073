// JSON Schema of the providerConfig of the shoot-lakom-service Shoot entry (LakomConfig,
// lakom.extensions.gardener.cloud/v1alpha1; lakom-and-registration.md §A.2-A.3): upstream decodes it
// strictly (unknown fields, a missing or wrong apiVersion/kind fail admission), `scope` is one of
// the allowed scopes and `trustedKeysResourceName` names a spec.resources entry. An unset scope is
// left out, never null. The tests check every rendered Shoot fragment against it
// (charts/shoot-fragment-schema.ts).

import { NON_EMPTY_STRING, strictObject } from '../../lib/strict-schema';
import { LAKOM_CONFIG_API_VERSION, LAKOM_CONFIG_KIND } from './render';
import { LAKOM_SCOPES } from './schema';

export const lakomConfigSchema = strictObject(
  {
    apiVersion: { const: LAKOM_CONFIG_API_VERSION },
    kind: { const: LAKOM_CONFIG_KIND },
    scope: { enum: [...LAKOM_SCOPES] },
    trustedKeysResourceName: NON_EMPTY_STRING,
  },
  ['apiVersion', 'kind'],
);
