// The live source of the status reporter: reads what the clusters report for each runtime through
// @kubernetes/client-node and fills the shared model of ./observed.ts.
//
//   KCP     Runtime <lowercase runtimeID> and Kyma <lowercase runtimeID> in ref.kcpNamespace, and the
//           Secret kubeconfig-<runtimeID> (key `config`) that reaches the runtime (KLM/KIM convention)
//   Garden  Shoot <shootName> in <shootNamespace>
//   SKR     Kyma kyma-system/default and every object of the kinds the extensions' status hooks
//           declare (skrKinds, all namespaces), with the secret's kubeconfig, only when its server
//           is one the fleet's skrApiServers allow (./skr-servers.ts)
//
// Work is bounded: namespaces with many wanted objects are read with one paged LIST per kind
// (phase 1), the rest with GETs; runtimes are then observed by a pool of `concurrency` workers,
// each with at most MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME requests in flight (phase 2). A 401 from
// the KCP or the Garden, or either being unreachable, stops the run at once (GlobalFailure); every
// other failure only makes that cluster of that runtime unread (ReadFailure). With `inventory`, one
// paged LIST of every Runtime CR of the KCP namespace more (./inventory.ts). Options and helpers:
// ./live-settings.ts.

import type * as K8s from '@kubernetes/client-node';
import {
  type Gvr,
  type K8sModule,
  KubeReader,
  KubeconfigProblem,
  NOT_FOUND,
  type NotFound,
  ReadError,
  RunControl,
  RunStopped,
  describeTarget,
  forEachBounded,
  kubeConfigForContext,
  kubeConfigFromSecret,
  loadClientNode,
  toKubeObject,
} from './kube-client';
import type {
  ClusterRole,
  FailureReason,
  KubeObject,
  Observation,
  ObservationWarning,
  ObservedRuntime,
  ReadFailure,
  RuntimeRef,
} from './observed';
import { type KcpInventory, makeInventory } from './inventory';
import { apiPath, bulkKey, cmp, dedupe, dedupeFailures, isRecord, type LiveOptions, MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME, MAX_SKR_OBJECTS_PER_KIND, normalise, resourceOf, type Settings, stopped } from './live-settings';
import { sanitizeMessage } from './sanitize';

export {
  DEFAULT_BACKOFF_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_LIST_THRESHOLD,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type LiveOptions,
  MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME,
  MAX_SKR_OBJECTS_PER_KIND,
} from './live-settings';

const RUNTIME: Gvr = { group: 'infrastructuremanager.kyma-project.io', version: 'v1', plural: 'runtimes', kind: 'Runtime' };
const KYMA: Gvr = { group: 'operator.kyma-project.io', version: 'v1beta2', plural: 'kymas', kind: 'Kyma' };
const SHOOT: Gvr = { group: 'core.gardener.cloud', version: 'v1beta1', plural: 'shoots', kind: 'Shoot' };
const SKR_KYMA_NAMESPACE = 'kyma-system';
const SKR_KYMA_NAME = 'default';
const KUBECONFIG_KEY = 'config';

/** The outcome of one read: the object (undefined = not found) or why it failed. */
type Read<T> = { readonly ok: true; readonly value: T | undefined } | { readonly ok: false; readonly failure: ReadFailure };

/** Phase 1 result for one kind in one namespace. */
type Bulk =
  | { readonly mode: 'listed'; readonly objects: ReadonlyMap<string, KubeObject | string> }
  | { readonly mode: 'failed'; readonly failure: ReadFailure }
  | { readonly mode: 'get' };

/**
 * Observes `refs` on the live clusters. Never throws for what the clusters or the kubeconfig do:
 * a kubeconfig that cannot be used, a 401 from the KCP or the Garden, or either being unreachable
 * is returned as `global` (then every runtime is present with nothing read); everything else is
 * a per-runtime ReadFailure. Throws RangeError for invalid options.
 */
