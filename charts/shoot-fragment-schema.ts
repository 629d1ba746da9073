// JSON Schema of the Shoot fields the garden chart writes. The Shoot is served by the aggregated
// gardener-apiserver and has no CRD, so this is written by hand from the Gardener types
// (kyma-gardener-apis.md §5-§7). Each extension's entry is checked against the providerConfig
// schema its plug-in declares (ExtensionPlugin.providerConfigSchema, in the extension's folder):
// upstream decodes them strictly, so an unknown field would fail Shoot admission.

import { EXTENSIONS } from '../src/extensions';
import type { ExtensionPlugin } from '../src/extensions/types';
import { KIM_RESERVED_NAME_PART } from '../src/lib/k8s-names';
import { NON_EMPTY_STRING as str, type Schema, strictObject } from '../src/lib/strict-schema';

const DNS_LABEL = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };

/** The schema of a Shoot fragment with the entries of these extensions. */
export function shootFragmentSchema(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Schema {
  return strictObject(
    {
      apiVersion: { const: 'core.gardener.cloud/v1beta1' },
      kind: { const: 'Shoot' },
      metadata: strictObject(
        {
          name: DNS_LABEL,
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
            properties: { type: DNS_LABEL, providerConfig: { type: 'object' }, disabled: { type: 'boolean' } },
            allOf: extensions
              .filter((e) => e.providerConfigSchema !== undefined)
              .map((e) => ({
                if: { properties: { type: { const: e.shootExtensionType } }, required: ['providerConfig'] },
                then: { properties: { providerConfig: e.providerConfigSchema } },
              })),
          },
        },
        resources: {
          type: 'array',
          items: strictObject(
            {
              name: { type: 'string', minLength: 1, not: { pattern: KIM_RESERVED_NAME_PART } },
              resourceRef: strictObject({ apiVersion: { const: 'v1' }, kind: { enum: ['Secret', 'ConfigMap'] }, name: str }, ['apiVersion', 'kind', 'name']),
            },
            ['name', 'resourceRef'],
          ),
        },
      }),
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  );
}

/** The schema with the registered extensions. */
export const SHOOT_FRAGMENT_SCHEMA = shootFragmentSchema();
