// A real Kubernetes API server for tests: etcd and kube-apiserver built from source (tools.ts), started
// on 127.0.0.1 with free ports in a temporary folder, with static token authentication, RBAC and the
// CRDs of imports/crds/. One cluster per test file:
//
//   let cluster: TestCluster;
//   beforeAll(async () => { cluster = await startTestCluster(); });   // all CRDs; or { crds: [...] }
//   afterAll(() => cluster?.stop());
//
// and wrap the file's tests in describeWithCluster (describe-with-cluster.ts) so that they skip with
// one line on a machine without Go. What a cluster offers (TestCluster below):
// - server, caPem/caFile, adminToken/narrowToken, adminKubeconfig/narrowKubeconfig (files in its dir);
// - kubectl(args, { as: 'admin' | 'narrow', input, check }) runs the pinned kubectl;
// - request(method, path, { as | token, body }) one raw API call (for status codes such as 401/403);
// - installCrds(names) / deleteCrd(name) by CRD name (imports/crds/<name>.yaml), waiting until
//   every served version lists (Established and its watch cache ready) / until the CRD is gone;
// - stop(): ends every process it started and removes its folder; idempotent. Also done on process
//   exit and on SIGINT/SIGTERM/SIGHUP, and by a watchdog process if the test process is killed.
//
// Users: `kyma-fleet-admin` (group system:masters) and `kyma-fleet-narrow`, whose rights are listed at
// NARROW_RULES in cluster-files.ts (Kyma CRs, RegistryCacheConfigs, Runtimes; no Shoots).
// What the cluster is not: there is no kube-controller-manager, scheduler or kubelet. Namespaces can
// be created but a deleted namespace stays Terminating (no namespace controller); no garbage
// collection of owner references; no pods run. Admission plugins that need those controllers
// (ServiceAccount, StorageObjectInUseProtection, ResourceQuota) are disabled.

import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ADMIN_USER, NARROW_USER, narrowRbacYaml, writeKubeconfig, writeServiceAccountKeys, writeTokenFile } from './cluster-files';
import { IMPORTED_CRDS_DIR } from './paths';
import { endProcesses, freePort, httpRequest, killNow, logTail, pidAlive, pidRuns, startServer, waitUntil, type HttpResult, type ServerProcess } from './processes';
import { binariesFromEnv, ensureClusterBinaries, type ClusterBinaries } from './tools';

export interface StartTestClusterOptions {
  /** CRDs to install from imports/crds/ (by CRD name); default 'all'. */
  crds?: 'all' | readonly string[];
  /** Folder for the cluster (created; must not exist or be empty). Default: a new temporary folder. */
  dir?: string;
  /** The programs; default: from the global setup's environment, else built or reused now. */
  binaries?: ClusterBinaries;
  /**
   * Background mode (the CLI): the servers get their own process group, outlive this process and are
   * not stopped on its exit; no watchdog. stop() still works, and so does stopClusterInDir(dir).
   */
  detached?: boolean;
  /** Progress lines (build, start). */
  log?: (line: string) => void;
  /**
   * Programs started with the cluster once it is ready (CRDs installed), in order, e.g. the
   * registry-cache module's admission webhook (test/registry-cache-webhook/). Each returns the pids it
   * started (killed with the cluster's on process exit) and a stop, which stop() awaits first.
   */
  addons?: readonly ((cluster: TestCluster) => Promise<{ pids: readonly number[]; stop: () => Promise<void> }>)[];
}

export type ClusterUser = 'admin' | 'narrow';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  /** The cluster's folder (kubeconfigs, logs, etcd data); removed by stop(). */
  dir: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** The CA that signed the API server's serving certificate (PEM), and a file holding it. */
  caPem: string;
  caFile: string;
  adminToken: string;
  narrowToken: string;
  users: { admin: string; narrow: string };
  /** Kubeconfig files (context `test-cluster`, token user). */
  adminKubeconfig: string;
  narrowKubeconfig: string;
  ports: { apiserver: number; etcdClient: number; etcdPeer: number };
  pids: { etcd: number; apiserver: number };
  binaries: ClusterBinaries;
  /** Runs kubectl as a user (default admin). Rejects on a non-zero exit unless check: false. */
  kubectl(args: readonly string[], opts?: { as?: ClusterUser; input?: string; check?: boolean; timeoutMs?: number }): Promise<KubectlResult>;
  /** One API request: as a user (default admin), with any token, or anonymous (token: ''). */
  request(method: string, apiPath: string, opts?: { as?: ClusterUser; token?: string; body?: unknown; contentType?: string }): Promise<HttpResult>;
  /** Installs CRDs from imports/crds/ by name (server-side apply) and waits until they are Established and list. */
  installCrds(names: 'all' | readonly string[]): Promise<string[]>;
  /** Deletes a CRD (and with it its objects) and waits until it is gone. */
  deleteCrd(name: string): Promise<void>;
  /** Ends the servers, waits until they are gone, removes the folder. Idempotent. */
  stop(): Promise<void>;
}

