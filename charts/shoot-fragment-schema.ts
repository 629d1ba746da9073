// JSON Schema of the Shoot fields the garden chart writes. The Shoot is served by the aggregated
// gardener-apiserver and has no CRD, so this is written by hand from the Gardener types
// (kyma-gardener-apis.md §5-§7). The providerConfig schemas forbid unknown fields because both
// extensions decode them strictly: an unknown field would fail Shoot admission.

const str = { type: 'string', minLength: 1 };
const strictObject = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  ...(required.length > 0 ? { required } : {}),
  properties,
});

export const REGISTRY_CONFIG_SCHEMA = strictObject(
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

export const FALCO_SERVICE_CONFIG_SCHEMA = strictObject(
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

export const SHOOT_FRAGMENT_SCHEMA = strictObject(
  {
    apiVersion: { const: 'core.gardener.cloud/v1beta1' },
    kind: { const: 'Shoot' },
    metadata: strictObject(
      {
        name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
        namespace: { type: 'string', pattern: '^garden-[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
        annotations: { type: 'object', additionalProperties: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
      ['name', 'namespace'],
    ),
    spec: strictObject({
      extensions: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['type'],
          properties: {
            type: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
            providerConfig: { type: 'object' },
            disabled: { type: 'boolean' },
          },
          allOf: [
            { if: { properties: { type: { const: 'registry-cache' } }, required: ['providerConfig'] }, then: { properties: { providerConfig: REGISTRY_CONFIG_SCHEMA } } },
            { if: { properties: { type: { const: 'shoot-falco-service' } }, required: ['providerConfig'] }, then: { properties: { providerConfig: FALCO_SERVICE_CONFIG_SCHEMA } } },
          ],
        },
      },
      resources: {
        type: 'array',
        items: strictObject(
          {
            name: { type: 'string', minLength: 1, not: { pattern: 'reg-cache-' } },
            resourceRef: strictObject(
              { apiVersion: { const: 'v1' }, kind: { enum: ['Secret', 'ConfigMap'] }, name: str },
              ['apiVersion', 'kind', 'name'],
            ),
          },
          ['name', 'resourceRef'],
        ),
      },
    }),
  },
  ['apiVersion', 'kind', 'metadata', 'spec'],
);
