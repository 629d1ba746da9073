// The live edge of `kyma-fleet apply garden`: for each runtime, read its Shoot from the Garden
// cluster, plan the write of the fleet's entries (./shoot-entries.ts), and write them with a JSON
// Patch that carries the resourceVersion it read. A 409 (another writer, KIM or a person, changed
// the Shoot in between) means read again and plan again, with backoff and a bounded number of
// tries: no update of the other writer is ever lost, and a Shoot that already has the entries is
// not written at all (no generation bump). All Shoots are read and planned before the first
// write, so the mass-change guard can stop a run before it changes anything.
//
// Failures: a 401 stops the run (the credentials are wrong for every Shoot); a 403, 404, timeout
// or admission refusal affects only that runtime. Reads and writes go through the status
// reporter's client (../status/kube-client.ts: bounded transport, retries on 429/5xx, sanitised
// messages, kubeconfigs with exec refused unless allowed).

import type * as K8s from '@kubernetes/client-node';
import type { GlobalFailure } from '../observe/observed';
import {
  forEachBounded,
  type Gvr,
  KubeconfigProblem,
  kubeConfigForContext,
  KubeReader,
  loadClientNode,
  NOT_FOUND,
  ReadError,
  RunControl,
  RunStopped,
} from '../observe/kube-client';
import { sanitizeMessage } from '../observe/sanitize';
import { type OwnedShootEntries, planShootEntries, type ShootPlan } from './shoot-entries';

const SHOOT: Gvr = { group: 'core.gardener.cloud', version: 'v1beta1', plural: 'shoots', kind: 'Shoot' };

/** One runtime whose Shoot the run writes. */
export interface GardenTarget {
  readonly name: string;
  readonly runtimeID: string;
  readonly shootNamespace: string;
  readonly shootName: string;
  readonly owned: OwnedShootEntries;
}

export interface GardenApplyOptions {
  /** Kubeconfig file, or files merged as kubectl merges $KUBECONFIG. */
  readonly kubeconfig: string | readonly string[];
  readonly gardenContext: string;
  readonly allowExec: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly dryRun: boolean;
  /** Decides, from the plans of every Shoot, whether the writes may go ahead; a message stops the run before any write. */
  readonly guard?: (plans: ReadonlyMap<string, ShootPlan>) => string | undefined;
  /** Writes tried per Shoot before a run of conflicts counts as a failure. */
  readonly maxAttempts?: number;
  /** First backoff after a conflict (doubles per try, with jitter). */
  readonly conflictBackoffMs?: number;
}

export type GardenResult =
  | { readonly outcome: 'Applied'; readonly plan: ShootPlan & { kind: 'update' }; readonly generation?: number; readonly attempts: number }
  | { readonly outcome: 'WouldApply'; readonly plan: ShootPlan & { kind: 'update' } }
  | { readonly outcome: 'Unchanged'; readonly generation?: number }
  | { readonly outcome: 'Refused'; readonly reason: string; readonly message: string }
  | { readonly outcome: 'Failed'; readonly reason: string; readonly message: string };

export interface GardenRun {
  /** A failure of the whole run (401, unusable kubeconfig): nothing after it was written. */
  readonly global?: GlobalFailure;
  /** The guard's message: it stopped the run before any write (with dryRun: it would have). */
  readonly guarded?: string;
  /** By runtime name; a runtime the run did not get to (stopped) has none. */
  readonly results: ReadonlyMap<string, GardenResult>;
}

const DEFAULT_MAX_ATTEMPTS = 8;
const DEFAULT_CONFLICT_BACKOFF_MS = 50;
const MAX_CONFLICT_BACKOFF_MS = 2_000;

