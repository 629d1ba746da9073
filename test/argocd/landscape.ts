// The landscape the Argo CD scenarios run in, built from real parts:
//   - a KCP test cluster where Argo CD "runs": argo-cd's own Application, ApplicationSet and
//     AppProject CRDs (from the argo-cd module download), the argocd namespace with what an Argo CD
//     install puts there and the generators and controllers read (argocd-cm, argocd-secret, the
//     `default` AppProject);
//   - an SKR test cluster per runtime being delivered to (the Kyma CRD, kyma-system);
//   - the runtimes registered with Argo CD the way a user does it (docs/applying.md, "Registering the
//     runtimes"): KIM's `kubeconfig-<runtimeID>` Secret in kcp-system (key `config`, KIM's labels)
//     holds a kubeconfig of the runtime's cluster, and the real built CLI `kyma-fleet register argocd`
//     writes the Argo CD cluster Secrets from it. No cluster Secret is written by hand. KIM itself
//     is played here (it cannot run without Gardener): its kubeconfigs carry a ServiceAccount token
//     of the SKR test cluster (bound to cluster-admin) that this file issues and revokes, where KIM
//     puts a Gardener admin kubeconfig it renews daily; placeholder servers (generate.test.ts, never
//     contacted) get a kubeconfig with a dummy token;
//   - a git repository holding the fleet and its render (`kyma-fleet synth` by the real CLI), served
//     to argocd-fleet's repo-server stand-in under the repoURL of fleet.yaml.
// The ApplicationSets go onto the KCP the documented way (`kubectl apply --server-side -k
// dist/gitops/argocd`).

import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import type { TestCluster } from '../cluster/harness';
import { BIN, testProcessEnv } from '../helpers/fleet-fixture';
import { argo, argoCrdFile, type AppSetRound, type ArgoContext, type ClusterCheck, type TickResult } from './argocd-fleet';

export const ARGO_NS = 'argocd';
export const REPO_URL = 'https://github.com/acme/kyma-fleet.git';
/** Where KIM keeps the kubeconfig-<runtimeID> Secrets (the fleet's kcpNamespace, default kcp-system). */
export const KCP_NS = 'kcp-system';
/**
 * fleet.yaml skrApiServers of the test fleets: the SKR test clusters (https://127.0.0.1:<port>) and
 * the placeholder servers generate.test.ts registers (https://api.<id>.kyma.example:443).
 */
export const SKR_API_SERVERS = ['127.0.0.1:*', '*.kyma.example'];

export function git(repo: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo, encoding: 'utf8',
    env: { ...testProcessEnv(), GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', HOME: repo },
  }).trim();
}

/** A workspace <dir>/fleet rendered into <dir>/dist, committed on branch main of a git repo at <dir>. */
export class FleetRepo {
  constructor(readonly dir: string) {}

  get fleetDir(): string {
    return path.join(this.dir, 'fleet');
  }

  get distDir(): string {
    return path.join(this.dir, 'dist');
  }

  /**
   * Turns Argo CD wiring on with REPO_URL (and the given extra argocd options) in fleet.yaml, and
   * allows the landscape's SKR servers (SKR_API_SERVERS) so that `register argocd` accepts KIM's
   * kubeconfigs for them.
   */
  enableArgoCd(extra: Record<string, unknown> = {}, gitops: Record<string, unknown> = {}): void {
    const file = path.join(this.fleetDir, 'fleet.yaml');
    const doc = parse(fs.readFileSync(file, 'utf8'));
    doc.spec.skrApiServers = SKR_API_SERVERS;
    doc.spec.gitops = { ...(doc.spec.gitops ?? {}), ...gitops };
    doc.spec.gitops.argocd = { ...(doc.spec.gitops.argocd ?? {}), enabled: true, repoURL: REPO_URL, targetRevision: 'main', ...extra };
    fs.writeFileSync(file, stringify(doc));
  }

  /** `kyma-fleet synth` with the real binary (lib/ must be built). */
  synth(): void {
    fs.rmSync(this.distDir, { recursive: true, force: true });
    execFileSync(process.execPath, [BIN, 'synth', '--fleet', this.fleetDir, '--out', this.distDir], { cwd: this.dir, env: testProcessEnv(), encoding: 'utf8', stdio: 'pipe' });
  }

