// The render cache key (src/run/input-digest.ts) must cover every input that changes a runtime's
// files: incremental synth keeps a runtime's files in dist/ whenever its key equals the one of its
// last render. These tests change one input at a time and require: the rendered files changed, so
// the key changed too. A test-only plug-in shows that an extension's fleet-wide option (a value
// under Fleet.spec that is not a file) is covered generically, whatever the extension.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiObject } from 'cdk8s';
import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import type { ExtensionPlugin } from '../../src/extensions/types';
import { checkFleet } from '../../src/run/check';
import { fleetInputDigest, runtimeInputDigest } from '../../src/run/input-digest';
import { renderRuntime } from '../../src/render/render-runtime';
import { synth } from '../../src/run/synth';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';
import { treeHash } from '../write/dist-fixture';

/** A plug-in whose fleet option `stampText` ends up in a ConfigMap of every runtime's skr-config/. */
const stampExtension: ExtensionPlugin<{ readonly text: string }> = {
  name: 'stamp',
  description: 'test-only: writes the fleet option stampText into a ConfigMap',
  shootExtensionType: 'stamp',
  schema: { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' } } },
  fleetOptions: { stampText: { type: 'string', maxLength: 64, description: 'Text of the stamp ConfigMap.' } },
  keyedLists: [],
  prepare: ({ fleetSpec }) => ({ text: typeof fleetSpec.stampText === 'string' ? fleetSpec.stampText : 'none' }),
  render: ({ env }) => ({
    skrConfig: (scope) => {
      new ApiObject(scope, 'stamp', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stamp', namespace: 'kyma-system' }, data: { text: env.state.text } });
    },
  }),
};

const WITH_STAMP: readonly ExtensionPlugin<any>[] = [...EXTENSIONS, stampExtension];
const RUNTIME = 'acme-eu-prod-1';

/** The render key and the rendered files of one runtime of the fleet in `fx`. */
function keyAndFiles(fx: FleetFixture, extensions: readonly ExtensionPlugin<any>[]): { key: string; files: string } {
  const checked = checkFleet({ fleetDir: fx.fleetDir, cwd: fx.dir, now: new Date(NOW), extensions });
  expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const model = checked.model!;
  const runtime = checked.runtimes.find((r) => r.runtime.name === RUNTIME)!;
  const key = runtimeInputDigest(fleetInputDigest(model, extensions), runtime);
  return { key, files: JSON.stringify(renderRuntime(model, runtime, extensions).targets) };
}

/** Renders the example fleet before and after `edit` of fleet.yaml. */
function beforeAndAfter(edit: (fx: FleetFixture) => void, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS) {
  const fx = FleetFixture.example();
  try {
    const before = keyAndFiles(fx, extensions);
    edit(fx);
    return { before, after: keyAndFiles(fx, extensions) };
  } finally {
    fx.cleanup();
  }
}

describe('the render cache key', () => {
  it("changes when an extension's fleet option that is not a file changes its output", () => {
    const { before, after } = beforeAndAfter((fx) => fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', '  kcpNamespace: kcp-system\n  stampText: second\n'), WITH_STAMP);
    expect(after.files).not.toEqual(before.files);
    expect(after.files).toContain('second');
    expect(after.key).not.toEqual(before.key);
  });

  it('changes between two values of the option, not only between set and unset', () => {
    const fx = FleetFixture.example();
    try {
      fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', '  kcpNamespace: kcp-system\n  stampText: first\n');
      const first = keyAndFiles(fx, WITH_STAMP);
      fx.replace('fleet.yaml', 'stampText: first', 'stampText: second');
      const second = keyAndFiles(fx, WITH_STAMP);
      expect(second.files).not.toEqual(first.files);
      expect(second.key).not.toEqual(first.key);
    } finally {
      fx.cleanup();
    }
  });

  it("stays the same when fleet.yaml changes nothing a runtime's files depend on", () => {
    const { before, after } = beforeAndAfter((fx) => fx.replace('fleet.yaml', '  kcpNamespace: kcp-system\n', '  kcpNamespace: kcp-system\n  # a comment\n'), WITH_STAMP);
    expect(after.files).toEqual(before.files);
    expect(after.key).toEqual(before.key);
  });
});

describe('the render cache key of an option in a core option group (kim.registryCacheSync)', () => {
  it('changes with the option, since the option changes the files', () => {
    const { before, after } = beforeAndAfter((fx) => fx.replace('fleet.yaml', 'registryCacheSync: false', 'registryCacheSync: true'));
    expect(after.files).not.toEqual(before.files);
    expect(after.key).not.toEqual(before.key);
  });

  it('makes an incremental synth after toggling the option write what a cold synth writes', () => {
    const fx = FleetFixture.example();
    try {
      const run = (outDir: string, cacheDir?: string) => {
        const result = synth({ fleetDir: fx.fleetDir, outDir, cwd: fx.dir, now: new Date(NOW), cacheDir, env: { KYMA_FLEET_WORKERS: '1' } });
        expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      };
      const incremental = path.join(fx.dir, 'dist');
      const cache = path.join(fx.dir, 'cache');
      run(incremental, cache);
      for (const [from, to] of [['registryCacheSync: false', 'registryCacheSync: true'], ['registryCacheSync: true', 'registryCacheSync: false']] as const) {
        const kcpBefore = fs.existsSync(path.join(incremental, 'runtimes', RUNTIME, 'kcp'));
        fx.replace('fleet.yaml', from, to);
        run(incremental, cache);
        const cold = path.join(fx.dir, `cold-${to.endsWith('true')}`);
        run(cold);
        expect(fs.existsSync(path.join(incremental, 'runtimes', RUNTIME, 'kcp'))).toBe(!kcpBefore);
        expect(treeHash(incremental)).toEqual(treeHash(cold));
      }
    } finally {
      fx.cleanup();
    }
  });
});
