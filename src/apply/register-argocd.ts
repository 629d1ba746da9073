// `kyma-fleet register argocd`: keeps one Argo CD cluster Secret per runtime in step with KIM's
// kubeconfig-<runtimeID> Secret on the KCP, which KIM renews daily (Gardener admin kubeconfigs
// expire after 24 h). Reads each runtime's KIM Secret (the hardened kubeconfig check of
// observe/kubeconfig.ts: no exec plugins, no local files, servers only where skrApiServers allows),
// builds the cluster Secret (gitops/argocd-cluster.ts) and creates, replaces (with the
// resourceVersion it read, so a concurrent writer makes it fail, not lose) or deletes the Secrets it
// owns (label app.kubernetes.io/managed-by=kyma-fleet) in Argo CD's namespace. Secrets it does not own
// are never touched. Only the edges of the run do I/O; the CLI prints what this returns.

import type * as K8s from '@kubernetes/client-node';
import { argoClusterSecret, REGISTERED_SELECTOR, type SkrAccess } from '../gitops/argocd-cluster';
import { type GitopsOptions, KUBECONFIG_KEY, LABEL_RUNTIME_ID, skrKubeconfigSecretName } from '../gitops/gitops';
import { cmp } from '../lib/diagnostics';
import { parseSkrServerPatterns } from '../lib/skr-servers';
import { forEachBounded, type K8sModule, KubeconfigProblem, kubeConfigForContext, kubeConfigFromSecret, KubeReader, loadClientNode, NOT_FOUND, ReadError, RunControl } from '../observe/kube-client';
import { DEFAULT_BACKOFF_MS, DEFAULT_RETRIES } from '../observe/live-settings';
import { sanitizeMessage } from '../observe/sanitize';

export interface RegisterRuntime {
  readonly name: string;
  readonly runtimeID: string;
}

export interface RegisterOptions {
  readonly kubeconfig: readonly string[];
  readonly kcpContext: string;
  readonly argocdContext: string;
  readonly allowExec: boolean;
  readonly dryRun: boolean;
  readonly kcpNamespace: string;
  readonly gitops: GitopsOptions;
  readonly skrApiServers: readonly string[];
  readonly concurrency: number;
  readonly timeoutMs: number;
}

/** What happened to one runtime's registration (or, for `deleted`, to a Secret of a runtime no longer registered). */
export type RegisterOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'not-registered';

export interface RegisterEntry {
  readonly runtime: string;
  readonly runtimeID: string;
  readonly outcome: RegisterOutcome;
  /** Why a runtime is not registered: NoCredentials, RefusedCredentials, InvalidData or a read failure. */
  readonly reason?: string;
  readonly message?: string;
}

export interface RegisterRun {
  readonly entries: readonly RegisterEntry[];
  /** Cluster access that failed as a whole (exit 5); entries are then what was done before it. */
  readonly failure?: { readonly reason: string; readonly message: string };
}

type Secret = { metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> }; data?: Record<string, string> };

/** The access a checked kubeconfig grants, as client-node reads it. */
function accessOf(kc: K8s.KubeConfig): SkrAccess {
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser() ?? ({} as K8s.User);
  const opt = <T>(v: T | undefined | null): T | undefined => (v === null || v === undefined || v === '' ? undefined : v);
  return {
    server: cluster.server,
    caData: opt(cluster.caData),
    insecure: cluster.skipTLSVerify === true,
    serverName: opt(cluster.tlsServerName),
    certData: opt(user.certData),
    keyData: opt(user.keyData),
    token: opt(user.token),
    username: opt(user.username),
    password: opt(user.password),
  };
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b)]);
  return [...keys].every((k) => a?.[k] === b[k]);
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  return Object.entries(b).every(([k, v]) => a?.[k] === v);
}

