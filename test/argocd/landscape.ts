// The landscape the Argo CD scenarios run in, built from real parts:
//   - a KCP test cluster where Argo CD "runs": argo-cd's own Application, ApplicationSet and
//     AppProject CRDs (from the argo-cd module download), the argocd namespace with what an Argo CD
//     install puts there and the generators and controllers read (argocd-cm, argocd-secret, the
//     `default` AppProject);
//   - an SKR test cluster per runtime being delivered to (the Kyma CRD, kyma-system), registered
//     with an Argo CD cluster Secret as declarative-setup.md documents it (bearer token and CA of
//     the cluster; labels argocd.argoproj.io/secret-type: cluster and kyma-fleet.dev/runtime-id);
//   - a git repository holding the fleet and its render (`kyma-fleet synth` by the real CLI), served
//     to argocd-fleet's repo-server stand-in under the repoURL of fleet.yaml.
// The ApplicationSets go onto the KCP the documented way (`kubectl apply --server-side -k
// dist/gitops/argocd`).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import type { TestCluster } from '../cluster/harness';
import { BIN, testProcessEnv } from '../helpers/fleet-fixture';
import { argo, argoCrdFile, type AppSetRound, type ArgoContext, type TickResult } from './argocd-fleet';

export const ARGO_NS = 'argocd';
export const REPO_URL = 'https://github.com/acme/kyma-fleet.git';

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

  /** Turns Argo CD wiring on with REPO_URL (and the given extra argocd options) in fleet.yaml. */
  enableArgoCd(extra: Record<string, unknown> = {}, gitops: Record<string, unknown> = {}): void {
    const file = path.join(this.fleetDir, 'fleet.yaml');
    const doc = parse(fs.readFileSync(file, 'utf8'));
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

/** The name Argo CD knows the runtime's cluster by in these tests. */
export const clusterName = (runtimeID: string): string => `kyma-${runtimeID}`;

/**
 * Registers a runtime's cluster with Argo CD: a cluster Secret as declarative-setup.md ("Clusters")
 * documents it, bearer token and CA data of the SKR test cluster, labelled with the runtime ID.
 */
export async function registerRuntime(kcp: TestCluster, skr: TestCluster, runtimeID: string, server = skr.server): Promise<void> {
  const secret = {
    apiVersion: 'v1', kind: 'Secret',
    metadata: {
      name: `cluster-${runtimeID}`, namespace: ARGO_NS,
      labels: { 'argocd.argoproj.io/secret-type': 'cluster', 'kyma-fleet.dev/runtime-id': runtimeID },
    },
    type: 'Opaque',
    stringData: {
      name: clusterName(runtimeID),
      server,
      config: JSON.stringify({ bearerToken: skr.adminToken, tlsClientConfig: { insecure: false, caData: Buffer.from(skr.caPem).toString('base64') } }),
    },
  };
  await applyText(kcp, JSON.stringify(secret), 'kyma-fleet-test-register');
}

export async function unregisterRuntime(kcp: TestCluster, runtimeID: string): Promise<void> {
  await kcp.kubectl(['delete', 'secret', '-n', ARGO_NS, `cluster-${runtimeID}`, '--ignore-not-found']);
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
