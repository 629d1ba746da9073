// The kcp/ Runtime CR fragment is written exactly when some extension contributes a Runtime CR field
// (ExtensionRendering.runtimeSpec), and holds exactly the fields contributed: the core decides it
// from the renderings alone, naming no extension and no fleet option.

import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import type { ExtensionPlugin } from '../../src/extensions/types';
import { checkFleet } from '../../src/run/check';
import { renderRuntime } from '../../src/render/render-runtime';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

/** A plug-in that owns a (made-up) Runtime CR field on every runtime. */
const fieldOwner: ExtensionPlugin = {
  name: 'field-owner',
  description: 'test-only: contributes spec.testField to the Runtime CR',
  shootExtensionType: 'field-owner',
  schema: { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } },
  keyedLists: [],
  render: () => ({ runtimeSpec: { testField: 'owned' } }),
};

function kcpOf(kimSync: boolean, extensions: readonly ExtensionPlugin<any>[]) {
  const fx = FleetFixture.example();
  try {
    if (kimSync) fx.replace('fleet.yaml', 'registryCacheSync: false', 'registryCacheSync: true');
    const checked = checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), extensions });
    expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return checked.runtimes.map((r) => renderRuntime(checked.model!, r, extensions).targets.kcp);
  } finally {
    fx.cleanup();
  }
}

describe('the kcp/ Runtime fragment', () => {
  it('is written for every runtime while an extension contributes a field', () => {
    const kcp = kcpOf(false, EXTENSIONS);
    expect(kcp.length).toBeGreaterThan(1);
    for (const manifests of kcp) {
      expect(manifests).toHaveLength(1);
      expect(Object.keys(manifests[0]!.spec as object)).toEqual(['imageRegistryCache']);
    }
  });

  it('is not written when no extension contributes a field', () => {
    expect(kcpOf(true, EXTENSIONS).flat()).toEqual([]);
  });

  it('holds only the contributed fields when another extension contributes one', () => {
    for (const manifests of kcpOf(true, [...EXTENSIONS, fieldOwner])) {
      expect(manifests.map((m) => m.spec)).toEqual([{ testField: 'owned' }]);
    }
    for (const manifests of kcpOf(false, [...EXTENSIONS, fieldOwner])) {
      expect(Object.keys(manifests[0]!.spec as object).sort()).toEqual(['imageRegistryCache', 'testField']);
    }
  });
});
