// Observes runtimes from a folder of `kubectl get … -o yaml|json` dumps (PRODUCT.md "Status
// reporter"), laid out like dist/:
//
//   DIR/kcp/              Runtime and Kyma CRs of the Kyma Control Plane
//   DIR/garden/           Shoots
//   DIR/runtimes/<name>/  objects of that runtime's cluster: the Kyma CR kyma-system/default and the
//                         objects of the kinds the extensions' status hooks declare (skrKinds)
//
// Any file names (subfolders too), `.yaml`, `.yml` or `.json`; a file holds `List`s (kind List or
// *List with items) or single objects, YAML files may hold several documents. Objects are
// recognised by API group, kind, namespace and name: the Runtime and the KCP Kyma by the lowercase
// runtime ID in the runtime's KCP namespace, the Shoot by name and namespace, the SKR Kyma only as
// kyma-system/default.
//
// Dumps are treated as untrusted: YAML 1.2 core schema, no aliases, unique keys, bounded nesting and
// size. A bad item is a warning with its file and JSON pointer, never a crash; a file that cannot be
// read or parsed makes the objects of its cluster folder that were not found elsewhere InvalidData
// (not "missing"). Duplicate objects: a warning, and the one with the higher metadata.generation,
// then the higher metadata.resourceVersion, then the first in file order wins. Identity checks:
// the runtime-id label (and the shoot-name label of the SKR Kyma) and the Shoot's runtime-id
// annotation must match the fleet where present, else that cluster fails with IdentityMismatch.
// A missing folder is the read failure NotDumped; a dump folder that does not exist, cannot be
// listed or has none of the three folders is a global failure (exit 5). Reading the folders and
// files is ./dump-files.ts; every Runtime CR of the KCP namespace also goes into the inventory.

import { EXTENSIONS } from '../extensions';
import { type SkrKind, statusSkrKinds } from '../extensions/status-hook';
import { cmp } from '../lib/diagnostics';
import type { ClusterRole, KubeObject, Observation, ObservationWarning, ObservedRuntime, ReadFailure, RuntimeRef } from './observed';
import { comparePointers, type FolderScan, type Item, openDump, scanFolder, scanRuntimes, toSlash, UnreadableFolder } from './dump-files';
import { makeInventory } from './inventory';
import { sanitizeMessage } from './sanitize';

export { MAX_DUMP_DEPTH, MAX_DUMP_FILE_BYTES, parseDumpFile } from './dump-files';

const RUNTIME_ID_LABEL = 'kyma-project.io/runtime-id';
const SHOOT_NAME_LABEL = 'kyma-project.io/shoot-name';
const SHOOT_RUNTIME_ID_ANNOTATION = 'infrastructuremanager.kyma-project.io/runtime-id';

type Rec = Record<string, unknown>;

export interface DumpOptions {
  /** How the dump folder is shown in warnings (default: `dir` as given). */
  readonly display?: string;
  /** Kinds read from each runtime's folder (default: the skrKinds of the registered extensions' status hooks). */
  readonly skrKinds?: readonly SkrKind[];
}