  /** Commits everything; returns the commit SHA. */
  commit(message: string): string {
    if (!fs.existsSync(path.join(this.dir, '.git'))) git(this.dir, ['init', '-q', '-b', 'main']);
    git(this.dir, ['add', '-A']);
    git(this.dir, ['commit', '-q', '--allow-empty', '-m', message]);
    return git(this.dir, ['rev-parse', 'HEAD']);
  }

  /** The runtimes' JSON files the ApplicationSets' git generator reads (whatever the layout: found via the appsets). */
  runtimeFiles(): Array<Record<string, string>> {
    const out: Array<Record<string, string>> = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.json')) out.push(JSON.parse(fs.readFileSync(p, 'utf8')));
      }
    };
    walk(path.join(this.distDir, 'gitops', 'argocd'));
    return out;
  }
}

/** Applies a YAML/JSON text with server-side apply as admin. */
export async function applyText(cluster: TestCluster, text: string, manager = 'kyma-fleet-test'): Promise<void> {
  await cluster.kubectl(['apply', '--server-side', '--force-conflicts', `--field-manager=${manager}`, '-f', '-'], { input: text });
}

/** What an Argo CD install leaves in its namespace that the code under test reads, and argo-cd's CRDs. */
export async function installArgoCd(kcp: TestCluster): Promise<void> {
  await kcp.kubectl(['apply', '--server-side', '--field-manager=argocd-install', '-f', argoCrdFile('application'), '-f', argoCrdFile('applicationset'), '-f', argoCrdFile('appproject')]);
  for (const plural of ['applications', 'applicationsets', 'appprojects']) await waitListable(kcp, `/apis/argoproj.io/v1alpha1/${plural}`);
  const labels = { 'app.kubernetes.io/part-of': 'argocd' };
  const items = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ARGO_NS } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm', namespace: ARGO_NS, labels: { ...labels, 'app.kubernetes.io/name': 'argocd-cm' } }, data: {} },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'argocd-secret', namespace: ARGO_NS, labels: { ...labels, 'app.kubernetes.io/name': 'argocd-secret' } }, type: 'Opaque', stringData: { 'server.secretkey': 'test-only' } },
  ];
  await applyText(kcp, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), 'argocd-install');
  // the AppProject `default` the Argo CD server creates at start (every source, destination and kind)
  await applyText(kcp, JSON.stringify({
    apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'default', namespace: ARGO_NS },
    spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }], clusterResourceWhitelist: [{ group: '*', kind: '*' }] },
  }), 'argocd-server');
}

