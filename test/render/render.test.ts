// The rendered dist/ of the example fleet: every object passes its real CRD schema (strict),
// re-parses without aliases, every target folder builds with kubectl kustomize, and disabling an
// extension has exactly the documented effect on all three targets.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkFleet } from '../../src/run/check';
import { type RenderedFleet, renderFleet } from '../../src/render/render-fleet';
import { EXAMPLE_FLEET, FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';
import { ManifestValidator } from '../helpers/manifest-validator';

function render(fleetDir: string, cwd = REPO): RenderedFleet {
  const checked = checkFleet({ fleetDir, cwd, now: new Date(NOW) });
  expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return renderFleet(checked.model!, checked.runtimes);
}

function parse(content: string): Record<string, unknown> {
  const docs = parseAllDocuments(content, { version: '1.2' });
  expect(Array.isArray(docs) ? docs.length : 0).toBe(1);
  const doc = (docs as ReturnType<typeof parseAllDocuments> & unknown[])[0]!;
  expect(doc.errors).toEqual([]);
  return doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
}

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

describe('rendering the example fleet', () => {
  let rendered: RenderedFleet;
  const validator = new ManifestValidator();
  beforeAll(() => {
    rendered = render(EXAMPLE_FLEET);
  });

  it('renders every runtime with no diagnostics', () => {
    expect(checkFleet({ fleetDir: EXAMPLE_FLEET, cwd: REPO, now: new Date(NOW) }).diagnostics).toEqual([]);
    expect(rendered.runtimes).toEqual(fs.readdirSync(path.join(EXAMPLE_FLEET, 'runtimes')).map((f) => f.replace(/\.yaml$/, '')).sort());
  });

  it('produces objects that pass their CRD schemas in strict mode and re-parse without aliases', () => {
    const problems: string[] = [];
    let objects = 0;
    for (const [file, content] of rendered.files) {
      if (!file.startsWith('runtimes/') || file.endsWith('/kustomization.yaml')) continue;
      expect(content).not.toMatch(/^\s*[&*][A-Za-z0-9]/m);
      const manifest = parse(content);
      objects++;
      for (const p of validator.problems(manifest)) problems.push(`${file}: ${p}`);
    }
    expect(objects).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });

  it('gives every target folder a kustomization.yaml listing exactly its other files', () => {
    const folders = new Set([...rendered.files.keys()].filter((f) => f.startsWith('runtimes/')).map((f) => path.posix.dirname(f)));
    for (const dir of folders) {
      const listed = (parse(rendered.files.get(`${dir}/kustomization.yaml`)!).resources as string[]).sort();
      const present = [...rendered.files.keys()].filter((f) => path.posix.dirname(f) === dir && !f.endsWith('/kustomization.yaml')).map((f) => path.posix.basename(f)).sort();
      expect(listed, dir).toEqual(present);
    }
  });

  it.skipIf(!hasKubectl)('builds every target folder with kubectl kustomize', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-kustomize-'));
    try {
      for (const [file, content] of rendered.files) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), content);
      }
      const folders = [...new Set([...rendered.files.keys()].filter((f) => f.endsWith('/kustomization.yaml')).map((f) => path.dirname(f)))];
      expect(folders.length).toBeGreaterThan(14);
      for (const folder of folders) {
        const r = spawnSync('kubectl', ['kustomize', path.join(dir, folder)], { encoding: 'utf8' });
        expect(r.stderr, folder).toBe('');
        expect(r.status, folder).toBe(0);
        const built = parseAllDocuments(r.stdout);
        const listed = (parse(rendered.files.get(`${folder}/kustomization.yaml`)!).resources as string[]).length;
        expect(Array.isArray(built) ? built.length : 0, folder).toBe(listed);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('protects the Kyma, Runtime and Shoot objects from pruning', () => {
    for (const [file, content] of rendered.files) {
      if (!/\/(kyma-default|runtime-[^/]+|shoot-[^/]+)\.yaml$/.test(file)) continue;
      const annotations = (parse(content).metadata as { annotations: Record<string, string> }).annotations;
      expect(annotations, file).toEqual({ 'argocd.argoproj.io/sync-options': 'Prune=false', 'kustomize.toolkit.fluxcd.io/prune': 'disabled' });
    }
  });

  it('names the Runtime fragment by the lowercase runtime ID in the KCP namespace, with stable cache uids', () => {
    const runtime = parse(rendered.files.get('runtimes/acme-eu-prod-2/kcp/runtime-8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52.yaml')!);
    expect(runtime.metadata).toMatchObject({ name: '8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52', namespace: 'kcp-system' });
    const caches = (runtime.spec as { imageRegistryCache: Array<{ name: string; namespace: string; uid: string }> }).imageRegistryCache;
    expect(caches.map((c) => [c.name, c.namespace, c.uid])).toEqual([
      ['docker.io', 'kyma-system', 'f7ef44e0-e5e0-5eb1-818a-06ea3e659f76'],
      ['europe-docker.pkg.dev', 'kyma-system', '4f638c21-f4d4-5990-83be-d470c85f76ac'],
      ['ghcr.io', 'kyma-system', '28eccdfb-5a39-57a1-a343-b0e72b25168c'],
    ]);
  });

  it('writes the Falco admission defaults into the Shoot so the mutator changes nothing', () => {
    const shoot = parse(rendered.files.get('runtimes/acme-us-dev-2/garden/shoot-c-9f8e7d6.yaml')!);
    const falco = (shoot.spec as { extensions: Array<{ type: string; providerConfig: Record<string, unknown> }> }).extensions.find((e) => e.type === 'shoot-falco-service')!;
    expect(falco.providerConfig).toEqual({
      apiVersion: 'falco.extensions.gardener.cloud/v1alpha1',
      kind: 'FalcoServiceConfig',
      autoUpdate: true,
      falcoVersion: '0.42.1',
      rules: { custom: [{ shootConfigMap: 'team-falco-rules' }] },
      destinations: [{ name: 'stdout' }],
    });
  });
});

describe('disabling an extension', () => {
  it('removes the module and the config CRs, empties imageRegistryCache and writes disabled: true', () => {
    // GIVEN acme-us-dev-1, whose runtime file sets registry-cache enabled: false over the defaults
    const rendered = render(EXAMPLE_FLEET);
    const files = [...rendered.files.keys()].filter((f) => f.startsWith('runtimes/acme-us-dev-1/'));
    // THEN no RegistryCacheConfig is rendered for it
    expect(files.filter((f) => f.includes('registrycacheconfig'))).toEqual([]);
    // AND the Kyma CR lists no registry-cache module
    const kyma = parse(rendered.files.get('runtimes/acme-us-dev-1/skr/kyma-default.yaml')!);
    expect((kyma.spec as { modules: Array<{ name: string }> }).modules.map((m) => m.name)).toEqual(['api-gateway', 'btp-operator', 'istio']);
    // AND the Runtime fragment carries an empty imageRegistryCache
    const runtime = parse(rendered.files.get('runtimes/acme-us-dev-1/kcp/runtime-7e6d5c4b-3a29-4180-8f7e-6d5c4b3a2915.yaml')!);
    expect(runtime.spec).toEqual({ imageRegistryCache: [] });
    // AND the Shoot patch marks every extension disabled (Lakom too: the runtime opts out of it)
    const shoot = parse(rendered.files.get('runtimes/acme-us-dev-1/garden/shoot-c-7e6d5c4.yaml')!);
    expect(shoot.spec).toEqual({ extensions: [{ type: 'registry-cache', disabled: true }, { type: 'shoot-falco-service', disabled: true }, { type: 'shoot-lakom-service', disabled: true }] });
  });

  it('omits the Runtime fragment when KIM syncs registry caches itself', () => {
    const fx = FleetFixture.example();
    try {
      fx.replace('fleet.yaml', 'registryCacheSync: false', 'registryCacheSync: true');
      const rendered = render(fx.fleetDir, fx.dir);
      expect([...rendered.files.keys()].filter((f) => f.includes('/kcp/'))).toEqual([]);
    } finally {
      fx.cleanup();
    }
  });

  it('renames or omits the Kyma module of an extension as the fleet says', () => {
    const fx = FleetFixture.example();
    try {
      fx.replace('fleet.yaml', '  kim:\n', '  extensionModules:\n    falco: false\n    registry-cache: image-cache\n  kim:\n');
      fx.remove('catalog'); // image-cache is in no catalog: without one, module names are not checked
      const rendered = render(fx.fleetDir, fx.dir);
      const kyma = parse(rendered.files.get('runtimes/acme-eu-prod-1/skr/kyma-default.yaml')!);
      expect((kyma.spec as { modules: Array<{ name: string }> }).modules.map((m) => m.name)).toEqual(['api-gateway', 'btp-operator', 'image-cache', 'istio', 'telemetry']);
    } finally {
      fx.cleanup();
    }
  });
});

describe('the manifest validator', () => {
  const validator = new ManifestValidator();
  it.each([
    ['a module version (pruned by the API server)', { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default' }, spec: { channel: 'regular', modules: [{ name: 'x', managed: true, version: '1.2.3' }] } }],
    ['a bad channel', { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Kyma', metadata: { name: 'default' }, spec: { channel: 'Fast' } }],
    ['a cache without upstream', { apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfig', metadata: { name: 'x' }, spec: { remoteURL: 'https://x' } }],
    ['an imageRegistryCache entry without uid', { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', metadata: { name: 'x' }, spec: { imageRegistryCache: [{ name: 'a', namespace: 'b', config: { upstream: 'docker.io' } }] } }],
    ['an unknown RegistryConfig field', { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'x', namespace: 'garden-p' }, spec: { extensions: [{ type: 'registry-cache', providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'a', size: '1Gi' }] } }] } }],
    ['a resource named reg-cache-*', { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'x', namespace: 'garden-p' }, spec: { resources: [{ name: 'reg-cache-1', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-1' } }] } }],
  ])('rejects %s', (_name, manifest) => {
    expect(validator.problems(manifest as Record<string, unknown>)).not.toEqual([]);
  });
});