/** What a background cluster's folder records (state.json), for stopClusterInDir and the CLI. */
export interface ClusterState {
  server: string;
  adminKubeconfig: string;
  narrowKubeconfig: string;
  ports: TestCluster['ports'];
  pids: TestCluster['pids'];
  binaries: ClusterBinaries;
}

export const STATE_FILE = 'state.json';

/** The CRD names available in imports/crds/ (sorted). */
export function availableCrds(): string[] {
  return fs.readdirSync(IMPORTED_CRDS_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
}

// ---- cleanup of live clusters when the process ends ----

const liveClusters = new Map<string, { pids: number[]; dir: string }>();
let handlersInstalled = false;

function cleanupAllNow(): void {
  for (const [key, c] of liveClusters) {
    killNow(c.pids);
    fs.rmSync(c.dir, { recursive: true, force: true });
    liveClusters.delete(key);
  }
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', cleanupAllNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      cleanupAllNow();
      process.removeListener(sig, handler);
      // keep the signal's usual effect unless someone else handles it
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, handler);
  }
}

/**
 * A detached node process that SIGKILLs the servers and removes the folder if this process dies
 * without running its exit handlers (e.g. a test worker killed with SIGKILL); it exits by itself once
 * the servers are gone.
 */
function startWatchdog(pids: number[], dir: string): number | undefined {
  const script = `
const fs = require('fs');
const [parent, dir, ...pids] = process.argv.slice(1);
const alive = (p) => { try { process.kill(Number(p), 0); return true; } catch (e) { return e.code === 'EPERM'; } };
setInterval(() => {
  if (!pids.some(alive)) process.exit(0);
  if (!alive(parent)) {
    for (const p of pids) { try { process.kill(Number(p), 'SIGKILL'); } catch {} }
    setTimeout(() => { fs.rmSync(dir, { recursive: true, force: true }); process.exit(0); }, 200);
  }
}, 500);`;
  const child = spawn(process.execPath, ['-e', script, String(process.pid), dir, ...pids.map(String)], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid;
}

// ---- starting ----

function prepareDir(dir: string | undefined): string {
  if (!dir) return fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-cluster-'));
  const abs = path.resolve(dir);
  fs.mkdirSync(abs, { recursive: true });
  if (fs.readdirSync(abs).length > 0) throw new Error(`cluster folder ${abs} is not empty (a cluster may be running there; stop it first)`);
  return abs;
}

/** The self-signed CA in the certificate file kube-apiserver generated in --cert-dir. */
function readServingCa(certFile: string): string {
  const pem = fs.readFileSync(certFile, 'utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  for (const block of blocks) {
    const cert = new X509Certificate(block);
    if (cert.ca && cert.subject === cert.issuer) return block.endsWith('\n') ? block : `${block}\n`;
  }
  return pem; // no separate CA: the self-signed serving certificate is its own trust anchor
}

function etcdArgs(dataDir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=test-cluster', `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`, `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=test-cluster=${peer}`,
    // test speed: the data is thrown away with the folder, so no fsync
    '--unsafe-no-fsync', '--log-level=warn', '--snapshot-count=100000',
  ];
}

