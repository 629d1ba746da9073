// One Kubernetes API server, read through the official client (@kubernetes/client-node): which
// kubeconfigs may be used at all (exec and auth-provider users run code, H62 / Flux CVE-2022-24817),
// how one read is sent (a bounded transport with a per-attempt timeout and a response size cap),
// retried (429 and 5xx, exponential backoff with jitter, Retry-After honoured) and classified into
// the FailureReasons of ./observed.ts, with every server-provided text sanitised (./sanitize.ts, H68).
// Used by ./live-source.ts; nothing here decides what a runtime's status is.

import { setMaxListeners } from 'node:events';
import * as http from 'node:http';
import * as https from 'node:https';
import type * as K8s from '@kubernetes/client-node';
import { parseFleetYaml } from '../lib/yaml/parse-yaml';
import { KubeconfigFileError, loadKubeconfigFiles } from '../lib/kubeconfig-files';
import type { ClusterRole, FailureReason, GlobalFailure, KubeObject } from './observed';
import { sanitizeMessage } from './sanitize';
import { checkSkrServer, type SkrServerPattern } from '../lib/skr-servers';

export type K8sModule = typeof K8s;

let clientModule: Promise<K8sModule> | undefined;

/**
 * Loads @kubernetes/client-node on first use, so that dump-based runs never pay for it. The package
 * is ESM-only; the compiled CommonJS build turns this into require(), which Node loads natively
 * from 20.19 on (require(esm)).
 */
export function loadClientNode(): Promise<K8sModule> {
  clientModule ??= import('@kubernetes/client-node').catch((err: unknown) => {
    clientModule = undefined;
    if ((err as { code?: unknown }).code === 'ERR_REQUIRE_ESM') {
      throw new Error(`reading live clusters needs Node.js 20.19 or later (this is ${process.version}): @kubernetes/client-node is an ES module`);
    }
    throw err;
  });
  return clientModule;
}

/** Work bound: error bodies longer than this are not parsed as JSON. */
const MAX_SCANNED_LENGTH = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Kubeconfigs

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

// ---------------------------------------------------------------------------------------------
// The run: a shared stop signal and the first global failure

/** Shared by all clients of one run; a global failure stops every request of the run. */
export class RunControl {
  private readonly controller = new AbortController();
  private failure: GlobalFailure | undefined;

