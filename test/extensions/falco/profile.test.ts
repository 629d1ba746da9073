import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  compareVersions,
  falcoProfilePath,
  parseDateTime,
  parseFalcoProfile,
  prepareFalcoState,
} from '../../../src/extensions/falco/profile';
import { auxFile, FIXTURE_PROFILE_TEXT, filesOf, prepareInput } from './helpers';

const example = (): Record<string, any> => parse(FIXTURE_PROFILE_TEXT) as Record<string, any>;

describe('parseFalcoProfile', () => {
  it('reads the example FalcoProfile of the extension repository', () => {
    expect(parseFalcoProfile(example())).toEqual({
      problems: [],
      profile: {
        versions: [
          { version: '0.40.0', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z', expiresAt: Date.parse('2026-07-31T23:59:59Z') },
          { version: '0.41.3', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z', expiresAt: Date.parse('2026-07-31T23:59:59Z') },
          { version: '0.42.1', classification: 'supported' },
          { version: '0.43.0', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59Z', expiresAt: Date.parse('2026-07-31T23:59:59Z') },
          { version: '0.44.1', classification: 'preview' },
        ],
      },
    });
  });

  it.each<[string, (p: Record<string, any>) => unknown, { path: (string | number)[]; message: string }[]]>([
    ['not a mapping', () => ['falco'], [{ path: [], message: 'a FalcoProfile must be a mapping with apiVersion, kind and spec (got a list)' }]],
    ['a scalar', () => 'falco', [{ path: [], message: 'a FalcoProfile must be a mapping with apiVersion, kind and spec (got string "falco")' }]],
    [
      'wrong apiVersion',
      (p) => ({ ...p, apiVersion: 'falco.gardener.cloud/v1' }),
      [{ path: ['apiVersion'], message: 'apiVersion must be "falco.gardener.cloud/v1alpha1" (got "falco.gardener.cloud/v1")' }],
    ],
    [
      'wrong kind',
      (p) => ({ ...p, kind: 'FalcoServiceConfig' }),
      [{ path: ['kind'], message: 'kind must be "FalcoProfile" (got "FalcoServiceConfig")' }],
    ],
    [
      'missing kind and apiVersion',
      (p) => ({ spec: p.spec }),
      [
        { path: ['apiVersion'], message: 'apiVersion must be "falco.gardener.cloud/v1alpha1" (got nothing)' },
        { path: ['kind'], message: 'kind must be "FalcoProfile" (got nothing)' },
      ],
    ],
    ['missing spec', (p) => ({ ...p, spec: undefined }), [{ path: ['spec'], message: 'spec.versions.falco is missing: the FalcoProfile lists no Falco versions' }]],
    [
      'missing spec.versions',
      (p) => ({ ...p, spec: { images: p.spec.images } }),
      [{ path: ['spec', 'versions'], message: 'spec.versions.falco is missing: the FalcoProfile lists no Falco versions' }],
    ],
    [
      'missing spec.versions.falco',
      (p) => ({ ...p, spec: { versions: { falcosidekick: p.spec.versions.falcosidekick } } }),
      [{ path: ['spec', 'versions', 'falco'], message: 'spec.versions.falco is missing: the FalcoProfile lists no Falco versions' }],
    ],
    [
      'spec.versions.falco not a list',
      (p) => ({ ...p, spec: { versions: { falco: { version: '0.42.1' } } } }),
      [{ path: ['spec', 'versions', 'falco'], message: 'spec.versions.falco must be a list of versions (got a mapping)' }],
    ],
    [
      'empty spec.versions.falco',
      (p) => ({ ...p, spec: { versions: { falco: [] } } }),
      [{ path: ['spec', 'versions', 'falco'], message: 'spec.versions.falco lists no Falco versions' }],
    ],
    [
      'an entry that is not a mapping',
      (p) => ({ ...p, spec: { versions: { falco: ['0.42.1'] } } }),
      [{ path: ['spec', 'versions', 'falco', 0], message: 'spec.versions.falco[0] must be a mapping with version and classification (got string "0.42.1")' }],
    ],
    [
      'a version that is not semver',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: '0.42', classification: 'supported' }] } } }),
      [{ path: ['spec', 'versions', 'falco', 0, 'version'], message: 'spec.versions.falco[0].version must be a semantic version such as "0.42.1" (got "0.42")' }],
    ],
    [
      'a version written as a YAML number',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: 0.42, classification: 'supported' }] } } }),
      [{ path: ['spec', 'versions', 'falco', 0, 'version'], message: 'spec.versions.falco[0].version must be a semantic version such as "0.42.1" (got 0.42)' }],
    ],
    [
      'an unknown classification',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: '0.42.1', classification: 'stable' }] } } }),
      [{ path: ['spec', 'versions', 'falco', 0, 'classification'], message: 'spec.versions.falco[0].classification must be one of preview, supported, deprecated (got "stable")' }],
    ],
    [
      'a classification that only contains a valid word (the CRD pattern is unanchored)',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: '0.42.1', classification: 'not-supported' }] } } }),
      [{ path: ['spec', 'versions', 'falco', 0, 'classification'], message: 'spec.versions.falco[0].classification must be one of preview, supported, deprecated (got "not-supported")' }],
    ],
    [
      'an expiration date without a time zone (its instant would depend on TZ)',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: '0.40.0', classification: 'deprecated', expirationDate: '2026-07-31T23:59:59' }] } } }),
      [
        {
          path: ['spec', 'versions', 'falco', 0, 'expirationDate'],
          message:
            'spec.versions.falco[0].expirationDate must be an RFC 3339 date and time with a time zone such as "2026-07-31T23:59:59Z" (got "2026-07-31T23:59:59")',
        },
      ],
    ],
    [
      'an impossible expiration date',
      (p) => ({ ...p, spec: { versions: { falco: [{ version: '0.40.0', classification: 'deprecated', expirationDate: '2026-02-30T00:00:00Z' }] } } }),
      [
        {
          path: ['spec', 'versions', 'falco', 0, 'expirationDate'],
          message:
            'spec.versions.falco[0].expirationDate must be an RFC 3339 date and time with a time zone such as "2026-07-31T23:59:59Z" (got "2026-02-30T00:00:00Z")',
        },
      ],
    ],
    [
      'a duplicate version',
      (p) => ({ ...p, spec: { versions: { falco: [...p.spec.versions.falco, { version: '0.42.1', classification: 'deprecated' }] } } }),
      [{ path: ['spec', 'versions', 'falco', 5, 'version'], message: 'spec.versions.falco[5].version duplicates spec.versions.falco[2] (version "0.42.1")' }],
    ],
  ])('reports %s and returns no profile', (_name, mutate, problems) => {
    const result = parseFalcoProfile(mutate(example()));
    expect(result).toEqual({ problems });
  });

  it('accepts a pre-release version and a date with an offset and fraction', () => {
    const result = parseFalcoProfile({
      apiVersion: 'falco.gardener.cloud/v1alpha1',
      kind: 'FalcoProfile',
      spec: { versions: { falco: [{ version: '0.45.0-rc.1', classification: 'preview', expirationDate: '2027-01-01T00:00:00.5+02:00' }] } },
    });
    expect(result.problems).toEqual([]);
    expect(result.profile?.versions[0]?.expiresAt).toBe(Date.parse('2026-12-31T22:00:00.500Z'));
  });
});

