// The KCP's inventory against the fleet: Runtime CRs the KCP has that no fleet runtime declares
// (by runtime ID; candidates for `kyma-fleet import runtimes`), and fleet runtimes whose runtime ID
// no Runtime CR has (deprovisioned, or a typo in the ID). Filled by both status sources from the
// reads they make anyway; compared here. Pure.

import { cmp } from '../lib/diagnostics';
import type { KubeObject } from '../lib/kube-object';
import type { KcpInventory, KcpRuntimeEntry, RuntimeRef } from './observed';

export type { KcpInventory, KcpRuntimeEntry } from './observed';

const RUNTIME_ID_LABEL = 'kyma-project.io/runtime-id';
const SHOOT_NAME_LABEL = 'kyma-project.io/shoot-name';
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The inventory entry of a Runtime CR. */
export function inventoryEntry(obj: KubeObject): KcpRuntimeEntry {
  const labels = obj.metadata.labels ?? {};
  const id = labels[RUNTIME_ID_LABEL];
  const spec = obj.spec as { shoot?: { name?: unknown; region?: unknown } } | undefined;
  const shoot = typeof spec?.shoot?.name === 'string' ? spec.shoot.name : labels[SHOOT_NAME_LABEL];
  const region = typeof spec?.shoot?.region === 'string' ? spec.shoot.region : labels['kyma-project.io/region'];
  const plan = labels['kyma-project.io/broker-plan-name'];
  return {
    runtimeID: typeof id === 'string' && UUID.test(id) ? id : obj.metadata.name,
    object: `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`,
    ...(shoot !== undefined ? { shootName: shoot } : {}),
    ...(plan !== undefined ? { plan } : {}),
    ...(region !== undefined ? { region } : {}),
  };
}

export function makeInventory(namespace: string, objects: readonly KubeObject[]): KcpInventory {
  const seen = new Map<string, KcpRuntimeEntry>();
  for (const o of objects) {
    const e = inventoryEntry(o);
    if (!seen.has(e.runtimeID.toLowerCase())) seen.set(e.runtimeID.toLowerCase(), e);
  }
  return { namespace, runtimes: [...seen.values()].sort((a, b) => cmp(a.runtimeID.toLowerCase(), b.runtimeID.toLowerCase())) };
}

export interface InventoryComparison {
  readonly namespace: string;
  /** Runtime CRs no fleet runtime declares, sorted by runtime ID. */
  readonly unmanaged: readonly KcpRuntimeEntry[];
  /** Fleet runtimes without a Runtime CR, sorted by name. */
  readonly missing: readonly RuntimeRef[];
  /** Runtime CRs the fleet manages. */
  readonly managed: number;
}

export function compareInventory(refs: readonly RuntimeRef[], inventory: KcpInventory): InventoryComparison {
  const fleetIds = new Set(refs.map((r) => r.runtimeID.toLowerCase()));
  const kcpIds = new Set(inventory.runtimes.map((r) => r.runtimeID.toLowerCase()));
  return {
    namespace: inventory.namespace,
    unmanaged: inventory.runtimes.filter((r) => !fleetIds.has(r.runtimeID.toLowerCase())),
    missing: refs.filter((r) => !kcpIds.has(r.runtimeID.toLowerCase())).sort((a, b) => cmp(a.name, b.name)),
    managed: inventory.runtimes.filter((r) => fleetIds.has(r.runtimeID.toLowerCase())).length,
  };
}