  constructor() {
    // Every request and backoff in flight listens for the stop; their number is bounded by the
    // pool, not by Node's default of 10 listeners.
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get global(): GlobalFailure | undefined {
    return this.failure;
  }
  /** Records the first global failure and stops the run: no request starts after this. */
  fail(failure: GlobalFailure): void {
    this.failure ??= { reason: failure.reason, message: sanitizeMessage(failure.message) };
    this.controller.abort();
  }
}

/** Thrown by every read once the run has stopped; callers drop their work silently. */
export class RunStopped extends Error {
  constructor() {
    super('run stopped');
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

export interface RequestPolicy {
  /** Per attempt: connect, headers and body. */
  readonly timeoutMs: number;
  /** Further attempts after a 429 or 5xx. */
  readonly retries: number;
  /** First backoff delay; doubles per attempt (capped at MAX_BACKOFF_MS), with jitter. */
  readonly backoffMs: number;
  /** A larger Retry-After is not waited for: the read fails with ServerError instead. */
  readonly maxRetryAfterMs: number;
  /** Responses above this size are cut off and the read fails with InvalidData. */
  readonly maxResponseBytes: number;
  /** Items per LIST page (`limit`). */
  readonly pageSize: number;
  /** A list needing more pages than this fails with InvalidData. */
  readonly maxPages: number;
}

export const MAX_BACKOFF_MS = 8_000;

/** A read that failed, classified. `Unauthorized` is a 401; callers decide what it means. */
export class ReadError extends Error {
  constructor(
    readonly reason: FailureReason | 'Unauthorized',
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

/** What a read is about, for messages: `get kymas kyma-system/default`. */
export interface ReadTarget {
  readonly verb: 'get' | 'list' | 'patch';
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function describeTarget(t: ReadTarget): string {
  const obj = t.name !== undefined ? ` ${t.namespace ? `${t.namespace}/` : ''}${t.name}` : t.namespace ? ` in namespace ${t.namespace}` : ' in all namespaces';
  return `${t.verb} ${t.resource}${obj}`;
}

/** The API group, version and resource (plural) of a kind, with the kind for checks. */
export interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
}

export const NOT_FOUND: unique symbol = Symbol('not found');
export type NotFound = typeof NOT_FOUND;

type CallOptions = K8s.ConfigurationOptions;

/** Reads from one API server through @kubernetes/client-node, with the run's policy. */
export class KubeReader {
  private readonly custom: K8s.CustomObjectsApi;
  private readonly core: K8s.CoreV1Api;

  constructor(
    private readonly k8s: K8sModule,
    kc: K8s.KubeConfig,
    readonly role: ClusterRole,
    private readonly policy: RequestPolicy,
    private readonly run: RunControl,
  ) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = kc.makeApiClient(k8s.CoreV1Api);
  }

  /** GET one namespaced custom object; NOT_FOUND on 404. */
  getObject(gvr: Gvr, namespace: string, name: string): Promise<unknown> {
    const target: ReadTarget = { verb: 'get', resource: resourceName(gvr), namespace, name };
    return this.call(target, (opts) =>
      this.custom.getNamespacedCustomObject({ group: gvr.group, version: gvr.version, namespace, plural: gvr.plural, name }, opts),
    );
  }

  /**
   * LISTs custom objects page by page (namespace undefined = all namespaces) and hands every item
   * with its index to `onItem`, so callers keep only what they need. NOT_FOUND on 404 (the
   * resource type is not served).
   */
  async listObjects(gvr: Gvr, namespace: string | undefined, onItem: (item: unknown, index: number) => void): Promise<void | NotFound> {
    const target: ReadTarget = { verb: 'list', resource: resourceName(gvr), namespace };
    let cont: string | undefined;
    let index = 0;
    for (let page = 0; ; page++) {
      if (page >= this.policy.maxPages) {
        throw new ReadError('InvalidData', `${describeTarget(target)}: more than ${this.policy.maxPages} pages of ${this.policy.pageSize} items; giving up`);
      }
      const common = { group: gvr.group, version: gvr.version, plural: gvr.plural, limit: this.policy.pageSize, _continue: cont };
      const body = await this.call(target, (opts) =>
        namespace === undefined
          ? this.custom.listClusterCustomObject(common, opts)
          : this.custom.listNamespacedCustomObject({ ...common, namespace }, opts),
      );
      if (body === NOT_FOUND) return page === 0 ? NOT_FOUND : invalid(target, 'the list disappeared while paging (404)');
      if (!isRecord(body) || !(body['items'] === null || Array.isArray(body['items']))) {
        return invalid(target, 'the response is not a list (no items array)');
      }
      const items = body['items'];
      for (const item of Array.isArray(items) ? items : []) onItem(item, index++);
      const meta = body['metadata'];
      const next = isRecord(meta) ? meta['continue'] : undefined;
      if (typeof next !== 'string' || next === '') return;
      cont = next;
    }
  }

  /**
   * PATCHes one namespaced custom object with a JSON Patch (RFC 6902). Writers pass the
   * resourceVersion they read as the first op, so a stale write fails with a 409 (ReadError with
   * httpStatus 409) instead of overwriting another writer's change. NOT_FOUND on 404.
   */
  patchObject(gvr: Gvr, namespace: string, name: string, ops: readonly Record<string, unknown>[]): Promise<unknown> {
    const target: ReadTarget = { verb: 'patch', resource: resourceName(gvr), namespace, name };
    return this.call(target, (opts) =>
      this.custom.patchNamespacedCustomObject({ group: gvr.group, version: gvr.version, namespace, plural: gvr.plural, name, body: ops }, opts),
    );
  }

  /** GET a Secret; NOT_FOUND on 404. */
  getSecret(namespace: string, name: string): Promise<K8s.V1Secret | NotFound> {
    const target: ReadTarget = { verb: 'get', resource: 'secrets', namespace, name };
    return this.call(target, (opts) => this.core.readNamespacedSecret({ name, namespace }, opts));
  }

  /** One read with timeout, retries and classification. Never retries 401, 403, 404 or timeouts. */
  private async call<T>(target: ReadTarget, send: (opts: CallOptions) => Promise<T>): Promise<T | NotFound> {
    const attempts = this.policy.retries + 1;
    for (let attempt = 1; ; attempt++) {
      if (this.run.signal.aborted) throw new RunStopped();
      let failure: ReadError;
      let retryAfterMs: number | undefined;
      try {
        return await this.attempt(send);
      } catch (err) {
        if (err instanceof RunStopped) throw err;
        if (!(err instanceof this.k8s.ApiException)) throw this.classifyLocal(err, target);
        const code = err.code;
        if (code === 404) return NOT_FOUND;
        failure = httpFailure(code, target, err.body, attempt);
        if (!isRetryable(code)) throw failure;
        retryAfterMs = parseRetryAfter(headerValue(err.headers, 'retry-after'));
        if (retryAfterMs !== undefined && retryAfterMs > this.policy.maxRetryAfterMs) {
          throw new ReadError('ServerError', `${failure.message} (Retry-After ${Math.ceil(retryAfterMs / 1000)} s is above the ${this.policy.maxRetryAfterMs / 1000} s limit; not retried)`, code);
        }
      }
      if (attempt >= attempts) throw failure;
      await this.sleep(backoffDelay(attempt, this.policy.backoffMs, retryAfterMs));
    }
  }

  private async attempt<T>(send: (opts: CallOptions) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TransportError('timeout', `no complete answer within ${this.policy.timeoutMs} ms`)), this.policy.timeoutMs);
    const onStop = (): void => controller.abort(new RunStopped());
    this.run.signal.addEventListener('abort', onStop, { once: true });
    // The race bounds the steps before the transport too (an exec credential plugin that hangs).
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(controller.signal.reason);
      controller.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const httpApi = this.k8s.wrapHttpLibrary({ send: (req) => sendBounded(this.k8s, req, controller.signal, this.policy.maxResponseBytes) });
      return await Promise.race([send({ httpApi }), aborted]);
    } catch (err) {
      // An abort surfaces as whatever the transport or library threw; report why it was aborted.
      if (controller.signal.aborted && !(err instanceof this.k8s.ApiException)) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      this.run.signal.removeEventListener('abort', onStop);
      controller.signal.removeEventListener('abort', onAbort!);
      aborted.catch(() => undefined); // settled or never settles; never an unhandled rejection
    }
  }

