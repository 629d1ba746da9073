import { describe, it, expect } from 'vitest';
import Ajv, { type ErrorObject } from 'ajv';
import { registryCacheSchema } from '../../../src/extensions/registry-cache/schema';
import { validateLayer } from '../../../src/extensions/registry-cache/rules';
import type { JsonSchema } from '../../../src/extensions/types';

const ajv = new Ajv({ strict: true, allErrors: true });
const validate = ajv.compile(registryCacheSchema);

function errorsOf(value: unknown): Array<Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>> {
  validate(value);
  return (validate.errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));
}

/** Every subschema with the JSON path (property names) that leads to it. */
function walk(schema: JsonSchema, path: string[] = []): Array<[string[], JsonSchema]> {
  const out: Array<[string[], JsonSchema]> = [[path, schema]];
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, sub] of Object.entries(props ?? {})) out.push(...walk(sub, [...path, name]));
  if (schema.items) out.push(...walk(schema.items as JsonSchema, [...path, '[]']));
  return out;
}

describe('registry-cache schema', () => {
  it('compiles with ajv in strict mode', () => {
    expect(() => new Ajv({ strict: true, allErrors: true }).compile(registryCacheSchema)).not.toThrow();
  });

  it.each([
    { title: 'an empty layer', value: {} },
    { title: 'a switch only', value: { enabled: false } },
    { title: 'an override of one field of a cache', value: { caches: [{ upstream: 'docker.io', volume: { size: '50Gi' } }] } },
    { title: 'a removed cache', value: { caches: [{ upstream: 'docker.io', enabled: false }] } },
    {
      title: 'every field',
      value: {
        enabled: true,
        namespace: 'kyma-system',
        caches: [
          {
            upstream: 'docker.io',
            remoteURL: 'https://registry-1.docker.io',
            volume: { size: '100Gi', storageClassName: 'default' },
            garbageCollection: { ttl: '168h' },
            secretReferenceName: 'docker-hub-credentials',
            proxy: { httpProxy: 'http://proxy.corp.example:3128', httpsProxy: 'http://proxy.corp.example:3128' },
            enabled: true,
          },
        ],
      },
    },
  ])('accepts $title', ({ value }) => {
    expect(errorsOf(value)).toEqual([]);
  });

  it.each([
    { title: 'upstrem (typo)', cache: { upstrem: 'docker.io' }, field: 'upstrem' },
    { title: 'http (not mapped by KIM)', cache: { upstream: 'docker.io', http: { tls: true } }, field: 'http' },
    { title: 'highAvailability (Gardener only)', cache: { upstream: 'docker.io', highAvailability: { enabled: true } }, field: 'highAvailability' },
    { title: 'serviceNameSuffix (Gardener only)', cache: { upstream: 'docker.io', serviceNameSuffix: 'hub' }, field: 'serviceNameSuffix' },
    { title: 'size directly on the cache (§10 #29)', cache: { upstream: 'docker.io', size: '10Gi' }, field: 'size' },
  ])('refuses $title as an additional property', ({ cache, field }) => {
    expect(errorsOf({ caches: [cache] })).toContainEqual({
      instancePath: '/caches/0',
      keyword: 'additionalProperties',
      params: { additionalProperty: field },
    });
  });

  it('also names the missing upstream when it is misspelt', () => {
    expect(errorsOf({ caches: [{ upstrem: 'docker.io' }] })).toContainEqual({
      instancePath: '/caches/0',
      keyword: 'required',
      params: { missingProperty: 'upstream' },
    });
  });

  it.each([
    { title: 'in the extension', value: { enable: true }, at: '', field: 'enable' },
    { title: 'in volume', value: { caches: [{ upstream: 'docker.io', volume: { sizee: '1Gi' } }] }, at: '/caches/0/volume', field: 'sizee' },
    { title: 'in proxy', value: { caches: [{ upstream: 'docker.io', proxy: { noProxy: 'x' } }] }, at: '/caches/0/proxy', field: 'noProxy' },
    {
      title: 'in garbageCollection',
      value: { caches: [{ upstream: 'docker.io', garbageCollection: { ttl: '1h', enabled: true } }] },
      at: '/caches/0/garbageCollection',
      field: 'enabled',
    },
  ])('refuses unknown fields $title', ({ value, at, field }) => {
    expect(errorsOf(value)).toContainEqual({
      instancePath: at,
      keyword: 'additionalProperties',
      params: { additionalProperty: field },
    });
  });

  it.each([
    { title: 'a size written as a YAML number (H27)', cache: { volume: { size: 10 } }, at: '/caches/0/volume/size' },
    { title: 'a ttl written as a YAML number (H29)', cache: { garbageCollection: { ttl: 168 } }, at: '/caches/0/garbageCollection/ttl' },
    { title: 'enabled as a string', cache: { enabled: 'yes' }, at: '/caches/0/enabled' },
  ])('refuses $title with a type error', ({ cache, at }) => {
    expect(errorsOf({ caches: [{ upstream: 'docker.io', ...cache }] })).toEqual([
      { instancePath: at, keyword: 'type', params: { type: at.endsWith('enabled') ? 'boolean' : 'string' } },
    ]);
  });

  it('requires ttl inside garbageCollection', () => {
    expect(errorsOf({ caches: [{ upstream: 'docker.io', garbageCollection: {} }] })).toEqual([
      { instancePath: '/caches/0/garbageCollection', keyword: 'required', params: { missingProperty: 'ttl' } },
    ]);
  });

  it('caps the number of caches and the length of strings', () => {
    const caches = Array.from({ length: 101 }, (_, i) => ({ upstream: `r${i}.example` }));
    expect(errorsOf({ caches })).toEqual([{ instancePath: '/caches', keyword: 'maxItems', params: { limit: 100 } }]);
    expect(errorsOf({ caches: [{ upstream: 'a'.repeat(260) }] })).toEqual([
      { instancePath: '/caches/0/upstream', keyword: 'maxLength', params: { limit: 259 } },
    ]);
  });

  describe('every node', () => {
    const nodes = walk(registryCacheSchema);

    it.each(nodes.map(([path, node]) => ({ where: path.join('.') || '(root)', node })))(
      '$where has a type, a description and caps, and no format pattern',
      ({ node }) => {
        expect(typeof node.type).toBe('string');
        expect(typeof node.description).toBe('string');
        expect(node).not.toHaveProperty('pattern');
        expect(node).not.toHaveProperty('format');
        if (node.type === 'string') expect(node.maxLength).toEqual(expect.any(Number));
        if (node.type === 'array') expect(node.maxItems).toEqual(expect.any(Number));
        if (node.type === 'object') expect(node.additionalProperties).toBe(false);
      },
    );

    const withExamples = nodes.filter(([, node]) => Array.isArray(node.examples));

    it.each(withExamples.map(([path, node]) => ({ where: path.join('.'), path, node })))(
      '$where: the examples pass the schema and the rules',
      ({ path, node }) => {
        const check = new Ajv({ strict: true }).compile(node);
        for (const example of node.examples as unknown[]) {
          expect(check(example)).toBe(true);
          // Put the example into a layer: caches.[].<field> or a top-level field.
          const layer: Record<string, unknown> = {};
          let target: Record<string, unknown> = layer;
          const rest = [...path];
          if (rest[0] === 'caches') {
            const cache: Record<string, unknown> = { upstream: 'docker.io' };
            layer.caches = [cache];
            target = cache;
            rest.splice(0, 2);
          }
          rest.slice(0, -1).forEach((key) => {
            target = (target[key] = {}) as Record<string, unknown>;
          });
          target[rest[rest.length - 1]!] = example;
          const reported: string[] = [];
          validateLayer(layer, { report: (_p, code, message) => reported.push(`${code}: ${message}`) });
          expect(reported).toEqual([]);
        }
      },
    );
  });
});
