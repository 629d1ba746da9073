import { quote } from '../../../src/lib/diagnostics';
import { describe, expect, it } from 'vitest';
import { MAX_RULES_FILE_BYTES, validateLayer, validateResolved } from '../../../src/extensions/falco/rules';
import type { FalcoState } from '../../../src/extensions/falco/profile';
import type { AuxFile } from '../../../src/extensions/types';
import { auxFile, env, exampleProfileState, filesOf, type Recorded, recorder } from './helpers';

const RULES = `- rule: Shell in container
  desc: A shell was spawned in a container
  condition: spawned_process and container and proc.name = bash
  output: Shell (user=%user.name container=%container.id)
  priority: WARNING
`;

const FILES = filesOf(
  auxFile('rules/web.yaml', RULES),
  auxFile('rules/team-a/db.yaml', RULES),
  auxFile('rules/broken.yaml', '- rule: a\n  desc: b\n    condition: c\n'),
  auxFile('rules/anchors.yaml', '- macro: &m x\n- rule: *m\n'),
  auxFile('rules/empty.yaml', '# nothing yet\n'),
  auxFile('rules/notes.txt', 'text'),
  auxFile('rules/web.yml', RULES),
);

function layer(value: Record<string, unknown>, state?: FalcoState, files: Map<string, AuxFile> = FILES): Recorded[] {
  const r = recorder();
  validateLayer(value, r, env(state, files));
  return r.diags;
}

function resolved(value: Record<string, unknown>, state: FalcoState = exampleProfileState(), now?: Date): Recorded[] {
  const r = recorder();
  validateResolved(value, r, env(state, FILES, now));
  return r.diags;
}

const d = (path: (string | number)[], code: string, message: string): Recorded =>
  code.startsWith('W_') ? { path, code, message, options: { severity: 'warning' } } : { path, code, message };

