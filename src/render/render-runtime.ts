// Renders one resolved runtime into the manifests of its apply targets, through cdk8s
// charts. Each runtime gets its own small App: cdk8s resolves and validates the whole app for
// every chart it synthesises, so one App for the fleet would cost O(N²) (perf-baseline.md).

import { App } from 'cdk8s';
import { GardenChart, type ShootExtensionEntry } from '../../charts/garden-chart';
import { KcpChart } from '../../charts/kcp-chart';
import { type KymaModuleEntry, SkrChart } from '../../charts/skr-chart';
import { SkrConfigChart } from '../../charts/skr-config-chart';
import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin, ExtensionRendering, ShootResource } from '../extensions/types';
import { cmp } from '../lib/diagnostics';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';

/** The folders of a runtime in dist/, in the order they are applied (garden/ by `kyma-fleet apply garden`). */
export type Target = 'skr' | 'skr-config' | 'kcp' | 'garden';
export const TARGETS: readonly Target[] = ['skr', 'skr-config', 'kcp', 'garden'];

export type Manifest = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

export interface RenderedRuntime {
  readonly name: string;
  /** Manifests per target; a target without manifests is not written. */
  readonly targets: Readonly<Record<Target, readonly Manifest[]>>;
  /** Names of the garden/ Shoot's spec.resources entries each extension entry references, by extension type. */
  readonly shootResourcesByType: Readonly<Record<string, readonly string[]>>;
}

export function renderRuntime(fleetModel: FleetModel, resolved: ResolvedRuntime, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): RenderedRuntime {
  // A runtime whose rollout ring is on other fleet-wide layers renders with their model.
  const model = resolved.revisionModel ?? fleetModel;
  const rt = resolved.runtime;
  const renderings: Array<{ plugin: ExtensionPlugin<any>; rendering: ExtensionRendering; enabled: boolean }> = [];
  for (const plugin of extensions) {
    if (!plugin.render) continue;
    const ext = resolved.settings.extensions[plugin.name];
    const state = ext?.state ?? 'unset';
    renderings.push({
      plugin,
      enabled: state === 'enabled',
      rendering: plugin.render({
        state,
        config: ext?.config ?? {},
        runtime: { name: rt.name, runtimeID: rt.runtimeID, shootName: rt.shoot.name, shootProject: rt.shoot.project },
        env: { state: model.extensionState.get(plugin.name), files: model.files, now: model.now },
      }),
    });
  }

  const modules: KymaModuleEntry[] = resolved.settings.modules.map((m) => ({ ...m }));
  for (const r of renderings) {
    const module = model.options.extensionModules[r.plugin.name];
    if (r.enabled && module) modules.push({ name: module });
  }
  modules.sort((a, b) => cmp(a.name, b.name));

  const shootExtensions: ShootExtensionEntry[] = renderings
    .filter((r) => r.rendering.shootExtension !== undefined)
    .map((r) => ({ type: r.plugin.shootExtensionType, ...r.rendering.shootExtension }))
    .sort((a, b) => cmp(a.type, b.type));
  const resources = new Map<string, ShootResource>();
  for (const r of renderings) for (const res of r.rendering.shootResources ?? []) resources.set(res.name, res);

  // One App per chart: synthesising a chart resolves and validates its whole App, so three charts
  // in one App would walk it three times.
  const app = () => new App({ outdir: '.', recordConstructMetadata: false });
  const all = renderings.map((r) => r.rendering);
  const skr = new SkrChart(app(), 'skr', { channel: resolved.settings.channel ?? '', modules });
  const skrConfig = all.some((r) => r.skrConfig) ? new SkrConfigChart(app(), 'skr-config', { extensions: all }) : undefined;
  // The KIM Runtime fragment only when some extension owns a field of it (an extension leaves it
  // out where KIM itself writes that field).
  const kcp = all.some((r) => r.runtimeSpec !== undefined)
    ? new KcpChart(app(), 'kcp', { runtimeID: rt.runtimeID, namespace: model.options.kcpNamespace, extensions: all })
    : undefined;
  const garden =
    shootExtensions.length === 0
      ? undefined
      : new GardenChart(app(), 'garden', {
          shootName: rt.shoot.name,
          project: rt.shoot.project,
          extensions: shootExtensions,
          resources: [...resources.values()].sort((a, b) => cmp(a.name, b.name)),
        });
  const shootResourcesByType: Record<string, readonly string[]> = {};
  for (const r of renderings) {
    if (r.rendering.shootExtension !== undefined) shootResourcesByType[r.plugin.shootExtensionType] = (r.rendering.shootResources ?? []).map((x) => x.name).sort(cmp);
  }
  return {
    name: rt.name,
    shootResourcesByType,
    targets: {
      skr: skr.toJson() as Manifest[],
      'skr-config': (skrConfig?.toJson() ?? []) as Manifest[],
      kcp: (kcp?.toJson() ?? []) as Manifest[],
      garden: (garden?.toJson() ?? []) as Manifest[],
    },
  };
}