function apiserverArgs(o: { dir: string; port: number; etcdPort: number; tokenFile: string; saKey: string; saPub: string }): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${o.etcdPort}`,
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${o.port}`,
    // no --tls-cert-file: kube-apiserver writes a self-signed CA and serving certificate here
    `--cert-dir=${path.join(o.dir, 'pki')}`,
    `--token-auth-file=${o.tokenFile}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${o.saPub}`,
    `--service-account-signing-key-file=${o.saKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // these need controllers this cluster does not run (service accounts, PVC protection, quota)
    '--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection,ResourceQuota',
    // test speed: no flow-control bootstrap, no endpoint lease loop, no profiling endpoints
    '--enable-priority-and-fairness=false',
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    '--watch-cache-sizes=events#0',
    '--event-ttl=10m',
  ];
}

async function kubectlRun(binary: string, kubeconfig: string, cacheDir: string, args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.stdout.on('data', (d: Buffer) => { stdout += d; });
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr: signal ? `${stderr}\n(kubectl killed by ${signal})` : stderr });
    });
    // kubectl may exit before reading its input (a usage error, a killed run): the close handler above
    // reports that; an EPIPE on its stdin must not become an unhandled error of the test run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Starts a test cluster (see the module comment). Rejects, leaving nothing behind, when it cannot. */
export async function startTestCluster(options: StartTestClusterOptions = {}): Promise<TestCluster> {
  const binaries = options.binaries ?? binariesFromEnv() ?? (await ensureClusterBinaries(options.log));
  const dir = prepareDir(options.dir);
  const detached = options.detached ?? false;
  const started: ServerProcess[] = [];
  const key = dir;
  if (!detached) {
    installExitHandlers();
    liveClusters.set(key, { pids: [], dir });
  }
  const track = (proc: ServerProcess) => {
    started.push(proc);
    if (!detached) liveClusters.get(key)!.pids.push(proc.pid);
  };
  const abort = async () => {
    await endProcesses(started.map((p) => p.pid)).catch(() => undefined);
    liveClusters.delete(key);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const tokens = writeTokenFile(path.join(dir, 'tokens.csv'));
    const sa = writeServiceAccountKeys(dir);
    fs.mkdirSync(path.join(dir, 'kubectl-cache'));

    // etcd (retried on a port taken between choosing and binding)
    let etcd: ServerProcess | undefined;
    let etcdClient = 0;
    let etcdPeer = 0;
    for (let attempt = 1; !etcd; attempt++) {
      etcdClient = await freePort();
      etcdPeer = await freePort();
      const proc = startServer('etcd', binaries.etcd, etcdArgs(path.join(dir, 'etcd'), etcdClient, etcdPeer), { logFile: path.join(dir, 'etcd.log'), cwd: dir, detached });
      track(proc);
      try {
        await waitUntil('etcd /health', async () => {
          const res = await httpRequest(`http://127.0.0.1:${etcdClient}/health`, { timeoutMs: 2000 });
          return res.status === 200 && (JSON.parse(res.body) as { health?: string }).health === 'true';
        }, { timeoutMs: 30_000, watched: [proc] });
        etcd = proc;
      } catch (err) {
        if (attempt >= 3 || !/address already in use/.test(logTail(proc.logFile))) throw err;
        fs.rmSync(path.join(dir, 'etcd'), { recursive: true, force: true });
      }
    }

    // kube-apiserver
    let apiserver: ServerProcess | undefined;
    let port = 0;
    for (let attempt = 1; !apiserver; attempt++) {
      port = await freePort();
      const proc = startServer('kube-apiserver', binaries.kubeApiserver, apiserverArgs({ dir, port, etcdPort: etcdClient, tokenFile: path.join(dir, 'tokens.csv'), saKey: sa.privateKey, saPub: sa.publicKey }),
        { logFile: path.join(dir, 'kube-apiserver.log'), cwd: dir, detached });
      track(proc);
      try {
        await waitUntil('kube-apiserver /readyz', async () => {
          const res = await httpRequest(`https://127.0.0.1:${port}/readyz`, { token: tokens.admin, insecure: true, timeoutMs: 5000 });
          return res.status === 200;
        }, { timeoutMs: 90_000, watched: [proc, etcd] });
        apiserver = proc;
      } catch (err) {
        if (attempt >= 3 || !/address already in use/.test(logTail(proc.logFile))) throw err;
      }
    }
    const watchdog = detached ? undefined : startWatchdog([etcd.pid, apiserver.pid], dir);

    const server = `https://127.0.0.1:${port}`;
    const caPem = readServingCa(path.join(dir, 'pki', 'apiserver.crt'));
    const caFile = path.join(dir, 'ca.crt');
    fs.writeFileSync(caFile, caPem);
    const adminKubeconfig = path.join(dir, 'admin.kubeconfig');
    const narrowKubeconfig = path.join(dir, 'narrow.kubeconfig');
    writeKubeconfig(adminKubeconfig, { server, caPem, user: ADMIN_USER.name, token: tokens.admin });
    writeKubeconfig(narrowKubeconfig, { server, caPem, user: NARROW_USER.name, token: tokens.narrow });

    const request: TestCluster['request'] = (method, apiPath, opts = {}) => {
      const token = opts.token ?? (opts.as === 'narrow' ? tokens.narrow : tokens.admin);
      const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      return httpRequest(`${server}${apiPath}`, { method, token: token || undefined, ca: caPem, body, contentType: opts.contentType });
    };
    // the namespaces the bootstrap controller creates are not part of /readyz
    await waitUntil('the default namespace', async () => (await request('GET', '/api/v1/namespaces/default')).status === 200,
      { timeoutMs: 30_000, watched: [apiserver, etcd] });

    const kubectl: TestCluster['kubectl'] = async (args, opts = {}) => {
      const kubeconfig = opts.as === 'narrow' ? narrowKubeconfig : adminKubeconfig;
      const result = await kubectlRun(binaries.kubectl, kubeconfig, path.join(dir, 'kubectl-cache'), args, opts);
      if (result.code !== 0 && opts.check !== false) {
        throw new Error(`kubectl ${args.join(' ')} (as ${opts.as ?? 'admin'}) failed with exit code ${result.code}:\n${result.stderr.trim()}`);
      }
      return result;
    };

    const installCrds: TestCluster['installCrds'] = async (names) => {
      const list = names === 'all' ? availableCrds() : [...names];
      const unknown = list.filter((n) => !fs.existsSync(path.join(IMPORTED_CRDS_DIR, `${n}.yaml`)));
      if (unknown.length > 0) throw new Error(`no CRD ${unknown.join(', ')} in ${IMPORTED_CRDS_DIR} (available: ${availableCrds().join(', ')})`);
      if (list.length === 0) return [];
      await kubectl(['apply', '--server-side', '--field-manager=kyma-fleet-test-cluster', ...list.flatMap((n) => ['-f', path.join(IMPORTED_CRDS_DIR, `${n}.yaml`)])]);
      // (kubectl wait fails outright on a CRD whose status has no conditions yet: poll instead)
      for (const name of list) {
        let crd: { spec: { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> } } | undefined;
        await waitUntil(`CRD ${name} Established`, async () => {
          const res = await request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
          if (res.status !== 200) return false;
          const body = JSON.parse(res.body) as NonNullable<typeof crd> & { status?: { conditions?: Array<{ type: string; status: string }> } };
          crd = body;
          return (body.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
        }, { timeoutMs: 60_000, watched: [apiserver!, etcd!] });
        // Established is not yet usable: a re-created CRD answers 429 ("storage is (re)initializing")
        // until its watch cache is ready, so wait until every served version lists
        for (const version of crd!.spec.versions.filter((v) => v.served)) {
          await waitUntil(`CRD ${name} ${version.name} served`, async () =>
            (await request('GET', `/apis/${crd!.spec.group}/${version.name}/${crd!.spec.names.plural}?limit=1`)).status === 200,
          { timeoutMs: 60_000, watched: [apiserver!, etcd!] });
        }
      }
      return list;
    };

    const deleteCrd: TestCluster['deleteCrd'] = async (name) => {
      await kubectl(['delete', `customresourcedefinition/${name}`, '--wait=true', '--timeout=60s']);
    };

    let stopping: Promise<void> | undefined;
    const addonStops: (() => Promise<void>)[] = [];
    const stop = () => {
      stopping ??= (async () => {
        for (const stopAddon of addonStops.reverse()) await stopAddon().catch(() => undefined);
        liveClusters.delete(key);
        await endProcesses([apiserver.pid, etcd.pid]);
        if (watchdog !== undefined) killNow([watchdog]);
        fs.rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    };

    const cluster: TestCluster = {
      dir, server, caPem, caFile,
      adminToken: tokens.admin, narrowToken: tokens.narrow,
      users: { admin: ADMIN_USER.name, narrow: NARROW_USER.name },
      adminKubeconfig, narrowKubeconfig,
      ports: { apiserver: port, etcdClient, etcdPeer },
      pids: { etcd: etcd.pid, apiserver: apiserver.pid },
      binaries,
      kubectl, request, installCrds, deleteCrd, stop,
    };
    const state: ClusterState = { server, adminKubeconfig, narrowKubeconfig, ports: cluster.ports, pids: cluster.pids, binaries };
    fs.writeFileSync(path.join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);

    await kubectl(['apply', '--server-side', '--field-manager=kyma-fleet-test-cluster', '-f', '-'], { input: narrowRbacYaml() });
    const crds = options.crds ?? 'all';
    if (crds === 'all' || crds.length > 0) await installCrds(crds);
    for (const addon of options.addons ?? []) {
      try {
        const started = await addon(cluster);
        addonStops.push(started.stop);
        if (!detached) liveClusters.get(key)?.pids.push(...started.pids);
      } catch (err) {
        await stop();
        throw err;
      }
    }
    options.log?.(`test cluster ready at ${server} (folder ${dir})`);
    return cluster;
  } catch (err) {
    await abort();
    throw err;
  }
}

/**
 * Stops the cluster recorded in a folder's state.json (a background cluster of the CLI) and removes
 * the folder. Only pids that still run the recorded binaries are signalled. Returns false when the
 * folder holds no cluster.
 */
export async function stopClusterInDir(dir: string): Promise<boolean> {
  const stateFile = path.join(dir, STATE_FILE);
  if (!fs.existsSync(stateFile)) return false;
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClusterState;
  const pids = [
    pidRuns(state.pids.apiserver, state.binaries.kubeApiserver) ? state.pids.apiserver : undefined,
    pidRuns(state.pids.etcd, state.binaries.etcd) ? state.pids.etcd : undefined,
  ].filter((p): p is number => p !== undefined && pidAlive(p));
  await endProcesses(pids);
  fs.rmSync(dir, { recursive: true, force: true });
  return true;
}
