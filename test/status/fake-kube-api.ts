// A fake Kubernetes API server for the live status source (hostile-inputs §3 item 10): plain HTTP
// on 127.0.0.1 and a random port, bearer-token auth, GET by name and paged LISTs of stored objects,
// and Status objects for errors, like kube-apiserver. Scripts override single answers: 401, 403,
// 429 with Retry-After, 5xx, slow or truncated bodies; hold() keeps every answer back until release(). Every request is recorded, and a shared
// meter counts requests in flight across servers.
//
// The status reporter is also tested against a real kube-apiserver (test/status/live-cluster.test.ts,
// on the test cluster of test/cluster/): reading, RBAC (403), bad tokens (401) and the CRD's own
// validation. This fake stays for what a real server cannot be made to do on demand: time out,
// send a truncated or non-JSON body, answer 429 with Retry-After or 500/503, change page sizes,
// hold answers (to keep a run in flight), and count requests in flight (docs/testing.md).

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly authorization: string | undefined;
  /** performance.now() when the request arrived. */
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  /** A JSON body (serialised as is). */
  readonly json?: unknown;
  /** A raw body, sent instead of json (e.g. truncated JSON). */
  readonly raw?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

/** Returns a reply, or undefined to let the server answer normally. `n` counts matching requests from 1. */
export type Script = (req: SeenRequest, n: number) => Reply | undefined;

/** Counts requests in flight, across all servers that share it. */
export class InFlightMeter {
  current = 0;
  max = 0;
  enter(): void {
    this.current++;
    this.max = Math.max(this.max, this.current);
  }
  leave(): void {
    this.current--;
  }
}

export interface FakeOptions {
  /** The bearer token the server accepts. */
  readonly token: string;
  readonly meter?: InFlightMeter;
  /** Largest page the server returns, whatever `limit` asks (servers may return fewer). */
  readonly maxPageSize?: number;
  /** Delay every answer by this long. */
  readonly delayMs?: number;
  /** Leave apiVersion and kind out of list items, as typed (aggregated) API servers do. */
  readonly typedListItems?: boolean;
}

const KINDS: Readonly<Record<string, string>> = {
  runtimes: 'Runtime',
  kymas: 'Kyma',
  shoots: 'Shoot',
  registrycacheconfigs: 'RegistryCacheConfig',
  secrets: 'Secret',
};

export function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Reply {
  return { status: code, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code } };
}

export class FakeKubeApi {
  readonly requests: SeenRequest[] = [];
  /** Collections: `<api prefix> <plural> <namespace>` → name → object. */
  private readonly store = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly scripts: { match: (r: SeenRequest) => boolean; script: Script; n: number }[] = [];
  private readonly pending = new Set<NodeJS.Timeout>();
  private holding = false;
  private readonly held: Array<() => void> = [];

  private constructor(
    private readonly server: http.Server,
    private readonly options: FakeOptions,
  ) {}

