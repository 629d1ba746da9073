// Lakom through the whole pipeline on copies of the example fleet: validation errors with file,
// line, column and field; layering (defaults enable, a group configures, a runtime opts out);
// the rendered Shoot fragments and Kyma CRs; explain's provenance; and diff of a change.

import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkFleet } from '../../../src/run/check';
import { renderFleet } from '../../../src/render/render-fleet';
import { exampleLocation, FleetFixture, NOW } from '../../helpers/fleet-fixture';

type Rec = Record<string, any>;

const SUMMARY = /^fleet: \d+ errors?/;
const SCOPES = '"Cluster", "KubeSystem", "KubeSystemManagedByGardener"';
const LAKOM = 'shoot-lakom-service';
const CONFIG = { apiVersion: 'lakom.extensions.gardener.cloud/v1alpha1', kind: 'LakomConfig' };
const KEYS_RESOURCE = { name: 'acme-cosign-keys', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'acme-cosign-keys' } };

let fx: FleetFixture | undefined;
afterEach(() => {
  fx?.cleanup();
  fx = undefined;
});

/** The rendered files of a fixture's fleet, parsed, by path below dist/. */
function renderAll(f: FleetFixture): Map<string, Rec> {
  const checked = checkFleet({ fleetDir: f.fleetDir, cwd: f.dir, now: new Date(NOW) });
  expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const rendered = renderFleet(checked.model!, checked.runtimes);
  return new Map([...rendered.files].filter(([p]) => p.endsWith('.yaml')).map(([p, text]) => [p, parse(text) as Rec]));
}

function shoot(files: Map<string, Rec>, runtime: string): Rec {
  const entry = [...files].find(([p]) => p.startsWith(`runtimes/${runtime}/garden/shoot-`));
  if (!entry) throw new Error(`no Shoot fragment for ${runtime}`);
  return entry[1];
}

const lakomEntry = (s: Rec): Rec | undefined => (s.spec.extensions as Rec[]).find((e) => e.type === LAKOM);
const modules = (files: Map<string, Rec>, runtime: string): string[] => (files.get(`runtimes/${runtime}/skr/kyma-default.yaml`)!.spec.modules as Rec[]).map((m) => m.name);

interface ErrorCase {
  readonly title: string;
  readonly edits: ReadonlyArray<readonly [string, string, string]>;
  readonly expect: readonly string[];
  readonly exit?: number;
}

const CASES: readonly ErrorCase[] = [
  {
    title: 'an unknown scope in a group, with the sorted list of scopes',
    edits: [['groups/production.yaml', '        scope: KubeSystem\n', '        scope: Namespace\n']],
    expect: [`fleet/groups/production.yaml:36:16: error at settings.extensions.lakom.scope: Unsupported value: "Namespace": supported values: ${SCOPES} [E_LAKOM_SCOPE]`],
  },
  {
    title: 'a trusted keys Secret name that is not a Secret name, in a runtime',
    edits: [['runtimes/acme-us-dev-1.yaml', '    lakom:\n      enabled: false\n', '    lakom:\n      enabled: true\n      trustedKeysSecretName: Cosign.Keys\n']],
    expect: [
      `fleet/runtimes/acme-us-dev-1.yaml:23:30: error at extensions.lakom.trustedKeysSecretName: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com') (got "Cosign.Keys"); use "cosign.keys" [E_LAKOM_SECRET_NAME]`,
    ],
  },
  {
    title: 'a trusted keys Secret KIM would remove from the Shoot',
    edits: [['groups/production.yaml', 'trustedKeysSecretName: acme-cosign-keys', 'trustedKeysSecretName: reg-cache-keys']],
    expect: ['fleet/groups/production.yaml:37:32: error at settings.extensions.lakom.trustedKeysSecretName: must not contain "reg-cache-": KIM removes the Shoot resources whose name contains it (got "reg-cache-keys") [E_LAKOM_SECRET_NAME]'],
  },
  {
    title: 'the upstream field name instead of the fleet one (unknown field, with a hint)',
    edits: [['groups/production.yaml', 'trustedKeysSecretName: acme-cosign-keys', 'trustedKeysResourceName: acme-cosign-keys']],
    expect: [
      'fleet/groups/production.yaml:37:9: error at settings.extensions.lakom.trustedKeysResourceName: unknown field "trustedKeysResourceName": write trustedKeysSecretName: <Secret name>; the renderer adds the Shoot spec.resources entry and the reference [E_UNKNOWN_FIELD]',
    ],
  },
  {
    title: 'a value of the wrong type',
    edits: [['fleet.yaml', '      lakom:\n        enabled: true\n', '      lakom:\n        enabled: "yes"\n']],
    expect: ['fleet/fleet.yaml:53:18: error at defaults.extensions.lakom.enabled: must be a boolean (got string "yes"): YAML 1.1 word "yes" is a string in YAML 1.2; write true instead [E_TYPE]'],
  },
  {
    title: 'scope Cluster without the fleet option: refused where it is set, saying why',
    edits: [['groups/production.yaml', '        scope: KubeSystem\n', '        scope: Cluster\n']],
    expect: [
      "fleet/groups/production.yaml:36:16: error at settings.extensions.lakom.scope: scope Cluster puts a signature check that fails closed on every pod of the runtime, Kyma's own included (a pod whose image is not signed by a trusted key is not started); set Fleet.spec.lakom.allowClusterScope: true to allow it, or use KubeSystem or KubeSystemManagedByGardener [E_LAKOM_CLUSTER_SCOPE]",
    ],
  },
  {
    title: 'an unknown field in the fleet option',
    edits: [['fleet.yaml', '  kim:\n', '  lakom:\n    allowClusterscope: true\n  kim:\n']],
    expect: ['fleet/fleet.yaml:12:5: error at lakom.allowClusterscope: unknown field "allowClusterscope" (did you mean "allowClusterScope"?) [E_UNKNOWN_FIELD]'],
  },
];