export async function observeLive(refs: readonly RuntimeRef[], options: LiveOptions): Promise<Observation> {
  const settings = normalise(options);
  const unique = dedupe(refs);
  const run = new RunControl();
  const k8s = await loadClientNode();

  let kcpConfig: K8s.KubeConfig;
  let gardenConfig: K8s.KubeConfig;
  try {
    kcpConfig = kubeConfigForContext(k8s, options.kubeconfig, options.kcpContext, settings.allowExec, 'KCP');
    gardenConfig = kubeConfigForContext(k8s, options.kubeconfig, options.gardenContext, settings.allowExec, 'Garden');
  } catch (err) {
    if (!(err instanceof KubeconfigProblem)) throw err;
    run.fail({ reason: err.failureReason, message: err.message });
    return stopped(unique, run);
  }

  const source = new LiveRun(k8s, run, settings, options);
  const kcp = new KubeReader(k8s, kcpConfig, 'kcp', settings.policy, run);
  const garden = new KubeReader(k8s, gardenConfig, 'garden', settings.policy, run);

  const namespaces = [...new Set(unique.map((r) => r.kcpNamespace))];
  let inventory: KcpInventory | undefined;
  try {
    await Promise.all([
      source.listPhase(kcp, [RUNTIME, KYMA], unique, (r) => [r.kcpNamespace, r.runtimeID.toLowerCase()]),
      source.listPhase(garden, [SHOOT], unique, (r) => [r.shootNamespace, r.shootName]),
      settings.inventory && namespaces.length === 1 ? source.inventory(kcp, namespaces[0]!).then((i) => void (inventory = i)) : undefined,
    ]);
  } catch (err) {
    if (!(err instanceof RunStopped)) throw err;
  }
  if (run.global) return stopped(unique, run);

  const observed: ObservedRuntime[] = new Array<ObservedRuntime>(unique.length);
  await forEachBounded(unique, settings.concurrency, run.signal, async (ref, i) => {
    try {
      observed[i] = await source.observeRuntime(ref, kcp, garden);
    } catch (err) {
      if (!(err instanceof RunStopped)) throw err;
    }
  });
  if (run.global) return stopped(unique, run);

  const runtimes = new Map<string, ObservedRuntime>();
  for (const o of observed) runtimes.set(o.ref.name, o);
  return { runtimes, warnings: source.sortedWarnings(), ...(inventory ? { inventory } : {}) };
}

class LiveRun {
  private readonly bulk = new Map<string, Bulk>();
  private readonly warnings: ObservationWarning[] = [];

  constructor(
    private readonly k8s: K8sModule,
    private readonly run: RunControl,
    private readonly settings: Settings,
    private readonly options: LiveOptions,
  ) {}

  sortedWarnings(): ObservationWarning[] {
    return this.warnings
      .map((w) => ({ ...w, message: sanitizeMessage(w.message) }))
      .sort((a, b) => cmp(a.where, b.where) || cmp(a.pointer, b.pointer) || cmp(a.message, b.message));
  }

  /**
   * Phase 1: one paged LIST per kind for every namespace holding at least listThreshold wanted
   * objects, keeping only the wanted ones. Namespaces are read one after the other; a 403 on a
   * list falls back to GETs (RBAC may grant get only).
   */
  async listPhase(reader: KubeReader, kinds: readonly Gvr[], refs: readonly RuntimeRef[], key: (r: RuntimeRef) => [string, string]): Promise<void> {
    const wanted = new Map<string, Set<string>>();
    for (const r of refs) {
      const [ns, name] = key(r);
      if (!wanted.has(ns)) wanted.set(ns, new Set());
      wanted.get(ns)!.add(name);
    }
    for (const [ns, names] of [...wanted].sort((a, b) => cmp(a[0], b[0]))) {
      if (names.size < this.settings.listThreshold || names.size === 0) continue;
      await Promise.all(kinds.map((gvr) => this.listNamespace(reader, gvr, ns, names)));
    }
  }

  private async listNamespace(reader: KubeReader, gvr: Gvr, ns: string, names: ReadonlySet<string>): Promise<void> {
    const objects = new Map<string, KubeObject | string>();
    const where = `live:${reader.role}:${apiPath(gvr, ns)}`;
    const read = await this.settle(reader, () =>
      reader.listObjects(gvr, ns, (item, index) => {
        const name = isRecord(item) && isRecord(item['metadata']) ? item['metadata']['name'] : undefined;
        if (typeof name !== 'string') {
          this.warnings.push({ where, pointer: `/items/${index}`, message: 'item without metadata.name; skipped' });
          return;
        }
        if (!names.has(name)) return; // another runtime's object: not ours to judge
        const obj = toKubeObject(item, gvr);
        objects.set(name, typeof obj === 'string' ? `${describeTarget({ verb: 'list', resource: resourceOf(gvr), namespace: ns })}: item /items/${index} (${sanitizeMessage(name, 100)}): ${obj}` : obj);
      }),
    );
    let bulk: Bulk;
    if (read.ok) bulk = { mode: 'listed', objects };
    else if (read.failure.reason === 'Forbidden') bulk = { mode: 'get' };
    else bulk = { mode: 'failed', failure: read.failure };
    this.bulk.set(bulkKey(reader.role, gvr, ns), bulk);
  }

