// JSON Schemas of the three fleet kinds, assembled from the core settings and every registered
// extension. One source for ajv (structure), for editors (committed schemas/*.json) and for the
// generated format reference. Format rules with admission-accurate messages live in rules, not here.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin, JsonSchema } from '../extensions/types';
import { GITOPS_OPTIONS_SCHEMA } from '../gitops/gitops-schema';
import { fleetOptionSchemas } from './fleet-options';
import { rolloutSchema } from './rollout-options';

import { API_VERSION, KINDS, type FleetKind } from '../load/kinds';

export { API_VERSION, KINDS, type FleetKind };

const LABEL_MAP = {
  type: 'object',
  maxProperties: 64,
  additionalProperties: { type: 'string', maxLength: 63 },
};

const LABEL_SELECTOR: JsonSchema = {
  type: 'object',
  description: 'Kubernetes LabelSelector over runtime labels. An empty selector matches every runtime.',
  additionalProperties: false,
  properties: {
    matchLabels: { ...LABEL_MAP, description: 'Labels a runtime must carry with exactly these values.' },
    matchExpressions: {
      type: 'array',
      maxItems: 32,
      description: 'Set-based requirements; all must hold.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string', maxLength: 317, description: 'Label key.' },
          operator: {
            type: 'string',
            enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
            description: 'In and NotIn need values; Exists and DoesNotExist take none.',
          },
          values: { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 63 }, description: 'Label values for In and NotIn.' },
        },
      },
    },
  },
  examples: [{ matchLabels: { 'kyma-fleet.dev/tier': 'production' } }],
};

const MODULE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  description: 'A regular Kyma module in the Kyma CR spec.modules. Merged across layers by name.',
  properties: {
    name: { type: 'string', maxLength: 64, description: 'Module name as in the module catalog (ModuleReleaseMeta), e.g. "api-gateway".' },
    channel: { type: 'string', maxLength: 32, description: 'Release channel for this module; defaults to the runtime channel.' },
    customResourcePolicy: {
      type: 'string',
      enum: ['CreateAndDelete', 'Ignore'],
      description: 'Whether Lifecycle Manager creates and deletes the module default CR. @default CreateAndDelete',
    },
    enabled: { type: 'boolean', description: 'false removes a module that a lower layer added. @default true' },
  },
  examples: [{ name: 'api-gateway' }, { name: 'serverless', channel: 'fast' }],
};

/** The layerable part: under spec (KymaRuntime), spec.settings (RuntimeGroup), spec.defaults (Fleet). */
export function settingsProperties(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Record<string, JsonSchema> {
  const ext: Record<string, JsonSchema> = {};
  for (const e of extensions) ext[e.name] = { ...e.schema, description: e.description };
  return {
    channel: {
      type: 'string',
      maxLength: 32,
      description: 'Kyma release channel of the runtime (Kyma CR spec.channel), e.g. "regular" or "fast".',
      examples: ['regular', 'fast'],
    },
    modules: { type: 'array', maxItems: 100, items: MODULE, description: 'Regular Kyma modules. Keyed by name across layers.' },
    extensions: {
      type: 'object',
      additionalProperties: false,
      description: `Gardener extensions, each with the Kyma module it adds when enabled (if any; see extensionModules). Supported: ${extensions.map((e) => e.name).join(', ')}.`,
      properties: ext,
    },
  };
}

function header(kind: FleetKind, description: string): Record<string, JsonSchema> {
  return {
    apiVersion: { type: 'string', const: API_VERSION, description: 'Always kyma-fleet.dev/v1alpha1.' },
    kind: { type: 'string', const: kind, description },
    metadata: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          type: 'string',
          maxLength: 63,
          // The Fleet's file is always fleet.yaml: its name is free (docs/fleet-format.md said both, issue 26).
          description: kind === 'Fleet' ? 'DNS-1123 label; any name (the file is always fleet.yaml).' : 'DNS-1123 label; must equal the file name without ".yaml".',
        },
        labels: { ...LABEL_MAP, description: 'Labels that group selectors match.' },
        annotations: {
          type: 'object',
          maxProperties: 64,
          additionalProperties: { type: 'string', maxLength: 4096 },
          description: 'Free-form notes for humans; not rendered.',
        },
      },
    },
  };
}

function document(kind: FleetKind, description: string, spec: JsonSchema): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://kyma-fleet.dev/schemas/v1alpha1/${kind.toLowerCase()}.json`,
    title: `${kind} (${API_VERSION})`,
    description,
    type: 'object',
    additionalProperties: false,
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    properties: { ...header(kind, description), spec },
  };
}

