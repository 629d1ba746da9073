// The Kyma registry-cache module's own validating webhook on the test cluster (issue 27): the
// module's binary judges the RegistryCacheConfigs kyma-fleet renders into skr-config/, creates and
// updates alike. Seen refusing what the module refuses (a second config for one upstream in any
// namespace, a changed volume size, a missing or mutable credential Secret, an upstream or remoteURL
// host that does not resolve), then admitting every RegistryCacheConfig of the example fleet's render and
// of a generated fleet of 50 runtimes, each runtime's skr-config applied as its runtime would get it
// (the runtime owner's credential Secrets present, the previous runtime's configs gone: one cluster
// stands in for one runtime at a time). A user's own config for an upstream the fleet renders makes
// the fleet's apply fail with the webhook's words; a volume size change the webhook refuses is
// refused by kyma-fleet validate and synth first, at its file:line, and so is moving caches to
// another namespace (the new config is refused while the old one exists). How the webhook runs (certificates, DNS,
// network namespace): webhook.ts.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { clusterSkipReason } from '../cluster/describe-with-cluster';
import { describeWithTool } from '../helpers/describe-with-tool';
import { EXAMPLE_FLEET, FleetFixture, NOW, runBinary } from '../helpers/fleet-fixture';
import { ensureRegistryCacheWebhook, registryCacheWebhook, registryCacheWebhookUnavailable, WEBHOOK_ENV, WEBHOOK_SKIP_ENV } from './webhook';

const CRDS = ['registrycacheconfigs.core.kyma-project.io', 'registrycaches.core.kyma-project.io'];
const RCC = 'registrycacheconfigs.core.kyma-project.io';
const DENIED = 'admission webhook "registrycacheconfig-v1beta1.kb.io" denied the request';

type Rec = Record<string, any>;

// The one-line skip reason (CI unset) for a machine where the webhook cannot run.
const unavailable = clusterSkipReason() ?? registryCacheWebhookUnavailable();
if (unavailable) process.env[WEBHOOK_SKIP_ENV] = unavailable;
else delete process.env[WEBHOOK_SKIP_ENV];

let tmp: string;

/** Renders a fleet with the real CLI; returns dist/. */
function synth(fleetDir: string, name: string): string {
  const work = path.join(tmp, name);
  fs.mkdirSync(work, { recursive: true });
  const out = path.join(work, 'dist');
  const r = runBinary(['synth', '--fleet', fleetDir, '--out', out, '--now', NOW, '--no-cache'], work);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** The RegistryCacheConfigs of each runtime's skr-config/, by runtime. */
function renderedConfigs(dist: string): Map<string, Rec[]> {
  const out = new Map<string, Rec[]>();
  for (const runtime of fs.readdirSync(path.join(dist, 'runtimes')).sort()) {
    const dir = path.join(dist, 'runtimes', runtime, 'skr-config');
    if (!fs.existsSync(dir)) continue;
    const configs = fs.readdirSync(dir).sort().flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJS() as Rec)).filter((o) => o?.kind === 'RegistryCacheConfig');
    if (configs.length > 0) out.set(runtime, configs);
  }
  return out;
}

function hostsOf(configs: Iterable<Rec[]>): string[] {
  const hosts = new Set<string>();
  for (const list of configs) {
    for (const c of list) {
      hosts.add(String(c.spec.upstream));
      if (c.spec.remoteURL) hosts.add(new URL(c.spec.remoteURL).hostname);
    }
  }
  return [...hosts];
}

/** What the runtime owner provides: the credential Secret a cache names, in the form the module requires. */
const credentials = (name: string, namespace: string, immutable = true): Rec => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, immutable,
  data: { username: Buffer.from('u').toString('base64'), password: Buffer.from('p').toString('base64') },
});

const rcc = (name: string, namespace: string, spec: Rec): Rec => ({ apiVersion: 'core.kyma-project.io/v1beta1', kind: 'RegistryCacheConfig', metadata: { name, namespace }, spec });
const yamlOf = (objects: Rec[]) => objects.map((o) => stringify(o)).join('---\n');