  /** Every Runtime CR of the KCP namespace (one paged LIST); undefined, with a warning, when it cannot be listed. */
  async inventory(kcp: KubeReader, namespace: string): Promise<KcpInventory | undefined> {
    const objects: KubeObject[] = [];
    const where = `live:kcp:${apiPath(RUNTIME, namespace)}`;
    const read = await this.settle(kcp, () =>
      kcp.listObjects(RUNTIME, namespace, (item, index) => {
        const obj = toKubeObject(item, RUNTIME);
        if (typeof obj === 'string') this.warnings.push({ where, pointer: `/items/${index}`, message: `${obj}; not in the inventory` });
        else objects.push(obj);
      }),
    );
    if (!read.ok) {
      this.warnings.push({ where, pointer: '', message: `the KCP's Runtime CRs could not be listed (${read.failure.message}); runtimes the fleet does not manage are not reported` });
      return undefined;
    }
    return makeInventory(namespace, objects);
  }

  /** Phase 2 for one runtime: KCP, Garden and the secret in parallel, then the SKR. */
  async observeRuntime(ref: RuntimeRef, kcp: KubeReader, garden: KubeReader): Promise<ObservedRuntime> {
    const kcpName = ref.runtimeID.toLowerCase();
    const secretName = `kubeconfig-${ref.runtimeID}`;
    const [runtimeCR, kcpKyma, shoot, secret] = await Promise.all([
      this.object(kcp, RUNTIME, ref.kcpNamespace, kcpName),
      this.object(kcp, KYMA, ref.kcpNamespace, kcpName),
      this.object(garden, SHOOT, ref.shootNamespace, ref.shootName),
      this.settle(kcp, () => kcp.getSecret(ref.kcpNamespace, secretName)),
    ]);
    const skr = await this.observeSkr(ref, secret, `secret ${ref.kcpNamespace}/${secretName}`);

    const failures: ReadFailure[] = [];
    const read = new Set<ClusterRole>();
    const out: { -readonly [K in keyof ObservedRuntime]: ObservedRuntime[K] } = { ref, skrObjects: new Map(), read, failures };
    for (const r of [runtimeCR, kcpKyma, shoot]) if (!r.ok) failures.push(r.failure);
    if (runtimeCR.ok && kcpKyma.ok) {
      read.add('kcp');
      if (runtimeCR.value) out.runtimeCR = runtimeCR.value;
      if (kcpKyma.value) out.kcpKyma = kcpKyma.value;
    }
    if (shoot.ok) {
      read.add('garden');
      if (shoot.value) out.shoot = shoot.value;
    }
    if (skr.ok) {
      read.add('skr');
      if (skr.kyma) out.skrKyma = skr.kyma;
      out.skrObjects = skr.skrObjects;
    } else failures.push(skr.failure);
    out.failures = dedupeFailures(failures);
    return out;
  }

  /** A namespaced object of the KCP or the Garden, from the phase-1 list or by GET. */
  private async object(reader: KubeReader, gvr: Gvr, ns: string, name: string): Promise<Read<KubeObject>> {
    const bulk = this.bulk.get(bulkKey(reader.role, gvr, ns));
    if (bulk?.mode === 'failed') return { ok: false, failure: bulk.failure };
    if (bulk?.mode === 'listed') {
      const hit = bulk.objects.get(name);
      if (typeof hit === 'string') return { ok: false, failure: { cluster: reader.role, reason: 'InvalidData', message: hit } };
      return { ok: true, value: hit };
    }
    return this.getChecked(reader, gvr, ns, name);
  }

  private async getChecked(reader: KubeReader, gvr: Gvr, ns: string, name: string): Promise<Read<KubeObject>> {
    const read = await this.settle(reader, () => reader.getObject(gvr, ns, name));
    if (!read.ok || read.value === undefined) return read as Read<KubeObject>;
    const obj = toKubeObject(read.value, gvr);
    const problem =
      typeof obj === 'string'
        ? obj
        : obj.metadata.name !== name || (obj.metadata.namespace !== undefined && obj.metadata.namespace !== ns)
          ? `the server answered with another object (${sanitizeMessage(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, 120)})`
          : undefined;
    if (problem === undefined) return { ok: true, value: obj as KubeObject };
    const what = describeTarget({ verb: 'get', resource: resourceOf(gvr), namespace: ns, name });
    return { ok: false, failure: { cluster: reader.role, reason: 'InvalidData', message: `${what}: ${problem}` } };
  }

