// JSON Schema of one layer's `extensions.falco`. It gives editors hover text and completion and
// rejects unknown fields and wrong types (the admission webhook decodes strictly, §10 item 51).
// Names (standard rules, destinations) are deliberately free strings here: rules.ts checks them so
// the message is the admission webhook's (`unknown standard rule falco-default-rules`).

import type { JsonSchema } from '../types';

/** Standard rule sets the Falco extension ships (`AllowedStandardRules`). */
export const STANDARD_RULES = ['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'] as const;

/** Event destinations the Falco extension accepts (`AllowedDestinations`, without landscape extras). */
export const DESTINATIONS = ['central', 'logging', 'stdout', 'custom', 'otlp', 'opensearch', 'splunk'] as const;

const customRule: JsonSchema = {
  type: 'object',
  description:
    'One custom rules source: exactly one of `configMap` (a ConfigMap already on the runtime, in kube-system) ' +
    'or `file` (a rules file of this fleet, rendered into a ConfigMap).',
  additionalProperties: false,
  properties: {
    configMap: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      description: 'Name of a ConfigMap in kube-system on the runtime that holds Falco rule files (keys ending in .yaml).',
      examples: ['my-falco-rules'],
    },
    file: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description:
        'Path of a Falco rules file relative to the fleet folder, under rules/ and ending in .yaml; ' +
        'the renderer writes it into a ConfigMap in kube-system (at most 1 MiB - 1 KiB).',
      examples: ['rules/web-shell.yaml'],
    },
  },
};

const destination: JsonSchema = {
  type: 'object',
  description: 'One event destination; layers merge destinations by `name`.',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      maxLength: 63,
      description:
        'Destination of Falco events: central, logging, stdout, custom, otlp, opensearch or splunk. ' +
        'custom and splunk need `resourceSecretName`; logging and custom cannot be combined.',
      examples: ['logging', 'stdout', 'custom'],
    },
    resourceSecretName: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      description:
        'Name of the Secret (referenced from the Shoot resources) that configures this destination; ' +
        'required for custom and splunk. Only the name is written, never the Secret itself.',
      examples: ['falco-webhook-config'],
    },
    enabled: {
      type: 'boolean',
      description: 'false removes a destination that a lower layer added. Default: true.',
      default: true,
    },
  },
};

export const falcoSchema: JsonSchema = {
  type: 'object',
  title: 'Falco',
  description:
    'Falco runtime threat detection, the Gardener extension shoot-falco-service. Fields left out get the ' +
    "admission webhook's defaults, written out explicitly.",
  additionalProperties: false,
  properties: {
    enabled: {
      type: 'boolean',
      description: 'Deploys Falco on the runtime (and adds the falco module to the Kyma CR). false removes what a lower layer enabled.',
    },
    falcoVersion: {
      type: 'string',
      maxLength: 64,
      description:
        'Falco version, listed in the FalcoProfile and not deprecated past its expiration date. Quote it: ' +
        'YAML reads 0.40 as a number. Default: the highest supported version of the FalcoProfile.',
      examples: ['0.42.1'],
    },
    autoUpdate: {
      type: 'boolean',
      description: 'Lets Gardener update Falco to newer supported versions during maintenance. Default: true.',
      default: true,
    },
    rules: {
      type: 'object',
      description:
        'Rule sets Falco loads. Default when left out: standard [falco-rules]. Setting rules with both lists empty is an error.',
      additionalProperties: false,
      properties: {
        standard: {
          type: 'array',
          maxItems: 16,
          description: 'Standard rule sets: falco-rules, falco-incubating-rules, falco-sandbox-rules. A higher layer replaces the whole list.',
          items: {
            type: 'string',
            maxLength: 64,
            description: 'Name of a standard rule set.',
            examples: [...STANDARD_RULES],
          },
        },
        custom: {
          type: 'array',
          maxItems: 64,
          description: 'Custom rule sources, loaded in this order. A higher layer replaces the whole list.',
          items: customRule,
        },
      },
    },
    destinations: {
      type: 'array',
      maxItems: 16,
      description:
        'Where Falco sends events. Layers merge entries by name. Default when empty: [{name: logging}].',
      items: destination,
    },
  },
};

/** Schema of the fleet-wide option `Fleet.spec.falcoProfile`. */
export const falcoProfileOptionSchema: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  description:
    "Path, relative to the fleet folder, of a FalcoProfile YAML file (a copy of the Garden cluster's " +
    'FalcoProfile "falco") used to check falcoVersion and to pick the default version. Without it, ' +
    'versions are only checked for their MAJOR.MINOR.PATCH form.',
  examples: ['profiles/falco.yaml'],
};

/**
 * Hints for FalcoServiceConfig fields users copy from the Gardener docs but the fleet format does
 * not have (keys: dotted paths below `extensions.falco`, list indices dropped).
 */
export const falcoUnknownFieldHints: Readonly<Record<string, string>> = {
  falcoConfig:
    'falcoConfig (resource requests and limits) is not part of the fleet format; the extension\'s defaults apply',
  heartbeatEvent: 'heartbeatEvent is not part of the fleet format',
  nodeSelector: 'nodeSelector is not part of the fleet format; Falco runs on every node',
  tolerations: 'tolerations are not part of the fleet format',
  'rules.custom.resourceName': 'write file: rules/<name>.yaml; the renderer creates the ConfigMap and its Shoot resource',
  'rules.custom.shootConfigMap': 'write configMap: <name> for a ConfigMap already in kube-system on the runtime',
};
