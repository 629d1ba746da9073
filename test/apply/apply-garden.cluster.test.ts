// `kyma-fleet apply garden` against the real API server of the test cluster (test/cluster/), with the
// stand-in Shoot CRD (real resourceVersions, 409 conflicts, generations; no Gardener admission):
// the fleet's entries land beside KIM's, which stay byte for byte and in place; a second run writes
// nothing; Shoots that are not the runtime's, bad credentials and missing rights are refused per the
// contract; a second writer hammering the same Shoots loses no update; and a kill at any moment
// leaves every Shoot as it was or as intended, never half-written. All through the real binary.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateFleet } from '../../bench/generate-fleet';
import { fleetWrittenTypes } from '../../src/apply/garden-targets';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { BIN, EXAMPLE_FLEET, NOW, runBinary, testProcessEnv } from '../helpers/fleet-fixture';

type Rec = Record<string, any>;

const FALCO = 'shoot-falco-service';
const RUNTIME_ID_ANNOTATION = 'infrastructuremanager.kyma-project.io/runtime-id';
const SHOOT_CRD = 'shoots.core.gardener.cloud';

interface Runtime {
  name: string;
  runtimeID: string;
  namespace: string;
  shoot: string;
  /** The rendered Falco entry in dist/ (undefined: the fleet writes nothing into this Shoot). */
  falco?: Rec;
  /** Every rendered entry of a type apply garden writes (Falco, Lakom, ...), in type order. */
  owned: Rec[];
  /** The rendered spec.resources entries those entries reference. */
  resources: Rec[];
}

