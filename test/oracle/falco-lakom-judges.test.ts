// The Falco and Lakom judges themselves (issue 27): each is seen refusing what its extension's
// admission refuses, with upstream's own messages (strict decoding, the Falco validator's rules, the
// FalcoProfile's versions and dates, the operator flag for otlp; Lakom's scope and trusted-keys
// checks), seen noticing the Falco mutator's changes (drift), and seen skipping a disabled entry as
// Gardener does. A judge is only a judge once it has refused something: these are the known-bad inputs.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLE_FLEET, NOW } from '../helpers/fleet-fixture';
import { describeWithFalco, describeWithOracle } from './describe-with-oracle';
import { Oracle } from './oracle';
import type { KubeObject } from './protocol';

const FALCO = { apiVersion: 'falco.extensions.gardener.cloud/v1alpha1', kind: 'FalcoServiceConfig' };
const LAKOM = { apiVersion: 'lakom.extensions.gardener.cloud/v1alpha1', kind: 'LakomConfig' };
const PROFILE = parse(fs.readFileSync(path.join(EXAMPLE_FLEET, 'profiles', 'falco-profile.yaml'), 'utf8')) as KubeObject;
const secret = (name: string) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } });
const falcoShoot = (providerConfig: Record<string, unknown>, resources: unknown[] = [], extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'c-1', namespace: 'garden-kyma-dev' },
  spec: { extensions: [{ type: 'shoot-falco-service', providerConfig: { ...FALCO, ...providerConfig }, ...extra }], ...(resources.length > 0 ? { resources } : {}) },
});
/** What kyma-fleet renders for a Falco entry: the mutator's defaults written out. */
const GOOD = { falcoVersion: '0.42.1', autoUpdate: true, rules: { standard: ['falco-rules'] }, destinations: [{ name: 'logging' }] };

let oracle: Oracle;
beforeAll(async () => {
  oracle = await Oracle.start();
});
afterAll(async () => {
  await oracle?.close();
});

