// docs/access.md is the least privilege the live commands need, tested on a real API server (the
// test cluster of test/cluster/, one server standing for both the KCP and the Garden): its manifests
// are applied as written (the Garden's Role and RoleBinding once more for the second project
// namespace), its kubeconfig commands run as written with the pinned kubectl, and the service
// accounts they create run the real commands through the built CLI: status live, apply garden,
// import runtimes live and catalog refresh live, on the example fleet with the sample dump's Runtime
// CRs, Kyma CRs and Shoots created in the cluster. Then the rules are seen to be needed (the role
// without one makes a command report Forbidden: Runtime CRs, Secrets, ModuleReleaseMetas, get and
// patch on Shoots; not shown for the KCP's Kyma CRs, whose read failure no output names while the
// runtime itself cannot be reached, nor for `list`, which status only uses from 50 objects per
// namespace) and the accounts are seen to have nothing else (kubectl auth can-i). Issue 26.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { describeWithCluster } from '../cluster/describe-with-cluster';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';
import { moduleReleaseMetas } from '../onboard/kcp-dump';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>; [k: string]: any };

const CRDS = ['runtimes.infrastructuremanager.kyma-project.io', 'kymas.operator.kyma-project.io', 'modulereleasemetas.operator.kyma-project.io', 'shoots.core.gardener.cloud'];
const DOC = fs.readFileSync(path.join(REPO, 'docs/access.md'), 'utf8');
const SAMPLE = path.join(REPO, 'fleet-status-sample');

/** The fenced blocks of docs/access.md of one language, in order. */
function blocks(lang: string): string[] {
  return [...DOC.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
}
const [KCP_YAML, GARDEN_YAML] = blocks('yaml') as [string, string];
const KUBECONFIG_SH = blocks('sh')[0]!;
const docsOf = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj);

/** The objects of a dump file, as a client creates them (no server-set fields, no status). */
function dumpObjects(file: string): Obj[] {
  const text = fs.readFileSync(file, 'utf8');
  const doc = (file.endsWith('.json') ? JSON.parse(text) : parse(text)) as Obj & { items?: Obj[] };
  return (doc.items ?? [doc]).map((o) => {
    const { resourceVersion: _r, uid: _u, creationTimestamp: _c, generation: _g, managedFields: _m, finalizers: _f, ...metadata } = o.metadata;
    const { status: _s, ...rest } = o;
    return { ...rest, metadata };
  });
}

