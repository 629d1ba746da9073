// The options of the live status source (./live-source.ts) and what it makes of them: limits
// checked once, request policy, and the small helpers its reads share (failure order, API paths).
// Split from live-source.ts to keep each module readable; nothing here does I/O.

import { EXTENSIONS } from '../extensions';
import { type SkrKind, statusSkrKinds } from '../extensions/status-hook';
import type { Gvr, RequestPolicy, RunControl } from './kube-client';
import type { ClusterRole, Observation, ObservedRuntime, ReadFailure, RuntimeRef } from './observed';
import { sanitizeMessage } from './sanitize';
import { parseSkrServerPatterns, type SkrServerPattern } from '../lib/skr-servers';

export interface LiveOptions {
  /** Kubeconfig file, or files merged as kubectl merges $KUBECONFIG, with the KCP and Garden contexts (trusted: read from CI secrets). */
  kubeconfig: string | readonly string[];
  kcpContext: string;
  gardenContext: string;
  /**
   * Allow users with `exec` or `auth-provider` (they run local commands) in the operator's
   * kubeconfig. Refused otherwise (H62). Never allowed in the runtimes' kubeconfig secrets.
   * @default false
   */
  allowExec?: boolean;
  /**
   * Also LIST every Runtime CR of the KCP namespace (one paged request more) for the inventory the
   * status report compares with the fleet (./inventory.ts). @default false
   */
  inventory?: boolean;
  /**
   * Host patterns of the runtime API servers that kubeconfig secrets may point at (the fleet's
   * skrApiServers, ./skr-servers.ts). A secret whose server no pattern allows is refused for its
   * runtime (RefusedCredentials) and nothing is sent there; undefined or empty allows none.
   */
  skrApiServers?: readonly string[];
  /** Runtimes observed in parallel. @default 8 */
  concurrency?: number;
  /** Per request attempt: connect, headers and body. @default 10000 */
  timeoutMs?: number;
  /** Further attempts after a 429 or 5xx. @default 3 */
  retries?: number;
  /**
   * A namespace with at least this many wanted objects of a kind is read with one paged LIST
   * instead of one GET per object; 0 always lists. @default 50
   */
  listThreshold?: number;
  /** First backoff delay between attempts (doubles each time, with jitter). @default 250 */
  backoffMs?: number;
  /** Kinds read from every runtime cluster. @default the skrKinds of the registered extensions' status hooks */
  skrKinds?: readonly SkrKind[];
}

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 3;
export const DEFAULT_LIST_THRESHOLD = 50;
export const DEFAULT_BACKOFF_MS = 250;
/** Runtime CR, KCP Kyma, Shoot and secret; then the SKR Kyma and the lists of the SKR kinds. */
export const MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME = 4;
/** More objects than this of one SKR kind on one runtime make its SKR read fail (InvalidData). */
export const MAX_SKR_OBJECTS_PER_KIND = 10_000;

const CLUSTER_ORDER: Readonly<Record<ClusterRole, number>> = { kcp: 0, garden: 1, skr: 2 };

export interface Settings {
  readonly allowExec: boolean;
  readonly inventory: boolean;
  readonly skrApiServers: readonly SkrServerPattern[];
  readonly concurrency: number;
  readonly listThreshold: number;
  readonly policy: RequestPolicy;
  readonly skrKinds: readonly SkrKind[];
}

export function normalise(o: LiveOptions): Settings {
  const int = (name: string, v: number | undefined, dflt: number, min: number, max: number): number => {
    const n = v ?? dflt;
    if (!Number.isInteger(n) || n < min || n > max) throw new RangeError(`${name} must be an integer from ${min} to ${max} (got ${String(v)})`);
    return n;
  };
  return {
    allowExec: o.allowExec === true,
    inventory: o.inventory === true,
    skrApiServers: parseSkrServerPatterns(o.skrApiServers ?? []),
    concurrency: int('concurrency', o.concurrency, DEFAULT_CONCURRENCY, 1, 256),
    listThreshold: int('listThreshold', o.listThreshold, DEFAULT_LIST_THRESHOLD, 0, Number.MAX_SAFE_INTEGER),
    skrKinds: o.skrKinds ?? statusSkrKinds(EXTENSIONS),
    policy: {
      timeoutMs: int('timeoutMs', o.timeoutMs, DEFAULT_TIMEOUT_MS, 1, 3_600_000),
      retries: int('retries', o.retries, DEFAULT_RETRIES, 0, 10),
      backoffMs: int('backoffMs', o.backoffMs, DEFAULT_BACKOFF_MS, 0, 60_000),
      maxRetryAfterMs: 30_000,
      maxResponseBytes: 64 * 1024 * 1024,
      pageSize: 500,
      maxPages: 1_000,
    },
  };
}

export function dedupe(refs: readonly RuntimeRef[]): RuntimeRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.name) && seen.add(r.name) !== undefined);
}

/** The observation of a stopped run: the global failure, every runtime present, nothing read. */
export function stopped(refs: readonly RuntimeRef[], run: RunControl): Observation {
  const runtimes = new Map<string, ObservedRuntime>();
  for (const ref of refs) runtimes.set(ref.name, { ref, skrObjects: new Map(), read: new Set(), failures: [] });
  return { runtimes, global: run.global, warnings: [] };
}

export function dedupeFailures(failures: readonly ReadFailure[]): ReadFailure[] {
  const seen = new Set<string>();
  return failures
    .map((f) => ({ ...f, message: sanitizeMessage(f.message) }))
    .sort((a, b) => CLUSTER_ORDER[a.cluster] - CLUSTER_ORDER[b.cluster] || cmp(a.reason, b.reason) || cmp(a.message, b.message))
    .filter((f) => {
      const k = `${f.cluster}\u0000${f.reason}\u0000${f.message}`;
      return !seen.has(k) && seen.add(k) !== undefined;
    });
}

export function bulkKey(role: ClusterRole, gvr: Gvr, ns: string): string {
  return `${role}\u0000${gvr.group}\u0000${gvr.plural}\u0000${ns}`;
}

export function apiPath(gvr: Gvr, ns: string | undefined): string {
  return `/apis/${gvr.group}/${gvr.version}${ns !== undefined ? `/namespaces/${ns}` : ''}/${gvr.plural}`;
}

export function resourceOf(gvr: Gvr): string {
  return `${gvr.plural}.${gvr.group}`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
