// The Kyma registry-cache module's own validating admission webhook on a test cluster (issue 27):
// the module's binary (github.com/kyma-project/registry-cache/cmd at the version KIM pins, built from
// the wrapper module ./go with test/cluster/go-tool-cache) runs against the cluster, registered by the
// ValidatingWebhookConfiguration of the module's own manifests (config/default, rendered with the
// cluster's kubectl kustomize from the module's download folder), so every RegistryCacheConfig a test
// creates or updates goes through the module's real admission.
//
// Use it as an add-on of the harness: startTestCluster({ addons: [registryCacheWebhook({ resolvableHosts })] }).
//
// What is arranged around the binary, and why (none of it changes what the webhook decides):
// - the serving certificate: in a Kyma runtime, cert-manager (or Gardener) writes tls.crt, tls.key and
//   ca.crt into the Secret the Deployment mounts at /tmp, and the binary patches its configuration's
//   caBundle from /tmp/ca.crt. Here openssl makes a CA and a certificate for 127.0.0.1, and a private
//   mount namespace puts them at /tmp for the binary alone;
// - where the API server reaches it: no Service, no pods; the configuration's clientConfig.service is
//   replaced by a URL on 127.0.0.1 (the path stays the module's). The binary listens on the fixed port
//   9443, so it runs in a network namespace of its own (several clusters may run webhooks at once);
//   netns-inner.js bridges the API server's and the binary's connections through Unix sockets;
// - DNS: the webhook refuses an upstream or remoteURL host that does not resolve. There is no resolver
//   here, so its namespace gets its own /etc/hosts naming the hosts the test declares resolvable and an
//   /etc/resolv.conf whose nameserver answers nothing: a declared host resolves, any other one does
//   not. Whether a host resolves on a real runtime's network stays unchecked.
// Needs unshare (as root, or with unprivileged user namespaces), ip and openssl;
// `registryCacheWebhookUnavailable()` says why not, for a one-line skip.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import type { TestCluster } from '../cluster/harness';
import { PROJECT_ROOT } from '../cluster/paths';
import { freePort, httpRequest, pidAlive, waitUntil } from '../cluster/processes';

export const WEBHOOK_GO_DIR = path.join(PROJECT_ROOT, 'test', 'registry-cache-webhook', 'go');
const INNER = path.join(PROJECT_ROOT, 'test', 'registry-cache-webhook', 'netns-inner.js');
export const REGISTRY_CACHE_MODULE = 'github.com/kyma-project/registry-cache';
/** The name the binary patches the caBundle of (its --webhook-name default: the kustomize namePrefix applied). */
export const WEBHOOK_CONFIGURATION = 'registry-cache-validating-webhook-configuration';
/** Set by the global setup to the binary's path, or (CI unset) KYMA_FLEET_RC_WEBHOOK_SKIP to why not. */
export const WEBHOOK_ENV = 'KYMA_FLEET_RC_WEBHOOK';
export const WEBHOOK_SKIP_ENV = 'KYMA_FLEET_RC_WEBHOOK_SKIP';

export function webhookToolSpec(): GoToolSpec {
  return { name: 'registry-cache-webhook', moduleDir: WEBHOOK_GO_DIR, binaries: { cmd: `${REGISTRY_CACHE_MODULE}/cmd` }, env: { CGO_ENABLED: '0' } };
}

