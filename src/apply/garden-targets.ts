// Which Shoots `kyma-fleet apply garden` writes and what: for each selected runtime, the entries of
// its rendered garden/ Shoot fragment whose extension types the fleet writes itself (every type but
// those KIM derives from the Runtime CR, ExtensionPlugin.shootEntryWrittenBy), and the
// spec.resources entries they reference. Pure: the fleet model in, targets out; the caller checks
// that dist/ holds the same fragment (what was reviewed is what is written).

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';
import { cmp } from '../lib/diagnostics';
import { type Manifest, renderRuntime } from '../render/render-runtime';
import type { GardenTarget } from './apply-garden';
import { entryDigest } from './garden-report';
import type { ShootExtensionEntry, ShootResourceEntry } from './shoot-entries';

/** The extension types whose Shoot entries kyma-fleet writes (not KIM). */
export function fleetWrittenTypes(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Set<string> {
  return new Set(extensions.filter((e) => e.shootEntryWrittenBy === undefined).map((e) => e.shootExtensionType));
}

export interface PlannedRuntime {
  readonly target: GardenTarget;
  /** The rendered garden/ Shoot fragment (what dist/ must hold). */
  readonly fragment: Manifest | undefined;
  /** entryDigest of each written entry, by type (for the report that status reads). */
  readonly digests: Readonly<Record<string, string>>;
}

export function gardenTarget(model: FleetModel, resolved: ResolvedRuntime, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): PlannedRuntime {
  const rendered = renderRuntime(model, resolved, extensions);
  const fragment = rendered.targets.garden[0];
  const spec = (fragment?.spec ?? {}) as { extensions?: ShootExtensionEntry[]; resources?: ShootResourceEntry[] };
  const written = fleetWrittenTypes(extensions);
  const entries = (spec.extensions ?? []).filter((e) => written.has(e.type)).sort((a, b) => cmp(a.type, b.type));
  const byName = new Map((spec.resources ?? []).map((r) => [r.name, r]));
  const digests: Record<string, string> = {};
  const resources = new Map<string, ShootResourceEntry>();
  for (const e of entries) {
    const mine = (rendered.shootResourcesByType[e.type] ?? []).map((n) => byName.get(n)).filter((r): r is ShootResourceEntry => r !== undefined);
    digests[e.type] = entryDigest(e);
    for (const r of mine) resources.set(r.name, r);
  }
  const rt = resolved.runtime;
  return {
    fragment,
    digests,
    target: {
      name: rt.name,
      runtimeID: rt.runtimeID,
      shootNamespace: `garden-${rt.shoot.project}`,
      shootName: rt.shoot.name,
      owned: { extensions: entries, resources: [...resources.values()].sort((a, b) => cmp(a.name, b.name)) },
    },
  };
}