/** KIM's entries as KIM writes them: every test Shoot starts with these. */
function kimEntries(i: number): { extensions: Rec[]; resources: Rec[] } {
  return {
    extensions: [
      { type: 'shoot-dns-service', providerConfig: { apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1', kind: 'DNSConfig', syncProvidersFromShootSpecDNS: true } },
      { type: 'shoot-cert-service', providerConfig: { apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1', kind: 'CertConfig', shootIssuers: { enabled: true } } },
      { type: 'shoot-oidc-service', providerConfig: { counter: 0 } },
      {
        type: 'registry-cache',
        providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: [{ upstream: 'docker.io', secretReferenceName: `reg-cache-${i}` }] },
      },
    ],
    resources: [{ name: `reg-cache-${i}`, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: `reg-cache-${i}` } }],
  };
}

/** The runtimes of a rendered workspace, with their rendered Falco entry from dist/. */
function runtimesOf(workspace: string): Runtime[] {
  const out: Runtime[] = [];
  for (const file of fs.readdirSync(path.join(workspace, 'fleet', 'runtimes')).filter((f) => f.endsWith('.yaml')).sort()) {
    const doc = parse(fs.readFileSync(path.join(workspace, 'fleet', 'runtimes', file), 'utf8')) as Rec;
    const name = doc.metadata.name as string;
    const gardenDir = path.join(workspace, 'dist', 'runtimes', name, 'garden');
    const shootFile = fs.existsSync(gardenDir) ? fs.readdirSync(gardenDir).find((f) => f.startsWith('shoot-')) : undefined;
    const fragment = shootFile ? (parse(fs.readFileSync(path.join(gardenDir, shootFile), 'utf8')) as Rec) : undefined;
    const falco = (fragment?.spec?.extensions ?? []).find((e: Rec) => e.type === FALCO);
    const written = fleetWrittenTypes();
    const owned = ((fragment?.spec?.extensions ?? []) as Rec[]).filter((e) => written.has(e.type)).sort((a, b) => (a.type < b.type ? -1 : 1));
    const referenced = new Set(owned.flatMap((e) => Object.values(e.providerConfig ?? {}).flatMap(function strings(v: unknown): string[] {
      return typeof v === 'string' ? [v] : typeof v === 'object' && v !== null ? Object.values(v).flatMap(strings) : [];
    })));
    const resources = ((fragment?.spec?.resources ?? []) as Rec[]).filter((res) => referenced.has(res.name));
    out.push({ name, runtimeID: doc.spec.runtimeID, namespace: `garden-${doc.spec.shoot.project}`, shoot: doc.spec.shoot.name, ...(falco ? { falco } : {}), owned, resources });
  }
  return out;
}

function workspace(fleet: (dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-garden-'));
  fleet(path.join(dir, 'fleet'));
  const synth = runBinary(['synth', '--now', NOW, '--no-cache'], dir);
  if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);
  return dir;
}

const shootPath = (r: Runtime): string => `/apis/core.gardener.cloud/v1beta1/namespaces/${r.namespace}/shoots/${r.shoot}`;

describeWithCluster('kyma-fleet apply garden on a real API server', () => {
  let cluster: TestCluster;
  const cleanup: string[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: [SHOOT_CRD] });
  }, 600_000);
  afterAll(async () => {
    await cluster?.stop();
    for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
  });

  async function api(method: string, apiPath: string, body?: unknown, as: 'admin' | 'narrow' = 'admin'): Promise<{ status: number; body: Rec }> {
    const r = await cluster.request(method, apiPath, { as, ...(body === undefined ? {} : { body }) });
    return { status: r.status, body: r.body ? (JSON.parse(r.body) as Rec) : {} };
  }

  async function ensureNamespace(ns: string): Promise<void> {
    const r = await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    if (r.status !== 201 && r.status !== 409) throw new Error(`namespace ${ns}: ${r.status}`);
  }

  /** (Re)creates the Shoots of these runtimes with KIM's entries only; returns them as stored. */
  async function freshShoots(runtimes: readonly Runtime[], annotate: (r: Runtime) => Record<string, string> = (r) => ({ [RUNTIME_ID_ANNOTATION]: r.runtimeID })): Promise<Map<string, Rec>> {
    const stored = new Map<string, Rec>();
    for (const [i, r] of runtimes.entries()) {
      await ensureNamespace(r.namespace);
      await api('DELETE', shootPath(r));
      const created = await api('POST', `/apis/core.gardener.cloud/v1beta1/namespaces/${r.namespace}/shoots`, {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: r.shoot, namespace: r.namespace, annotations: annotate(r) },
        spec: { region: 'eu-central-1', ...kimEntries(i) },
      });
      if (created.status !== 201) throw new Error(`create shoot ${r.shoot}: ${created.status} ${JSON.stringify(created.body)}`);
      stored.set(r.name, created.body);
    }
    return stored;
  }

  async function getShoot(r: Runtime): Promise<Rec> {
    const got = await api('GET', shootPath(r));
    if (got.status !== 200) throw new Error(`get ${r.shoot}: ${got.status}`);
    return got.body;
  }

  function apply(ws: string, args: string[], kubeconfig = cluster.adminKubeconfig): ReturnType<typeof runBinary> {
    return runBinary(['apply', 'garden', '--kubeconfig', kubeconfig, '--garden-context', 'test-cluster', '--now', NOW, ...args], ws);
  }

  /** What the Shoot must hold after the fleet's run: KIM's entries in place, the fleet's entries appended. */
  function intended(before: Rec, r: Runtime): Rec[] {
    return [...before.spec.extensions, ...r.owned];
  }

  it('writes only the fleet\'s entries (Falco, Lakom); KIM entries stay byte for byte and in place; a second run writes nothing', async () => {
    const ws = workspace((dir) => fs.cpSync(EXAMPLE_FLEET, dir, { recursive: true }));
    cleanup.push(ws);
    const runtimes = runtimesOf(ws);
    expect(runtimes.filter((r) => r.falco).length).toBeGreaterThanOrEqual(2);
    const before = await freshShoots(runtimes);

    // The mass-change guard first: 6 of 7 Shoots at once is refused, and nothing is written.
    const guarded = apply(ws, []);
    expect(guarded.code, guarded.stderr).toBe(1);
    expect(guarded.stderr).toMatch(/would write \d+ of the fleet's 7 Shoots .*--allow-mass-change \(nothing written\) \[E_MASS_CHANGE\]/);
    for (const r of runtimes) expect((await getShoot(r)).metadata.resourceVersion).toBe(before.get(r.name)!.metadata.resourceVersion);

    const first = apply(ws, ['--allow-mass-change', '--output', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Rec;
    for (const r of runtimes) {
      const live = await getShoot(r);
      const old = before.get(r.name)!;
      expect(live.spec.extensions, r.name).toStrictEqual(intended(old, r));
      // KIM's entries: the same bytes as before, at the same positions.
      for (const [i, e] of old.spec.extensions.entries()) expect(JSON.stringify(live.spec.extensions[i])).toBe(JSON.stringify(e));
      expect(live.spec.resources).toStrictEqual([...old.spec.resources, ...r.resources]);
      expect(live.metadata.generation).toBe(r.owned.length > 0 ? 2 : 1);
      const row = report.runtimes.find((x: Rec) => x.name === r.name);
      if (r.owned.length > 0) expect(row).toMatchObject({ outcome: 'Applied', types: r.owned.map((e) => e.type), generation: 2 });
      else expect(row).toBeUndefined();
    }

    const second = apply(ws, []);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/0 written, \d+ up to date/);
    for (const r of runtimes) expect((await getShoot(r)).metadata.generation, r.name).toBe(r.owned.length > 0 ? 2 : 1);

    const saved = JSON.parse(fs.readFileSync(path.join(ws, 'fleet', 'status', 'garden-apply.json'), 'utf8')) as Rec;
    for (const r of runtimes.filter((x) => x.owned.length > 0)) expect(saved.runtimes[r.name]).toMatchObject({ outcome: 'Unchanged', generation: 2 });
  });

  it('turning Falco off replaces the fleet entry in place with disabled: true', async () => {
    const ws = workspace((dir) => fs.cpSync(EXAMPLE_FLEET, dir, { recursive: true }));
    cleanup.push(ws);
    const r = runtimesOf(ws).find((x) => x.name === 'acme-us-dev-2')!;
    const before = (await freshShoots([r])).get(r.name)!;
    expect(apply(ws, [r.name]).code).toBe(0);
    expect((await getShoot(r)).spec.extensions).toStrictEqual(intended(before, r));
    const file = path.join(ws, 'fleet', 'runtimes', `${r.name}.yaml`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('    falco:\n      enabled: true\n', '    falco:\n      enabled: false\n'));
    const synth = runBinary(['synth', '--now', NOW, '--no-cache'], ws);
    expect(synth.code, synth.stderr).toBe(0);
    const off = apply(ws, [r.name]);
    expect(off.code, off.stderr).toBe(0);
    const live = await getShoot(r);
    expect(live.spec.extensions).toStrictEqual([...before.spec.extensions, ...r.owned.map((e) => (e.type === FALCO ? { type: FALCO, disabled: true } : e))]);
  });

  it('refuses a Shoot that is not the runtime\'s, an unknown runtime, a stale dist/ and an exec kubeconfig, writing nothing', async () => {
    const ws = workspace((dir) => fs.cpSync(EXAMPLE_FLEET, dir, { recursive: true }));
    cleanup.push(ws);
    const r = runtimesOf(ws).find((x) => x.name === 'acme-eu-prod-2')!;
    const other = '11111111-2222-4333-8444-555555555555';
    const before = (await freshShoots([r], () => ({ [RUNTIME_ID_ANNOTATION]: other }))).get(r.name)!;

    const refused = apply(ws, [r.name]);
    expect(refused.code).toBe(5);
    expect(refused.stdout).toContain(`acme-eu-prod-2: ${r.namespace}/${r.shoot}: refused (IdentityMismatch): the Shoot belongs to runtime ${other}`);
    expect((await getShoot(r)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    const unknown = apply(ws, ['acme-eu-prod-3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no runtime "acme-eu-prod-3" in fleet \(did you mean "acme-eu-prod-\d"\?\); nothing written/);

    const execConfig = path.join(ws, 'exec.kubeconfig');
    const kc = parse(fs.readFileSync(cluster.adminKubeconfig, 'utf8')) as Rec;
    kc.users[0].user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'touch pwned'] } };
    fs.writeFileSync(execConfig, JSON.stringify(kc));
    const exec = apply(ws, [r.name], execConfig);
    expect(exec.code).toBe(5);
    expect(exec.stderr).toMatch(/RefusedCredentials: .*exec credential plugin/);
    expect(fs.existsSync(path.join(ws, 'pwned'))).toBe(false);
    expect((await getShoot(r)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    fs.appendFileSync(path.join(ws, 'dist', 'runtimes', r.name, 'garden', fs.readdirSync(path.join(ws, 'dist', 'runtimes', r.name, 'garden')).find((f) => f.startsWith('shoot-'))!), '# edited\n');
    const stale = apply(ws, [r.name]);
    expect(stale.code).toBe(3);
    expect(stale.stderr).toMatch(/out of date with fleet; run kyma-fleet synth/);

    expect(fs.existsSync(path.join(ws, 'fleet', 'status', 'garden-apply.json'))).toBe(true);
  });

  it('a user without rights on Shoots fails per runtime (Forbidden); a wrong token stops the run (401)', async () => {
    const ws = workspace((dir) => fs.cpSync(EXAMPLE_FLEET, dir, { recursive: true }));
    cleanup.push(ws);
    const r = runtimesOf(ws).find((x) => x.name === 'acme-eu-prod-2')!;
    const before = (await freshShoots([r])).get(r.name)!;
    const narrow = apply(ws, [r.name], cluster.narrowKubeconfig);
    expect(narrow.code).toBe(5);
    expect(narrow.stdout).toMatch(/acme-eu-prod-2: .*: failed \(Forbidden\): get shoots.core.gardener.cloud .*403 Forbidden/);
    const report = JSON.parse(fs.readFileSync(path.join(ws, 'fleet', 'status', 'garden-apply.json'), 'utf8')) as Rec;
    expect(report.runtimes[r.name]).toMatchObject({ outcome: 'Failed', reason: 'Forbidden' });

    const wrong = path.join(ws, 'wrong.kubeconfig');
    fs.writeFileSync(wrong, fs.readFileSync(cluster.adminKubeconfig, 'utf8').replace(cluster.adminToken, 'not-a-token'));
    const unauthorized = apply(ws, [r.name], wrong);
    expect(unauthorized.code).toBe(5);
    expect(unauthorized.stderr).toMatch(/apply garden: error: Unauthorized: Garden \(context "test-cluster"\): .*401/);
    expect((await getShoot(r)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('contention: a second writer updating other entries of 60 Shoots loses no update, and neither does apply garden', async () => {
    // Every runtime of the generated fleet has a Falco entry (its config, or disabled: true).
    const ws = workspace((dir) => generateFleet(dir, 60, 7));
    cleanup.push(ws);
    const runtimes = runtimesOf(ws).filter((r) => r.falco);
    expect(runtimes.length).toBeGreaterThanOrEqual(50);
    const before = await freshShoots(runtimes);

    // The second writer: read-modify-write of the oidc entry's counter, with the resourceVersion it read.
    const writes = new Map(runtimes.map((r) => [r.name, 0]));
    let conflicts = 0;
    let applying = true;
    const writer = async (r: Runtime): Promise<void> => {
      while (applying || [...writes.values()].reduce((a, b) => a + b, 0) < 200) {
        const shoot = await getShoot(r);
        const oidc = shoot.spec.extensions.find((e: Rec) => e.type === 'shoot-oidc-service');
        oidc.providerConfig.counter += 1;
        const put = await api('PUT', shootPath(r), shoot);
        if (put.status === 200) writes.set(r.name, writes.get(r.name)! + 1);
        else if (put.status === 409) conflicts++;
        else throw new Error(`writer: ${put.status} ${JSON.stringify(put.body)}`);
        await new Promise((res) => setTimeout(res, 2 + Math.random() * 8));
      }
    };
    const writers = Promise.all(runtimes.map(writer));
    let appliedConflicts = 0;
    for (let round = 0; round < 3; round++) {
      const run = await runBinaryAsync(ws, ['apply', 'garden', '--kubeconfig', cluster.adminKubeconfig, '--garden-context', 'test-cluster', '--now', NOW, '--allow-mass-change', '--concurrency', '16', '--output', 'json']);
      const out = JSON.parse(run.stdout) as Rec;
      appliedConflicts += out.runtimes.reduce((a: number, x: Rec) => a + (x.attempts ? x.attempts - 1 : 0), 0);
      if (run.code === 0) break;
      // A Shoot whose every write met a conflict is reported Failed (Conflict); the next run finishes it.
      expect(out.runtimes.filter((x: Rec) => x.outcome === 'Failed').every((x: Rec) => x.reason === 'Conflict')).toBe(true);
    }
    applying = false;
    await writers;

    const total = [...writes.values()].reduce((a, b) => a + b, 0);
    console.log(`[contention] ${runtimes.length} Shoots: second writer ${total} writes (${conflicts} conflicts), apply garden ${appliedConflicts} conflicts`);
    expect(total).toBeGreaterThanOrEqual(200);
    expect(conflicts + appliedConflicts).toBeGreaterThan(0);
    for (const r of runtimes) {
      const live = await getShoot(r);
      const types = live.spec.extensions.map((e: Rec) => e.type);
      expect(types, r.name).toStrictEqual(['shoot-dns-service', 'shoot-cert-service', 'shoot-oidc-service', 'registry-cache', FALCO]);
      expect(live.spec.extensions.find((e: Rec) => e.type === 'shoot-oidc-service').providerConfig.counter, r.name).toBe(writes.get(r.name));
      expect(live.spec.extensions.find((e: Rec) => e.type === FALCO)).toStrictEqual(r.falco);
      expect(live.spec.extensions.find((e: Rec) => e.type === 'registry-cache')).toStrictEqual(before.get(r.name)!.spec.extensions[3]);
    }
  }, 600_000);

  it('killed at 30 random moments, every Shoot is as before or as intended, and the next run finishes', async () => {
    const ws = workspace((dir) => generateFleet(dir, 20, 11));
    cleanup.push(ws);
    const runtimes = runtimesOf(ws).filter((r) => r.falco);
    expect(runtimes.length).toBeGreaterThanOrEqual(10);
    const args = ['apply', 'garden', '--kubeconfig', cluster.adminKubeconfig, '--garden-context', 'test-cluster', '--now', NOW, '--allow-mass-change', '--concurrency', '2'];
    // How long a whole run takes here, to spread the kills over it.
    await freshShoots(runtimes);
    const t0 = Date.now();
    expect((await runBinaryAsync(ws, args)).code).toBe(0);
    const span = Date.now() - t0;
    let partial = 0;
    for (let i = 0; i < 30; i++) {
      const before = await freshShoots(runtimes);
      const killed = await runBinaryAsync(ws, args, Math.floor(Math.random() * span));
      let done = 0;
      for (const r of runtimes) {
        const live = await getShoot(r);
        const old = before.get(r.name)!.spec.extensions;
        if (JSON.stringify(live.spec.extensions) === JSON.stringify(old)) continue;
        expect(live.spec.extensions, `${r.name} after kill ${i}`).toStrictEqual(intended(before.get(r.name)!, r));
        done++;
      }
      if (done > 0 && done < runtimes.length) partial++;
      expect(killed.code === 0 || killed.signal === 'SIGKILL').toBe(true);
      const next = await runBinaryAsync(ws, args);
      expect(next.code, next.stderr).toBe(0);
      for (const r of runtimes) expect((await getShoot(r)).spec.extensions).toStrictEqual(intended(before.get(r.name)!, r));
    }
    console.log(`[kill] 30 kills over ${span} ms runs of ${runtimes.length} Shoots: ${partial} left some Shoots written and some not`);
  }, 900_000);
});

/** Runs the binary without blocking the event loop; with killAfterMs, SIGKILLs it after that long. */
function runBinaryAsync(cwd: string, args: string[], killAfterMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: testProcessEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