describe('parseDateTime', () => {
  it.each([
    ['2026-07-31T23:59:59Z', Date.parse('2026-07-31T23:59:59Z')],
    ['2026-07-31T23:59:59-01:00', Date.parse('2026-08-01T00:59:59Z')],
    ['2026-07-31', undefined],
    ['2026-07-31 23:59:59Z', undefined],
    ['2026-13-01T00:00:00Z', undefined],
    ['2026-07-31T24:00:00Z', undefined],
    ['2026-07-31T23:59:60Z', undefined],
    ['tomorrow', undefined],
  ])('%s', (text, expected) => {
    expect(parseDateTime(text)).toBe(expected);
  });
});

describe('compareVersions', () => {
  it.each([
    ['0.42.1', '0.42.1', 0],
    ['0.42.1', '0.44.1', -1],
    ['0.100.0', '0.99.9', 1], // numeric, not lexical
    ['1.0.0', '0.99.99', 1],
    ['1.0.0-rc.1', '1.0.0', -1],
    ['1.0.0-rc.2', '1.0.0-rc.10', -1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0-1', '1.0.0-alpha', -1],
    ['1.0.0+build.5', '1.0.0', 0],
  ])('%s vs %s', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
    expect(compareVersions(b, a)).toBe(-expected || 0);
  });
});

describe('falcoProfilePath (what filesToLoad asks the loader for)', () => {
  it.each<[unknown, string | undefined]>([
    ['profiles/falco.yaml', 'profiles/falco.yaml'],
    [undefined, undefined],
    ['', undefined],
    [42, undefined],
    ['../../etc/passwd', undefined],
    ['/etc/passwd', undefined],
    ['https://example.com/falco.yaml', undefined],
    ['~/.kube/config', undefined],
  ])('%s', (ref, expected) => {
    expect(falcoProfilePath({ falcoProfile: ref })).toBe(expected);
  });
});

