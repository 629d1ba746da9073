// The lowest layer of the live reads (split from ./kube-client.ts): the transport (node:http(s)
// with the agent the library built from the kubeconfig, the attempt's abort signal and a response
// size cap; no redirects), backoff and Retry-After, and the shape checks of objects as a server
// returns them. Nothing here knows a kind or a runtime.

import * as http from 'node:http';
import * as https from 'node:https';
import type * as K8s from '@kubernetes/client-node';
import type { KubeObject } from './observed';
import { sanitizeMessage } from './sanitize';

export type K8sModule = typeof K8s;

export const MAX_BACKOFF_MS = 8_000;

/** The API group, version and resource (plural) of a kind, with the kind for checks. */
export interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
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

export function sendBounded(k8s: K8sModule, req: K8s.RequestContext, signal: AbortSignal, maxBytes: number): Promise<K8s.ResponseContext> {
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

export function errorText(err: unknown): string {
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
