// imports/crds/ (written by `npm run import`, installed by the test cluster) holds every CRD of the
// shared CRD folder in schema-only form and the Shoot stand-in: same names, groups, versions and
// schemas as the sources minus `description` keywords (a property named "description" stays), no
// leftover files, and the stand-in equal to its source in test/cluster/. No cluster needed. Reads
// ../shared/crds: skipped with one line in a clone without it, required under CI=true (issue 26).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { describeWithShared, sharedPath } from '../helpers/shared-folder';
import { IMPORTED_CRDS_DIR, PROJECT_ROOT } from './paths';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Crd = { metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> }; spec: { versions: Array<{ name: string; schema?: { openAPIV3Schema: Json }; additionalPrinterColumns?: Array<Record<string, Json>> }> } & Record<string, Json> };

const SHARED_CRDS = sharedPath('crds');
const STANDIN = path.join(PROJECT_ROOT, 'test', 'cluster', 'shoot-standin-crd.yaml');

/** The test's own reading of "descriptions stripped": drop `description` where it is a schema keyword. */
function strip(schema: Json): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: { [k: string]: Json } = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description') continue;
    if ((key === 'properties' || key === 'patternProperties' || key === 'definitions') && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v)]));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not' || key === 'additionalItems') {
      out[key] = Array.isArray(value) ? value.map(strip) : strip(value);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map(strip);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Every `description` keyword left in a schema, as paths. */
function descriptionKeywords(schema: Json, at = ''): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  if (Array.isArray(schema)) return schema.flatMap((s, i) => descriptionKeywords(s, `${at}[${i}]`));
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && typeof value === 'string') found.push(`${at}.description`);
    if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, sub] of Object.entries(value)) found.push(...descriptionKeywords(sub, `${at}.properties.${name}`));
    } else if (key !== 'default' && key !== 'enum' && key !== 'example' && key !== 'x-kubernetes-validations') {
      found.push(...descriptionKeywords(value, `${at}.${key}`));
    }
  }
  return found;
}

function sourceCrds(): Crd[] {
  const files = fs.readdirSync(SHARED_CRDS).filter((f) => f.endsWith('.yaml')).map((f) => path.join(SHARED_CRDS, f));
  return [...files, STANDIN].flatMap((file) => parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS() as Crd & { kind?: string })
    .filter((d) => d?.kind === 'CustomResourceDefinition'));
}

const imported = (name: string) => parse(fs.readFileSync(path.join(IMPORTED_CRDS_DIR, `${name}.yaml`), 'utf8')) as Crd;

describeWithShared('crds', 'imports/crds/', () => {
  it('has exactly one schema-only file per CRD of ../shared/crds plus the Shoot stand-in', () => {
    expect(fs.existsSync(SHARED_CRDS), `${SHARED_CRDS} is missing: the shared CRD folder is part of the checkout layout`).toBe(true);
    const names = sourceCrds().map((c) => c.metadata.name).sort();
    expect(names).toContain('kustomizations.kustomize.toolkit.fluxcd.io');
    expect(names).toContain('applicationsets.argoproj.io');
    expect(names).toContain('shoots.core.gardener.cloud');
    expect(fs.readdirSync(IMPORTED_CRDS_DIR).sort()).toEqual(names.map((n) => `${n}.yaml`));
  });

  it('keeps each source CRD whole but for descriptions (npm run import is up to date)', () => {
    for (const source of sourceCrds()) {
      const out = imported(source.metadata.name);
      expect(out.metadata.labels, source.metadata.name).toEqual(source.metadata.labels);
      const { 'kyma-fleet.dev/imported-from': from, ...annotations } = out.metadata.annotations ?? {};
      expect(from, source.metadata.name).toBeTruthy();
      expect(annotations, source.metadata.name).toEqual(source.metadata.annotations ?? {});
      const expected = {
        ...source.spec,
        versions: source.spec.versions.map((v) => ({
          ...v,
          ...(v.schema ? { schema: { ...v.schema, openAPIV3Schema: strip(v.schema.openAPIV3Schema) } } : {}),
          ...(v.additionalPrinterColumns ? { additionalPrinterColumns: v.additionalPrinterColumns.map(({ description: _d, ...c }) => c) } : {}),
        })),
      };
      expect(out.spec, source.metadata.name).toEqual(expected);
      for (const v of out.spec.versions) expect(descriptionKeywords(v.schema?.openAPIV3Schema ?? null), `${source.metadata.name} ${v.name}`).toEqual([]);
    }
  });

});

describe('imports/crds/ stand-in', () => {
  it('marks the Shoot stand-in as a test stand-in and keeps its properties named "description"', () => {
    const shoot = imported('shoots.core.gardener.cloud');
    expect(shoot.metadata.labels).toEqual({ 'kyma-fleet.dev/test-stand-in': 'true' });
    expect(shoot.metadata.annotations?.['kyma-fleet.dev/test-stand-in']).toMatch(/runs none of Gardener's/);
    const status = (shoot.spec.versions[0].schema!.openAPIV3Schema as { properties: { status: { properties: { lastOperation: { properties: Record<string, Json> } } } } }).properties.status;
    expect(Object.keys(status.properties.lastOperation.properties)).toContain('description');
  });
});