/** The `unshare` flags for the webhook's namespaces: a user namespace too where this process is not root. */
function unshareFlags(): string[] {
  return [...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']), '--net', '--mount', '--propagation', 'private'];
}

/** Why the webhook cannot run on this machine (no Go, no unshare, ip or openssl, no namespaces), or undefined. */
export function registryCacheWebhookUnavailable(): string | undefined {
  if (!findGo()) return 'no Go toolchain (no `go` on PATH or /usr/local/go/bin/go)';
  for (const tool of ['unshare', 'openssl', 'ip']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `no ${tool} on PATH`;
  }
  const probe = spawnSync('unshare', [...unshareFlags(), 'sh', '-c', 'ip link set lo up && mount --bind /etc/hosts /etc/hosts'], { encoding: 'utf8' });
  if (probe.status !== 0) return `cannot make private network and mount namespaces (unshare ${unshareFlags().join(' ')}: ${probe.stderr.trim()})`;
  return undefined;
}

/** Builds (or reuses) the module's binary. */
export async function ensureRegistryCacheWebhook(log?: (line: string) => void): Promise<string> {
  return (await ensureGoTool(webhookToolSpec(), { log })).binaries.cmd!;
}

/** The module's download folder (its manifests), as the Go module cache holds it. */
export function registryCacheModuleDir(): string {
  const go = findGo();
  if (!go) throw new Error('no Go toolchain');
  return execFileSync(go, ['list', '-m', '-f', '{{.Dir}}', REGISTRY_CACHE_MODULE], { cwd: WEBHOOK_GO_DIR, encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' } }).trim();
}

/** The module's ValidatingWebhookConfiguration (config/default), pointed at `url` instead of its Service. */
export async function webhookConfiguration(cluster: TestCluster, url: string): Promise<Record<string, any>> {
  const rendered = await cluster.kubectl(['kustomize', path.join(registryCacheModuleDir(), 'config', 'default')]);
  const docs = parseAllDocuments(rendered.stdout).map((d) => d.toJS() as Record<string, any>);
  const vwc = docs.find((d) => d?.kind === 'ValidatingWebhookConfiguration');
  if (!vwc) throw new Error('the module\'s config/default renders no ValidatingWebhookConfiguration');
  if (vwc.metadata.name !== WEBHOOK_CONFIGURATION) throw new Error(`the module's ValidatingWebhookConfiguration is ${vwc.metadata.name}, the binary patches ${WEBHOOK_CONFIGURATION}`);
  for (const hook of vwc.webhooks as { clientConfig: { service?: { path?: string }; url?: string } }[]) {
    const p = hook.clientConfig.service?.path ?? '/';
    hook.clientConfig = { url: `${url}${p}` };
  }
  return vwc;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A CA and a serving certificate for 127.0.0.1, as the module's certificate Secret holds them. */
function writeCertificates(dir: string): void {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=registry-cache-webhook-test-ca'], dir);
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=registry-cache-webhook'], dir);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '2', '-extfile', 'san.ext'], dir);
  for (const f of ['ca.key', 'tls.csr', 'san.ext', 'ca.srl']) fs.rmSync(path.join(dir, f), { force: true });
}

/** Forwards each connection accepted by `server` to `connect()`; returns the server. */
function forward(server: net.Server, connect: () => net.Socket): net.Server {
  server.on('connection', (c) => {
    const up = connect();
    c.on('error', () => up.destroy());
    up.on('error', () => c.destroy());
    c.pipe(up);
    up.pipe(c);
  });
  return server;
}

export interface RegistryCacheWebhookOptions {
  /** Hosts the webhook's DNS check finds (upstreams and remoteURL hosts of the caches the test applies). */
  resolvableHosts: readonly string[];
  /** The binary; default: from the global setup (WEBHOOK_ENV), else built or reused now. */
  binary?: string;
  log?: (line: string) => void;
}

export interface RunningWebhook {
  pids: number[];
  /** https://127.0.0.1:<port> the API server calls. */
  url: string;
  logFile: string;
  stop(): Promise<void>;
}

/** Starts the webhook for `cluster` and registers it; resolves once the API server's calls reach it. */
export async function startRegistryCacheWebhook(cluster: TestCluster, opts: RegistryCacheWebhookOptions): Promise<RunningWebhook> {
  const binary = opts.binary ?? process.env[WEBHOOK_ENV] ?? (await ensureRegistryCacheWebhook(opts.log));
  // Outside /tmp: /tmp is where the binary must find its certificates, in its own mount namespace.
  const runDir = fs.mkdtempSync('/var/tmp/kyma-fleet-registry-cache-webhook-');
  const certs = path.join(runDir, 'certs');
  fs.mkdirSync(certs);
  writeCertificates(certs);
  fs.copyFileSync(cluster.adminKubeconfig, path.join(certs, 'kubeconfig'));
  const hosts = [...new Set(opts.resolvableHosts.map((h) => h.replace(/:\d+$/, '').replace(/^\[|\]$/g, '')))].filter((h) => h !== '' && !/^[\d.]+$/.test(h) && !h.includes(':'));
  fs.writeFileSync(path.join(runDir, 'hosts'), `127.0.0.1 localhost\n${hosts.map((h) => `127.0.0.1 ${h}`).join('\n')}\n`);
  fs.writeFileSync(path.join(runDir, 'resolv.conf'), 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');

  // The test process's ends of the two bridges (netns-inner.js has the other ends).
  const apiserverPort = cluster.ports.apiserver;
  const apiBridge = forward(net.createServer(), () => net.connect(apiserverPort, '127.0.0.1'));
  await new Promise<void>((resolve, reject) => apiBridge.once('error', reject).listen(path.join(runDir, 'api.sock'), resolve));
  const port = await freePort();
  const hookBridge = forward(net.createServer(), () => net.connect(path.join(runDir, 'hook.sock')));
  await new Promise<void>((resolve, reject) => hookBridge.once('error', reject).listen(port, '127.0.0.1', resolve));

  // Registered first and without caBundle, as the module's manifests are applied before its
  // Deployment starts; the binary patches the caBundle in from /tmp/ca.crt when it loads its certificate.
  const url = `https://127.0.0.1:${port}`;
  try {
    const vwc = await webhookConfiguration(cluster, url);
    await cluster.kubectl(['apply', '--server-side', '--field-manager=kyma-fleet-test', '-f', '-'], { input: stringify(vwc) });
  } catch (err) {
    apiBridge.close();
    hookBridge.close();
    fs.rmSync(runDir, { recursive: true, force: true });
    throw err;
  }
  const logFile = path.join(runDir, 'webhook.log');
  const log = fs.openSync(logFile, 'a');
  // The binary and netns-inner.js are bound into the run folder first: they may live under /tmp,
  // which the certificates then cover.
  for (const f of ['webhook', 'netns-inner.js']) fs.writeFileSync(path.join(runDir, f), '');
  const script = [
    'set -e',
    'ip link set lo up',
    `mount --bind ${runDir}/hosts /etc/hosts`,
    `mount --bind ${runDir}/resolv.conf /etc/resolv.conf`,
    `mount --bind '${binary}' ${runDir}/webhook`,
    `mount --bind '${INNER}' ${runDir}/netns-inner.js`,
    `mount --bind ${certs} /tmp`,
    `exec "$0" "$@"`,
  ].join('\n');
  const child = spawn('unshare', [...unshareFlags(), 'sh', '-c', script,
    process.execPath, path.join(runDir, 'netns-inner.js'), runDir, String(apiserverPort), String(process.pid), path.join(runDir, 'webhook'), '--health-probe-bind-address=127.0.0.1:8081', `--webhook-name=${WEBHOOK_CONFIGURATION}`],
  { stdio: ['ignore', log, log], env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '2' } });
  fs.closeSync(log);
  child.on('error', () => undefined);
  const proc = { name: 'registry-cache webhook', pid: child.pid!, logFile, child };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await cluster.kubectl(['delete', 'validatingwebhookconfiguration', WEBHOOK_CONFIGURATION, '--ignore-not-found'], { check: false }).catch(() => undefined);
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && pidAlive(proc.pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (pidAlive(proc.pid)) child.kill('SIGKILL');
    apiBridge.close();
    hookBridge.close();
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  try {
    const caBundle = fs.readFileSync(path.join(certs, 'ca.crt'));
    await waitUntil('the webhook serving', async () => (await httpRequest(`${url}/readyz`, { insecure: true, timeoutMs: 2000 }).catch(() => ({ status: 0 }))).status !== 0, { timeoutMs: 90_000, watched: [proc] });
    await waitUntil('the webhook\'s caBundle in its configuration', async () => {
      const res = await cluster.request('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`);
      const body = JSON.parse(res.body) as { webhooks?: { clientConfig: { caBundle?: string } }[] };
      return (body.webhooks ?? []).every((w) => w.clientConfig.caBundle !== undefined && Buffer.from(w.clientConfig.caBundle, 'base64').equals(caBundle));
    }, { timeoutMs: 60_000, watched: [proc] });
    opts.log?.(`registry-cache webhook ready at ${url} (log ${logFile})`);
    return { pids: [proc.pid], url, logFile, stop };
  } catch (err) {
    const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
    await stop();
    throw new Error(`${(err as Error).message}\nwebhook log:\n${tail}`);
  }
}

/** The webhook as an add-on of startTestCluster (harness option `addons`). */
export function registryCacheWebhook(opts: RegistryCacheWebhookOptions): (cluster: TestCluster) => Promise<{ pids: number[]; stop: () => Promise<void> }> {
  return async (cluster) => {
    const running = await startRegistryCacheWebhook(cluster, opts);
    return { pids: running.pids, stop: running.stop };
  };
}