describeWithFalco('the Falco judge', () => {
  const judge = (shoot: KubeObject, more: Record<string, unknown> = {}) => oracle.ask('falco/validate', { shoot, falcoProfile: PROFILE, now: NOW, ...more });

  it('accepts what kyma-fleet renders, and the mutator changes nothing', async () => {
    const r = await judge(falcoShoot({ ...GOOD, destinations: [{ name: 'custom', resourceSecretName: 'falco-webhook' }, { name: 'stdout' }] }, [secret('falco-webhook')]));
    expect(r).toMatchObject({ accepted: true, errors: [], mutations: [] });
  });

  it('refuses what the Falco admission refuses, with its messages', async () => {
    const cases: [string, KubeObject, string[]][] = [
      ['unknown field', falcoShoot({ ...GOOD, nodeSelectors: {} }), ['failed to decode shoot-falco-service provider config: strict decoding error: unknown field "nodeSelectors"']],
      ['unknown standard rule', falcoShoot({ ...GOOD, rules: { standard: ['falco-default-rules'] } }), ['unknown standard rule falco-default-rules']],
      ['no rules', falcoShoot({ ...GOOD, rules: {} }), ['falco deployment without any rules is not allowed']],
      ['custom rule by resourceName without its resource', falcoShoot({ ...GOOD, rules: { custom: [{ resourceName: 'my-rules' }] } }), ['custom rule my-rules not found in resources']],
      ['logging and custom', falcoShoot({ ...GOOD, destinations: [{ name: 'logging' }, { name: 'custom', resourceSecretName: 'w' }] }, [secret('w')]), ['logging and custom destinations cannot be used together']],
      ['custom Secret not in resources', falcoShoot({ ...GOOD, destinations: [{ name: 'custom', resourceSecretName: 'falco-webhook' }] }), ['custom event destination config falco-webhook not found in resources']],
      ['one output key twice', falcoShoot({ ...GOOD, destinations: [{ name: 'central' }, { name: 'custom', resourceSecretName: 'w' }] }, [secret('w')]), ['multiple enabled destinations use the same output key "webhook"']],
      ['a version the profile does not list', falcoShoot({ ...GOOD, falcoVersion: '0.42.0' }), ['version not found in possible versions']],
      ['a deprecated version past its date', falcoShoot({ ...GOOD, falcoVersion: '0.43.0' }), ['chosen version is marked as deprecated']],
      ['resources out of range', falcoShoot({ ...GOOD, falcoConfig: { resources: { requests: { cpu: '0' } } } }), ['falcoConfig.resources.requests.cpu: CPU must be a positive value, got: 0']],
    ];
    for (const [name, shoot, expected] of cases) {
      const r = await judge(shoot);
      expect(r.accepted, name).toBe(false);
      expect(r.errors, name).toEqual(expected);
    }
  });

  it('otlp: refused with the admission\'s default flags, accepted with --otlp-logging (a landscape\'s choice)', async () => {
    const shoot = falcoShoot({ ...GOOD, destinations: [{ name: 'otlp' }] });
    expect((await judge(shoot)).errors).toEqual(['destination "otlp" is not configured']);
    expect(await judge(shoot, { otlpLogging: true })).toMatchObject({ accepted: true });
  });

  it('reports what the mutator changes: a rendered config without the defaults drifts', async () => {
    const r = await judge(falcoShoot({ falcoVersion: '0.42.1', rules: { standard: ['falco-rules'] } }));
    expect(r.accepted).toBe(true);
    expect(r.mutations).toEqual(['providerConfig.autoUpdate: rendered (none), mutator true', 'providerConfig.destinations: rendered (none), mutator [{"name":"logging"}]']);
    // Without a version the mutator picks the highest supported one of the profile.
    const noVersion = await judge(falcoShoot({ ...GOOD, falcoVersion: undefined }));
    expect(noVersion.mutations).toEqual(['providerConfig.falcoVersion: rendered (none), mutator "0.42.1"']);
  });

  it('judges expiry as of `now`: a date between kyma-fleet\'s now and the wall clock', async () => {
    const wallClock = Date.now();
    const between = new Date(wallClock - 24 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const profile = { ...PROFILE, spec: { versions: { falco: [{ version: '0.42.1', classification: 'deprecated', expirationDate: between, rulesVersion: '0.42.1' }] } } };
    const shoot = falcoShoot(GOOD);
    const before = new Date(wallClock - 48 * 3600_000).toISOString();
    expect(await oracle.ask('falco/validate', { shoot, falcoProfile: profile, now: before })).toMatchObject({ accepted: true });
    expect(await oracle.ask('falco/validate', { shoot, falcoProfile: profile })).toMatchObject({ accepted: false, errors: ['chosen version is marked as deprecated'] });
  });

  it('without a profile, the rendered version stands in and the answer says it was not judged', async () => {
    const r = await oracle.ask('falco/validate', { shoot: falcoShoot({ ...GOOD, falcoVersion: '9.9.9' }), standInProfile: true });
    expect(r).toMatchObject({ accepted: true, notes: [expect.stringContaining('falcoVersion not judged')] });
    expect((await oracle.request('falco/validate', { shoot: falcoShoot(GOOD) })).error).toBe('falcoProfile is missing (or ask with standInProfile)');
  });

  it('skips a disabled entry, and refuses a Shoot that does not decode', async () => {
    expect(await judge({ spec: { extensions: [{ type: 'shoot-falco-service', disabled: true }] } })).toMatchObject({ accepted: true, skipped: expect.stringContaining('disabled') });
    const bad = await judge({ spec: { extensions: [{ type: 'shoot-falco-service', enabled: true }] } });
    expect(bad).toMatchObject({ accepted: false, refusedBy: 'shoot-decode' });
  });
});

describeWithOracle('the Lakom judge', () => {
  const lakom = (providerConfig: Record<string, unknown>, resources: unknown[] = [], more: Record<string, unknown> = {}) =>
    oracle.ask('lakom/validate', { providerConfig: { ...LAKOM, ...providerConfig }, resources, ...more });

  it('accepts what kyma-fleet renders (a null scope too, as upstream\'s Go client writes it)', async () => {
    expect(await lakom({ scope: 'KubeSystem', trustedKeysResourceName: 'acme-keys' }, [secret('acme-keys')], { standInSecrets: true })).toMatchObject({ accepted: true, errors: [] });
    expect(await lakom({ scope: null })).toMatchObject({ accepted: true });
    expect(await lakom({})).toMatchObject({ accepted: true });
  });

  it('refuses what the Lakom admission refuses, with its messages', async () => {
    const scope = await lakom({ scope: 'Namespace' });
    expect(scope.accepted).toBe(false);
    expect(scope.errors).toHaveLength(1);
    // The order of the supported values is random upstream (sets.UnsortedList).
    expect(scope.errors![0]).toMatch(/^spec\.extensions\[0\]\.providerConfig\.scope: Unsupported value: "Namespace": supported values: /);
    expect(scope.fieldErrors![0]).toMatchObject({ field: 'spec.extensions[0].providerConfig.scope', type: 'FieldValueNotSupported', badValue: 'Namespace' });
    const cases: [string, Record<string, unknown>, unknown[], Record<string, unknown>, string][] = [
      ['unknown field', { scope: 'KubeSystem', keys: [] }, [], {}, 'failed to decode providerConfig: strict decoding error: unknown field "keys"'],
      ['no such resource', { trustedKeysResourceName: 'acme-keys' }, [], {}, 'spec.extensions[0].providerConfig.trustedKeysResourceName: Invalid value: "acme-keys": there is no resource with this name in shoot.spec.resources'],
      ['a ConfigMap', { trustedKeysResourceName: 'acme-keys' }, [{ name: 'acme-keys', resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'acme-keys' } }], {}, "spec.extensions[0].providerConfig.trustedKeysResourceName: Invalid value: \"acme-keys\": resource must be of kind 'Secret'"],
      ['the Secret is missing', { trustedKeysResourceName: 'acme-keys' }, [secret('acme-keys')], {}, 'spec.extensions[0].providerConfig.trustedKeysResourceName: Invalid value: "acme-keys": failed to get secret garden-oracle/acme-keys, secrets "acme-keys" not found'],
      ['a key that is no key', { trustedKeysResourceName: 'acme-keys' }, [secret('acme-keys')], { secrets: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'acme-keys' }, data: { keys: Buffer.from('- name: k\n  key: nope\n').toString('base64') } }] }, 'spec.extensions[0].providerConfig.trustedKeysResourceName[0]: Invalid value: "nope": key k could not be parsed'],
    ];
    for (const [name, pc, resources, more, expected] of cases) {
      const r = await lakom(pc, resources, more);
      expect(r.accepted, name).toBe(false);
      expect(r.errors![0], name).toContain(expected);
    }
  });

  it('skips a disabled entry as Gardener does', async () => {
    expect(await oracle.ask('lakom/validate', { shoot: { spec: { extensions: [{ type: 'shoot-lakom-service', disabled: true, providerConfig: { ...LAKOM, scope: 'x' } }] } } })).toMatchObject({ accepted: true, skipped: expect.stringContaining('disabled') });
  });
});
