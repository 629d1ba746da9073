// The Lakom plug-in on its own: identity and wiring, the schema, the admission rules (exact
// messages) and the render of one runtime, without the loader.

import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { lakomExtension } from '../../../src/extensions/lakom';
import { prepareLakomState, type LakomState } from '../../../src/extensions/lakom/options';
import { renderLakom } from '../../../src/extensions/lakom/render';
import { validateLayer, validateResolved } from '../../../src/extensions/lakom/rules';
import { lakomSchema } from '../../../src/extensions/lakom/schema';
import type { RenderInput, RuleEnvironment, RuleReporter } from '../../../src/extensions/types';

const SCOPES = '"Cluster", "KubeSystem", "KubeSystemManagedByGardener"';

function env(allowClusterScope = false): RuleEnvironment<LakomState> & { runtime: { name: string; runtimeID: string } } {
  return { state: { allowClusterScope }, files: new Map(), now: new Date(0), runtime: { name: 'rt-1', runtimeID: '3f2a1b4c-0000-4000-8000-000000000001' } };
}

function recorder(): RuleReporter & { diags: Array<[(string | number)[], string, string]> } {
  const diags: Array<[(string | number)[], string, string]> = [];
  return { diags, report: (path, code, message) => void diags.push([[...path], code, message]) };
}

function input(state: RenderInput<LakomState>['state'], config: Record<string, unknown> = {}): RenderInput<LakomState> {
  return { state, config, env: env(), runtime: { name: 'rt-1', runtimeID: '3f2a1b4c-0000-4000-8000-000000000001', shootName: 'c-3f2a1b4', shootProject: 'p' } };
}

describe('lakomExtension (plug-in wiring)', () => {
  it('declares its identity, its fleet option and no Kyma module', () => {
    expect(lakomExtension).toMatchObject({ name: 'lakom', shootExtensionType: 'shoot-lakom-service', keyedLists: [], schema: lakomSchema, validateLayer, validateResolved, render: renderLakom });
    expect(lakomExtension.defaultModuleName).toBeUndefined();
    expect(lakomExtension.shootEntryWrittenBy).toBeUndefined(); // apply garden writes it, not KIM
    expect(lakomExtension.defaults).toBeUndefined(); // an unset scope stays unset
    expect(Object.keys(lakomExtension.fleetOptions ?? {})).toEqual(['lakom']);
  });

  it('has schemas ajv compiles in strict mode, refusing unknown fields and wrong types', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const validate = ajv.compile(lakomSchema);
    expect(validate({ enabled: true, scope: 'KubeSystem', trustedKeysSecretName: 'keys' })).toBe(true);
    expect(validate({ enabled: true, trustedKeysResourceName: 'keys' })).toBe(false);
    expect(validate({ enabled: 'yes' })).toBe(false);
    const option = ajv.compile(lakomExtension.fleetOptions!.lakom!);
    expect(option({ allowClusterScope: true })).toBe(true);
    expect(option({ allowClusterScope: 'true' })).toBe(false);
    expect(option({ allowClusterscope: true })).toBe(false);
  });

  it.each<[Record<string, unknown>, boolean]>([
    [{}, false],
    [{ lakom: {} }, false],
    [{ lakom: { allowClusterScope: false } }, false],
    [{ lakom: { allowClusterScope: 'true' } }, false],
    [{ lakom: { allowClusterScope: true } }, true],
  ])('prepare(%j) allows scope Cluster: %s', (fleetSpec, allowed) => {
    expect(prepareLakomState({ fleetSpec })).toEqual({ allowClusterScope: allowed });
  });
});

