// Which kubeconfigs the live reads may use (split from ./kube-client.ts): the operator's own, read
// as kubectl merges $KUBECONFIG, with exec and auth-provider users refused unless allowed (they run
// code: H62, Flux CVE-2022-24817); and the kubeconfig a runtime's KCP Secret holds, which comes from
// a cluster and is untrusted (local files, proxies, code-running users refused; its server must be
// one the fleet's skrApiServers allow).

import type * as K8s from '@kubernetes/client-node';
import { KubeconfigFileError, loadKubeconfigFiles } from '../lib/kubeconfig-files';
import { checkSkrServer, type SkrServerPattern } from '../lib/skr-servers';
import { parseFleetYaml } from '../lib/yaml/parse-yaml';
import { errorText, isRecord, type K8sModule } from './kube-transport';
import type { GlobalFailure } from './observed';
import { sanitizeMessage } from './sanitize';

/** A kubeconfig that cannot be used: a file the OS refuses, content that is not usable, or refused credentials. */
export class KubeconfigProblem extends Error {
  constructor(
    readonly reason: 'Unreadable' | 'Invalid' | 'Refused',
    message: string,
  ) {
    super(message);
  }

  /** The reason of the global failure (exit 5) when this stops a run with the operator's kubeconfig. */
  get failureReason(): GlobalFailure['reason'] {
    return this.reason === 'Unreadable' ? 'UnreadableKubeconfig' : this.reason === 'Invalid' ? 'InvalidKubeconfig' : 'RefusedCredentials';
  }
}

/** Why a user entry of a kubeconfig would run code, or undefined when it does not. */
function codeRunningCredential(user: { exec?: unknown; authProvider?: unknown } | null): string | undefined {
  if (!user) return undefined;
  if (user.exec) return 'an exec credential plugin (runs a local command)';
  if (user.authProvider) {
    const name = (user.authProvider as { name?: unknown }).name;
    return `an auth-provider${typeof name === 'string' ? ` (${sanitizeMessage(name, 40)})` : ''} (may run a local command or contact an identity provider)`;
  }
  return undefined;
}

/**
 * Reads the operator's kubeconfig (a trusted input: token-file and certificate paths are honoured;
 * several files are merged as kubectl merges $KUBECONFIG, ../lib/kubeconfig-files.ts) and returns a
 * KubeConfig for `context` (undefined: the current-context). Throws KubeconfigProblem when a file
 * cannot be read (Unreadable, with the OS error), the content or context is unusable (Invalid), or
 * its user runs code and `allowExec` is false (Refused).
 */
export function kubeConfigForContext(k8s: K8sModule, files: string | readonly string[], context: string | undefined, allowExec: boolean, role: string): K8s.KubeConfig {
  const file = typeof files === 'string' ? files : files.join(', ');
  let base: K8s.KubeConfig;
  try {
    base = loadKubeconfigFiles(k8s, typeof files === 'string' ? [files] : files);
  } catch (err) {
    if (err instanceof KubeconfigFileError) throw new KubeconfigProblem(err.kind, sanitizeMessage(err.message, 300));
    throw err;
  }
  if (context === undefined) {
    context = base.getCurrentContext();
    if (!context) throw new KubeconfigProblem('Invalid', `kubeconfig ${file} has no current-context; name the ${role} context`);
  }
  const ctx = base.getContextObject(context);
  if (!ctx) {
    const known = base.getContexts().map((c) => c.name).sort();
    throw new KubeconfigProblem(
      'Invalid',
      `kubeconfig ${file} has no context "${sanitizeMessage(context, 100)}" (the ${role} context); it has: ${known.length > 0 ? known.map((n) => sanitizeMessage(n, 60)).join(', ') : 'none'}`,
    );
  }
  if (!base.getCluster(ctx.cluster)) {
    throw new KubeconfigProblem('Invalid', `context "${ctx.name}" in kubeconfig ${file} names cluster "${ctx.cluster}", which the file does not define`);
  }
  const user = ctx.user ? base.getUser(ctx.user) : null;
  if (ctx.user && !user) {
    throw new KubeconfigProblem('Invalid', `context "${ctx.name}" in kubeconfig ${file} names user "${ctx.user}", which the file does not define`);
  }
  const runsCode = codeRunningCredential(user);
  if (runsCode && !allowExec) {
    throw new KubeconfigProblem(
      'Refused',
      `context "${ctx.name}" (the ${role} context) authenticates user "${user!.name}" with ${runsCode}; refused without --allow-exec`,
    );
  }
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({ clusters: base.getClusters(), users: base.getUsers(), contexts: base.getContexts(), currentContext: ctx.name });
  return kc;
}