describeWithTool('registry-cache webhook', WEBHOOK_SKIP_ENV, 'the registry-cache module\'s webhook on the test cluster', () => {
  let cluster: TestCluster;
  let example: Map<string, Rec[]>;
  let generated: Map<string, Rec[]>;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-rc-webhook-'));
    example = renderedConfigs(synth(EXAMPLE_FLEET, 'example'));
    const fleet = path.join(tmp, 'generated', 'fleet');
    generateFleet(fleet, 50, 27);
    generated = renderedConfigs(synth(fleet, 'generated'));
    const binary = process.env[WEBHOOK_ENV] ?? (await ensureRegistryCacheWebhook((line) => process.stderr.write(`registry-cache webhook: ${line}\n`)));
    // The hosts of every rendered cache resolve for the webhook, and ghcr.io for the tests below; nothing else does.
    const resolvableHosts = [...hostsOf(example.values()), ...hostsOf(generated.values()), 'ghcr.io'];
    cluster = await startTestCluster({ crds: CRDS, addons: [registryCacheWebhook({ resolvableHosts, binary })] });
    for (const ns of ['kyma-system', 'team-a']) await cluster.kubectl(['create', 'namespace', ns]);
  }, 45 * 60_000);

  afterAll(async () => {
    await cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const apply = (objects: Rec[], check = true) => cluster.kubectl(['apply', '--server-side', '--field-manager=kyma-fleet', '-f', '-'], { input: yamlOf(objects), check });
  const deleteAllConfigs = () => cluster.kubectl(['delete', RCC, '--all', '--all-namespaces', '--wait=true']);

  describe('refuses what the module refuses', () => {
    it('a second config for one upstream, in another namespace too', async () => {
      await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io' })]);
      const r = await apply([rcc('mine', 'team-a', { upstream: 'ghcr.io' })], false);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`${DENIED}: spec.upstream: Duplicate value: "ghcr.io"`);
      await deleteAllConfigs();
    });

    it('a changed volume size (immutable, ValidateRegistryConfigUpdate)', async () => {
      await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io', volume: { size: '10Gi' } })]);
      const r = await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io', volume: { size: '20Gi' } })], false);
      expect(r.stderr).toContain(`${DENIED}: spec.volume.size: Invalid value: "20Gi": field is immutable`);
      await deleteAllConfigs();
    });

    it('a credential Secret that is missing, or not immutable', async () => {
      const missing = await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull' })], false);
      expect(missing.stderr).toContain(`${DENIED}: spec.secretReferenceName: Invalid value: "ghcr-pull": secret ghcr-pull does not exist`);
      await apply([credentials('ghcr-pull', 'kyma-system', false)]);
      const mutable = await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io', secretReferenceName: 'ghcr-pull' })], false);
      expect(mutable.stderr).toContain('should be immutable');
      await cluster.kubectl(['delete', 'secret', 'ghcr-pull', '-n', 'kyma-system']);
    });

    it('an upstream or a remoteURL host that does not resolve (only the declared hosts do)', async () => {
      const r = await apply([rcc('nowhere', 'kyma-system', { upstream: 'registry.nowhere.example' })], false);
      expect(r.stderr).toContain(`${DENIED}: spec.upstream: Invalid value: "registry.nowhere.example": upstream is not DNS resolvable`);
      const remote = await apply([rcc('ghcr', 'kyma-system', { upstream: 'ghcr.io', remoteURL: 'https://mirror.nowhere.example' })], false);
      expect(remote.stderr).toContain(`${DENIED}: spec.remoteURL: Invalid value: "https://mirror.nowhere.example": remoteURL is not DNS resolvable`);
      // (An empty spec never reaches the webhook: the CRD requires spec.upstream first.)
    });
  });

  /** Applies each runtime's configs as its runtime gets them, then removes them (one runtime at a time). */
  async function admitsEveryRuntime(configs: Map<string, Rec[]>): Promise<number> {
    let admitted = 0;
    for (const [runtime, list] of configs) {
      const secrets = [...new Set(list.map((c) => c.spec.secretReferenceName).filter(Boolean))].map((s) => credentials(String(s), String(list[0]!.metadata.namespace)));
      if (secrets.length > 0) await apply(secrets);
      const r = await apply(list, false);
      expect(r.stderr, `${runtime}: the webhook refuses a rendered RegistryCacheConfig`).toBe('');
      admitted += list.length;
      await deleteAllConfigs();
      for (const s of secrets) await cluster.kubectl(['delete', 'secret', s.metadata.name, '-n', s.metadata.namespace]);
    }
    return admitted;
  }

  it('admits every RegistryCacheConfig of the example fleet\'s render', async () => {
    expect(example.size).toBeGreaterThan(3);
    const n = await admitsEveryRuntime(example);
    expect(n).toBeGreaterThan(example.size);
  }, 300_000);

  it('admits every RegistryCacheConfig of a generated fleet of 50 runtimes', async () => {
    expect(generated.size).toBeGreaterThanOrEqual(40);
    await admitsEveryRuntime(generated);
  }, 600_000);

  it('a user\'s own config for docker.io: the fleet\'s apply fails with the webhook\'s words', async () => {
    const [runtime, list] = [...example].find(([, l]) => l.some((c) => c.spec.upstream === 'docker.io'))!;
    await apply([rcc('my-docker-cache', 'team-a', { upstream: 'docker.io' })]);
    const secrets = [...new Set(list.map((c) => c.spec.secretReferenceName).filter(Boolean))].map((s) => credentials(String(s), 'kyma-system'));
    if (secrets.length > 0) await apply(secrets);
    const r = await apply(list, false);
    expect(r.code, runtime).not.toBe(0);
    expect(r.stderr).toContain(`${DENIED}: spec.upstream: Duplicate value: "docker.io"`);
    await deleteAllConfigs();
    for (const s of secrets) await cluster.kubectl(['delete', 'secret', s.metadata.name, '-n', 'kyma-system']);
  });

  it('a volume size change the webhook refuses is refused by kyma-fleet validate and synth first, at its file:line', async () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW, '--no-cache']).code).toBe(0);
      const before = renderedConfigs(path.join(fx.dir, 'dist')).get('acme-eu-prod-1')!;
      const europe = before.find((c) => c.spec.upstream === 'europe-docker.pkg.dev')!;
      fx.replace('groups/europe.yaml', `size: ${europe.spec.volume.size}`, 'size: 31Gi');
      const immutable = /^fleet\/groups\/europe\.yaml:20:\d+: error at .*volume\.size: Invalid value: "31Gi": field is immutable .*\[E_IMMUTABLE_FIELD\]$/m;
      const validate = fx.runBinary(['validate', '--now', NOW]);
      expect(validate.code).toBe(1);
      expect(validate.stderr).toMatch(immutable);
      const r = fx.runBinary(['synth', '--now', NOW, '--no-cache']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(immutable);
      // The webhook refuses the same change on the runtime.
      await apply([credentials('gar-europe-pull', 'kyma-system')]);
      await apply([europe]);
      const changed = await apply([{ ...europe, spec: { ...europe.spec, volume: { ...europe.spec.volume, size: '31Gi' } } }], false);
      expect(changed.stderr).toContain(`${DENIED}: spec.volume.size: Invalid value: "31Gi": field is immutable`);
      await deleteAllConfigs();
    } finally {
      fx.cleanup();
    }
  });

  it('caches moved to another namespace: the webhook refuses the new config while the old one is there, kyma-fleet refuses the move first', async () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.runBinary(['synth', '--now', NOW, '--no-cache']).code).toBe(0);
      const before = renderedConfigs(path.join(fx.dir, 'dist')).get('acme-eu-dev-1')!;
      const docker = before.find((c) => c.spec.upstream === 'docker.io')!;
      fx.append('runtimes/acme-eu-dev-1.yaml', '  extensions:\n    registry-cache:\n      namespace: team-a\n');
      const r = fx.runBinary(['validate', '--now', NOW]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^fleet\/runtimes\/acme-eu-dev-1\.yaml:\d+:\d+: error at extensions\.registry-cache\.namespace: cannot move the RegistryCacheConfig of "docker\.io", .* to "team-a" in one synth: .*\[E_CACHE_NAMESPACE_MOVED\]$/m);
      // What Flux and Argo CD would do: apply the moved config while the old one still exists (they prune after the apply).
      await apply([docker]);
      const moved = await apply([{ ...docker, metadata: { ...docker.metadata, namespace: 'team-a' } }], false);
      expect(moved.code).not.toBe(0);
      expect(moved.stderr).toContain(`${DENIED}: spec.upstream: Duplicate value: "docker.io"`);
      await deleteAllConfigs();
    } finally {
      fx.cleanup();
    }
  });
});
