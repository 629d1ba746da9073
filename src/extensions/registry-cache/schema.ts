// JSON Schema (draft-07, ajv strict) of one layer's `extensions.registry-cache`: shape, types and
// input caps only. Formats (hosts, URLs, quantities, durations, names) are checked by ./rules.ts
// with the admission messages, so there are no `pattern`s here and no fault is reported twice.

import type { JsonSchema } from '../types';

/** Caps against hostile input. rules.ts skips a value over its cap: the schema reports it. */
export const MAX_CACHES = 100;
/** A 253-byte host, ':' and a 5-digit port: the longest upstream admission can accept. */
export const MAX_UPSTREAM_LENGTH = 259;
export const MAX_URL_LENGTH = 2048;
/** DNS-1123 subdomain (Secret and StorageClass names). */
export const MAX_NAME_LENGTH = 253;
/** DNS-1123 label (namespace). */
export const MAX_NAMESPACE_LENGTH = 63;
export const MAX_QUANTITY_LENGTH = 64;
export const MAX_DURATION_LENGTH = 64;

export const DEFAULT_NAMESPACE = 'kyma-system';

function proxyURL(kind: 'HTTP' | 'HTTPS'): JsonSchema {
  return {
    type: 'string',
    maxLength: MAX_URL_LENGTH,
    description:
      `Proxy for ${kind} connections of the cache to its upstream: http://host[:port] or ` +
      'https://host[:port], without path, user info, query or fragment.',
    examples: ['http://proxy.corp.example:3128'],
  };
}

const cacheSchema: JsonSchema = {
  type: 'object',
  title: 'Registry cache',
  description:
    'One pull-through cache for one upstream registry, written as one RegistryCacheConfig ' +
    '(core.kyma-project.io/v1beta1) on the runtime.',
  additionalProperties: false,
  required: ['upstream'],
  properties: {
    upstream: {
      type: 'string',
      maxLength: MAX_UPSTREAM_LENGTH,
      description:
        'Registry host to cache, as host[:port] without scheme or path: a lowercase DNS-1123 ' +
        'subdomain and an optional port 1-65535. Identifies the cache: layers merge caches by ' +
        'upstream, and an upstream may appear only once in a list.',
      examples: ['docker.io', 'ghcr.io', 'my-registry.io:5000'],
    },
    remoteURL: {
      type: 'string',
      maxLength: MAX_URL_LENGTH,
      description:
        'URL the cache pulls from: http://host[:port] or https://host[:port], without path, user ' +
        'info, query or fragment. Defaults to https://<upstream> (https://registry-1.docker.io for ' +
        'docker.io).',
      examples: ['https://registry-1.docker.io', 'https://my-registry.io:5000'],
    },
    volume: {
      type: 'object',
      description:
        'Volume that holds the cached content. Immutable once the cache exists: to change it, ' +
        'remove the cache and add it again in a separate change.',
      additionalProperties: false,
      properties: {
        size: {
          type: 'string',
          maxLength: MAX_QUANTITY_LENGTH,
          description:
            'Size of the cache volume as a Kubernetes quantity string greater than 0, with a ' +
            'unit such as Gi (10Gi; a plain number like 10 is not accepted, 10GB is not a ' +
            'quantity). Defaults to 10Gi. Immutable.',
          examples: ['10Gi', '100Gi'],
        },
        storageClassName: {
          type: 'string',
          maxLength: MAX_NAME_LENGTH,
          description:
            'StorageClass of the cache volume (a DNS-1123 subdomain). Defaults to the default ' +
            'StorageClass of the runtime. Immutable.',
          examples: ['default'],
        },
      },
    },
    garbageCollection: {
      type: 'object',
      description: 'Garbage collection of cached content. Defaults to a ttl of 168h (7 days).',
      additionalProperties: false,
      required: ['ttl'],
      properties: {
        ttl: {
          type: 'string',
          maxLength: MAX_DURATION_LENGTH,
          description:
            'Time to live of cached content as a non-negative Go duration (168h, 30m, 1h30m; ' +
            'there is no day unit). 0s disables garbage collection; once disabled it cannot be ' +
            'enabled again for the same cache.',
          examples: ['168h', '720h', '0s'],
        },
      },
    },
    secretReferenceName: {
      type: 'string',
      maxLength: MAX_NAME_LENGTH,
      description:
        'Name of the Secret with the upstream credentials, in the namespace of the ' +
        'RegistryCacheConfig. The Secret is managed outside the fleet: immutable, with exactly ' +
        'the keys username and password. A DNS-1123 subdomain that does not contain "reg-cache-" ' +
        '(KIM reserves that for the Secrets it copies to the Garden project).',
      examples: ['docker-hub-credentials'],
    },
    proxy: {
      type: 'object',
      description: 'Proxy the cache uses to reach its upstream.',
      additionalProperties: false,
      properties: {
        httpProxy: proxyURL('HTTP'),
        httpsProxy: proxyURL('HTTPS'),
      },
    },
    enabled: {
      type: 'boolean',
      description: 'false removes this cache where a lower layer added it.',
    },
  },
};

/** Schema of `extensions.registry-cache` in one layer. Every field is optional. */
export const registryCacheSchema: JsonSchema = {
  type: 'object',
  title: 'Registry cache extension',
  description:
    'Gardener registry-cache extension: pull-through caches for container registries, configured ' +
    'on the runtime as RegistryCacheConfig resources. Enabling it also adds the registry-cache ' +
    'Kyma module.',
  additionalProperties: false,
  properties: {
    enabled: {
      type: 'boolean',
      description:
        'true turns the extension on, false removes it where a lower layer turned it on. An ' +
        'enabled extension needs at least one enabled cache.',
    },
    namespace: {
      type: 'string',
      maxLength: MAX_NAMESPACE_LENGTH,
      default: DEFAULT_NAMESPACE,
      description:
        'Namespace on the runtime where the RegistryCacheConfig resources, and the Secrets they ' +
        'reference, live (a DNS-1123 label). Defaults to kyma-system.',
      examples: ['kyma-system'],
    },
    caches: {
      type: 'array',
      maxItems: MAX_CACHES,
      description:
        'The caches. Layers merge this list entry by entry, by upstream; an entry with ' +
        'enabled: false removes a cache a lower layer added.',
      items: cacheSchema,
    },
  },
};