describe('Lakom validation (file:line:col and field of every error)', () => {
  it.each(CASES.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
    fx = FleetFixture.example();
    for (const [rel, from, to] of c.edits) fx.replace(rel, from, to);
    const r = await fx.validate();
    expect(r.errLines.filter((l) => !SUMMARY.test(l))).toEqual(c.expect);
    expect(r.code).toBe(c.exit ?? 1);
  });

  it('accepts scope Cluster where Fleet.spec.lakom.allowClusterScope is true', async () => {
    fx = FleetFixture.example();
    fx.replace('groups/production.yaml', '        scope: KubeSystem\n', '        scope: Cluster\n');
    fx.replace('fleet.yaml', '  kim:\n', '  lakom:\n    allowClusterScope: true\n  kim:\n');
    const r = await fx.validate();
    expect(r.errLines).toEqual([]);
    expect(r.code).toBe(0);
    expect(lakomEntry(shoot(renderAll(fx), 'acme-eu-prod-1'))!.providerConfig.scope).toBe('Cluster');
  });

  it('lets a runtime override a Cluster scope of its group: only the resolved scope counts', async () => {
    fx = FleetFixture.example();
    fx.replace('groups/production.yaml', '        scope: KubeSystem\n', '        scope: Cluster\n');
    for (const rt of ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1']) {
      const text = fx.read(`runtimes/${rt}.yaml`);
      fx.write(`runtimes/${rt}.yaml`, text.includes('  extensions:\n') ? text.replace('  extensions:\n', '  extensions:\n    lakom:\n      scope: KubeSystem\n') : `${text}  extensions:\n    lakom:\n      scope: KubeSystem\n`);
    }
    const r = await fx.validate();
    expect(r.errLines).toEqual([]);
  });
});

