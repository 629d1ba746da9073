import Ajv, { type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { falcoProfileOptionSchema, falcoSchema, falcoUnknownFieldHints } from '../../../src/extensions/falco/schema';

const ALLOWED_KEYWORDS = new Set([
  'type',
  'properties',
  'additionalProperties',
  'required',
  'items',
  'maxItems',
  'minLength',
  'maxLength',
  'description',
  'examples',
  'default',
  'title',
]);

type Node = Record<string, unknown>;

/** Every schema node with its JSON-pointer-like location. */
function nodes(schema: Node, at = '#'): [string, Node][] {
  const out: [string, Node][] = [[at, schema]];
  const props = (schema.properties ?? {}) as Record<string, Node>;
  for (const [k, v] of Object.entries(props)) out.push(...nodes(v, `${at}/properties/${k}`));
  if (schema.items) out.push(...nodes(schema.items as Node, `${at}/items`));
  return out;
}

function compile() {
  return new Ajv({ strict: true, allErrors: true }).compile(falcoSchema);
}

function errorsOf(value: unknown): Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>[] {
  const validate = compile();
  validate(value);
  return (validate.errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));
}

describe('falco schema', () => {
  it('compiles with ajv in strict mode (and the fleet option schema too)', () => {
    expect(() => compile()).not.toThrow();
    expect(() => new Ajv({ strict: true, allErrors: true }).compile(falcoProfileOptionSchema)).not.toThrow();
  });

  it.each(nodes(falcoSchema))('node %s uses only standard keywords and has a type', (_at, node) => {
    for (const k of Object.keys(node)) expect(ALLOWED_KEYWORDS).toContain(k);
    expect(typeof node.type).toBe('string');
    if (node.type === 'object') expect(node.additionalProperties).toBe(false);
    if (node.type === 'string') expect(node.maxLength).toBeTypeOf('number');
    if (node.type === 'array') expect(node.maxItems).toBeTypeOf('number');
    expect(node.description).toBeTypeOf('string');
  });

  it.each([
    ['empty', {}],
    ['enabled only', { enabled: true }],
    [
      'every field',
      {
        enabled: true,
        falcoVersion: '0.42.1',
        autoUpdate: false,
        rules: {
          standard: ['falco-rules', 'falco-incubating-rules'],
          custom: [{ configMap: 'my-rules' }, { file: 'rules/web.yaml' }],
        },
        destinations: [{ name: 'stdout' }, { name: 'custom', resourceSecretName: 'hook', enabled: true }],
      },
    ],
    // Names are checked by the rules (admission wording), not by the schema.
    ['unknown names pass the schema', { rules: { standard: ['falco-default-rules'] }, destinations: [{ name: 'elasticsearch' }] }],
    // Both/neither are checked by the rules, for the admission message.
    ['custom rule with both sources passes the schema', { rules: { custom: [{ configMap: 'a', file: 'rules/a.yaml' }, {}] } }],
  ])('accepts %s', (_name, value) => {
    expect(errorsOf(value)).toEqual([]);
  });

  it.each<[string, unknown, Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>[]]>([
    // H25: YAML reads 0.38 as a number; the field is a string.
    ['falcoVersion as a YAML number', { falcoVersion: 0.38 }, [{ instancePath: '/falcoVersion', keyword: 'type', params: { type: 'string' } }]],
    // §10 items 48-50: falcoConfig.resources is not exposed by the fleet format.
    [
      'falcoConfig (catalogue 48-50)',
      { falcoConfig: { resources: { requests: { cpu: '0' } } } },
      [{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'falcoConfig' } }],
    ],
    // §10 item 51: strict decoding of unknown keys.
    [
      'destination (singular, catalogue 51)',
      { destination: [{ name: 'logging' }] },
      [{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'destination' } }],
    ],
    [
      'rules.standardRules (catalogue 51)',
      { rules: { standardRules: ['falco-rules'] } },
      [{ instancePath: '/rules', keyword: 'additionalProperties', params: { additionalProperty: 'standardRules' } }],
    ],
    [
      "the webhook's resourceName in a custom rule",
      { rules: { custom: [{ resourceName: 'r1' }] } },
      [{ instancePath: '/rules/custom/0', keyword: 'additionalProperties', params: { additionalProperty: 'resourceName' } }],
    ],
    ['enabled as a string', { enabled: 'true' }, [{ instancePath: '/enabled', keyword: 'type', params: { type: 'boolean' } }]],
    ['rules as a list', { rules: ['falco-rules'] }, [{ instancePath: '/rules', keyword: 'type', params: { type: 'object' } }]],
    ['destination without name', { destinations: [{ enabled: true }] }, [{ instancePath: '/destinations/0', keyword: 'required', params: { missingProperty: 'name' } }]],
    ['empty configMap name', { rules: { custom: [{ configMap: '' }] } }, [{ instancePath: '/rules/custom/0/configMap', keyword: 'minLength', params: { limit: 1 } }]],
    ['overlong version', { falcoVersion: '1'.repeat(65) }, [{ instancePath: '/falcoVersion', keyword: 'maxLength', params: { limit: 64 } }]],
    [
      'too many destinations',
      { destinations: Array.from({ length: 17 }, (_, i) => ({ name: `d${i}` })) },
      [{ instancePath: '/destinations', keyword: 'maxItems', params: { limit: 16 } }],
    ],
  ])('rejects %s', (_name, value, expected) => {
    expect(errorsOf(value)).toEqual(expected);
  });

  it('has hints for the FalcoServiceConfig fields the format leaves out', () => {
    expect(Object.keys(falcoUnknownFieldHints).sort()).toEqual(
      ['falcoConfig', 'heartbeatEvent', 'nodeSelector', 'rules.custom.resourceName', 'rules.custom.shootConfigMap', 'tolerations'],
    );
  });
});
