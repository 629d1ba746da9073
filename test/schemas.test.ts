// The committed fleet schemas are what editors load: they must equal the validator's schema,
// compile in ajv strict mode, and bound every string (no unbounded input reaches a pattern).

import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { renderFleetSchemas } from '../scripts/write-fleet-schemas';
import { EXAMPLE_FLEET, REPO } from './helpers/fleet-fixture';

describe('fleet schemas', () => {
  const rendered = renderFleetSchemas();

  it.each([...rendered.keys()])('schemas/%s is current (run npm run schemas)', (name) => {
    expect(fs.readFileSync(path.join(REPO, 'schemas', name), 'utf8')).toBe(rendered.get(name));
  });

  it.each([...rendered.keys()])('%s compiles in ajv strict mode', (name) => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    expect(() => ajv.compile(JSON.parse(rendered.get(name)!))).not.toThrow();
  });

  it.each([...rendered.keys()])('%s bounds every string, list and map, and documents every field', (name) => {
    const problems: string[] = [];
    const visit = (s: Record<string, unknown>, where: string): void => {
      const types = ([] as unknown[]).concat(s.type ?? []);
      if (types.includes('string') && s.const === undefined && s.enum === undefined && s.maxLength === undefined) problems.push(`${where}: string without maxLength`);
      if (types.includes('array') && s.maxItems === undefined) problems.push(`${where}: array without maxItems`);
      if (s.pattern !== undefined) problems.push(`${where}: pattern (use a rule with an admission-accurate message instead)`);
      for (const [k, child] of Object.entries((s.properties as Record<string, Record<string, unknown>>) ?? {})) {
        if (child.description === undefined && !['apiVersion', 'kind', 'metadata', 'spec'].includes(k)) problems.push(`${where}.${k}: no description`);
        visit(child, `${where}.${k}`);
      }
      if (s.items && typeof s.items === 'object') visit(s.items as Record<string, unknown>, `${where}[]`);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties as Record<string, unknown>, `${where}.*`);
    };
    visit(JSON.parse(rendered.get(name)!), name);
    expect(problems).toEqual([]);
  });

  it('is referenced from every file of the example fleet', () => {
    const files = ['fleet.yaml', ...fs.readdirSync(path.join(EXAMPLE_FLEET, 'groups')).map((f) => `groups/${f}`), ...fs.readdirSync(path.join(EXAMPLE_FLEET, 'runtimes')).map((f) => `runtimes/${f}`)];
    for (const f of files) {
      const first = fs.readFileSync(path.join(EXAMPLE_FLEET, f), 'utf8').split('\n')[0]!;
      const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(m, f).not.toBeNull();
      expect(fs.existsSync(path.resolve(path.dirname(path.join(EXAMPLE_FLEET, f)), m![1]!)), f).toBe(true);
    }
  });
});