describe('Lakom layering and render', () => {
  it('renders the example fleet: defaults enable, production configures, acme-us-dev-1 opts out', () => {
    fx = FleetFixture.example();
    const files = renderAll(fx);
    // Enabled by the defaults only: no scope (the landscape's default applies), no resource.
    const dev = shoot(files, 'acme-eu-dev-1');
    expect(lakomEntry(dev)).toEqual({ type: LAKOM, providerConfig: CONFIG });
    expect((dev.spec.resources as Rec[]).map((r) => r.name)).not.toContain('acme-cosign-keys');
    // The production group: scope and trusted keys, with the spec.resources entry they point to.
    for (const rt of ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1']) {
      const s = shoot(files, rt);
      expect(lakomEntry(s), rt).toEqual({ type: LAKOM, providerConfig: { ...CONFIG, scope: 'KubeSystem', trustedKeysResourceName: 'acme-cosign-keys' } });
      expect(s.spec.resources, rt).toContainEqual(KEYS_RESOURCE);
    }
    // acme-us-dev-1 opts out: disabled: true, the upstream opt-out of a landscape-wide extension.
    expect(lakomEntry(shoot(files, 'acme-us-dev-1'))).toEqual({ type: LAKOM, disabled: true });
    // No Kyma module, and nothing on the runtime or the KCP.
    for (const rt of ['acme-eu-dev-1', 'acme-eu-prod-1']) expect(modules(files, rt).some((m) => m.includes('lakom'))).toBe(false);
    expect([...files.keys()].filter((p) => !p.includes('/garden/') && JSON.stringify(files.get(p)).includes('lakom'))).toEqual([]);
  });

  it('a group enables it and a runtime opts out: disabled: true for that runtime, nothing where no layer mentions it', () => {
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', '      lakom:\n        enabled: true\n', '');
    fx.replace('groups/production.yaml', '      lakom:\n', '      lakom:\n        enabled: true\n');
    fx.append('runtimes/acme-eu-prod-2.yaml', '    lakom:\n      enabled: false\n');
    const files = renderAll(fx);
    expect(lakomEntry(shoot(files, 'acme-eu-prod-1'))!.providerConfig).toEqual({ ...CONFIG, scope: 'KubeSystem', trustedKeysResourceName: 'acme-cosign-keys' });
    const optedOut = shoot(files, 'acme-eu-prod-2');
    expect(lakomEntry(optedOut)).toEqual({ type: LAKOM, disabled: true });
    expect(optedOut.spec.resources).not.toContainEqual(KEYS_RESOURCE);
    expect(lakomEntry(shoot(files, 'acme-eu-dev-1'))).toBeUndefined(); // unset: the fleet writes nothing
  });

  it('adds a Kyma module only when Fleet.spec.extensionModules names one', () => {
    fx = FleetFixture.example();
    fx.replace('fleet.yaml', '  kim:\n', '  extensionModules:\n    lakom: image-policy\n  kim:\n');
    fx.remove('catalog'); // image-policy is in no catalog: without one, module names are not checked
    const files = renderAll(fx);
    expect(modules(files, 'acme-eu-dev-1')).toContain('image-policy');
    expect(modules(files, 'acme-us-dev-1')).not.toContain('image-policy'); // opted out
  });
});

describe('Lakom in explain and diff', () => {
  it('explain shows where each Lakom value comes from and what it overrode', async () => {
    fx = FleetFixture.example();
    const prod = await fx.run(['explain', 'acme-eu-prod-1', '--now', NOW]);
    expect(prod.code).toBe(0);
    const line = (path: string): string => prod.stdout.split('\n').find((l) => l.startsWith(`  ${path} = `))!;
    expect(line('extensions.lakom.enabled')).toMatch(new RegExp(`= true +${exampleLocation('fleet.yaml', 'enabled', 4)} \\(defaults\\)$`));
    expect(line('extensions.lakom.scope')).toMatch(new RegExp(`= "KubeSystem" +${exampleLocation('groups/production.yaml', 'scope')} \\(group production\\)$`));
    expect(line('extensions.lakom.trustedKeysSecretName')).toMatch(new RegExp(`= "acme-cosign-keys" +${exampleLocation('groups/production.yaml', 'trustedKeysSecretName')} \\(group production\\)$`));

    const optedOut = JSON.parse((await fx.run(['explain', 'acme-us-dev-1', '--output', 'json', '--now', NOW])).stdout) as Rec;
    expect(optedOut.extensions).toContainEqual({ name: 'lakom', state: 'disabled' });
    const enabled = (optedOut.values as Rec[]).find((v) => v.path === 'extensions.lakom.enabled')!;
    expect(enabled).toEqual({
      path: 'extensions.lakom.enabled',
      value: false,
      source: { layer: 'runtime', name: 'acme-us-dev-1', location: exampleLocation('runtimes/acme-us-dev-1.yaml', 'enabled', 2) },
      overrides: [{ value: true, source: { layer: 'defaults', name: 'defaults', location: exampleLocation('fleet.yaml', 'enabled', 4) } }],
    });
  });

  it('diff shows a changed scope in the Shoot fragments of exactly the runtimes it applies to', () => {
    fx = FleetFixture.example();
    expect(fx.runBinary(['synth', '--now', NOW]).code).toBe(0);
    fx.replace('groups/production.yaml', '        scope: KubeSystem\n', '        scope: KubeSystemManagedByGardener\n');
    const text = fx.runBinary(['diff', '--now', NOW]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('--- a/runtimes/acme-eu-prod-1/garden/shoot-c-3f1e8d6.yaml\n+++ b/runtimes/acme-eu-prod-1/garden/shoot-c-3f1e8d6.yaml\n');
    expect(text.stdout).toContain('-        scope: KubeSystem\n+        scope: KubeSystemManagedByGardener\n');
    expect(text.stdout).toContain('0 added, 3 changed, 0 removed files; runtimes: 0 new, 3 changed, 0 removed\n');
    const json = JSON.parse(fx.runBinary(['diff', '--output', 'json', '--now', NOW]).stdout) as Rec;
    expect(json.runtimes.changed).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1']);
  });
});