async function waitListable(cluster: TestCluster, apiPath: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if ((await cluster.request('GET', `${apiPath}?limit=1`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${apiPath} never listed`);
}

/** The name Argo CD knows the runtime's cluster by (gitops.argocd.skrClusterName's default, kyma-{{runtimeID}}). */
export const clusterName = (runtimeID: string): string => `kyma-${runtimeID}`;

/** A kubeconfig as KIM hands it out: one cluster (server and CA), one user, one context. */
export function kimKubeconfig(server: string, caPem: string | undefined, user: Record<string, string>): string {
  return stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'shoot', cluster: { server, ...(caPem ? { 'certificate-authority-data': Buffer.from(caPem).toString('base64') } : {}) } }],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'shoot', context: { cluster: 'shoot', user: 'admin' } }],
    'current-context': 'shoot',
  });
}

/**
 * KIM's part: the runtimes' `kubeconfig-<runtimeID>` Secrets on the KCP (kcp-system, key `config`,
 * the labels KIM sets, kyma-gardener-apis.md section 9), created or replaced, by runtime ID.
 */
export async function putKimKubeconfigs(kcp: TestCluster, kubeconfigs: Record<string, string>): Promise<void> {
  const items: unknown[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: KCP_NS } }];
  for (const [runtimeID, kubeconfig] of Object.entries(kubeconfigs)) {
    const id = runtimeID.toLowerCase();
    items.push({
      apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
      metadata: { name: `kubeconfig-${id}`, namespace: KCP_NS, labels: { 'kyma-project.io/runtime-id': id, 'operator.kyma-project.io/kyma-name': id } },
      data: { config: Buffer.from(kubeconfig).toString('base64') },
    });
  }
  await applyText(kcp, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), 'infrastructure-manager');
}

/** One runtime's KIM Secret (putKimKubeconfigs); undefined deletes it, as when the runtime is deprovisioned. */
export async function putKimKubeconfig(kcp: TestCluster, runtimeID: string, kubeconfig: string | undefined): Promise<void> {
  if (kubeconfig !== undefined) return putKimKubeconfigs(kcp, { [runtimeID]: kubeconfig });
  await kcp.kubectl(['delete', 'secret', '-n', KCP_NS, `kubeconfig-${runtimeID.toLowerCase()}`, '--ignore-not-found']);
}

/** An admin credential of an SKR test cluster, as a KIM kubeconfig carries one. */
export interface SkrCredential {
  /** The ServiceAccount (kube-system) the token belongs to. */
  readonly serviceAccount: string;
  /** The user the SKR authenticates the token as. */
  readonly user: string;
  readonly token: string;
  /** A kubeconfig of the SKR with this credential. */
  readonly kubeconfig: string;
}

/**
 * Issues a fresh admin credential on the SKR: a ServiceAccount `name` in kube-system bound to
 * cluster-admin and a token for it from the TokenRequest API (`kubectl create token`, 24 h like
 * Gardener's admin kubeconfigs). The test cluster signs ServiceAccount tokens with its own key.
 */
export async function issueSkrCredential(skr: TestCluster, name: string): Promise<SkrCredential> {
  await applyText(skr, JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }],
      },
    ],
  }), 'infrastructure-manager');
  const token = (await skr.kubectl(['create', 'token', name, '-n', 'kube-system', '--duration=24h'])).stdout.trim();
  if (!token) throw new Error(`kubectl create token ${name} gave no token`);
  return { serviceAccount: name, user: `system:serviceaccount:kube-system:${name}`, token, kubeconfig: kimKubeconfig(skr.server, skr.caPem, { token }) };
}

/**
 * Revokes a credential issueSkrCredential made: its ServiceAccount and binding are deleted, which
 * invalidates every token of it (the API server looks the ServiceAccount up for each token, and a
 * new one of the same name has another UID). Waits until the SKR refuses the token (401); the API
 * server caches a successful token authentication for up to 10 s.
 */
export async function revokeSkrCredential(skr: TestCluster, cred: SkrCredential): Promise<void> {
  await skr.kubectl(['delete', 'clusterrolebinding', cred.serviceAccount, '--ignore-not-found']);
  await skr.kubectl(['delete', 'serviceaccount', '-n', 'kube-system', cred.serviceAccount, '--ignore-not-found']);
  let status = 0;
  for (let i = 0; i < 120; i++) {
    status = (await skr.request('GET', '/api/v1/namespaces', { token: cred.token })).status;
    if (status === 401) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the SKR still answers ${status} to the revoked token of ${cred.user}`);
}

/** One runtime's line of `register argocd -o json` (schemas/output/register-argocd.schema.json). */
export interface RegisterEntry {
  runtime: string;
  runtimeID: string;
  outcome: 'created' | 'updated' | 'unchanged' | 'deleted' | 'not-registered';
  reason?: string;
  message?: string;
}

export interface RegisterResult {
  ok: boolean;
  runtimes: RegisterEntry[];
  counts: Record<RegisterEntry['outcome'], number>;
}

/**
 * `kyma-fleet register argocd` as a user runs it on a schedule: the real built CLI (lib/ must be
 * built) on the repository's fleet, with an operator kubeconfig whose context reaches the KCP, where
 * Argo CD runs too (--argocd-context defaults to the KCP context). Rejects unless it exits 0.
 */
export function registerArgoCd(kcp: TestCluster, repo: FleetRepo, args: string[] = []): Promise<RegisterResult> {
  const full = [BIN, 'register', 'argocd', '--fleet', repo.fleetDir, '--kubeconfig', kcp.adminKubeconfig, '--kcp-context', 'test-cluster', '-o', 'json', ...args];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, full, { cwd: repo.dir, env: testProcessEnv(), encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`kyma-fleet register argocd failed (${err.message}):\n${stdout}\n${stderr}`));
      const doc = JSON.parse(stdout) as RegisterResult;
      if (!doc.ok || stderr.trim() !== '') return reject(new Error(`kyma-fleet register argocd: ${stdout}\n${stderr}`));
      resolve(doc);
    });
  });
}

/**
 * The outcomes `register argocd` reported for a runtime ID, in its order. A runtime whose kubeconfig
 * Secret is gone is listed twice: `not-registered` (NoCredentials), then `deleted` for its Secret.
 */
export function outcomesOf(result: RegisterResult, runtimeID: string): Array<RegisterEntry['outcome']> {
  return result.runtimes.filter((e) => e.runtimeID === runtimeID.toLowerCase()).map((e) => e.outcome);
}