export function observeDumps(dir: string, refs: readonly RuntimeRef[], options: DumpOptions = {}): Observation {
  const display = toSlash(options.display ?? dir).replace(/\/+$/, '') || '.';
  const skrKinds = options.skrKinds ?? statusSkrKinds(EXTENSIONS);
  const empty = (reason: 'UnreadableDump', message: string): Observation => ({ runtimes: new Map(), global: { reason, message }, warnings: [] });

  const opened = openDump(dir, display);
  if ('problem' in opened) return empty('UnreadableDump', opened.problem);
  const ctx = opened.ctx;
  const warnings = ctx.warnings;
  let kcp: FolderScan;
  let garden: FolderScan;
  let runtimeFolders: Map<string, FolderScan> | undefined;
  try {
    kcp = scanFolder(ctx, 'kcp');
    garden = scanFolder(ctx, 'garden');
    runtimeFolders = scanRuntimes(ctx, refs);
  } catch (e) {
    if (e instanceof UnreadableFolder) return empty('UnreadableDump', e.message);
    throw e;
  }
  if (!kcp.exists && !garden.exists && runtimeFolders === undefined) {
    return empty('UnreadableDump', `dump folder ${display} holds none of kcp/, garden/ and runtimes/; is --from the right folder?`);
  }

  // Index the objects of the shared folders that belong to a runtime of the fleet.
  const wantedKcp = new Set(refs.map((r) => `${r.kcpNamespace}/${r.runtimeID.toLowerCase()}`));
  const wantedShoots = new Set(refs.map((r) => `${r.shootNamespace}/${r.shootName}`));
  const kcpIndex = new DedupIndex(warnings);
  // Every Runtime CR of the fleet's KCP namespace, for the inventory (./inventory.ts).
  const kcpNamespaces = new Set(refs.map((r) => r.kcpNamespace));
  const inventoryObjects: KubeObject[] = [];
  const ignoredKcp = new IgnoredKinds('kcp/', 'Runtime and Kyma objects of the Kyma Control Plane', warnings);
  for (const item of kcp.items) {
    const kind = item.obj.kind;
    const id = `${item.obj.metadata.namespace ?? ''}/${item.obj.metadata.name}`;
    if (kind === 'Runtime' && item.group === 'infrastructuremanager.kyma-project.io') {
      if (wantedKcp.has(id)) kcpIndex.add(`Runtime ${id}`, item);
      if (kcpNamespaces.has(item.obj.metadata.namespace ?? '')) inventoryObjects.push(item.obj);
    } else if (kind === 'Kyma' && item.group === 'operator.kyma-project.io') {
      if (wantedKcp.has(id)) kcpIndex.add(`Kyma ${id}`, item);
    } else ignoredKcp.add(item);
  }
  ignoredKcp.flush();
  const gardenIndex = new DedupIndex(warnings);
  const ignoredGarden = new IgnoredKinds('garden/', 'Shoots', warnings);
  for (const item of garden.items) {
    const id = `${item.obj.metadata.namespace ?? ''}/${item.obj.metadata.name}`;
    if (item.obj.kind === 'Shoot' && item.group === 'core.gardener.cloud') {
      if (wantedShoots.has(id)) gardenIndex.add(`Shoot ${id}`, item);
    } else ignoredGarden.add(item);
  }
  ignoredGarden.flush();

  const runtimes = new Map<string, ObservedRuntime>();
  for (const ref of refs) {
    const read = new Set<ClusterRole>();
    const failures: ReadFailure[] = [];
    const out: { runtimeCR?: KubeObject; kcpKyma?: KubeObject; shoot?: KubeObject; skrKyma?: KubeObject; skrObjects: ReadonlyMap<string, KubeObject[]> } = {
      skrObjects: new Map(),
    };
    const kcpId = `${ref.kcpNamespace}/${ref.runtimeID.toLowerCase()}`;

    // KCP
    if (!kcp.exists) failures.push({ cluster: 'kcp', reason: 'NotDumped', message: `the dump has no kcp/ folder` });
    else {
      const runtimeCR = kcpIndex.get(`Runtime ${kcpId}`);
      const kcpKyma = kcpIndex.get(`Kyma ${kcpId}`);
      const mismatch = runtimeIdMismatch(runtimeCR, ref, 'Runtime') ?? runtimeIdMismatch(kcpKyma, ref, 'Kyma');
      if (mismatch) failures.push({ cluster: 'kcp', reason: 'IdentityMismatch', message: mismatch });
      else if ((!runtimeCR || !kcpKyma) && kcp.broken.length > 0) failures.push({ cluster: 'kcp', reason: 'InvalidData', message: brokenMessage(kcp.broken) });
      else {
        read.add('kcp');
        if (runtimeCR) out.runtimeCR = runtimeCR;
        if (kcpKyma) out.kcpKyma = kcpKyma;
      }
    }

    // Garden
    if (!garden.exists) failures.push({ cluster: 'garden', reason: 'NotDumped', message: `the dump has no garden/ folder` });
    else {
      const shoot = gardenIndex.get(`Shoot ${ref.shootNamespace}/${ref.shootName}`);
      const annotated = shoot?.metadata.annotations?.[SHOOT_RUNTIME_ID_ANNOTATION];
      if (shoot && typeof annotated === 'string' && annotated.toLowerCase() !== ref.runtimeID.toLowerCase()) {
        failures.push({
          cluster: 'garden',
          reason: 'IdentityMismatch',
          message: `Shoot ${ref.shootNamespace}/${ref.shootName} belongs to runtime ${annotated} (annotation ${SHOOT_RUNTIME_ID_ANNOTATION}), the fleet says ${ref.runtimeID}`,
        });
      } else if (!shoot && garden.broken.length > 0) failures.push({ cluster: 'garden', reason: 'InvalidData', message: brokenMessage(garden.broken) });
      else {
        read.add('garden');
        if (shoot) out.shoot = shoot;
      }
    }

    // SKR
    const folder = runtimeFolders?.get(ref.name);
    if (runtimeFolders === undefined) failures.push({ cluster: 'skr', reason: 'NotDumped', message: 'the dump has no runtimes/ folder' });
    else if (!folder) failures.push({ cluster: 'skr', reason: 'NotDumped', message: `the dump has no runtimes/${ref.name}/ folder` });
    else if (folder.broken.length > 0) failures.push({ cluster: 'skr', reason: 'InvalidData', message: brokenMessage(folder.broken) });
    else {
      const skr = indexRuntimeFolder(folder, ref, skrKinds, warnings);
      const mismatch = skrMismatch(skr.kyma, ref);
      if (mismatch) failures.push({ cluster: 'skr', reason: 'IdentityMismatch', message: mismatch });
      else {
        read.add('skr');
        if (skr.kyma) out.skrKyma = skr.kyma;
        out.skrObjects = skr.skrObjects;
      }
    }

    runtimes.set(ref.name, {
      ref,
      ...out,
      read,
      failures: failures.map((f) => ({ ...f, message: sanitizeMessage(f.message) })),
    });
  }
  // Object names and kinds in messages come from the dump: one sanitised line each.
  const clean = warnings.map((w) => ({ where: w.where, pointer: sanitizeMessage(w.pointer, 200), message: sanitizeMessage(w.message) }));
  clean.sort((a, b) => cmp(a.where, b.where) || comparePointers(a.pointer, b.pointer) || cmp(a.message, b.message));
  // The inventory only when the whole kcp/ folder was read: a missing object proves nothing otherwise.
  const namespace = refs[0]?.kcpNamespace;
  const inventory = kcp.exists && kcp.broken.length === 0 && kcpNamespaces.size === 1 && namespace !== undefined ? makeInventory(namespace, inventoryObjects) : undefined;
  return { runtimes, warnings: clean, ...(inventory ? { inventory } : {}) };
}

