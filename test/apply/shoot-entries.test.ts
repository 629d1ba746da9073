import { describe, expect, it } from 'vitest';
import { OWNED_RESOURCES_ANNOTATION, planShootEntries, SHOOT_RUNTIME_ID_ANNOTATION, type OwnedShootEntries } from '../../src/apply/shoot-entries';

const RUNTIME_ID = '8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52';

const KIM_ENTRIES = [
  { type: 'shoot-dns-service', providerConfig: { apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1', kind: 'DNSConfig', syncProvidersFromShootSpecDNS: true } },
  { type: 'registry-cache', providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io', secretReferenceName: 'reg-cache-1' }] } },
  { type: 'shoot-cert-service', providerConfig: { apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1', kind: 'CertConfig', shootIssuers: { enabled: true } } },
];
const KIM_RESOURCES = [{ name: 'reg-cache-1', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-1' } }];

const FALCO = {
  type: 'shoot-falco-service',
  providerConfig: { apiVersion: 'falco.extensions.gardener.cloud/v1alpha1', kind: 'FalcoServiceConfig', autoUpdate: true, destinations: [{ name: 'custom', resourceSecretName: 'falco-webhook' }] },
};
const FALCO_SECRET = { name: 'falco-webhook', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'falco-webhook' } };
const OWNED: OwnedShootEntries = { extensions: [FALCO], resources: [FALCO_SECRET] };

function shoot(spec: Record<string, unknown>, annotations: Record<string, string> = { [SHOOT_RUNTIME_ID_ANNOTATION]: RUNTIME_ID }): Record<string, unknown> {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 'c-8b7c6d5', namespace: 'garden-kyma-prod', resourceVersion: '42', generation: 7, annotations },
    spec,
  };
}

/** Applies the plan's JSON Patch the way the API server does, for these ops. */
function applyOps(obj: Record<string, unknown>, ops: readonly Record<string, unknown>[]): Record<string, unknown> {
  const out = structuredClone(obj) as Record<string, any>;
  for (const op of ops) {
    const parts = String(op.path).split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop()!;
    let at: any = out;
    for (const p of parts) at = at[p];
    if (op.op === 'remove') delete at[last];
    else at[last] = structuredClone(op.value);
  }
  return out;
}

describe('planShootEntries', () => {
  it('adds the fleet entry after KIM entries, keeps them byte for byte and in order, and sets the resourceVersion it read first', () => {
    const live = shoot({ extensions: KIM_ENTRIES, resources: KIM_RESOURCES });
    const plan = planShootEntries(live, RUNTIME_ID, OWNED);
    expect(plan.kind).toBe('update');
    if (plan.kind !== 'update') return;
    expect(plan.ops[0]).toEqual({ op: 'replace', path: '/metadata/resourceVersion', value: '42' });
    expect(plan.changedTypes).toEqual(['shoot-falco-service']);
    const after = applyOps(live, plan.ops) as any;
    expect(after.spec.extensions).toEqual([...KIM_ENTRIES, FALCO]);
    expect(after.spec.resources).toEqual([...KIM_RESOURCES, FALCO_SECRET]);
    expect(after.metadata.annotations[OWNED_RESOURCES_ANNOTATION]).toBe('falco-webhook');
    expect(after.metadata.annotations[SHOOT_RUNTIME_ID_ANNOTATION]).toBe(RUNTIME_ID);
  });

  it('replaces its own entry in place, and writes nothing when the Shoot already has what is rendered', () => {
    const old = { type: 'shoot-falco-service', providerConfig: { apiVersion: 'falco.extensions.gardener.cloud/v1alpha1', kind: 'FalcoServiceConfig', autoUpdate: false } };
    const live = shoot({ extensions: [KIM_ENTRIES[0], old, KIM_ENTRIES[1]], resources: KIM_RESOURCES });
    const plan = planShootEntries(live, RUNTIME_ID, OWNED);
    if (plan.kind !== 'update') throw new Error(plan.kind);
    const after = applyOps(live, plan.ops) as any;
    expect(after.spec.extensions).toEqual([KIM_ENTRIES[0], FALCO, KIM_ENTRIES[1]]);
    expect(planShootEntries(after, RUNTIME_ID, OWNED)).toEqual({ kind: 'unchanged', generation: 7 });
  });

  it('removes a resource it wrote and no longer references, never one it did not write', () => {
    const live = shoot(
      { extensions: [...KIM_ENTRIES, FALCO], resources: [...KIM_RESOURCES, FALCO_SECRET] },
      { [SHOOT_RUNTIME_ID_ANNOTATION]: RUNTIME_ID, [OWNED_RESOURCES_ANNOTATION]: 'falco-webhook' },
    );
    const disabled: OwnedShootEntries = { extensions: [{ type: 'shoot-falco-service', disabled: true }], resources: [] };
    const plan = planShootEntries(live, RUNTIME_ID, disabled);
    if (plan.kind !== 'update') throw new Error(plan.kind);
    const after = applyOps(live, plan.ops) as any;
    expect(after.spec.extensions).toEqual([...KIM_ENTRIES, { type: 'shoot-falco-service', disabled: true }]);
    expect(after.spec.resources).toEqual(KIM_RESOURCES);
    expect(after.metadata.annotations[OWNED_RESOURCES_ANNOTATION]).toBeUndefined();
  });

  it('leaves entries of a type the fleet does not render (unset) alone', () => {
    const live = shoot({ extensions: [...KIM_ENTRIES, FALCO] });
    expect(planShootEntries(live, RUNTIME_ID, { extensions: [], resources: [] }).kind).toBe('unchanged');
  });

  it.each([
    ['no runtime-id annotation', {}, 'IdentityMismatch', /has no infrastructuremanager.kyma-project.io\/runtime-id annotation/],
    ['another runtime', { [SHOOT_RUNTIME_ID_ANNOTATION]: '00000000-0000-4000-8000-000000000000' }, 'IdentityMismatch', /belongs to runtime 00000000/],
  ])('refuses a Shoot it cannot identify: %s', (_name, annotations, reason, message) => {
    const plan = planShootEntries(shoot({ extensions: KIM_ENTRIES }, annotations), RUNTIME_ID, OWNED);
    expect(plan).toMatchObject({ kind: 'refused', reason });
    if (plan.kind === 'refused') expect(plan.message).toMatch(message);
  });

  it('matches the runtime ID case-insensitively (KIM may write it as the fleet does or in lower case)', () => {
    const plan = planShootEntries(shoot({}, { [SHOOT_RUNTIME_ID_ANNOTATION]: RUNTIME_ID.toUpperCase() }), RUNTIME_ID, OWNED);
    expect(plan.kind).toBe('update');
  });

  it('refuses to take over a spec.resources entry of the same name that someone else wrote differently', () => {
    const foreign = { name: 'falco-webhook', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'someone-elses' } };
    expect(planShootEntries(shoot({ resources: [foreign] }), RUNTIME_ID, OWNED)).toMatchObject({ kind: 'refused', reason: 'ResourceConflict' });
  });

  it.each([
    ['no spec', { apiVersion: 'v1', kind: 'Shoot', metadata: { annotations: { [SHOOT_RUNTIME_ID_ANNOTATION]: RUNTIME_ID } } }],
    ['extensions not a list', shoot({ extensions: { type: 'x' } })],
    ['an entry without type', shoot({ extensions: [{ providerConfig: {} }] })],
  ])('refuses a Shoot of the wrong shape: %s', (_name, live) => {
    expect(planShootEntries(live, RUNTIME_ID, OWNED)).toMatchObject({ kind: 'refused', reason: 'InvalidShoot' });
  });

  it('adds spec.extensions and the annotations map when the Shoot has neither', () => {
    const live = shoot({});
    delete (live.metadata as Record<string, unknown>).annotations;
    (live.metadata as Record<string, unknown>).annotations = { [SHOOT_RUNTIME_ID_ANNOTATION]: RUNTIME_ID };
    const plan = planShootEntries(live, RUNTIME_ID, OWNED);
    if (plan.kind !== 'update') throw new Error(plan.kind);
    expect(plan.ops.map((o) => `${o.op} ${o.path}`)).toEqual([
      'replace /metadata/resourceVersion',
      'add /spec/extensions',
      'add /spec/resources',
      'add /metadata/annotations/kyma-fleet.dev~1shoot-resources',
    ]);
  });
});