describe('kyma-gardener-apis.md §10: the Falco catalogue, checked offline', () => {
  it.each<[string, 'layer' | 'resolved', Record<string, unknown>, Recorded[]]>([
    ['33 unknown standard rule', 'layer', { rules: { standard: ['falco-default-rules'] } }, [d(['rules', 'standard', 0], 'E_FALCO_RULES', 'unknown standard rule falco-default-rules')]],
    ['34 duplicate standard rule', 'layer', { rules: { standard: ['falco-rules', 'falco-rules'] } }, [d(['rules', 'standard', 1], 'E_FALCO_RULES', 'duplicate entry in standard rules')]],
    // An empty map adds nothing when layers merge, so it is caught in the layer that writes it.
    ['35 rules: {} (in the layer)', 'layer', { rules: {} }, [d(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed')]],
    ['35 rules: {} (resolved)', 'resolved', { rules: {} }, [d(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed')]],
    ['35 rules: {standard: []}', 'resolved', { rules: { standard: [] } }, [d(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed')]],
    ['35 both lists empty', 'resolved', { rules: { standard: [], custom: [] } }, [d(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed')]],
    [
      '36 custom rule with both sources',
      'layer',
      { rules: { custom: [{ configMap: 'cm1', file: 'rules/web.yaml' }] } },
      [d(['rules', 'custom', 0], 'E_FALCO_RULES', 'found custom rule with both configMap and file defined')],
    ],
    ['37 custom rule with neither source', 'layer', { rules: { custom: [{}] } }, [d(['rules', 'custom', 0], 'E_FALCO_RULES', 'found custom rule with neither configMap nor file defined')]],
    [
      '38 duplicate custom rule (files)',
      'layer',
      { rules: { custom: [{ file: 'rules/web.yaml' }, { file: 'rules/web.yaml' }] } },
      [d(['rules', 'custom', 1, 'file'], 'E_FALCO_RULES', 'duplicate entry in custom rules')],
    ],
    [
      '38 duplicate custom rule (ConfigMaps)',
      'layer',
      { rules: { custom: [{ configMap: 'r1' }, { file: 'rules/web.yaml' }, { configMap: 'r1' }] } },
      [d(['rules', 'custom', 2, 'configMap'], 'E_FALCO_RULES', 'duplicate entry in custom rules')],
    ],
    // 39: the renderer creates the ConfigMap resource from the file, so the offline check is that the file exists.
    ['39 custom rule source missing', 'layer', { rules: { custom: [{ file: 'rules/r1.yaml' }] } }, [d(['rules', 'custom', 0, 'file'], 'E_FALCO_RULES_FILE', 'rules file "rules/r1.yaml" not found')]],
    ['40 unknown destination', 'layer', { destinations: [{ name: 'elasticsearch' }] }, [d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'unknown event destination: elasticsearch')]],
    [
      '41 logging with custom (sorted: custom, logging)',
      'resolved',
      { destinations: [{ name: 'custom', resourceSecretName: 's' }, { name: 'logging' }] },
      [
        d(['destinations', 1, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout'),
        d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'logging and custom destinations cannot be used together'),
      ],
    ],
    [
      '42 central with custom share the webhook output',
      'resolved',
      { destinations: [{ name: 'central' }, { name: 'custom', resourceSecretName: 's' }] },
      [
        d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'multiple enabled destinations use the same output key "webhook"'),
        d(['destinations', 1, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout'),
      ],
    ],
    [
      '43 duplicate destination in one layer, disabled entry included',
      'layer',
      { destinations: [{ name: 'stdout' }, { name: 'stdout', enabled: false }] },
      [d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'duplicate entry in event destinations')],
    ],
    [
      '43 two enabled logging destinations share the loki output',
      'resolved',
      { destinations: [{ name: 'logging' }, { name: 'logging' }] },
      [
        d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'multiple enabled destinations use the same output key "loki"'),
        d(['destinations', 1, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout'),
      ],
    ],
    ['44 custom without a Secret', 'resolved', { destinations: [{ name: 'custom' }] }, [d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'custom event destination is set but no custom config is defined')]],
    ['45 splunk without a Secret', 'resolved', { destinations: [{ name: 'splunk' }] }, [d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'splunk event destination is set but no secret config is defined')]],
    // 46 (`destination "otlp" is not configured`) depends on the landscape's operator flag (--otlp-logging, off by
    // default): a warning, since only the Gardener operator knows it; the oracle judges both ways.
    ['46 otlp, refused by an admission without --otlp-logging', 'resolved', { destinations: [{ name: 'otlp' }] }, [d(['destinations', 0, 'name'], 'W_FALCO_OTLP', 'the Falco extension refuses the otlp destination unless the landscape runs its admission with --otlp-logging (off by default); ask your Gardener operator before you merge, or use another destination')]],
    ['47 version not in the profile', 'resolved', { falcoVersion: '0.39.0' }, [d(['falcoVersion'], 'E_FALCO_VERSION', 'version not found in possible versions (got "0.39.0")')]],
    [
      '47 deprecated version after its expiry',
      'resolved',
      { falcoVersion: '0.40.0' },
      [d(['falcoVersion'], 'E_FALCO_VERSION', 'chosen version is marked as deprecated (got "0.40.0", expired 2026-07-31T23:59:59Z)')],
    ],
    // 48-50 (falcoConfig.resources) and 51 (unknown keys) are schema errors: see schema.test.ts.
  ])('%s', (_item, stage, value, expected) => {
    expect(stage === 'layer' ? layer(value) : resolved(value)).toEqual(expected);
  });
});

describe('validateLayer', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an empty value', {}],
    ['enabled: false', { enabled: false }],
    [
      'every field set correctly',
      {
        enabled: true,
        autoUpdate: true,
        falcoVersion: '0.42.1',
        rules: {
          standard: ['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules'],
          custom: [{ configMap: 'my-rules' }, { file: 'rules/web.yaml' }, { file: 'rules/team-a/db.yaml' }],
        },
        destinations: [
          { name: 'stdout' },
          { name: 'custom', resourceSecretName: 'falco-webhook' },
          { name: 'logging', enabled: false },
          { name: 'central' },
          { name: 'otlp' },
          { name: 'opensearch' },
          { name: 'splunk', resourceSecretName: 'splunk.hec' },
        ],
      },
    ],
    // The same name in rules.custom as a ConfigMap and as a file is two different sources.
    ['a ConfigMap named like a file', { rules: { custom: [{ configMap: 'web.yaml' }, { file: 'rules/web.yaml' }] } }],
    // Combinations are checked on the resolved settings, where lower layers have been merged.
    ['rules: {standard: []} (checked after merging)', { rules: { standard: [] } }],
    ['destination combinations (checked after merging)', { destinations: [{ name: 'logging' }, { name: 'custom' }, { name: 'central' }] }],
    // Wrong shapes are the schema's to report; the rules skip them.
    ['values of the wrong shape', { falcoVersion: 0.38, rules: { standard: 'falco-rules', custom: [7, null, 'x'] }, destinations: [{}, 'stdout', { name: 3 }] }],
    ['rules of the wrong shape', { rules: ['falco-rules'], destinations: {} }],
  ])('accepts %s', (_name, value) => {
    expect(layer(value)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Recorded[]]>([
    [
      'every unknown standard rule',
      { rules: { standard: ['falco-rules', 'falco-default-rules', 'k8s-audit-rules'] } },
      [
        d(['rules', 'standard', 1], 'E_FALCO_RULES', 'unknown standard rule falco-default-rules'),
        d(['rules', 'standard', 2], 'E_FALCO_RULES', 'unknown standard rule k8s-audit-rules'),
      ],
    ],
    [
      'an unknown rule name with spaces or newlines (quoted to keep one line)',
      { rules: { standard: ['falco rules\nx'] } },
      [d(['rules', 'standard', 0], 'E_FALCO_RULES', 'unknown standard rule "falco rules\\nx"')],
    ],
    [
      'a rule name of another case (names are exact)',
      { rules: { standard: ['Falco-Rules'] } },
      [d(['rules', 'standard', 0], 'E_FALCO_RULES', 'unknown standard rule Falco-Rules')],
    ],
    [
      'every repeated standard rule',
      { rules: { standard: ['falco-rules', 'falco-sandbox-rules', 'falco-rules', 'falco-rules'] } },
      [
        d(['rules', 'standard', 2], 'E_FALCO_RULES', 'duplicate entry in standard rules'),
        d(['rules', 'standard', 3], 'E_FALCO_RULES', 'duplicate entry in standard rules'),
      ],
    ],
    [
      'an unknown rule given twice',
      { rules: { standard: ['x', 'x'] } },
      [
        d(['rules', 'standard', 0], 'E_FALCO_RULES', 'unknown standard rule x'),
        d(['rules', 'standard', 1], 'E_FALCO_RULES', 'unknown standard rule x'),
        d(['rules', 'standard', 1], 'E_FALCO_RULES', 'duplicate entry in standard rules'),
      ],
    ],
    [
      'a custom rule with empty strings (the webhook treats them as not defined)',
      { rules: { custom: [{ configMap: '', file: '' }] } },
      [d(['rules', 'custom', 0], 'E_FALCO_RULES', 'found custom rule with neither configMap nor file defined')],
    ],
    [
      'a ConfigMap name that is not a DNS-1123 subdomain',
      { rules: { custom: [{ configMap: 'My_Rules' }] } },
      [
        d(
          ['rules', 'custom', 0, 'configMap'],
          'E_FALCO_RULES',
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (got \"My_Rules\")",
        ),
      ],
    ],
    [
      'a ConfigMap name longer than 253 characters',
      { rules: { custom: [{ configMap: 'a'.repeat(254) }] } },
      [d(['rules', 'custom', 0, 'configMap'], 'E_FALCO_RULES', `must be no more than 253 characters (got ${quote('a'.repeat(254))})`)],
    ],
    [
      'a ConfigMap name ending in a dot',
      { rules: { custom: [{ configMap: 'rules.' }] } },
      [
        d(
          ['rules', 'custom', 0, 'configMap'],
          'E_FALCO_RULES',
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (got \"rules.\")",
        ),
      ],
    ],
    [
      'every unknown destination',
      { destinations: [{ name: 'stdout' }, { name: 'elasticsearch' }, { name: 'Logging', enabled: false }] },
      [
        d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'unknown event destination: elasticsearch'),
        d(['destinations', 2, 'name'], 'E_FALCO_DESTINATION', 'unknown event destination: Logging'),
      ],
    ],
    [
      'a duplicate destination, both enabled',
      { destinations: [{ name: 'logging' }, { name: 'stdout' }, { name: 'logging', resourceSecretName: 'x' }] },
      [d(['destinations', 2, 'name'], 'E_FALCO_DESTINATION', 'duplicate entry in event destinations')],
    ],
    [
      'a Secret name that is not a DNS-1123 subdomain',
      { destinations: [{ name: 'custom', resourceSecretName: 'Webhook Config' }] },
      [
        d(
          ['destinations', 0, 'resourceSecretName'],
          'E_FALCO_DESTINATION',
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (got \"Webhook Config\")",
        ),
      ],
    ],
  ])('reports %s', (_name, value, expected) => {
    expect(layer(value)).toEqual(expected);
  });

  describe('falcoVersion without a FalcoProfile (syntax only)', () => {
    it.each(['0.42.1', '0.39.0', '1.0.0', '10.20.30'])('accepts %s', (v) => {
      expect(layer({ falcoVersion: v })).toEqual([]);
    });

    it.each(['0.42', 'v0.42.1', '0.42.1-rc.1', 'latest', '', '0.42.1 ', '0..1'])('rejects %j', (v) => {
      expect(layer({ falcoVersion: v })).toEqual([
        d(['falcoVersion'], 'E_FALCO_VERSION', `must be a version MAJOR.MINOR.PATCH such as "0.42.1" (got ${JSON.stringify(v)})`),
      ]);
    });

    it('leaves versions to the resolved check when a FalcoProfile is configured', () => {
      expect(layer({ falcoVersion: 'latest' }, exampleProfileState())).toEqual([]);
      expect(layer({ falcoVersion: 'latest' }, { profileConfigured: true })).toEqual([]);
    });
  });

  describe('custom rule files', () => {
    const fileRef = (file: string) => ({ rules: { custom: [{ file }] } });
    const at = ['rules', 'custom', 0, 'file'];

    it.each([
      '../../etc/passwd',
      'rules/../../etc/passwd',
      'rules/../fleet.yaml',
      'rules\\..\\..\\secrets.yaml',
      '..',
      '/etc/passwd',
      '/work/fleet/rules/web.yaml',
      '\\\\server\\share\\rules.yaml',
      'C:\\Users\\me\\rules.yaml',
      'C:/Users/me/rules.yaml',
      'file:///etc/passwd',
      'https://example.com/rules.yaml',
      'http://169.254.169.254/latest/meta-data',
      'git+ssh://git@example.com/rules.git',
      '~/.kube/config',
      '~root/rules.yaml',
    ])('refuses %s as outside the fleet folder, without reading it (H41)', (ref) => {
      // A file under that name exists in the map: it must not be read or echoed.
      const files = filesOf(auxFile(ref, 'password: hunter2\n'));
      expect(layer(fileRef(ref), undefined, files)).toEqual([
        d(at, 'E_PATH_OUTSIDE_ROOT', `must be a path under rules/ inside the fleet folder (got ${JSON.stringify(ref)})`),
      ]);
    });

    it.each(['fleet.yaml', 'profiles/falco.yaml', 'runtimes/rt-1.yaml', 'Rules/web.yaml', 'rules', 'status/rules/web.yaml'])(
      'refuses %s as not under rules/',
      (ref) => {
        expect(layer(fileRef(ref))).toEqual([
          d(at, 'E_FALCO_RULES_FILE', `must be a path under rules/ inside the fleet folder (got ${JSON.stringify(ref)})`),
        ]);
      },
    );

    it.each(['rules/./web.yaml', 'rules//web.yaml', 'rules/', 'rules/my rules.yaml', 'rules/%2e%2e/web.yaml', 'rules/web.yaml\\x', 'rules/wéb.yaml'])(
      'refuses %j as not a plain path',
      (ref) => {
        expect(layer(fileRef(ref))).toEqual([
          d(at, 'E_FALCO_RULES_FILE', `must be a plain path of names made of letters, digits, ".", "-" and "_", separated by "/" (got ${JSON.stringify(ref)})`),
        ]);
      },
    );

    it.each<[string, string]>([
      ['rules/notes.txt', 'rule file notes.txt is not a yaml file'],
      ['rules/web.yml', 'rule file web.yml is not a yaml file'],
      ['rules/web.YAML', 'rule file web.YAML is not a yaml file'],
      ['rules/team-a/rules', 'rule file rules is not a yaml file'],
    ])('refuses %s as not a .yaml file (Falco wording)', (ref, message) => {
      expect(layer(fileRef(ref))).toEqual([d(at, 'E_FALCO_RULES_FILE', message)]);
    });

    it('refuses a file that is not in the fleet folder', () => {
      expect(layer(fileRef('rules/missing.yaml'))).toEqual([d(at, 'E_FALCO_RULES_FILE', 'rules file "rules/missing.yaml" not found')]);
    });

    it('accepts a file of exactly 1 MiB - 1 KiB and refuses one byte more', () => {
      const body = (n: number) => `# ${'x'.repeat(n - 3)}\n`;
      const ok = filesOf(auxFile('rules/big.yaml', `- list: a\n  items: []\n${body(MAX_RULES_FILE_BYTES - 22)}`));
      expect(ok.get('rules/big.yaml')!.bytes.length).toBe(MAX_RULES_FILE_BYTES);
      expect(layer(fileRef('rules/big.yaml'), undefined, ok)).toEqual([]);

      const tooBig = filesOf(auxFile('rules/big.yaml', `- list: a\n  items: []\n${body(MAX_RULES_FILE_BYTES - 21)}`));
      expect(layer(fileRef('rules/big.yaml'), undefined, tooBig)).toEqual([
        d(at, 'E_FALCO_RULES_FILE', 'rules file "rules/big.yaml" is 1047553 bytes; the limit is 1047552 bytes (1 MiB - 1 KiB) so that its ConfigMap fits the 1 MiB limit'),
      ]);
    });

    it.each<[string, string]>([
      ['rules/broken.yaml', 'rules file "rules/broken.yaml" is not valid YAML: line 2, column 9: a value runs on into the next line, which YAML then reads as a key: check the indentation of the next line, or quote a value that contains ": "'],
      ['rules/anchors.yaml', 'rules file "rules/anchors.yaml" is not valid YAML: line 1, column 13: YAML anchors are not allowed (found &m)'],
      ['rules/empty.yaml', 'rules file "rules/empty.yaml" is not valid YAML: line 1, column 1: the file holds no YAML document'],
    ])('reports %s that does not parse, with the line and column inside it', (ref, message) => {
      expect(layer(fileRef(ref))).toEqual([d(at, 'E_FALCO_RULES_FILE', message)]);
    });

    it('accepts a parseable rules file of any structure', () => {
      const files = filesOf(auxFile('rules/odd.yaml', 'just: a map\n'));
      expect(layer(fileRef('rules/odd.yaml'), undefined, files)).toEqual([]);
    });

    it('reports a bad file for each custom rule that references it', () => {
      const value = { rules: { custom: [{ file: 'rules/notes.txt' }, { configMap: 'ok' }, { file: 'rules/missing.yaml' }] } };
      expect(layer(value)).toEqual([
        d(['rules', 'custom', 0, 'file'], 'E_FALCO_RULES_FILE', 'rule file notes.txt is not a yaml file'),
        d(['rules', 'custom', 2, 'file'], 'E_FALCO_RULES_FILE', 'rules file "rules/missing.yaml" not found'),
      ]);
    });
  });
});

describe('validateResolved', () => {
  it.each<[string, Record<string, unknown>]>([
    ['no value (all defaults)', {}],
    ['the defaults written out', { autoUpdate: true, falcoVersion: '0.42.1', rules: { standard: ['falco-rules'] }, destinations: [{ name: 'logging' }] }],
    ['a preview version (allowed when set explicitly)', { falcoVersion: '0.44.1' }],
    ['custom rules only', { rules: { custom: [{ configMap: 'my-rules' }] } }],
    ['stdout with logging', { destinations: [{ name: 'logging' }, { name: 'stdout' }] }],
    ['custom with its Secret and stdout', { destinations: [{ name: 'custom', resourceSecretName: 's' }, { name: 'stdout' }] }],
    ['splunk with its Secret and stdout', { destinations: [{ name: 'splunk', resourceSecretName: 's' }, { name: 'stdout' }] }],
    ['opensearch without a Secret (not checked at admission)', { destinations: [{ name: 'opensearch' }] }],
    ['a single central destination', { destinations: [{ name: 'central' }] }],
    ['disabled entries, which do not count', { destinations: [{ name: 'custom', enabled: false }, { name: 'logging' }, { name: 'splunk', enabled: false }] }],
  ])('accepts %s', (_name, value) => {
    expect(resolved(value)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Recorded[]]>([
    [
      'three destinations (H48)',
      { destinations: [{ name: 'central' }, { name: 'logging' }, { name: 'stdout' }] },
      [d(['destinations', 2, 'name'], 'W_FALCO_DESTINATIONS', 'more than 2 event destinations are refused by older Falco extension versions')],
    ],
    [
      'two destinations without stdout',
      { destinations: [{ name: 'logging' }, { name: 'otlp' }] },
      [d(['destinations', 1, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout'), d(['destinations', 1, 'name'], 'W_FALCO_OTLP', 'the Falco extension refuses the otlp destination unless the landscape runs its admission with --otlp-logging (off by default); ask your Gardener operator before you merge, or use another destination')],
    ],
    [
      'custom and splunk without their Secrets',
      { destinations: [{ name: 'custom' }, { name: 'splunk' }] },
      [
        d(['destinations', 1, 'name'], 'W_FALCO_DESTINATIONS', 'older Falco extension versions only pair an output destination with stdout'),
        d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'custom event destination is set but no custom config is defined'),
        d(['destinations', 1, 'name'], 'E_FALCO_DESTINATION', 'splunk event destination is set but no secret config is defined'),
      ],
    ],
    [
      'custom with an empty Secret name',
      { destinations: [{ name: 'custom', resourceSecretName: '' }] },
      [d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'custom event destination is set but no custom config is defined')],
    ],
    [
      'a version and rules problem together (all are reported)',
      { falcoVersion: '0.41.3', rules: { standard: [], custom: [] }, destinations: [{ name: 'splunk' }] },
      [
        d(['falcoVersion'], 'E_FALCO_VERSION', 'chosen version is marked as deprecated (got "0.41.3", expired 2026-07-31T23:59:59Z)'),
        d(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed'),
        d(['destinations', 0, 'name'], 'E_FALCO_DESTINATION', 'splunk event destination is set but no secret config is defined'),
      ],
    ],
  ])('reports %s', (_name, value, expected) => {
    expect(resolved(value)).toEqual(expected);
  });

  describe('falcoVersion against the FalcoProfile', () => {
    it('accepts a deprecated version before its expiration date', () => {
      expect(resolved({ falcoVersion: '0.43.0' }, exampleProfileState(), new Date('2026-07-31T23:59:59Z'))).toEqual([]);
    });

    it('rejects it one millisecond after', () => {
      expect(resolved({ falcoVersion: '0.43.0' }, exampleProfileState(), new Date('2026-08-01T00:00:00Z'))).toEqual([
        d(['falcoVersion'], 'E_FALCO_VERSION', 'chosen version is marked as deprecated (got "0.43.0", expired 2026-07-31T23:59:59Z)'),
      ]);
    });

    it('accepts a deprecated version without an expiration date', () => {
      const state: FalcoState = { profileConfigured: true, profile: { versions: [{ version: '0.38.0', classification: 'deprecated' }] } };
      expect(resolved({ falcoVersion: '0.38.0' }, state)).toEqual([]);
    });

    it('compares versions exactly (no prefix or range matching)', () => {
      expect(resolved({ falcoVersion: '0.42' })).toEqual([d(['falcoVersion'], 'E_FALCO_VERSION', 'version not found in possible versions (got "0.42")')]);
      expect(resolved({ falcoVersion: 'v0.42.1' })).toEqual([d(['falcoVersion'], 'E_FALCO_VERSION', 'version not found in possible versions (got "v0.42.1")')]);
    });

    it('does not check versions when the configured profile could not be used (its problem is reported once)', () => {
      expect(resolved({ falcoVersion: '0.39.0' }, { profileConfigured: true })).toEqual([]);
    });

    it('does not check against a profile when there is none (the layer checks the syntax)', () => {
      expect(resolved({ falcoVersion: '0.39.0' }, { profileConfigured: false })).toEqual([]);
    });
  });
});
