// The oracle itself: its pins are the ones documented, its protocol answers every line (errors
// included) and keeps running, and each judgement it makes can fail: known-bad inputs are refused
// with upstream's own messages, and KIM comparisons notice every kind of difference.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithOracle, falcoSkipReason } from './describe-with-oracle';
import { Oracle } from './oracle';
import type { KubeObject } from './protocol';
import { ORACLE_DIR } from './tools';

const PROJECT = path.resolve(ORACLE_DIR, '..', '..');
const REGISTRY = { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig' };
const secretResource = (name: string) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } });

function requiredVersion(goMod: string, module: string): string {
  const m = new RegExp(`^\\s*${module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} (v\\S+)`, 'm').exec(fs.readFileSync(path.join(ORACLE_DIR, goMod), 'utf8'));
  if (!m) throw new Error(`${module} not in ${goMod}`);
  return m[1]!;
}

describeWithOracle('the upstream oracle', () => {
  let oracle: Oracle;
  beforeAll(async () => {
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
  });

  it('runs the pinned upstream versions, and README.md and docs/testing.md list the same pins', async () => {
    const v = await oracle.versions();
    const rc = requiredVersion('admission/go.mod', 'github.com/gardener/gardener-extension-registry-cache');
    const kim = requiredVersion('kim/go.mod', 'github.com/kyma-project/infrastructure-manager');
    const lakom = requiredVersion('lakom/go.mod', 'github.com/gardener/gardener-extension-shoot-lakom-service');
    expect(v.admission['github.com/gardener/gardener-extension-registry-cache']).toBe(rc);
    expect(v.kim['github.com/kyma-project/infrastructure-manager']).toBe(kim);
    expect(v.lakom['github.com/gardener/gardener-extension-shoot-lakom-service']).toBe(lakom);
    for (const doc of ['README.md', 'docs/testing.md']) {
      const text = fs.readFileSync(path.join(PROJECT, doc), 'utf8');
      expect(text, doc).toContain(rc);
      expect(text, doc).toContain(kim);
      expect(text, doc).toContain(lakom);
      expect(text, doc).toContain(v.admission['github.com/gardener/gardener']!);
      expect(text, doc).toContain(v.lakom['github.com/gardener/gardener']!);
    }
    // admission and falco share their compiled packages only while they pin the same versions.
    if (v.falco) {
      for (const module of ['github.com/gardener/gardener', 'k8s.io/apimachinery', 'sigs.k8s.io/controller-runtime']) expect(v.falco[module], module).toBe(v.admission[module]);
      expect(v.falco['github.com/gardener/gardener-extension-shoot-falco-service']).toMatch(/^snapshot [0-9a-f]{16}$/);
    }
  });

  it('answers every request line in order, errors included, and keeps running', async () => {
    const [unknown, missing, good] = await Promise.all([
      oracle.request('nope' as 'versions', {}),
      oracle.request('registry-cache/validate', {}),
      oracle.request('registry-cache/validate-config', { providerConfig: { ...REGISTRY, caches: [{ upstream: 'docker.io' }] } }),
    ]);
    expect(unknown.error).toBe('unknown op "nope"');
    expect(missing.error).toBe('request needs a shoot or a providerConfig');
    expect(good).toMatchObject({ op: 'registry-cache/validate-config', fieldErrors: [] });
    const [falco, lakom] = await Promise.all([oracle.request('falco/validate', {}), oracle.request('lakom/validate', {})]);
    // Without the Falco snapshot the client answers for the missing program, saying why.
    expect(falco.error).toBe(falcoSkipReason() ? `unavailable: ${falcoSkipReason()}` : 'shoot is missing');
    expect(lakom.error).toBe('request needs a shoot or a providerConfig');
  });

  it('accepts a valid registry-cache entry and refuses known-bad ones with upstream messages', async () => {
    const ok = await oracle.ask('registry-cache/validate', {
      providerConfig: { ...REGISTRY, caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io', secretReferenceName: 'ghcr-pull', volume: { size: '10Gi' }, garbageCollection: { ttl: '72h' } }] },
      resources: [secretResource('ghcr-pull')],
      standInSecrets: true,
    });
    expect(ok).toMatchObject({ accepted: true, errors: [], fieldErrors: [] });

    const cases: [string, unknown, string[]][] = [
      ['scheme in upstream', { upstream: 'https://docker.io' }, ['spec.extensions[0].providerConfig.caches[0].upstream: Invalid value: "https://docker.io": a lowercase RFC 1123 subdomain must consist of']],
      ['port 0', { upstream: 'my-registry.io:0' }, [`spec.extensions[0].providerConfig.caches[0].upstream: Invalid value: "my-registry.io:0": port '0' is not valid, valid port must be in the range [1, 65535]`]],
      ['path in remoteURL', { upstream: 'docker.io', remoteURL: 'https://registry.example.com/v2/' }, ['spec.extensions[0].providerConfig.caches[0].remoteURL: Invalid value: "https://registry.example.com/v2/": url must not contain a path']],
      ['negative size', { upstream: 'docker.io', volume: { size: '-5Gi' } }, ['spec.extensions[0].providerConfig.caches[0].volume.size: Invalid value: "-5Gi": must be greater than 0']],
      ['unknown field', { upstream: 'docker.io', size: '10Gi' }, ['failed to decode providerConfig: strict decoding error: unknown field "caches[0].size"']],
      ['7d is no Go duration', { upstream: 'docker.io', garbageCollection: { ttl: '7d' } }, ['failed to decode providerConfig: time: unknown unit "d" in duration "7d"']],
      ['secret not in resources', { upstream: 'docker.io', secretReferenceName: 'pull' }, ['spec.extensions[0].providerConfig.caches[0].secretReferenceName: Invalid value: "pull": failed to find referenced resource with name pull and kind Secret']],
    ];
    for (const [name, cache, expected] of cases) {
      const r = await oracle.ask('registry-cache/validate', { providerConfig: { ...REGISTRY, caches: [cache] } });
      expect(r.accepted, name).toBe(false);
      expect(r.errors!.length, `${name}: ${JSON.stringify(r.errors)}`).toBe(expected.length);
      r.errors!.forEach((e, i) => expect(e, name).toContain(expected[i]!));
    }
  });

  it('checks the referenced Secret the fake client holds (ValidateUpstreamRegistrySecret)', async () => {
    const r = await oracle.ask('registry-cache/validate', {
      providerConfig: { ...REGISTRY, caches: [{ upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull' }] },
      resources: [secretResource('ghcr-pull')],
      secrets: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ghcr-pull' }, data: { username: Buffer.from('u').toString('base64'), password: Buffer.from('p').toString('base64') } }],
    });
    expect(r.accepted).toBe(false);
    expect(r.errors).toEqual([expect.stringContaining('the referenced secret "garden-oracle/ghcr-pull" should be immutable')]);
  });

  it('validates spec.resources with Gardener\'s ValidateResources, after a strict Shoot decode', async () => {
    const ok = await oracle.ask('shoot/validate-resources', { shoot: { spec: { resources: [secretResource('a'), { name: 'cm', resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' } }] } } });
    expect(ok).toMatchObject({ accepted: true, errors: [] });
    const bad = await oracle.ask('shoot/validate-resources', { shoot: { spec: { resources: [secretResource('a'), { name: 'a', resourceRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } }] } } });
    expect(bad.errors).toEqual([
      'spec.resources[1].name: Duplicate value: "a"',
      'spec.resources[1].resourceRef: Unsupported value: "apps/v1, Kind=Deployment": supported values: "/v1, Kind=Secret", "/v1, Kind=ConfigMap", "security.gardener.cloud/v1alpha1, Kind=WorkloadIdentity"',
    ]);
    const unknownField = await oracle.ask('shoot/validate-resources', { shoot: { spec: { extensions: [{ type: 'registry-cache', enabled: true }] } } });
    expect(unknownField).toMatchObject({ accepted: false, refusedBy: 'shoot-decode' });
    expect(unknownField.errors![0]).toContain('unknown field "spec.extensions[0].enabled"');
  });

  it('skips a disabled entry as Gardener does (the webhook does not run)', async () => {
    const r = await oracle.ask('registry-cache/validate', { shoot: { spec: { extensions: [{ type: 'registry-cache', disabled: true }] } } });
    expect(r).toMatchObject({ accepted: true, skipped: expect.stringContaining('disabled') });
  });

  it('exposes the bare ValidateRegistryConfig field errors at a chosen path', async () => {
    const r = await oracle.ask('registry-cache/validate-config', {
      providerConfig: { ...REGISTRY, caches: [{ upstream: 'docker.io', garbageCollection: { ttl: '-1h' } }, { upstream: 'docker.io' }] },
      fieldPath: ['spec'],
    });
    expect(r.fieldErrors.map((e) => [e.field, e.type, e.detail])).toEqual([
      ['spec.caches[0].garbageCollection.ttl', 'FieldValueInvalid', 'ttl must be a non-negative duration'],
      ['spec.caches[1].upstream', 'FieldValueDuplicate', ''],
    ]);
  });

  describeKIM(() => oracle);
});

function runtimeCR(caches: { uid: string; config: Record<string, unknown> }[]): KubeObject {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: { name: 'rt', namespace: 'kcp-system' },
    spec: { imageRegistryCache: caches.map((c) => ({ name: String(c.config.upstream), namespace: 'kyma-system', ...c })) },
  };
}

function shootWith(caches: Record<string, unknown>[], resources: unknown[]): KubeObject {
  return { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 's', namespace: 'garden-p' }, spec: { extensions: [{ type: 'registry-cache', providerConfig: { ...REGISTRY, caches } }], resources } };
}

function describeKIM(get: () => Oracle): void {
  const UID = '28eccdfb-5a39-57a1-a343-b0e72b25168c';
  const runtime = runtimeCR([{ uid: UID, config: { upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '72h' } } }]);
  const good = shootWith([{ upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '72h' } }], [secretResource('ghcr-pull')]);

  it('KIM: maps a Runtime as KIM does and finds it equal to a faithful rendering, up to the name rule', async () => {
    const r = await get().ask('kim/registry-cache', { runtime, rendered: good });
    expect(r.secretNames).toEqual({ [UID]: `reg-cache-${UID}` });
    expect(r.resources).toEqual([secretResource(`reg-cache-${UID}`)]);
    expect(r.comparison).toMatchObject({ equal: true, differences: [], nameMap: { [`reg-cache-${UID}`]: 'ghcr-pull' } });
    // KIM re-marshals the typed values: the text differs where the decoded configs do not.
    expect(r.comparison!.textDifferences.join('\n')).toContain('KIM "72h0m0s", kyma-fleet "72h"');
    expect(r.comparison!.textDifferences.join('\n')).toContain('KIM "1536Mi", kyma-fleet "1.5Gi"');
  });

  it('KIM: every kind of difference is found', async () => {
    const differs = async (rendered: KubeObject, rt: KubeObject = runtime) => (await get().ask('kim/registry-cache', { runtime: rt, rendered })).comparison!;
    const size = await differs(shootWith([{ upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull', volume: { size: '2Gi' }, garbageCollection: { ttl: '72h' } }], [secretResource('ghcr-pull')]));
    expect(size.equal).toBe(false);
    expect(size.differences.join('\n')).toContain('volume');
    const noSecret = await differs(shootWith([{ upstream: 'ghcr.io', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '72h' } }], []));
    expect(noSecret.differences).toContain(`cache "ghcr.io": KIM references Secret "reg-cache-${UID}", kyma-fleet renders no secretReferenceName`);
    const extra = await differs(shootWith([{ upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '72h' } }], [secretResource('ghcr-pull'), secretResource('my-reg-cache-x')]));
    expect(extra.differences.join('\n')).toContain('kyma-fleet writes {name: my-reg-cache-x');
    const otherSource = await differs(shootWith([{ upstream: 'ghcr.io', secretReferenceName: 'other-pull', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '72h' } }], [secretResource('other-pull')]));
    expect(otherSource.differences).toContain(`cache "ghcr.io": kyma-fleet references Secret "other-pull", but KIM's "reg-cache-${UID}" is a copy of the runtime's Secret "ghcr-pull"`);
    const disabled = await differs({ ...good, spec: { extensions: [{ type: 'registry-cache', disabled: true }] } });
    expect(disabled.differences).toContain('registry-cache enabled: KIM true, kyma-fleet false');
    const empty = await differs(good, runtimeCR([]));
    expect(empty.differences).toContain('registry-cache enabled: KIM false, kyma-fleet true');
  });

  it('KIM: caches that share one credential Secret correspond to the per-cache copies KIM makes', async () => {
    const other = '4f638c21-f4d4-5990-83be-d470c85f76ac';
    const shared = runtimeCR([
      { uid: UID, config: { upstream: 'ghcr.io', secretReferenceName: 'pull' } },
      { uid: other, config: { upstream: 'quay.io', secretReferenceName: 'pull' } },
    ]);
    const rendered = shootWith([{ upstream: 'ghcr.io', secretReferenceName: 'pull' }, { upstream: 'quay.io', secretReferenceName: 'pull' }], [secretResource('pull')]);
    const r = await get().ask('kim/registry-cache', { runtime: shared, rendered });
    expect(r.resources).toHaveLength(2);
    expect(r.comparison).toMatchObject({ equal: true, nameMap: { [`reg-cache-${UID}`]: 'pull', [`reg-cache-${other}`]: 'pull' } });
  });

  it('KIM at the pin: an empty Runtime list on a Shoot holding a disabled entry without providerConfig makes KIM panic', async () => {
    // Why the comparison starts from the rendered Shoot without its registry-cache entry (docs/testing.md):
    // kyma-fleet's garden/ patch for a runtime that turns the cache off is `{type: registry-cache, disabled: true}`;
    // KIM aa49051 then dereferences the missing providerConfig (f271b80 no longer has that path). A bump
    // past 4d4bd21f makes this answer accepted, and this test tells so.
    const r = await get().ask('kim/registry-cache', {
      runtime: runtimeCR([]),
      currentShoot: { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 's' }, spec: { extensions: [{ type: 'registry-cache', disabled: true }] } },
    });
    expect(r.accepted).toBe(false);
    expect(r.errors![0]).toMatch(/^KIM's patch failed: panic in KIM's code: runtime error: invalid memory address or nil pointer dereference/);
  });

  it('KIM: a Runtime field KIM does not know is refused by its types', async () => {
    const bad = runtimeCR([{ uid: UID, config: { upstream: 'ghcr.io', size: '1Gi' } }]);
    const r = await get().ask('kim/registry-cache', { runtime: bad });
    expect(r.accepted).toBe(false);
    expect(r.errors![0]).toContain('unknown field "size"');
  });
}