/** The cluster Secrets in Argo CD's namespace (label argocd.argoproj.io/secret-type=cluster), by name. */
export async function clusterSecrets(kcp: TestCluster): Promise<Map<string, any>> {
  const r = await kcp.kubectl(['get', 'secrets', '-n', ARGO_NS, '-l', 'argocd.argoproj.io/secret-type=cluster', '-o', 'json']);
  return new Map((JSON.parse(r.stdout).items as any[]).map((s) => [s.metadata.name as string, s]));
}

export function argoContext(kcp: TestCluster, repo: FleetRepo): ArgoContext {
  return { kubeconfig: kcp.adminKubeconfig, namespace: ARGO_NS, repos: { [REPO_URL]: repo.dir } };
}

/**
 * The bootstrap: `kubectl apply --server-side -k <dist>/gitops/argocd` on the KCP (what docs/applying.md
 * says), then every Application that applied (an app-of-apps level such as the shard Applications)
 * synced by the application controller step (app-tick) until its operation succeeded, so that the
 * ApplicationSets are on the cluster whatever level of the wiring lists them.
 */
export async function bootstrapAppSets(kcp: TestCluster, ctx: ArgoContext, repo: FleetRepo, clock: Clock): Promise<void> {
  const r = await kcp.kubectl(['apply', '--server-side', '--field-manager=kyma-fleet-bootstrap', '-k', path.join(repo.distDir, 'gitops', 'argocd'), '-o', 'json']);
  const applied = JSON.parse(r.stdout) as { kind: string; items?: Array<{ kind: string; metadata: { name: string } }>; metadata?: { name: string } };
  const items = applied.kind === 'List' ? applied.items ?? [] : [applied as { kind: string; metadata: { name: string } }];
  for (const app of items.filter((i) => i.kind === 'Application')) {
    let last: TickResult | undefined;
    for (let i = 0; i < 5; i++) {
      last = await tick(ctx, app.metadata.name, clock);
      if (last.operationState?.phase === 'Succeeded' && last.sync.status === 'Synced') break;
      clock.advance(60);
    }
    if (last?.operationState?.phase !== 'Succeeded') throw new Error(`bootstrap: Application ${app.metadata.name} did not sync: ${JSON.stringify(last)}`);
  }
}

/** One round of the real ApplicationSet controller; fails when an ApplicationSet was not reconciled to the end. */
export async function appSetRound(ctx: ArgoContext): Promise<AppSetRound> {
  const round = await argo<AppSetRound>('appset-controller', ctx, ['--timeout', '90s']);
  const stuck = round.applicationSets.filter((a) => !a.refreshed);
  if (stuck.length > 0) throw new Error(`ApplicationSet controller did not finish: ${JSON.stringify(stuck)}`);
  return round;
}

/** Names of the runtimes' Applications on the KCP (label kyma-fleet.dev/target; not the app-of-apps levels). */
export async function applicationNames(kcp: TestCluster): Promise<string[]> {
  const r = await kcp.kubectl(['get', 'applications', '-n', ARGO_NS, '-l', 'kyma-fleet.dev/target', '-o', 'jsonpath={.items[*].metadata.name}']);
  return r.stdout.split(/\s+/).filter(Boolean).sort();
}

export async function getApplication(kcp: TestCluster, name: string): Promise<any | undefined> {
  const r = await kcp.kubectl(['get', 'application', '-n', ARGO_NS, name, '-o', 'json'], { check: false });
  if (r.code !== 0) return undefined;
  return JSON.parse(r.stdout);
}

/** A virtual clock for the re-enacted application controller (backoffs are real durations on it). */
export class Clock {
  private t = Date.parse('2026-11-27T12:00:00Z');
  now(): string {
    return new Date(this.t).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
}

/** One pass of the application controller over one Application at the clock's time. */
export function tick(ctx: ArgoContext, app: string, clock: Clock, opts: { sync?: boolean } = {}): Promise<TickResult> {
  return argo<TickResult>('app-tick', ctx, ['--app', app, '--now', clock.now(), ...(opts.sync ? ['--sync'] : [])]);
}

/** argo-cd's own view of a registered cluster: its Secret resolved and its REST config used (clustercheck.go). */
export function clusterCheck(ctx: ArgoContext, name: string): Promise<ClusterCheck> {
  return argo<ClusterCheck>('cluster-check', ctx, ['--cluster', name]);
}
