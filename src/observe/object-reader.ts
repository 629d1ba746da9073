// Reads every object of one kind from the Kyma Control Plane or the Garden, the two ways `status`
// reads clusters: a dump folder (DIR/kcp/ or DIR/garden/, laid out as for `status --from`, any
// file names, Lists or single objects) or live through a kubeconfig context (one paged LIST). Used
// by the onboarding commands: Runtime CRs and ModuleReleaseMetas of the KCP, and the Garden objects
// extensions keep snapshots of. A read either succeeds as a whole, with warnings for bad items, or fails as a
// whole (`global`, exit 5); a dump whose files could not all be read is marked incomplete.

import * as path from 'node:path';
import type { KubeObject } from '../lib/kube-object';
import { openDump, scanFolder, UnreadableFolder } from './dump-files';
import {
  type Gvr,
  KubeconfigProblem,
  KubeReader,
  NOT_FOUND,
  ReadError,
  RunControl,
  RunStopped,
  kubeConfigForContext,
  loadClientNode,
  toKubeObject,
} from './kube-client';
import type { GlobalFailure, ObservationWarning } from './observed';
import { sanitizeMessage } from './sanitize';

/** One object and where it was read: `<file>#<pointer>` (dumps) or `live:<role>:<api path>#/items/<i>`. */
export interface ReadObject {
  readonly obj: KubeObject;
  readonly where: string;
}

export interface ObjectsRead {
  /** Objects of the kind (in the namespace, when one is given), in file or list order. */
  readonly objects: readonly ReadObject[];
  readonly warnings: readonly ObservationWarning[];
  /** False when some dump file could not be read: an object missing from `objects` may exist. */
  readonly complete: boolean;
  /** The read failed as a whole; `objects` is empty. */
  readonly global?: GlobalFailure;
}

export type ClusterName = 'kcp' | 'garden';

/** Where the objects come from: a dump folder, or a kubeconfig context. */
export type ObjectSource =
  | { readonly kind: 'dump'; readonly dir: string; readonly display?: string }
  | {
      readonly kind: 'live';
      /** The operator's kubeconfig files, merged as kubectl merges them (trusted: read from CI secrets). */
      readonly kubeconfig: string | readonly string[];
      /** Context to use; undefined: the kubeconfig's current-context. */
      readonly context?: string;
      /** Allow exec and auth-provider users (they run local commands); refused otherwise (H62). */
      readonly allowExec: boolean;
      readonly timeoutMs: number;
    };

export interface ObjectsQuery {
  readonly cluster: ClusterName;
  readonly gvr: Gvr;
  /** Only objects of this namespace; undefined: cluster-scoped objects (or all namespaces). */
  readonly namespace?: string;
}

const LABEL: Readonly<Record<ClusterName, string>> = { kcp: 'KCP', garden: 'Garden' };

export async function readObjects(source: ObjectSource, query: ObjectsQuery): Promise<ObjectsRead> {
  return source.kind === 'dump' ? readDumpObjects(source.dir, source.display ?? source.dir, query) : readLiveObjects(source, query);
}