describe('Lakom rules (the admission webhook, offline)', () => {
  it.each<[string, 'layer' | 'resolved', Record<string, unknown>, boolean, Array<[(string | number)[], string, string]>]>([
    ['a valid layer', 'layer', { enabled: true, scope: 'KubeSystemManagedByGardener', trustedKeysSecretName: 'acme-cosign-keys' }, false, []],
    ['an unknown scope, with the sorted list', 'layer', { scope: 'Namespace' }, false, [[['scope'], 'E_LAKOM_SCOPE', `Unsupported value: "Namespace": supported values: ${SCOPES}`]]],
    ['scopes are case-sensitive', 'layer', { scope: 'kubesystem' }, false, [[['scope'], 'E_LAKOM_SCOPE', `Unsupported value: "kubesystem": supported values: ${SCOPES}`]]],
    ['an empty scope', 'layer', { scope: '' }, false, [[['scope'], 'E_LAKOM_SCOPE', `Unsupported value: "": supported values: ${SCOPES}`]]],
    [
      'a Secret name that is no DNS-1123 subdomain',
      'layer',
      { trustedKeysSecretName: 'Cosign_Keys' },
      false,
      [[['trustedKeysSecretName'], 'E_LAKOM_SECRET_NAME', expect.stringMatching(/^a lowercase RFC 1123 subdomain must consist of .* \(got "Cosign_Keys"\)$/) as unknown as string]],
    ],
    [
      'a Secret name KIM would remove',
      'layer',
      { trustedKeysSecretName: 'reg-cache-keys' },
      false,
      [[['trustedKeysSecretName'], 'E_LAKOM_SECRET_NAME', 'must not contain "reg-cache-": KIM removes the Shoot resources whose name contains it (got "reg-cache-keys")']],
    ],
    ['a wrong type is the schema\'s to report', 'layer', { scope: 7, trustedKeysSecretName: ['x'] }, false, []],
    [
      'scope Cluster without the fleet option',
      'resolved',
      { enabled: true, scope: 'Cluster' },
      false,
      [[['scope'], 'E_LAKOM_CLUSTER_SCOPE', expect.stringContaining("every pod of the runtime, Kyma's own included") as unknown as string]],
    ],
    ['scope Cluster where the fleet allows it', 'resolved', { enabled: true, scope: 'Cluster' }, true, []],
    ['scope Cluster passes the layer rules (the resolved settings decide)', 'layer', { scope: 'Cluster' }, false, []],
  ])('%s', (_title, stage, value, allow, expected) => {
    const r = recorder();
    if (stage === 'layer') validateLayer(value, r);
    else validateResolved(value, r, env(allow));
    expect(r.diags).toEqual(expected);
  });

  it('says in the Cluster error why and how to allow it', () => {
    const r = recorder();
    validateResolved({ scope: 'Cluster' }, r, env());
    expect(r.diags[0]![2]).toBe(
      "scope Cluster puts a signature check that fails closed on every pod of the runtime, Kyma's own included " +
        '(a pod whose image is not signed by a trusted key is not started); set Fleet.spec.lakom.allowClusterScope: true ' +
        'to allow it, or use KubeSystem or KubeSystemManagedByGardener',
    );
  });
});

describe('renderLakom', () => {
  const CONFIG = { apiVersion: 'lakom.extensions.gardener.cloud/v1alpha1', kind: 'LakomConfig' };

  it('omits an unset scope and writes no resource without a Secret', () => {
    expect(renderLakom(input('enabled', { enabled: true }))).toEqual({ shootExtension: { providerConfig: CONFIG }, shootResources: [] });
  });

  it('writes the scope, the reference and the spec.resources entry of kind Secret it points to', () => {
    const r = renderLakom(input('enabled', { enabled: true, scope: 'KubeSystem', trustedKeysSecretName: 'acme-cosign-keys' }));
    expect(r.shootExtension).toEqual({ providerConfig: { ...CONFIG, scope: 'KubeSystem', trustedKeysResourceName: 'acme-cosign-keys' } });
    expect(r.shootResources).toEqual([{ name: 'acme-cosign-keys', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'acme-cosign-keys' } }]);
    expect(r.shootResources![0]!.name).toBe((r.shootExtension!.providerConfig as Record<string, unknown>).trustedKeysResourceName);
  });

  it('writes disabled: true where a layer turns it off, and nothing where no layer mentions it', () => {
    expect(renderLakom(input('disabled'))).toEqual({ shootExtension: { disabled: true } });
    expect(renderLakom(input('unset'))).toEqual({});
  });

  it('has nothing for the runtime cluster or the KCP', () => {
    const r = renderLakom(input('enabled', { enabled: true, scope: 'KubeSystem' }));
    expect(r.skrConfig).toBeUndefined();
    expect(r.runtimeSpec).toBeUndefined();
  });
});
