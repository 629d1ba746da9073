// The Shoot fragment schema takes each extension's providerConfig schema from its plug-in
// (ExtensionPlugin.providerConfigSchema, in the extension's folder): every rendered entry is checked
// against the schema of its type, and a wrong field or value in any extension's entry is refused.

import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { shootFragmentSchema } from '../../charts/shoot-fragment-schema';
import { EXTENSIONS } from '../../src/extensions';

const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(shootFragmentSchema(EXTENSIONS));

const shoot = (entry: Record<string, unknown>) => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'c-1234567', namespace: 'garden-kyma-dev' },
  spec: { extensions: [entry] },
});

/** An enabled extension's rendered Shoot entry with every setting the plug-in accepts left to its defaults. */
function renderedEntry(name: string, config: Record<string, unknown>): Record<string, unknown> {
  const plugin = EXTENSIONS.find((e) => e.name === name)!;
  const state = plugin.prepare?.({ fleetSpec: {}, files: new Map(), now: new Date(0) } as never);
  const rendered = plugin.render!({
    state: 'enabled',
    config,
    runtime: { name: 'rt', runtimeID: '00000000-0000-4000-8000-000000000000', shootName: 'c-1234567', shootProject: 'kyma-dev' },
    env: { state, files: new Map(), now: new Date(0) },
  });
  return { type: plugin.shootExtensionType, ...rendered.shootExtension };
}

describe('the Shoot fragment schema', () => {
  it('has a providerConfig schema for every extension whose Shoot entry carries one', () => {
    for (const e of EXTENSIONS) expect(e.providerConfigSchema, e.name).toBeDefined();
  });

  it('accepts a rendered Lakom entry and refuses a wrong scope, an unknown field, a wrong kind and a null scope', () => {
    const entry = renderedEntry('lakom', { enabled: true, scope: 'KubeSystem', trustedKeysSecretName: 'lakom-keys' });
    expect(validate(shoot(entry)), JSON.stringify(validate.errors)).toBe(true);
    const pc = entry.providerConfig as Record<string, unknown>;
    for (const bad of [{ ...pc, scope: 'Everything' }, { ...pc, publicKeys: [] }, { ...pc, kind: 'RegistryConfig' }, { ...pc, scope: null }]) {
      expect(validate(shoot({ ...entry, providerConfig: bad })), JSON.stringify(bad)).toBe(false);
    }
  });

  it('refuses an unknown field in the entry of every extension', () => {
    for (const e of EXTENSIONS) {
      const entry = shoot({ type: e.shootExtensionType, providerConfig: { apiVersion: 'x/v1', kind: 'X', notAField: true } });
      expect(validate(entry), e.name).toBe(false);
    }
  });
});