describeWithCluster('the least privilege of docs/access.md, on a real API server', () => {
  let cluster: TestCluster;
  let tmp: string;
  let kubeconfig: string;
  let fx: FleetFixture;
  const gardenNamespaces = ['garden-kyma-dev', 'garden-kyma-prod'];

  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input === undefined ? {} : { input });
  /** Runs the CLI in the fixture as the service accounts of the docs. */
  const cli = (args: string[], dir: string = fx.dir) => {
    const r = spawnSync(process.execPath, [path.join(REPO, 'bin/kyma-fleet.js'), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: tmp, KYMA_FLEET_CACHE_DIR: path.join(tmp, 'cache'), KUBECONFIG: '' } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const live = () => ['--kubeconfig', kubeconfig, '--kcp-context', 'kcp', '--garden-context', 'garden'];

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: CRDS });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-access-'));
    for (const ns of ['kcp-system', ...gardenNamespaces, 'garden-other']) await kubectl(['create', 'namespace', ns]);
    const objects = [
      ...dumpObjects(path.join(SAMPLE, 'kcp/runtimes.yaml')),
      ...dumpObjects(path.join(SAMPLE, 'kcp/kymas.json')),
      ...fs.readdirSync(path.join(SAMPLE, 'garden')).flatMap((f) => dumpObjects(path.join(SAMPLE, 'garden', f))),
      ...(moduleReleaseMetas() as Obj[]),
    ];
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }), timeoutMs: 120_000 });

    // The manifests of docs/access.md as written; the Garden's Role and RoleBinding also for the other project.
    await kubectl(['apply', '-f', '-'], KCP_YAML);
    await kubectl(['apply', '-f', '-'], GARDEN_YAML);
    const perProject = docsOf(GARDEN_YAML).filter((o) => o.kind !== 'ServiceAccount').map((o) => ({ ...o, metadata: { ...o.metadata, namespace: 'garden-kyma-dev' } }));
    await kubectl(['apply', '-f', '-'], perProject.map((o) => stringify(o)).join('---\n'));

    // The kubeconfig, built with the commands of docs/access.md as written.
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(cluster.binaries.kubectl, path.join(bin, 'kubectl'));
    const r = spawnSync('bash', ['-eo', 'pipefail', '-c', KUBECONFIG_SH], {
      cwd: tmp,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: tmp,
        KUBECONFIG: cluster.adminKubeconfig,
        KCP_ADMIN_CONTEXT: 'test-cluster',
        GARDEN_ADMIN_CONTEXT: 'test-cluster',
        KCP_SERVER: cluster.server,
        KCP_CA: cluster.caFile,
        GARDEN_SERVER: cluster.server,
        GARDEN_CA: cluster.caFile,
      },
    });
    if (r.status !== 0) throw new Error(`the kubeconfig commands of docs/access.md failed: ${r.stderr}`);
    kubeconfig = path.join(tmp, 'kyma-fleet.kubeconfig');

    fx = FleetFixture.example();
    const synth = cli(['synth', '--now', NOW, '--no-cache']);
    if (synth.code !== 0) throw new Error(`synth: ${synth.stderr}`);
  }, 900_000);

  afterAll(async () => {
    fx?.cleanup();
    await cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Every reason of the runtime states status wrote, as "runtime extension: Reason: message". */
  function statusReasons(dir: string): string[] {
    const out: string[] = [];
    for (const f of fs.readdirSync(path.join(dir, 'status')).filter((n) => n.endsWith('.yaml'))) {
      const doc = parse(fs.readFileSync(path.join(dir, 'status', f), 'utf8')) as { extensions?: Record<string, { state: string; reason: string; message?: string }> };
      for (const [ext, s] of Object.entries(doc.extensions ?? {})) out.push(`${f} ${ext}: ${s.state} ${s.reason}: ${s.message ?? ''}`);
    }
    return out;
  }

  function status(): { code: number | null; reasons: string[]; stderr: string; all: string } {
    const write = fs.mkdtempSync(path.join(tmp, 'status-'));
    fs.mkdirSync(path.join(write, 'status'));
    const r = cli(['status', ...live(), '--now', NOW, '--write', path.join(write, 'status')]);
    const files = fs.readdirSync(path.join(write, 'status')).map((f) => fs.readFileSync(path.join(write, 'status', f), 'utf8'));
    return { code: r.code, reasons: statusReasons(write), stderr: r.stderr, all: [r.stdout, r.stderr, ...files].join('\n') };
  }

  it('status live reads the KCP, the Secrets and the Shoots with these rights: no Forbidden', () => {
    const r = status();
    expect(r.code, r.stderr).toBe(0);
    expect(r.reasons.length).toBeGreaterThan(5);
    expect(r.reasons.filter((x) => /Forbidden/.test(x))).toEqual([]);
    // The Secrets were read (404, not 403): no kubeconfig Secret exists, so the runtimes have no credentials.
    expect(r.reasons.some((x) => / NoCredentials: /.test(x))).toBe(true);
  });

  it('apply garden writes the Shoot entries with get and patch on shoots', async () => {
    const r = cli(['apply', 'garden', '--kubeconfig', kubeconfig, '--garden-context', 'garden', '--allow-mass-change', '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/apply garden: \d+ Shoots? with entries the fleet writes: [1-9]\d* written/);
    const shoots = JSON.parse((await kubectl(['get', 'shoots', '-A', '-o', 'json'])).stdout) as { items: Obj[] };
    expect(shoots.items.some((s) => (s.spec.extensions as Obj[]).some((e) => e.type === 'shoot-falco-service'))).toBe(true);
  });

  it('import runtimes and catalog refresh read the KCP with these rights', () => {
    const copy = FleetFixture.example();
    try {
      const gone = 'acme-eu-prod-1';
      fs.rmSync(copy.path(`runtimes/${gone}.yaml`));
      const imp = cli(['import', 'runtimes', '--kubeconfig', kubeconfig, '--kcp-context', 'kcp', '--project', 'kyma-prod', '--dry-run', '--now', NOW], copy.dir);
      expect(imp.code, imp.stderr).toBe(0);
      expect(imp.stdout).toMatch(/would write/);
      const cat = cli(['catalog', 'refresh', '--kubeconfig', kubeconfig, '--kcp-context', 'kcp'], copy.dir);
      expect(cat.code, cat.stderr).toBe(0);
    } finally {
      copy.cleanup();
    }
  });

  it.each([
    ['KCP runtimes', 'kcp-system', 0, undefined, /forbidden[^\n]*runtimes/i],
    ['KCP secrets (get)', 'kcp-system', 3, undefined, /Forbidden[^\n]*secret/i],
    ['Garden shoots get', 'garden-kyma-prod', 0, 'get', /Forbidden[^\n]*shoots/i],
  ] as Array<[string, string, number, string | undefined, RegExp]>)('without the rule for %s, status reports Forbidden', async (_what, ns, ruleIndex, verb, forbidden) => {
    await withoutRule(ns, ruleIndex, verb, async () => {
      expect(status().all).toMatch(forbidden);
    });
  });

  it('without the KCP rule for runtimes import runtimes is refused; without modulereleasemetas catalog refresh is', async () => {
    await withoutRule('kcp-system', 0, undefined, async () => {
      const r = cli(['import', 'runtimes', '--kubeconfig', kubeconfig, '--kcp-context', 'kcp', '--project', 'kyma-prod', '--dry-run', '--now', NOW]);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/forbidden/i);
    });
    await withoutRule('kcp-system', 2, undefined, async () => {
      const r = cli(['catalog', 'refresh', '--kubeconfig', kubeconfig, '--kcp-context', 'kcp']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/forbidden/i);
    });
  });

  it('without patch on shoots apply garden writes nothing', async () => {
    // A Shoot that needs a write: its Falco entry removed behind kyma-fleet's back.
    const shoot = JSON.parse((await kubectl(['get', 'shoot', 'c-8b7c6d5', '-n', 'garden-kyma-prod', '-o', 'json'])).stdout) as Obj;
    shoot.spec.extensions = (shoot.spec.extensions as Obj[]).filter((e) => e.type !== 'shoot-falco-service');
    await kubectl(['replace', '-f', '-'], JSON.stringify(shoot));
    await withoutRule('garden-kyma-prod', 0, 'patch', async () => {
      const r = cli(['apply', 'garden', '--kubeconfig', kubeconfig, '--garden-context', 'garden', '--allow-mass-change', '--now', NOW, 'acme-eu-prod-2']);
      expect(`${r.stdout}${r.stderr}`, `exit ${String(r.code)}`).toMatch(/forbidden/i);
      expect(r.code).not.toBe(0);
    });
    const after = JSON.parse((await kubectl(['get', 'shoot', 'c-8b7c6d5', '-n', 'garden-kyma-prod', '-o', 'json'])).stdout) as Obj;
    expect((after.spec.extensions as Obj[]).some((e) => e.type === 'shoot-falco-service')).toBe(false);
  });

  it('the accounts may do nothing else', async () => {
    const can = async (context: string, ...args: string[]) => (await cluster.kubectl(['--kubeconfig', kubeconfig, '--context', context, 'auth', 'can-i', ...args], { check: false })).stdout.trim();
    expect(await can('kcp', 'get', 'secrets', '-n', 'kcp-system')).toBe('yes');
    for (const args of [
      ['list', 'secrets', '-n', 'kcp-system'],
      ['watch', 'secrets', '-n', 'kcp-system'],
      ['get', 'secrets', '-n', 'kube-system'],
      ['patch', 'runtimes.infrastructuremanager.kyma-project.io', '-n', 'kcp-system'],
      ['delete', 'kymas.operator.kyma-project.io', '-n', 'kcp-system'],
      ['list', 'runtimes.infrastructuremanager.kyma-project.io', '-A'],
      ['get', 'shoots.core.gardener.cloud', '-n', 'garden-kyma-prod'],
    ]) {
      expect(await can('kcp', ...args), `kcp: ${args.join(' ')}`).toBe('no');
    }
    expect(await can('garden', 'patch', 'shoots.core.gardener.cloud', '-n', 'garden-kyma-dev')).toBe('yes');
    for (const args of [
      ['update', 'shoots.core.gardener.cloud', '-n', 'garden-kyma-prod'],
      ['delete', 'shoots.core.gardener.cloud', '-n', 'garden-kyma-prod'],
      ['create', 'shoots.core.gardener.cloud', '-n', 'garden-kyma-prod'],
      ['get', 'shoots.core.gardener.cloud', '-n', 'garden-other'],
      ['get', 'secrets', '-n', 'garden-kyma-prod'],
      ['list', 'runtimes.infrastructuremanager.kyma-project.io', '-n', 'kcp-system'],
    ]) {
      expect(await can('garden', ...args), `garden: ${args.join(' ')}`).toBe('no');
    }
  });

  /** Runs `fn` with one rule (or one verb of it) removed from the docs' Role in `ns`, then restores the Role. */
  async function withoutRule(ns: string, ruleIndex: number, verb: string | undefined, fn: () => Promise<void>): Promise<void> {
    const source = ns === 'kcp-system' ? KCP_YAML : GARDEN_YAML;
    const role = docsOf(source).find((o) => o.kind === 'Role')!;
    const rules = role.rules!.flatMap((rule, i) => (i !== ruleIndex ? [rule] : verb === undefined ? [] : [{ ...rule, verbs: rule.verbs.filter((v) => v !== verb) }]));
    expect(JSON.stringify(rules), 'the rule to remove exists').not.toBe(JSON.stringify(role.rules));
    const narrowed = { ...role, metadata: { ...role.metadata, namespace: ns }, rules };
    await kubectl(['apply', '-f', '-'], stringify(narrowed));
    try {
      await fn();
    } finally {
      await kubectl(['apply', '-f', '-'], stringify({ ...role, metadata: { ...role.metadata, namespace: ns } }));
    }
  }
});