// --------------------------------------------------------------------------------------------- identity

function runtimeIdMismatch(obj: KubeObject | undefined, ref: RuntimeRef, kind: string): string | undefined {
  const label = obj?.metadata.labels?.[RUNTIME_ID_LABEL];
  if (obj && typeof label === 'string' && label.toLowerCase() !== ref.runtimeID.toLowerCase()) {
    return `${kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name} has ${RUNTIME_ID_LABEL}=${label}, the fleet says ${ref.runtimeID}`;
  }
  return undefined;
}

function skrMismatch(kyma: KubeObject | undefined, ref: RuntimeRef): string | undefined {
  if (!kyma) return undefined;
  const id = kyma.metadata.labels?.[RUNTIME_ID_LABEL];
  if (typeof id === 'string' && id.toLowerCase() !== ref.runtimeID.toLowerCase()) {
    return `runtimes/${ref.name}/ holds the Kyma CR of runtime ${id} (label ${RUNTIME_ID_LABEL}), the fleet says ${ref.runtimeID}: a dump of the wrong cluster`;
  }
  const shoot = kyma.metadata.labels?.[SHOOT_NAME_LABEL];
  if (typeof shoot === 'string' && shoot !== ref.shootName) {
    return `runtimes/${ref.name}/ holds the Kyma CR of Shoot ${shoot} (label ${SHOOT_NAME_LABEL}), the fleet says ${ref.shootName}: a dump of the wrong cluster`;
  }
  return undefined;
}

function brokenMessage(broken: readonly string[]): string {
  return `${broken.length} file${broken.length === 1 ? '' : 's'} of the dump could not be read: ${broken.join('; ')}`;
}

