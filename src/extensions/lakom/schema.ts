// JSON Schema (draft-07, ajv strict) of one layer's `extensions.lakom` and of the fleet option
// `Fleet.spec.lakom`: shape, types and input caps only. The scope list and the Secret name are
// checked by ./rules.ts with the admission webhook's wording, so the schema has no `enum` or
// `pattern` and no fault is reported twice. The descriptions are the operator documentation
// (docs/fleet-format.md is generated from them), including the format of the trusted keys Secret.

import type { JsonSchema } from '../types';

/** Scopes the Lakom admission webhook accepts (`AllowedScopes`), sorted. */
export const LAKOM_SCOPES = ['Cluster', 'KubeSystem', 'KubeSystemManagedByGardener'] as const;

/** The scope that puts the signature check on every pod of the runtime; a fleet must allow it. */
export const CLUSTER_SCOPE = 'Cluster';

/** Longest scope name plus room; longer values are reported by the schema. */
export const MAX_SCOPE_LENGTH = 64;
/** A Secret name is a DNS-1123 subdomain. */
export const MAX_SECRET_NAME_LENGTH = 253;

export const lakomSchema: JsonSchema = {
  type: 'object',
  title: 'Lakom',
  description:
    'Lakom image signature verification, the Gardener extension shoot-lakom-service: admission webhooks on the ' +
    'runtime that resolve image tags to digests and deny pods whose images lack a valid cosign signature. ' +
    'Landscapes usually enable it for every Shoot; enabled: false writes `disabled: true` into the Shoot so a ' +
    'runtime opts out. Lakom has no Kyma module: none is added unless Fleet.spec.extensionModules names one.',
  additionalProperties: false,
  properties: {
    enabled: {
      type: 'boolean',
      description:
        'true writes the shoot-lakom-service entry into the Shoot; false writes it with disabled: true, which ' +
        'turns Lakom off where a lower layer (or the landscape) turned it on.',
    },
    scope: {
      type: 'string',
      maxLength: MAX_SCOPE_LENGTH,
      description:
        'Which pods Lakom checks: KubeSystem (every pod in kube-system), KubeSystemManagedByGardener (only the ' +
        'kube-system pods Gardener manages) or Cluster (every pod in every namespace, Kyma\'s own included; ' +
        'refused unless Fleet.spec.lakom.allowClusterScope is true). Left out, nothing is written and the ' +
        "landscape's default applies (upstream: KubeSystemManagedByGardener).",
      examples: ['KubeSystemManagedByGardener', 'KubeSystem'],
    },
    trustedKeysSecretName: {
      type: 'string',
      maxLength: MAX_SECRET_NAME_LENGTH,
      description:
        'Name of a Secret in the Gardener project namespace of the runtime (garden-<shoot.project>) with ' +
        'public keys Lakom trusts in addition to the landscape\'s. The renderer references it from the Shoot ' +
        '(spec.resources entry of kind Secret with this name; providerConfig.trustedKeysResourceName). Never ' +
        'put key material into the fleet. The Secret must exist before the Shoot is written (Gardener admission ' +
        'reads it) and holds the data key `keys`: a YAML list, written in block style from column 0, of ' +
        '`{name, key, algorithm?}` entries: `name` unique and not empty, `key` exactly one PEM public key ' +
        '(RSA, ECDSA or Ed25519), `algorithm` for RSA keys only, one of RSASSA-PKCS1-v1_5-SHA256 (the default), ' +
        '-SHA384, -SHA512, RSASSA-PSS-SHA256, -SHA384, -SHA512. A DNS-1123 subdomain that does not contain ' +
        '"reg-cache-" (KIM removes the Shoot resources whose name contains that).',
      examples: ['acme-cosign-keys'],
    },
  },
};

/** Schema of the fleet-wide option `Fleet.spec.lakom`. */
export const lakomFleetOptionSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Fleet-wide options of the Lakom extension.',
  properties: {
    allowClusterScope: {
      type: 'boolean',
      description:
        'true allows extensions.lakom.scope: Cluster. That scope puts a failing-closed signature check and ' +
        'tag-to-digest mutation on every pod of the runtime, Kyma\'s own included: a pod whose image is not ' +
        'signed by a trusted key is not started. @default false',
    },
  },
};

/**
 * Hints for fields users copy from the Lakom docs but the fleet format does not have (keys: dotted
 * paths below `extensions.lakom`).
 */
export const lakomUnknownFieldHints: Readonly<Record<string, string>> = {
  trustedKeysResourceName:
    'write trustedKeysSecretName: <Secret name>; the renderer adds the Shoot spec.resources entry and the reference',
  keys: 'key material never goes into the fleet: put the keys into the Secret named by trustedKeysSecretName (data key keys)',
  publicKeys: 'key material never goes into the fleet: put the keys into the Secret named by trustedKeysSecretName (data key keys)',
  disabled: 'write enabled: false to opt a runtime out',
};