  private classifyLocal(err: unknown, target: ReadTarget): ReadError {
    const what = describeTarget(target);
    if (err instanceof TransportError) {
      switch (err.kind) {
        case 'timeout':
          return new ReadError('Timeout', `${what}: ${err.message}`);
        case 'too-large':
          return new ReadError('InvalidData', `${what}: ${err.message}`);
        default:
          return new ReadError('Unreachable', `${what}: ${sanitizeMessage(err.message, 300)}`);
      }
    }
    if (err instanceof SyntaxError) return new ReadError('InvalidData', `${what}: the response is not valid JSON`);
    const text = sanitizeMessage(errorText(err), 300);
    if (/Content-Type|mediaType/i.test(text)) return new ReadError('InvalidData', `${what}: the response is not JSON (${text})`);
    // Everything else failed before a request was sent: credentials (an exec plugin that failed),
    // an http:// server without insecure-skip-tls-verify, a bad CA.
    return new ReadError('Unreachable', `${what}: cannot send the request: ${text}`);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.run.signal.aborted) return reject(new RunStopped());
      const onStop = (): void => {
        clearTimeout(timer);
        reject(new RunStopped());
      };
      const timer = setTimeout(() => {
        this.run.signal.removeEventListener('abort', onStop);
        resolve();
      }, ms);
      this.run.signal.addEventListener('abort', onStop, { once: true });
    });
  }
}

function resourceName(gvr: Gvr): string {
  return gvr.group ? `${gvr.plural}.${gvr.group}` : gvr.plural;
}

function invalid(target: ReadTarget, why: string): never {
  throw new ReadError('InvalidData', `${describeTarget(target)}: ${why}`);
}

function isRetryable(code: number): boolean {
  return code === 429 || (code >= 500 && code <= 599 && code !== 501 && code !== 505);
}

function httpFailure(code: number, target: ReadTarget, body: unknown, attempt: number): ReadError {
  const what = describeTarget(target);
  const server = statusMessage(body);
  const said = server ? `: ${server}` : '';
  if (code === 401) return new ReadError('Unauthorized', sanitizeMessage(`${what}: 401 Unauthorized${said}`), code);
  if (code === 403) return new ReadError('Forbidden', sanitizeMessage(`${what}: 403 Forbidden${said}`), code);
  const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
  return new ReadError('ServerError', sanitizeMessage(`${what}: HTTP ${code}${tries}${said}`), code);
}

