import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { falcoExtension } from '../../../src/extensions/falco';
import { auxFile, env, FIXTURE_PROFILE_TEXT, filesOf, prepareInput, recorder } from './helpers';

describe('falcoExtension (plug-in wiring)', () => {
  it('declares its identity, keyed list and fleet option', () => {
    expect(falcoExtension.name).toBe('falco');
    expect(falcoExtension.shootExtensionType).toBe('shoot-falco-service');
    expect(falcoExtension.defaultModuleName).toBe('falco');
    expect(falcoExtension.keyedLists).toEqual([{ path: ['destinations'], key: 'name' }]);
    expect(Object.keys(falcoExtension.fleetOptions ?? {})).toEqual(['falcoProfile']);
    expect(falcoExtension.fleetOptions?.falcoProfile).toMatchObject({ type: 'string', maxLength: 512 });
    expect(falcoExtension.description).not.toBe('');
  });

  it('has schemas ajv compiles in strict mode', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    expect(() => ajv.compile(falcoExtension.schema)).not.toThrow();
    expect(() => ajv.compile(falcoExtension.fleetOptions!.falcoProfile!)).not.toThrow();
  });

  it.each<[Record<string, unknown>, string[]]>([
    [{}, []],
    [{ falcoProfile: 'profiles/falco.yaml' }, ['profiles/falco.yaml']],
    [{ falcoProfile: '../outside.yaml' }, []],
    [{ falcoProfile: 7 }, []],
  ])('filesToLoad(%j) is %j', (fleetSpec, expected) => {
    expect(falcoExtension.filesToLoad!(fleetSpec)).toEqual(expected);
  });

  it('runs prepare, rules and defaults end to end with the example profile', () => {
    const files = filesOf(auxFile('profiles/falco.yaml', FIXTURE_PROFILE_TEXT), auxFile('rules/web.yaml', '- rule: x\n'));
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' }, files);
    const state = falcoExtension.prepare!(input);
    expect(input.recorded).toEqual({ fleet: [], inFile: [] });

    const layerValue = { enabled: true, rules: { custom: [{ file: 'rules/web.yaml' }] }, destinations: [{ name: 'stdout' }] };
    const layerReport = recorder();
    falcoExtension.validateLayer!(layerValue, layerReport, env(state, files));
    expect(layerReport.diags).toEqual([]);

    const defaults = falcoExtension.defaults!(layerValue, env(state, files));
    expect(defaults).toEqual({ autoUpdate: true, falcoVersion: '0.42.1' });

    const resolvedReport = recorder();
    falcoExtension.validateResolved!({ ...layerValue, ...defaults }, resolvedReport, env(state, files));
    expect(resolvedReport.diags).toEqual([]);
  });
});