export function kymaRuntimeSchema(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): JsonSchema {
  return document('KymaRuntime', 'One Kyma runtime: its identity and the settings it overrides.', {
    type: 'object',
    additionalProperties: false,
    required: ['runtimeID', 'globalAccountID', 'subaccountID', 'region', 'shoot'],
    properties: {
      runtimeID: {
        type: 'string',
        maxLength: 36,
        description: 'Kyma runtime ID (UUID). The Kyma and Runtime CRs are named by its lowercase form.',
        examples: ['3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01'],
      },
      globalAccountID: { type: 'string', maxLength: 63, description: 'SAP BTP global account ID.' },
      subaccountID: { type: 'string', maxLength: 63, description: 'SAP BTP subaccount ID.' },
      region: { type: 'string', maxLength: 63, description: 'Region of the runtime, e.g. "eu-central-1".' },
      shoot: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'project'],
        description: 'The Gardener Shoot behind the runtime.',
        properties: {
          name: { type: 'string', maxLength: 63, description: 'Shoot name.' },
          project: { type: 'string', maxLength: 63, description: 'Gardener project; the Shoot namespace is garden-<project>.' },
        },
      },
      ...settingsProperties(extensions),
    },
  });
}

export function runtimeGroupSchema(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): JsonSchema {
  return document('RuntimeGroup', 'Settings applied to every runtime its selector matches.', {
    type: 'object',
    additionalProperties: false,
    required: ['selector', 'priority'],
    properties: {
      selector: LABEL_SELECTOR,
      priority: {
        type: 'integer',
        minimum: -100000,
        maximum: 100000,
        description: 'Higher wins over lower. Two groups of equal priority must not set the same field differently.',
      },
      settings: {
        type: 'object',
        additionalProperties: false,
        description: 'Settings overlay; same fields as a runtime.',
        properties: settingsProperties(extensions),
      },
    },
  });
}

export function fleetSchema(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): JsonSchema {
  const options = fleetOptionSchemas(extensions);
  const extModules: Record<string, JsonSchema> = {};
  for (const e of extensions) {
    extModules[e.name] = {
      type: ['string', 'boolean'],
      maxLength: 64,
      description:
        e.defaultModuleName === undefined
          ? `Kyma module added when ${e.name} is enabled (default: none); false adds none.`
          : `Kyma module added when ${e.name} is enabled (default "${e.defaultModuleName}"); false adds none.`,
    };
  }
  return document('Fleet', 'Fleet-wide options and the default settings of every runtime.', {
    type: 'object',
    additionalProperties: false,
    properties: {
      kcpNamespace: { type: 'string', maxLength: 63, description: 'Namespace of Kyma and Runtime CRs in the Kyma Control Plane. @default kcp-system' },
      skrApiServers: {
        type: 'array',
        maxItems: 100,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, maxLength: 260 },
        description:
          'API servers of the runtimes that `kyma-fleet status` may contact with a `kubeconfig-<runtimeID>` Secret read from the KCP, as host patterns: `api.example.com` (that host), `*.kyma.ondemand.com` (any host below that domain), port 443 unless `:PORT` or `:*` (any port) follows (e.g. `*.example.com:6443`, `127.0.0.1:*`, `[::1]:*`). A Secret whose server no pattern allows is refused for its runtime (Unknown, RefusedCredentials) and nothing is sent there; without this option no runtime cluster is read.',
      },
      kim: options.groups.kim,
      extensionModules: {
        type: 'object',
        additionalProperties: false,
        description: 'Rename or omit the Kyma module that an enabled extension adds.',
        properties: extModules,
      },
      gitops: GITOPS_OPTIONS_SCHEMA,
      rollout: rolloutSchema(LABEL_SELECTOR),
      removalGuard: {
        type: 'object',
        additionalProperties: false,
        description: 'How many runtimes one synth may remove from dist/ before it refuses (unless --allow-mass-removal).',
        properties: {
          maxShare: {
            type: 'number',
            minimum: 0,
            maximum: 1,
            description: 'Largest share of the previously rendered runtimes that may disappear at once; removing a single runtime is always allowed. @default 0.1',
          },
        },
      },
      policies: {
        type: 'array',
        maxItems: 100,
        description: 'Fleet rules that overlays cannot break, e.g. an extension every production runtime must run.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'selector', 'requireExtensions'],
          properties: {
            name: { type: 'string', maxLength: 63, description: 'Policy ID shown in errors.' },
            description: { type: 'string', maxLength: 1024, description: 'Why the policy exists; shown to humans.' },
            selector: LABEL_SELECTOR,
            requireExtensions: {
              type: 'array',
              maxItems: 16,
              items: { type: 'string', maxLength: 63 },
              description: 'Extensions that must be enabled on every matching runtime.',
            },
          },
        },
      },
      ...options.plain,
      defaults: {
        type: 'object',
        additionalProperties: false,
        description: 'Settings every runtime starts from (lowest layer).',
        properties: settingsProperties(extensions),
      },
    },
  });
}

export function schemaFor(kind: FleetKind, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): JsonSchema {
  switch (kind) {
    case 'Fleet':
      return fleetSchema(extensions);
    case 'RuntimeGroup':
      return runtimeGroupSchema(extensions);
    case 'KymaRuntime':
      return kymaRuntimeSchema(extensions);
  }
}

/** Where each kind's settings live inside its document. */
export const SETTINGS_PATH: Record<FleetKind, readonly string[]> = {
  Fleet: ['spec', 'defaults'],
  RuntimeGroup: ['spec', 'settings'],
  KymaRuntime: ['spec'],
};