/** The message of a Kubernetes Status body (or the raw text of any other body), sanitised. */
function statusMessage(body: unknown): string {
  let value: unknown = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    const text = value.length > MAX_SCANNED_LENGTH ? value.slice(0, MAX_SCANNED_LENGTH) : value;
    try {
      value = JSON.parse(text);
    } catch {
      return sanitizeMessage(text);
    }
  }
  if (isRecord(value)) {
    const msg = value['message'];
    const reason = value['reason'];
    if (typeof msg === 'string' && msg !== '') return sanitizeMessage(msg);
    if (typeof reason === 'string') return sanitizeMessage(reason);
  }
  return '';
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Delay before attempt `attempt + 1`: Retry-After when the server sent one (plus up to 20 % jitter,
 * never less than asked), otherwise exponential backoff from `baseMs`, capped, with equal jitter.
 */
export function backoffDelay(attempt: number, baseMs: number, retryAfterMs: number | undefined, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.round(retryAfterMs * (1 + 0.2 * random()));
  const exp = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

// ---------------------------------------------------------------------------------------------
// Transport: node:http(s) with the agent the library built from the kubeconfig (TLS settings,
// client certificates, proxies), the attempt's abort signal and a response size cap. No redirects.

export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

function sendBounded(k8s: K8sModule, req: K8s.RequestContext, signal: AbortSignal, maxBytes: number): Promise<K8s.ResponseContext> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let url: URL;
    try {
      url = new URL(req.getUrl());
    } catch {
      return reject(new TransportError('network', 'the server URL is not valid'));
    }
    const mod = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : undefined;
    if (!mod) return reject(new TransportError('network', `unsupported URL scheme ${url.protocol}`));

    let settled = false;
    const finish = (err: unknown, value?: K8s.ResponseContext): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined) {
        request.destroy();
        reject(err);
      } else resolve(value!);
    };
    const onAbort = (): void => finish(signal.reason);

    const request = mod.request(
      url,
      { method: req.getHttpMethod(), headers: req.getHeaders(), agent: req.getAgent() as http.Agent | undefined },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) finish(new TransportError('too-large', `the response is larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          }
          finish(undefined, new k8s.ResponseContext(res.statusCode ?? 0, headers, new k8s.SelfDecodingBody(Promise.resolve(Buffer.concat(chunks)))));
        });
        res.on('error', (e) => finish(networkError(e)));
        res.on('aborted', () => finish(new TransportError('network', 'the connection was closed before the response was complete')));
      },
    );
    request.on('error', (e) => finish(networkError(e)));
    signal.addEventListener('abort', onAbort, { once: true });
    const body = req.getBody();
    if (typeof body === 'string') request.end(body);
    else request.end();
  });
}

function networkError(e: Error & { code?: string }): TransportError {
  const code = typeof e.code === 'string' ? `${e.code}: ` : '';
  return new TransportError('network', `${code}${e.message}`);
}

// ---------------------------------------------------------------------------------------------
// Objects

/**
 * Checks that `raw` is a Kubernetes object of the expected kind and returns it as a KubeObject
 * (apiVersion and kind filled in when a typed list omitted them, metadata.managedFields dropped as
 * `kubectl get` does), or a problem description.
 */
export function toKubeObject(raw: unknown, gvr: Gvr): KubeObject | string {
  if (!isRecord(raw)) return 'not an object';
  const apiVersion = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
  const gotApi = raw['apiVersion'] ?? apiVersion;
  const gotKind = raw['kind'] ?? gvr.kind;
  if (gotApi !== apiVersion || gotKind !== gvr.kind) {
    return `expected ${apiVersion} ${gvr.kind}, got ${sanitizeMessage(String(gotApi), 80)} ${sanitizeMessage(String(gotKind), 80)}`;
  }
  const meta = raw['metadata'];
  if (!isRecord(meta) || typeof meta['name'] !== 'string' || meta['name'] === '') return 'metadata.name is missing';
  if (meta['namespace'] !== undefined && typeof meta['namespace'] !== 'string') return 'metadata.namespace is not a string';
  const { managedFields: _dropped, ...metadata } = meta;
  return { ...raw, apiVersion, kind: gvr.kind, metadata } as unknown as KubeObject;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `fn` over `items` with at most `limit` running at once; stops taking new items once `signal` aborts. */
export async function forEachBounded<T>(items: readonly T[], limit: number, signal: AbortSignal, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!signal.aborted && next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