  static async start(options: FakeOptions): Promise<FakeKubeApi> {
    let fake!: FakeKubeApi;
    const server = http.createServer((req, res) => fake.handle(req, res));
    fake = new FakeKubeApi(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig (JSON) whose one context `context`, also the current one, reaches this server with `token`. */
  kubeconfig(token: string, context: string): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'g', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'g', user: { token } }],
      contexts: [{ name: context, context: { cluster: 'g', user: 'g' } }],
      'current-context': context,
    });
  }

  /** Stores objects under their plural (`runtimes`, `secrets`, ...). */
  add(plural: string, ...objects: Record<string, unknown>[]): this {
    for (const obj of objects) {
      const meta = obj['metadata'] as { name: string; namespace?: string };
      const key = collectionKey(apiPrefix(String(obj['apiVersion'])), plural, meta.namespace ?? '');
      if (!this.store.has(key)) this.store.set(key, new Map());
      this.store.get(key)!.set(meta.name, obj);
    }
    return this;
  }

  /** Overrides answers for requests whose path (with query) matches; the latest script is tried first. */
  script(match: string | RegExp | ((r: SeenRequest) => boolean), script: Script | Reply): this {
    const m =
      typeof match === 'function' ? match : typeof match === 'string' ? (r: SeenRequest) => r.path.includes(match) : (r: SeenRequest) => match.test(r.path);
    this.scripts.unshift({ match: m, script: typeof script === 'function' ? script : () => script, n: 0 });
    return this;
  }

  /** Requests whose path includes `part`. */
  requestsTo(part: string): SeenRequest[] {
    return this.requests.filter((r) => r.path.includes(part));
  }

  /** From now on every answer waits until release() (keeps a client's run in flight). */
  hold(): this {
    this.holding = true;
    return this;
  }

  /** Sends the answers held since hold(), and answers normally from now on. */
  release(): void {
    this.holding = false;
    for (const send of this.held.splice(0)) send();
  }

  async close(): Promise<void> {
    for (const t of this.pending) clearTimeout(t);
    this.held.length = 0;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      at: performance.now(),
    };
    this.requests.push(seen);
    const meter = this.options.meter;
    meter?.enter();
    let left = false;
    res.on('close', () => {
      if (!left) meter?.leave();
      left = true;
    });

    let reply: Reply | undefined;
    for (const s of this.scripts) {
      if (!s.match(seen)) continue;
      s.n++;
      reply = s.script(seen, s.n);
      if (reply) break;
    }
    reply ??= this.answer(seen);
    const delay = (reply.delayMs ?? 0) + (this.options.delayMs ?? 0);
    const send = (): void => {
      if (res.destroyed) return;
      const body = reply.raw ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...reply.headers });
      res.end(body);
    };
    if (delay > 0) {
      const t = setTimeout(() => {
        this.pending.delete(t);
        send();
      }, delay);
      this.pending.add(t);
    } else if (this.holding) this.held.push(send);
    else send();
  }

  /** The normal answer of a Kubernetes API server for a GET. */
  private answer(r: SeenRequest): Reply {
    if (r.authorization !== `Bearer ${this.options.token}`) return status(401, 'Unauthorized', 'Unauthorized');
    if (r.method !== 'GET') return status(405, 'MethodNotAllowed', 'the server does not allow this method');
    const parts = r.path.split('/').filter(Boolean);
    let prefix: string;
    let rest: string[];
    if (parts[0] === 'api' && parts.length >= 2) {
      prefix = `/api/${parts[1]}`;
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 3) {
      prefix = `/apis/${parts[1]}/${parts[2]}`;
      rest = parts.slice(3);
    } else return status(404, 'NotFound', 'the server could not find the requested resource');
    let ns = '';
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      ns = rest[1]!;
      rest = rest.slice(2);
    }
    const [plural, name] = rest;
    if (!plural || rest.length > 2) return status(404, 'NotFound', 'the server could not find the requested resource');
    const group = prefix.startsWith('/apis/') ? prefix.split('/')[2]! : '';
    const resource = group ? `${plural}.${group}` : plural;
    if (name !== undefined) {
      const obj = this.store.get(collectionKey(prefix, plural, ns))?.get(name);
      if (!obj) return status(404, 'NotFound', `${resource} "${name}" not found`, { name, group, kind: plural });
      return { json: obj };
    }
    // A list: one namespace, or all namespaces for a cluster-wide path.
    const items: Record<string, unknown>[] = [];
    for (const [key, coll] of this.store) {
      const [p, pl, n] = key.split(' ');
      if (p === prefix && pl === plural && (ns === '' || n === ns)) items.push(...coll.values());
    }
    items.sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
    const offset = Number(r.query.get('continue') ?? '0');
    const limit = Number(r.query.get('limit') ?? '0') || items.length;
    const size = Math.min(limit, this.options.maxPageSize ?? Infinity);
    const page = items.slice(offset, offset + size);
    const next = offset + size < items.length ? String(offset + size) : undefined;
    const kind = KINDS[plural] ?? 'Object';
    const apiVersion = prefix.replace(/^\/apis?\//, '');
    return {
      json: {
        apiVersion,
        kind: `${kind}List`,
        metadata: { resourceVersion: '42', ...(next ? { continue: next } : {}) },
        items: this.options.typedListItems ? page.map(({ apiVersion: _a, kind: _k, ...o }) => o) : page,
      },
    };
  }
}

function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function collectionKey(prefix: string, plural: string, ns: string): string {
  return `${prefix} ${plural} ${ns}`;
}

function sortKey(o: Record<string, unknown>): string {
  const m = o['metadata'] as { name: string; namespace?: string };
  return `${m.namespace ?? ''}/${m.name}`;
}