const CLUSTER_KEYS_FROM_SECRET = ['server', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name'];
const USER_KEYS_FROM_SECRET = ['token', 'client-certificate-data', 'client-key-data', 'username', 'password', 'as'];
/** Keys that make the client read a local file (and send its content to the server) or use a proxy. */
const REFUSED_CLUSTER_KEYS = ['certificate-authority', 'proxy-url'];
const REFUSED_USER_KEYS = ['token-file', 'client-certificate', 'client-key'];

/**
 * Builds a KubeConfig from the kubeconfig stored in a runtime's KCP secret. The text comes from a
 * cluster, so it is untrusted: it is parsed with the hardened YAML gate, only the current context
 * is kept, local file references, proxies and exec or auth-provider users are refused always
 * (--allow-exec is for the operator's own kubeconfig only), and the server must be one that
 * `allowedServers` (the fleet's skrApiServers, ./skr-servers.ts) allows; undefined allows none.
 * Throws KubeconfigProblem ('Invalid' → InvalidData, 'Refused' → RefusedCredentials); messages
 * never quote the kubeconfig's values, only the host a refused server URL points at.
 */
export function kubeConfigFromSecret(k8s: K8sModule, bytes: Uint8Array, where: string, allowedServers: readonly SkrServerPattern[] | undefined): K8s.KubeConfig {
  const parsed = parseFleetYaml(bytes, where);
  const first = parsed.diagnostics[0];
  if (first || !isRecord(parsed.data)) {
    const at = first ? ` (${first.code} at line ${first.line})` : '';
    throw new KubeconfigProblem('Invalid', `the kubeconfig in ${where} is not a valid kubeconfig${at}`);
  }
  const cfg = parsed.data;
  const contexts = namedEntries(cfg['contexts'], 'context');
  let currentName = typeof cfg['current-context'] === 'string' ? cfg['current-context'] : undefined;
  if (!currentName && contexts.size === 1) currentName = [...contexts.keys()][0];
  const ctx = currentName !== undefined ? contexts.get(currentName) : undefined;
  if (!ctx) throw new KubeconfigProblem('Invalid', `the kubeconfig in ${where} has no usable current-context`);
  const clusterName = ctx['cluster'];
  const cluster = typeof clusterName === 'string' ? namedEntries(cfg['clusters'], 'cluster').get(clusterName) : undefined;
  if (!cluster) throw new KubeconfigProblem('Invalid', `the kubeconfig in ${where} does not define the cluster of its current context`);
  const server = cluster['server'];
  if (typeof server !== 'string' || !/^https?:\/\/[^\s]+$/.test(server)) {
    throw new KubeconfigProblem('Invalid', `the kubeconfig in ${where} has no http(s) server URL`);
  }
  const userName = ctx['user'];
  const user = typeof userName === 'string' ? (namedEntries(cfg['users'], 'user').get(userName) ?? {}) : {};

  const refusedFile = [...REFUSED_CLUSTER_KEYS.filter((k) => k in cluster), ...REFUSED_USER_KEYS.filter((k) => k in user)];
  if (refusedFile.length > 0) {
    throw new KubeconfigProblem('Refused', `the kubeconfig in ${where} uses ${refusedFile.join(', ')} (local files or a proxy); refused for kubeconfigs read from a cluster`);
  }
  const runsCode = codeRunningCredential({ exec: user['exec'], authProvider: user['auth-provider'] });
  if (runsCode) {
    throw new KubeconfigProblem(
      'Refused',
      `the kubeconfig in ${where} authenticates with ${runsCode}; refused for kubeconfigs read from a cluster (--allow-exec applies to your own kubeconfig only)`,
    );
  }
  if (!allowedServers || allowedServers.length === 0) {
    throw new KubeconfigProblem(
      'Refused',
      `the kubeconfig in ${where} points at ${serverHost(server)}; fleet.yaml declares no skrApiServers, so no runtime API server is trusted: add the landscape's API server domain, e.g. skrApiServers: ["*.kyma.ondemand.com"] (nothing was sent there)`,
    );
  }
  const check = checkSkrServer(server, allowedServers);
  if (!check.ok) {
    throw new KubeconfigProblem(
      'Refused',
      `the kubeconfig in ${where} points at ${sanitizeMessage(check.host, 120)}, which skrApiServers in fleet.yaml does not allow (${check.why}; allowed: ${allowedServers.map((p) => p.text).join(', ')}); nothing was sent there`,
    );
  }

  const pick = (src: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> =>
    Object.fromEntries(keys.filter((k) => src[k] !== undefined && src[k] !== null).map((k) => [k, src[k]]));
  const safeUser = pick(user, USER_KEYS_FROM_SECRET);
  const safe = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'skr', cluster: pick(cluster, CLUSTER_KEYS_FROM_SECRET) }],
    users: [{ name: 'skr', user: safeUser }],
    contexts: [{ name: 'skr', context: { cluster: 'skr', user: 'skr' } }],
    'current-context': 'skr',
  };
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromString(JSON.stringify(safe));
  } catch {
    throw new KubeconfigProblem('Invalid', `the kubeconfig in ${where} is not a valid kubeconfig`);
  }
  return kc;
}

/** The host (and port) a server URL points at, for messages; never more of the URL. */
function serverHost(server: string): string {
  try {
    return sanitizeMessage(new URL(server).host || '(no host)', 120);
  } catch {
    return '(an unparsable URL)';
  }
}

function namedEntries(list: unknown, key: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (isRecord(item) && typeof item['name'] === 'string' && isRecord(item[key]) && !out.has(item['name'])) {
      out.set(item['name'], item[key] as Record<string, unknown>);
    }
  }
  return out;
}
