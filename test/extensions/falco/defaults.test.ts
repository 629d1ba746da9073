import { describe, expect, it } from 'vitest';
import { defaultFalcoVersion, falcoDefaults } from '../../../src/extensions/falco/defaults';
import type { FalcoProfile } from '../../../src/extensions/falco/profile';
import { env, exampleProfileState, NOW } from './helpers';

describe('defaultFalcoVersion', () => {
  it('is 0.42.1 for the example profile on 2026-11-22 (the only supported version)', () => {
    expect(defaultFalcoVersion(exampleProfileState().profile!, NOW)).toBe('0.42.1');
  });

  const profile: FalcoProfile = {
    versions: [
      { version: '0.9.0', classification: 'supported' },
      { version: '0.10.0', classification: 'supported', expirationDate: '2026-12-01T00:00:00Z', expiresAt: Date.parse('2026-12-01T00:00:00Z') },
      { version: '0.11.0', classification: 'preview' },
      { version: '0.12.0', classification: 'deprecated' },
    ],
  };

  it.each([
    ['picks the highest supported version, numerically', new Date('2026-11-22T00:00:00Z'), '0.10.0'],
    ['still picks it at the very instant it expires', new Date('2026-12-01T00:00:00Z'), '0.10.0'],
    ['skips a supported version once it has expired', new Date('2026-12-01T00:00:00.001Z'), '0.9.0'],
  ])('%s', (_name, now, expected) => {
    expect(defaultFalcoVersion(profile, now)).toBe(expected);
  });

  it('is undefined when no version is supported', () => {
    expect(defaultFalcoVersion({ versions: [{ version: '0.44.1', classification: 'preview' }] }, NOW)).toBeUndefined();
  });
});

describe('falcoDefaults (the admission mutator, written out)', () => {
  it('fills every mutator default for an empty setting, with the example profile', () => {
    expect(falcoDefaults({ enabled: true }, env(exampleProfileState()))).toEqual({
      autoUpdate: true,
      falcoVersion: '0.42.1',
      rules: { standard: ['falco-rules'] },
      destinations: [{ name: 'logging' }],
    });
  });

  it('sets no version without a profile', () => {
    expect(falcoDefaults({}, env())).toEqual({
      autoUpdate: true,
      rules: { standard: ['falco-rules'] },
      destinations: [{ name: 'logging' }],
    });
  });

  it('sets no version when the configured profile could not be used', () => {
    expect(falcoDefaults({}, env({ profileConfigured: true }))).not.toHaveProperty('falcoVersion');
  });

  it('returns nothing for fields the settings set', () => {
    const value = {
      enabled: true,
      autoUpdate: false,
      falcoVersion: '0.44.1',
      rules: { custom: [{ configMap: 'my-rules' }] },
      destinations: [{ name: 'stdout' }],
    };
    expect(falcoDefaults(value, env(exampleProfileState()))).toEqual({});
  });

  it.each([
    ['rules: {} (an error at admission, not defaulted)', { rules: {} }],
    ['rules: {standard: []}', { rules: { standard: [] } }],
    ['rules with only custom rules', { rules: { custom: [{ file: 'rules/a.yaml' }] } }],
  ])('defaults rules only when rules is absent: %s', (_name, value) => {
    expect(falcoDefaults(value, env())).not.toHaveProperty('rules');
  });

  it('defaults destinations when the list is empty (every entry disabled)', () => {
    expect(falcoDefaults({ destinations: [] }, env()).destinations).toEqual([{ name: 'logging' }]);
  });

  it('returns fresh objects on every call (shared references would become YAML anchors)', () => {
    const a = falcoDefaults({}, env());
    const b = falcoDefaults({}, env());
    expect(a.rules).not.toBe(b.rules);
    expect(a.destinations).not.toBe(b.destinations);
  });
});
