// JSON Schema of the providerConfig of the shoot-falco-service Shoot entry (FalcoServiceConfig,
// falco.extensions.gardener.cloud/v1alpha1), as the extension's admission decodes it: strictly, so
// an unknown field fails Shoot admission. The tests check every rendered Shoot fragment against it
// (charts/shoot-fragment-schema.ts).

import { NON_EMPTY_STRING as str, strictObject } from '../../lib/strict-schema';

export const falcoServiceConfigSchema = strictObject(
  {
    apiVersion: { const: 'falco.extensions.gardener.cloud/v1alpha1' },
    kind: { const: 'FalcoServiceConfig' },
    falcoVersion: str,
    autoUpdate: { type: 'boolean' },
    heartbeatEvent: { type: 'boolean' },
    nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
    tolerations: { type: 'array' },
    falcoConfig: { type: 'object' },
    rules: strictObject({
      standard: { type: 'array', items: { enum: ['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'] } },
      custom: { type: 'array', items: strictObject({ resourceName: str, shootConfigMap: str }) },
    }),
    destinations: {
      type: 'array',
      items: strictObject({ name: str, enabled: { type: 'boolean' }, resourceSecretName: str }, ['name']),
    },
  },
  ['apiVersion', 'kind'],
);
