// One Kubernetes API server, read through the official client (@kubernetes/client-node): which
// kubeconfigs may be used at all (exec and auth-provider users run code, H62 / Flux CVE-2022-24817),
// how one read is sent (a bounded transport with a per-attempt timeout and a response size cap),
// retried (429 and 5xx, exponential backoff with jitter, Retry-After honoured) and classified into
// the FailureReasons of ./observed.ts, with every server-provided text sanitised (./sanitize.ts, H68).
// Used by ./live-source.ts, ./object-reader.ts and src/apply/; nothing here decides what a runtime's
// status is. Kubeconfigs: ./kubeconfig.ts; transport, backoff and object checks: ./kube-transport.ts.

import { setMaxListeners } from 'node:events';
import type * as K8s from '@kubernetes/client-node';
import { backoffDelay, errorText, type Gvr, isRecord, type K8sModule, parseRetryAfter, sendBounded, TransportError } from './kube-transport';
import type { ClusterRole, FailureReason, GlobalFailure } from './observed';
import { sanitizeMessage } from './sanitize';

// Kubeconfigs (./kubeconfig.ts) and the transport and object checks (./kube-transport.ts) are split
// out; their names stay importable from here.
export { KubeconfigProblem, kubeConfigForContext, kubeConfigFromSecret } from './kubeconfig';
export { backoffDelay, forEachBounded, type Gvr, isRecord, type K8sModule, MAX_BACKOFF_MS, parseRetryAfter, toKubeObject, TransportError } from './kube-transport';

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