describe('prepare', () => {
  const profileFile = (text: string) => filesOf(auxFile('profiles/falco.yaml', text));

  it('returns no profile when the Fleet names none', () => {
    const input = prepareInput({});
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: false });
    expect(input.recorded).toEqual({ fleet: [], inFile: [] });
  });

  it('parses the profile file the Fleet names', () => {
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' }, profileFile(FIXTURE_PROFILE_TEXT));
    const state = prepareFalcoState(input);
    expect(state.profileConfigured).toBe(true);
    expect(state.profile?.versions.map((v) => v.version)).toEqual(['0.40.0', '0.41.3', '0.42.1', '0.43.0', '0.44.1']);
    expect(input.recorded).toEqual({ fleet: [], inFile: [] });
  });

  it('reports a missing file at Fleet.spec.falcoProfile', () => {
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' });
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: true });
    expect(input.recorded).toEqual({
      fleet: [{ path: ['falcoProfile'], code: 'E_FALCO_PROFILE', message: 'FalcoProfile file "profiles/falco.yaml" not found in the fleet folder' }],
      inFile: [],
    });
  });

  it.each([
    ['../../etc/passwd', 'E_PATH_OUTSIDE_ROOT'],
    ['/etc/passwd', 'E_PATH_OUTSIDE_ROOT'],
    ['C:\\falco.yaml', 'E_PATH_OUTSIDE_ROOT'],
    ['file:///etc/passwd', 'E_PATH_OUTSIDE_ROOT'],
    ['https://example.com/falco.yaml', 'E_PATH_OUTSIDE_ROOT'],
    ['~/.kube/config', 'E_PATH_OUTSIDE_ROOT'],
    ['profiles\\falco.yaml', 'E_FALCO_PROFILE'],
    ['./profiles/falco.yaml', 'E_FALCO_PROFILE'],
  ])('refuses the path %s without looking it up', (ref, code) => {
    const files = filesOf(auxFile(ref, 'secret: content'));
    const input = prepareInput({ falcoProfile: ref }, files);
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: true });
    expect(input.recorded.fleet).toEqual([{ path: ['falcoProfile'], code, message: `must be a path inside the fleet folder (got ${JSON.stringify(ref)})` }]);
    expect(JSON.stringify(input.recorded)).not.toContain('secret');
  });

  it('reports YAML problems of the profile file at their line', () => {
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' }, profileFile('apiVersion: a\nkind: &k FalcoProfile\n'));
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: true });
    expect(input.recorded).toEqual({
      fleet: [],
      inFile: [{ relPath: 'profiles/falco.yaml', line: 2, col: 10, code: 'E_ANCHOR_FORBIDDEN', message: 'YAML anchors are not allowed (found &k)' }],
    });
  });

  it('reports problems of the profile document at the line of the field', () => {
    const text = FIXTURE_PROFILE_TEXT.replace('classification: supported\n      rulesVersion: 0.42.1', 'classification: stable\n      rulesVersion: 0.42.1');
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' }, profileFile(text));
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: true });
    const line = text.split('\n').findIndex((l) => l.includes('classification: stable')) + 1;
    expect(input.recorded).toEqual({
      fleet: [],
      inFile: [
        {
          relPath: 'profiles/falco.yaml',
          line,
          col: 23,
          code: 'E_FALCO_PROFILE',
          message: 'spec.versions.falco[2].classification must be one of preview, supported, deprecated (got "stable")',
        },
      ],
    });
  });

  it('reports a profile that is another kind of object', () => {
    const input = prepareInput({ falcoProfile: 'profiles/falco.yaml' }, profileFile('apiVersion: v1\nkind: ConfigMap\ndata: {}\n'));
    expect(prepareFalcoState(input)).toEqual({ profileConfigured: true });
    expect(input.recorded.inFile).toEqual([
      { relPath: 'profiles/falco.yaml', line: 1, col: 13, code: 'E_FALCO_PROFILE', message: 'apiVersion must be "falco.gardener.cloud/v1alpha1" (got "v1")' },
      { relPath: 'profiles/falco.yaml', line: 2, col: 7, code: 'E_FALCO_PROFILE', message: 'kind must be "FalcoProfile" (got "ConfigMap")' },
      { relPath: 'profiles/falco.yaml', line: 1, col: 1, code: 'E_FALCO_PROFILE', message: 'spec.versions.falco is missing: the FalcoProfile lists no Falco versions' },
    ]);
  });
});