  private async observeSkr(
    ref: RuntimeRef,
    secret: Read<K8s.V1Secret>,
    secretLabel: string,
  ): Promise<{ ok: true; kyma?: KubeObject; skrObjects: Map<string, KubeObject[]> } | { ok: false; failure: ReadFailure }> {
    const fail = (reason: FailureReason, message: string) => ({ ok: false as const, failure: { cluster: 'skr' as const, reason, message } });
    if (!secret.ok) return fail(secret.failure.reason, `cannot read the kubeconfig ${secretLabel} on the KCP: ${secret.failure.message}`);
    if (!secret.value) return fail('NoCredentials', `no ${secretLabel} on the KCP; the runtime cannot be reached`);
    const data = secret.value.data?.[KUBECONFIG_KEY];
    if (typeof data !== 'string' || data === '') return fail('NoCredentials', `${secretLabel} on the KCP has no key "${KUBECONFIG_KEY}"`);

    let reader: KubeReader;
    try {
      const kc = kubeConfigFromSecret(this.k8s, Buffer.from(data, 'base64'), `${secretLabel} (key ${KUBECONFIG_KEY})`, this.settings.skrApiServers);
      reader = new KubeReader(this.k8s, kc, 'skr', this.settings.policy, this.run);
    } catch (err) {
      if (!(err instanceof KubeconfigProblem)) throw err;
      return fail(err.reason === 'Refused' ? 'RefusedCredentials' : 'InvalidData', err.message);
    }

    // The Kyma and one paged list per kind, at most MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME at a time.
    const kymaRead: { read?: Read<KubeObject> } = {};
    const lists = this.settings.skrKinds.map(() => ({ objects: [] as KubeObject[], tooMany: false, read: undefined as Read<unknown> | undefined }));
    const tasks: Array<() => Promise<void>> = [
      async () => void (kymaRead.read = await this.getChecked(reader, KYMA, SKR_KYMA_NAMESPACE, SKR_KYMA_NAME)),
      ...this.settings.skrKinds.map((gvr, i) => async () => {
        const where = `live:skr/${ref.name}:${apiPath(gvr, undefined)}`;
        const list = lists[i]!;
        list.read = await this.settle(reader, () =>
          reader.listObjects(gvr, undefined, (item, index) => {
            const obj = toKubeObject(item, gvr);
            if (typeof obj === 'string') this.warnings.push({ where, pointer: `/items/${index}`, message: `${obj}; skipped` });
            else if (list.objects.length >= MAX_SKR_OBJECTS_PER_KIND) list.tooMany = true;
            else list.objects.push(obj);
          }),
        );
      }),
    ];
    await forEachBounded(tasks, MAX_REQUESTS_IN_FLIGHT_PER_RUNTIME, this.run.signal, (task) => task());
    if (this.run.signal.aborted) throw new RunStopped();
    const kyma = kymaRead.read!;
    if (!kyma.ok) return { ok: false, failure: kyma.failure };
    const skrObjects = new Map<string, KubeObject[]>();
    for (const [i, gvr] of this.settings.skrKinds.entries()) {
      const list = lists[i]!;
      if (!list.read!.ok) return { ok: false, failure: list.read!.failure };
      if (list.tooMany) return fail('InvalidData', `list ${resourceOf(gvr)}: more than ${MAX_SKR_OBJECTS_PER_KIND} objects`);
      list.objects.sort((a, b) => cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name, b.metadata.name));
      skrObjects.set(gvr.kind, list.objects);
    }
    return { ok: true, kyma: kyma.value, skrObjects };
  }

  /**
   * Runs one read and turns its outcome into a Read. A 401 or an unreachable server on the KCP or
   * the Garden stops the run (GlobalFailure) and throws RunStopped; a 401 on an SKR means the
   * secret's credentials were rejected (RefusedCredentials).
   */
  private async settle<T>(reader: KubeReader, fn: () => Promise<T | NotFound | void>): Promise<Read<T>> {
    try {
      const v = await fn();
      return { ok: true, value: v === NOT_FOUND || v === undefined ? undefined : (v as T) };
    } catch (err) {
      if (!(err instanceof ReadError)) throw err;
      const role = reader.role;
      if (role !== 'skr' && (err.reason === 'Unauthorized' || err.reason === 'Unreachable')) {
        const context = role === 'kcp' ? this.options.kcpContext : this.options.gardenContext;
        const hint = err.reason === 'Unauthorized' ? '; check the credentials of that context' : '';
        this.run.fail({ reason: err.reason, message: `${role === 'kcp' ? 'KCP' : 'Garden'} (context "${context}"): ${err.message}${hint}` });
        throw new RunStopped();
      }
      if (err.reason === 'Unauthorized') {
        return { ok: false, failure: { cluster: role, reason: 'RefusedCredentials', message: `${err.message}; the credentials of the runtime's kubeconfig secret were rejected` } };
      }
      return { ok: false, failure: { cluster: role, reason: err.reason, message: err.message } };
    }
  }
}