export async function applyGarden(targets: readonly GardenTarget[], options: GardenApplyOptions): Promise<GardenRun> {
  const k8s = await loadClientNode();
  const run = new RunControl();
  let config: K8s.KubeConfig;
  try {
    config = kubeConfigForContext(k8s, options.kubeconfig, options.gardenContext, options.allowExec, 'Garden');
  } catch (err) {
    if (!(err instanceof KubeconfigProblem)) throw err;
    return { global: { reason: err.failureReason, message: err.message }, results: new Map() };
  }
  const garden = new KubeReader(
    k8s,
    config,
    'garden',
    { timeoutMs: options.timeoutMs, retries: 3, backoffMs: 200, maxRetryAfterMs: 30_000, maxResponseBytes: 16 * 1024 * 1024, pageSize: 500, maxPages: 1 },
    run,
  );
  const results = new Map<string, GardenResult>();
  const stopOn401 = (err: unknown): void => {
    if (err instanceof ReadError && err.reason === 'Unauthorized') {
      run.fail({ reason: 'Unauthorized', message: `Garden (context "${options.gardenContext}"): ${err.message}; check the credentials of that context` });
      throw new RunStopped();
    }
  };

  /** Runs `fn` for each target, bounded: a failure is that target's result, a 401 stops the run. */
  const forEach = (items: readonly GardenTarget[], fn: (t: GardenTarget) => Promise<void>): Promise<void> =>
    forEachBounded(items, options.concurrency, run.signal, async (t) => {
      try {
        await fn(t);
      } catch (err) {
        if (err instanceof RunStopped) return;
        stopOn401(err);
        results.set(t.name, failure(err));
      }
    }).catch((err: unknown) => {
      if (!(err instanceof RunStopped)) throw err;
    });

  // 1. Read and plan every Shoot.
  const plans = new Map<string, ShootPlan>();
  await forEach(targets, async (t) => {
    const read = await readAndPlan(garden, t);
    if ('failed' in read) results.set(t.name, read.failed);
    else plans.set(t.name, read.plan);
  });
  if (run.global) return { global: run.global, results: new Map() };
  for (const [name, plan] of plans) {
    const done = settled(plan);
    if (done) results.set(name, done);
  }
  const updates = targets.filter((t) => plans.get(t.name)?.kind === 'update');
  const guarded = options.guard?.(plans);
  if (options.dryRun) {
    for (const t of updates) results.set(t.name, { outcome: 'WouldApply', plan: plans.get(t.name) as ShootPlan & { kind: 'update' } });
    return { ...(guarded !== undefined ? { guarded } : {}), results };
  }
  if (guarded !== undefined) return { guarded, results };

  // 2. Write, planning again after every conflict.
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const backoff = options.conflictBackoffMs ?? DEFAULT_CONFLICT_BACKOFF_MS;
  await forEach(updates, async (t) => {
    let plan = plans.get(t.name)!;
    for (let attempt = 1; ; attempt++) {
      if (plan.kind !== 'update') return void results.set(t.name, settled(plan)!);
      const written = await writePlan(garden, t, plan);
      if (written.ok) {
        const generation = generationOf(written.shoot);
        return void results.set(t.name, { outcome: 'Applied', plan, attempts: attempt, ...(generation === undefined ? {} : { generation }) });
      }
      if (written.notFound) return void results.set(t.name, { outcome: 'Failed', reason: 'NotFound', message: `Shoot ${t.shootNamespace}/${t.shootName} was deleted while the run was writing it` });
      if (attempt >= maxAttempts) {
        return void results.set(t.name, { outcome: 'Failed', reason: 'Conflict', message: `the Shoot changed under every one of ${maxAttempts} writes (409 Conflict each time); run again` });
      }
      await sleep(Math.min(MAX_CONFLICT_BACKOFF_MS, backoff * 2 ** (attempt - 1)) * (0.5 + Math.random()), run.signal);
      const read = await readAndPlan(garden, t);
      if ('failed' in read) return void results.set(t.name, read.failed);
      plan = read.plan;
    }
  });
  return { ...(run.global ? { global: run.global } : {}), results };
}

/** The result of a plan that needs no write (refused or unchanged); undefined for an update. */
function settled(plan: ShootPlan): GardenResult | undefined {
  if (plan.kind === 'refused') return { outcome: 'Refused', reason: plan.reason, message: plan.message };
  if (plan.kind === 'unchanged') return { outcome: 'Unchanged', ...(plan.generation === undefined ? {} : { generation: plan.generation }) };
  return undefined;
}

async function readAndPlan(garden: KubeReader, t: GardenTarget): Promise<{ plan: ShootPlan } | { failed: GardenResult }> {
  const shoot = await garden.getObject(SHOOT, t.shootNamespace, t.shootName);
  if (shoot === NOT_FOUND) {
    return { failed: { outcome: 'Failed', reason: 'NotFound', message: `Shoot ${t.shootNamespace}/${t.shootName} does not exist in the Garden cluster` } };
  }
  return { plan: planShootEntries(shoot, t.runtimeID, t.owned) };
}

/** One write; `ok: false` on a 409 (plan again) or a 404. Other failures throw ReadError. */
async function writePlan(garden: KubeReader, t: GardenTarget, plan: ShootPlan & { kind: 'update' }): Promise<{ ok: true; shoot: unknown } | { ok: false; notFound: boolean }> {
  try {
    const shoot = await garden.patchObject(SHOOT, t.shootNamespace, t.shootName, plan.ops);
    if (shoot === NOT_FOUND) return { ok: false, notFound: true };
    return { ok: true, shoot };
  } catch (err) {
    if (err instanceof ReadError && err.httpStatus === 409) return { ok: false, notFound: false };
    throw err;
  }
}

function failure(err: unknown): GardenResult {
  if (err instanceof ReadError) {
    // 400/422 and admission denials (a webhook's 403 names the webhook) carry the server's message.
    const reason = err.httpStatus === 422 || err.httpStatus === 400 ? 'Invalid' : err.reason;
    return { outcome: 'Failed', reason, message: sanitizeMessage(err.message) };
  }
  throw err;
}

function generationOf(shoot: unknown): number | undefined {
  const meta = (shoot as { metadata?: { generation?: unknown } } | undefined)?.metadata;
  return typeof meta?.generation === 'number' ? meta.generation : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RunStopped());
    const onStop = (): void => {
      clearTimeout(timer);
      reject(new RunStopped());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onStop);
      resolve();
    }, ms);
    signal.addEventListener('abort', onStop, { once: true });
  });
}