/** The objects of one kind in DIR/kcp/ or DIR/garden/ (subfolders too). */
export function readDumpObjects(dir: string, display: string, query: ObjectsQuery): ObjectsRead {
  const fail = (message: string): ObjectsRead => ({ objects: [], warnings: [], complete: false, global: { reason: 'UnreadableDump', message } });
  const opened = openDump(dir, display);
  if ('problem' in opened) return fail(opened.problem);
  const ctx = opened.ctx;
  let scan;
  try {
    scan = scanFolder(ctx, query.cluster);
  } catch (e) {
    if (e instanceof UnreadableFolder) return fail(e.message);
    throw e;
  }
  if (!scan.exists) {
    return fail(`dump folder ${ctx.display} has no ${query.cluster}/ folder: the ${LABEL[query.cluster]}'s ${query.gvr.kind} objects go there (kubectl get ${query.gvr.plural}.${query.gvr.group} -o yaml)`);
  }
  const objects: ReadObject[] = [];
  const ignored = new Map<string, number>();
  for (const item of scan.items) {
    const { obj } = item;
    if (obj.kind !== query.gvr.kind || item.group !== query.gvr.group) {
      const key = `${obj.apiVersion} ${obj.kind}`;
      ignored.set(key, (ignored.get(key) ?? 0) + 1);
      continue;
    }
    if (query.namespace !== undefined && obj.metadata.namespace !== query.namespace) {
      ctx.warnings.push({ where: item.where, pointer: item.pointer, message: `${obj.kind} ${sanitizeMessage(obj.metadata.name, 100)} ignored: it is in namespace ${JSON.stringify(sanitizeMessage(obj.metadata.namespace ?? '', 80))}, the fleet's is ${query.namespace}` });
      continue;
    }
    objects.push({ obj, where: item.pointer === '' ? item.where : `${item.where}#${item.pointer}` });
  }
  const warnings = ctx.warnings.map((w) => ({ where: w.where, pointer: w.pointer, message: sanitizeMessage(w.message) }));
  // Other kinds are normal there (Runtime, Kyma and ModuleReleaseMeta share kcp/); named only when
  // none of the wanted kind was found, as a hint at a wrong folder or a wrong dump.
  if (ignored.size > 0 && objects.length === 0) {
    const kinds = [...ignored].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${n} × ${sanitizeMessage(k, 120)}`);
    warnings.push({ where: `${ctx.display}/${query.cluster}/`, pointer: '', message: `no ${query.gvr.kind} object, only other kinds (${kinds.join(', ')})` });
  }
  return { objects, warnings, complete: scan.broken.length === 0 };
}

/** One paged LIST of the kind through the kubeconfig context; any failure fails the read. */
export async function readLiveObjects(source: Extract<ObjectSource, { kind: 'live' }>, query: ObjectsQuery): Promise<ObjectsRead> {
  const role = LABEL[query.cluster];
  const fail = (reason: GlobalFailure['reason'], message: string): ObjectsRead => ({ objects: [], warnings: [], complete: false, global: { reason, message: sanitizeMessage(message) } });
  const k8s = await loadClientNode();
  let config;
  try {
    config = kubeConfigForContext(k8s, source.kubeconfig, source.context, source.allowExec, role);
  } catch (err) {
    if (!(err instanceof KubeconfigProblem)) throw err;
    return fail(err.failureReason, err.message);
  }
  const run = new RunControl();
  const policy = { timeoutMs: source.timeoutMs, retries: 3, backoffMs: 250, maxRetryAfterMs: 30_000, maxResponseBytes: 64 * 1024 * 1024, pageSize: 500, maxPages: 1_000 };
  const reader = new KubeReader(k8s, config, query.cluster, policy, run);
  const apiPath = `/apis/${query.gvr.group}/${query.gvr.version}${query.namespace !== undefined ? `/namespaces/${query.namespace}` : ''}/${query.gvr.plural}`;
  const where = `live:${query.cluster}:${apiPath}`;
  const objects: ReadObject[] = [];
  const warnings: ObservationWarning[] = [];
  try {
    const listed = await reader.listObjects(query.gvr, query.namespace, (item, index) => {
      const obj = toKubeObject(item, query.gvr);
      if (typeof obj === 'string') warnings.push({ where, pointer: `/items/${index}`, message: `${obj}; skipped` });
      else objects.push({ obj, where: `${where}#/items/${index}` });
    });
    if (listed === NOT_FOUND) {
      return fail('Unreachable', `${role} (context ${JSON.stringify(config.getCurrentContext())}) does not serve ${query.gvr.plural}.${query.gvr.group}/${query.gvr.version}: is it the ${role}?`);
    }
  } catch (err) {
    if (err instanceof RunStopped) return fail('Unreachable', `${role}: the read was stopped`);
    if (!(err instanceof ReadError)) throw err;
    const reason = err.reason === 'Unauthorized' || err.reason === 'Forbidden' || err.reason === 'RefusedCredentials' ? err.reason : 'Unreachable';
    const hint = err.reason === 'Unauthorized' ? '; check the credentials of that context' : err.reason === 'Forbidden' ? `; the context's user needs list on ${query.gvr.plural}.${query.gvr.group}` : '';
    return fail(reason, `${role} (context ${JSON.stringify(config.getCurrentContext())}): ${err.message}${hint}`);
  }
  return { objects, warnings, complete: true };
}

/** `dir` as shown in messages: relative to `cwd` when inside it. */
export function displayPath(dir: string, cwd: string): string {
  const rel = path.relative(cwd, path.resolve(cwd, dir)).split(path.sep).join('/');
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? dir : rel;
}
