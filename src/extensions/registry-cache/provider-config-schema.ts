// JSON Schema of the providerConfig of the registry-cache Shoot entry (RegistryConfig,
// registry.extensions.gardener.cloud/v1alpha3, kyma-gardener-apis.md §5-§7), as the extension's
// admission decodes it: strictly, so an unknown field fails Shoot admission. The tests check every
// rendered Shoot fragment against it (charts/shoot-fragment-schema.ts).

import { NON_EMPTY_STRING as str, strictObject } from '../../lib/strict-schema';

export const registryConfigSchema = strictObject(
  {
    apiVersion: { const: 'registry.extensions.gardener.cloud/v1alpha3' },
    kind: { const: 'RegistryConfig' },
    caches: {
      type: 'array',
      minItems: 1,
      items: strictObject(
        {
          upstream: str,
          remoteURL: str,
          volume: strictObject({ size: str, storageClassName: str }),
          garbageCollection: strictObject({ ttl: str }, ['ttl']),
          secretReferenceName: str,
          proxy: strictObject({ httpProxy: str, httpsProxy: str }),
          http: strictObject({ tls: { type: 'boolean' } }),
          highAvailability: strictObject({ enabled: { type: 'boolean' } }),
          serviceNameSuffix: str,
        },
        ['upstream'],
      ),
    },
  },
  ['apiVersion', 'kind', 'caches'],
);