function indexRuntimeFolder(
  folder: FolderScan,
  ref: RuntimeRef,
  skrKinds: readonly SkrKind[],
  warnings: ObservationWarning[],
): { kyma?: KubeObject; skrObjects: Map<string, KubeObject[]> } {
  const index = new DedupIndex(warnings);
  const holds = ['the Kyma CR kyma-system/default', ...skrKinds.map((k) => `${k.kind}s`)];
  const ignored = new IgnoredKinds(`runtimes/${ref.name}/`, holds.length > 1 ? `${holds.slice(0, -1).join(', ')} and ${holds.at(-1)}` : holds[0]!, warnings);
  for (const item of folder.items) {
    const { kind, metadata } = item.obj;
    const id = `${metadata.namespace ?? ''}/${metadata.name}`;
    if (kind === 'Kyma' && item.group === 'operator.kyma-project.io') {
      if (id === 'kyma-system/default') index.add(`Kyma ${id}`, item);
      else warnings.push({ where: item.where, pointer: item.pointer, message: `Kyma ${id} ignored: the Kyma CR of a runtime is kyma-system/default` });
    } else if (skrKinds.some((k) => k.kind === kind && k.group === item.group)) {
      if (metadata.namespace === undefined || metadata.namespace === '') {
        warnings.push({ where: item.where, pointer: item.pointer, message: `${kind} ${metadata.name} ignored: it has no namespace` });
      } else index.add(`${kind} ${id}`, item);
    } else ignored.add(item);
  }
  ignored.flush();
  const keys = index.keys().sort(cmp);
  const skrObjects = new Map<string, KubeObject[]>();
  for (const k of skrKinds) skrObjects.set(k.kind, keys.filter((key) => key.startsWith(`${k.kind} `)).map((key) => index.get(key)!));
  return { kyma: index.get('Kyma kyma-system/default'), skrObjects };
}

// --------------------------------------------------------------------------------------------- duplicates

class DedupIndex {
  private readonly map = new Map<string, Item>();
  constructor(private readonly warnings: ObservationWarning[]) {}

  add(key: string, item: Item): void {
    const prev = this.map.get(key);
    if (!prev) {
      this.map.set(key, item);
      return;
    }
    const { winner, why } = better(prev, item);
    this.map.set(key, winner);
    const loser = winner === prev ? item : prev;
    this.warnings.push({
      where: item.where,
      pointer: item.pointer,
      message: `duplicate ${key} (also at ${location(prev)}); using the one at ${location(winner)} (${why}), ignoring ${location(loser)}`,
    });
  }

  get(key: string): KubeObject | undefined {
    return this.map.get(key)?.obj;
  }

  keys(): string[] {
    return [...this.map.keys()];
  }
}

function location(item: Item): string {
  return item.pointer === '' ? item.where : `${item.where}#${item.pointer}`;
}

function better(a: Item, b: Item): { winner: Item; why: string } {
  const ga = a.obj.metadata.generation;
  const gb = b.obj.metadata.generation;
  if (ga !== undefined && gb !== undefined && ga !== gb) return { winner: ga > gb ? a : b, why: 'higher metadata.generation' };
  if ((ga === undefined) !== (gb === undefined)) return { winner: ga !== undefined ? a : b, why: 'it has a metadata.generation' };
  const ra = resourceVersion(a.obj);
  const rb = resourceVersion(b.obj);
  if (ra !== undefined && rb !== undefined && ra !== rb) {
    const numeric = /^[0-9]{1,30}$/.test(ra) && /^[0-9]{1,30}$/.test(rb);
    const aWins = numeric ? BigInt(ra) > BigInt(rb) : cmp(ra, rb) > 0;
    return { winner: aWins ? a : b, why: 'higher metadata.resourceVersion' };
  }
  return { winner: a.seq <= b.seq ? a : b, why: 'the same generation and resourceVersion; the first in file order' };
}

function resourceVersion(obj: KubeObject): string | undefined {
  const rv = (obj.metadata as Rec).resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** Objects of kinds a folder does not hold: one warning per file and kind. */
class IgnoredKinds {
  private readonly seen = new Map<string, { item: Item; count: number }>();
  constructor(
    private readonly folder: string,
    private readonly holds: string,
    private readonly warnings: ObservationWarning[],
  ) {}

  add(item: Item): void {
    const key = `${item.where}\u0000${item.obj.apiVersion}\u0000${item.obj.kind}`;
    const entry = this.seen.get(key);
    if (entry) entry.count++;
    else this.seen.set(key, { item, count: 1 });
  }

  flush(): void {
    for (const { item, count } of this.seen.values()) {
      const what = `${count === 1 ? 'an object' : `${count} objects`} of kind ${item.obj.kind} (${item.obj.apiVersion})`;
      this.warnings.push({ where: item.where, pointer: item.pointer, message: `${what} ignored: ${this.folder} is read for ${this.holds}` });
    }
    this.seen.clear();
  }
}