/** A failed write or list on Argo CD's cluster, classified as the reads are. */
function writeFailure(k8s: K8sModule, err: unknown, what: string): ReadError {
  if (err instanceof ReadError) return err;
  if (err instanceof k8s.ApiException) {
    const code = err.code;
    const reason = code === 401 ? 'Unauthorized' : code === 403 ? 'Forbidden' : 'ServerError';
    const body = typeof err.body === 'string' ? err.body : JSON.stringify(err.body ?? '');
    let message = '';
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? '';
    } catch {
      message = body;
    }
    return new ReadError(reason, sanitizeMessage(`${what}: HTTP ${code}${message ? `: ${message}` : ''}`, 400), code);
  }
  return new ReadError('Unreachable', sanitizeMessage(`${what}: ${err instanceof Error ? err.message : String(err)}`, 400));
}

export async function registerArgoClusters(runtimes: readonly RegisterRuntime[], options: RegisterOptions): Promise<RegisterRun> {
  const k8s = await loadClientNode();
  let kcpConfig: K8s.KubeConfig;
  let argoConfig: K8s.KubeConfig;
  try {
    kcpConfig = kubeConfigForContext(k8s, options.kubeconfig, options.kcpContext, options.allowExec, 'KCP');
    argoConfig = kubeConfigForContext(k8s, options.kubeconfig, options.argocdContext, options.allowExec, 'Argo CD');
  } catch (err) {
    if (err instanceof KubeconfigProblem) return { entries: [], failure: { reason: err.failureReason, message: err.message } };
    throw err;
  }
  const run = new RunControl();
  const policy = { timeoutMs: options.timeoutMs, retries: DEFAULT_RETRIES, backoffMs: DEFAULT_BACKOFF_MS, maxRetryAfterMs: 30_000, maxResponseBytes: 16 * 1024 * 1024, pageSize: 500, maxPages: 1000 };
  const kcp = new KubeReader(k8s, kcpConfig, 'kcp', policy, run);
  const core = argoConfig.makeApiClient(k8s.CoreV1Api);
  const ns = options.gitops.argocd.namespace;
  const allowed = parseSkrServerPatterns(options.skrApiServers);

  // What kyma-fleet registered before: the Secrets it owns in Argo CD's namespace, by runtime ID.
  const owned = new Map<string, Secret>();
  try {
    let cont: string | undefined;
    do {
      const page = await core.listNamespacedSecret({ namespace: ns, labelSelector: REGISTERED_SELECTOR, limit: 500, _continue: cont });
      for (const s of page.items as Secret[]) {
        const id = s.metadata?.labels?.[LABEL_RUNTIME_ID];
        if (id) owned.set(id, s);
      }
      cont = page.metadata?._continue || undefined;
    } while (cont);
  } catch (err) {
    const f = writeFailure(k8s, err, `list secrets in namespace ${ns} (Argo CD)`);
    return { entries: [], failure: { reason: f.reason, message: f.message } };
  }

  const entries: RegisterEntry[] = [];
  const wanted = new Set<string>();
  let failure: RegisterRun['failure'];
  const sorted = [...runtimes].sort((a, b) => cmp(a.name, b.name));
  const results = new Array<RegisterEntry | undefined>(sorted.length);
  try {
    await forEachBounded(sorted, options.concurrency, run.signal, async (r, i) => {
      const id = r.runtimeID.toLowerCase();
      const secretName = skrKubeconfigSecretName(id);
      const where = `${options.kcpNamespace}/${secretName}`;
      const notRegistered = (reason: string, message: string): void => {
        // Only a kubeconfig that is gone ends a registration; one that cannot be read or is refused
        // now leaves the registration as it is (a read error must not take a runtime's Applications away).
        if (reason !== 'NoCredentials') wanted.add(id);
        results[i] = { runtime: r.name, runtimeID: id, outcome: 'not-registered', reason, message };
      };
      let source: K8s.V1Secret | typeof NOT_FOUND;
      try {
        source = await kcp.getSecret(options.kcpNamespace, secretName);
      } catch (err) {
        if (!(err instanceof ReadError)) throw err;
        // Credentials the operator's kubeconfig lacks stop the run: every runtime would fail alike.
        if (err.reason === 'Unauthorized' || err.reason === 'Unreachable') throw err;
        return notRegistered(err.reason, err.message);
      }
      if (source === NOT_FOUND) return notRegistered('NoCredentials', `no Secret ${where} on the KCP (the runtime is not provisioned yet, or was deprovisioned)`);
      const data = source.data?.[KUBECONFIG_KEY];
      if (typeof data !== 'string' || data === '') return notRegistered('NoCredentials', `${where} has no key "${KUBECONFIG_KEY}"`);
      let access: SkrAccess;
      try {
        access = accessOf(kubeConfigFromSecret(k8s, Buffer.from(data, 'base64'), `${where} (key ${KUBECONFIG_KEY})`, allowed));
      } catch (err) {
        if (!(err instanceof KubeconfigProblem)) throw err;
        return notRegistered(err.reason === 'Refused' ? 'RefusedCredentials' : 'InvalidData', err.message);
      }
      wanted.add(id);
      const desired = argoClusterSecret(r, access, options.gitops) as { metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> };
      const current = owned.get(id);
      if (current && current.metadata?.name === desired.metadata.name && sameData(current.data, desired.data) && sameLabels(current.metadata?.labels, desired.metadata.labels)) {
        results[i] = { runtime: r.name, runtimeID: id, outcome: 'unchanged' };
        return;
      }
      const outcome: RegisterOutcome = current ? 'updated' : 'created';
      if (!options.dryRun) {
        try {
          if (current && current.metadata?.name === desired.metadata.name) {
            await core.replaceNamespacedSecret({ name: desired.metadata.name, namespace: ns, body: { ...desired, metadata: { ...desired.metadata, resourceVersion: current.metadata?.resourceVersion } } as K8s.V1Secret });
          } else {
            await core.createNamespacedSecret({ namespace: ns, body: desired as K8s.V1Secret });
          }
        } catch (err) {
          throw writeFailure(k8s, err, `${outcome === 'created' ? 'create' : 'replace'} secret ${ns}/${desired.metadata.name} (Argo CD)`);
        }
      }
      results[i] = { runtime: r.name, runtimeID: id, outcome };
    });
  } catch (err) {
    if (!(err instanceof ReadError)) throw err;
    failure = { reason: err.reason, message: err.message };
  }
  entries.push(...results.filter((e): e is RegisterEntry => e !== undefined));
  if (failure) return { entries, failure };

  // Registrations of runtimes that left the fleet or lost their kubeconfig: their Applications go
  // (the ApplicationSets preserve what they synced).
  const byID = new Map(sorted.map((r) => [r.runtimeID.toLowerCase(), r.name]));
  for (const [id, s] of [...owned].sort(([a], [b]) => cmp(a, b))) {
    if (wanted.has(id)) continue;
    const name = s.metadata?.name ?? '';
    if (!options.dryRun) {
      try {
        await core.deleteNamespacedSecret({ name, namespace: ns });
      } catch (err) {
        const f = writeFailure(k8s, err, `delete secret ${ns}/${name} (Argo CD)`);
        if (f.httpStatus !== 404) return { entries, failure: { reason: f.reason, message: f.message } };
      }
    }
    // A runtime of the fleet whose kubeconfig Secret is gone has one entry: its registration deleted, with the reason.
    const lost = entries.findIndex((e) => e.runtimeID === id && e.outcome === 'not-registered');
    if (lost >= 0) entries[lost] = { ...entries[lost]!, outcome: 'deleted' };
    else entries.push({ runtime: byID.get(id) ?? s.metadata?.labels?.['kyma-fleet.dev/runtime'] ?? '', runtimeID: id, outcome: 'deleted' });
  }
  return { entries };
}

