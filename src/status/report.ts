// The status pipeline between the fleet and the files: the runtimes a source must observe, and
// from an observation plus the previous files the new records and file contents. Pure (the
// rendering of the Shoot fragments runs cdk8s in memory; nothing is read or written here).

import type { GardenApplyReport } from '../apply/garden-report';
import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';
import { cmp } from '../lib/diagnostics';
import { renderRuntime } from '../render/render-runtime';
import type { ClusterRole, Observation, ObservedRuntime, RuntimeRef } from '../observe/observed';
import { compareInventory, type InventoryComparison } from '../observe/inventory';
import { renderStatusPage } from './html-page';
import { withInventorySection } from './inventory-section';
import type { RingWindowRow } from './windows-section';
import { deriveStatus, isEnabledInFleet } from './states';
import {
  formatStatusFile,
  formatSummary,
  mergeWithPrevious,
  parseStatusFile,
  type RuntimeFacts,
  type RuntimeStatusRecord,
  STATUS_PAGE_FILE,
  SUMMARY_FILE,
} from './status-file';

/** What a source must observe for each runtime of the fleet. */
export function runtimeRefs(model: FleetModel, runtimes: readonly ResolvedRuntime[]): RuntimeRef[] {
  return [...runtimes]
    .sort((a, b) => cmp(a.runtime.name, b.runtime.name))
    .map(({ runtime }) => ({
      name: runtime.name,
      runtimeID: runtime.runtimeID,
      kcpNamespace: model.options.kcpNamespace,
      shootName: runtime.shoot.name,
      shootNamespace: `garden-${runtime.shoot.project}`,
    }));
}

export interface StatusReportInput {
  readonly model: FleetModel;
  readonly runtimes: readonly ResolvedRuntime[];
  readonly observation: Observation;
  /** Text of the previous `<name>.yaml` by runtime name. */
  readonly previous: ReadonlyMap<string, string>;
  readonly now: Date;
  readonly extensions?: readonly ExtensionPlugin<any>[];
  /** Also render the status page (status.html). */
  readonly html?: boolean;
  /** The report of the last `kyma-fleet apply garden` (garden-apply.json in the status folder). */
  readonly gardenApply?: GardenApplyReport;
  /** The rollout rings' change windows at `now`, for the status page (judged by the caller). */
  readonly windows?: readonly RingWindowRow[];
}

export interface StatusReport {
  /** Sorted by runtime name. */
  readonly records: readonly RuntimeStatusRecord[];
  /** File name in the status folder -> content (every runtime's file, SUMMARY.md, and status.html when asked for). */
  readonly files: ReadonlyMap<string, string>;
  /** Previous files that were ignored. */
  readonly warnings: ReadonlyArray<{ readonly file: string; readonly message: string }>;
  /** The KCP's Runtime CRs against the fleet; absent when the source did not read them all. */
  readonly inventory?: InventoryComparison;
}

export function buildStatusReport(input: StatusReportInput): StatusReport {
  const extensions = input.extensions ?? EXTENSIONS;
  const refs = new Map(runtimeRefs(input.model, input.runtimes).map((r) => [r.name, r]));
  const records: RuntimeStatusRecord[] = [];
  const files = new Map<string, string>();
  const warnings: Array<{ file: string; message: string }> = [];
  const facts = new Map<string, RuntimeFacts>();
  for (const resolved of [...input.runtimes].sort((a, b) => cmp(a.runtime.name, b.runtime.name))) {
    const name = resolved.runtime.name;
    const rendered = renderRuntime(input.model, resolved, extensions);
    const shoot = rendered.targets.garden.find((m) => m.kind === 'Shoot');
    const observed = input.observation.runtimes.get(name) ?? notObserved(refs.get(name)!);
    const status = deriveStatus(observed, resolved, shoot, input.model.options.extensionModules, extensions, input.gardenApply?.runtimes[name]);
    let previous: RuntimeStatusRecord | undefined;
    const text = input.previous.get(name);
    if (text !== undefined) {
      const parsed = parseStatusFile(text, name);
      if ('record' in parsed) previous = parsed.record;
      else warnings.push({ file: `${name}.yaml`, message: `previous status ignored: ${parsed.problem}` });
    }
    const record = mergeWithPrevious(previous, status, input.now);
    records.push(record);
    files.set(`${name}.yaml`, formatStatusFile(record));
    facts.set(name, {
      groups: resolved.groups.map((g) => g.name).sort(cmp),
      region: resolved.runtime.region,
      enabled: extensions.filter((p) => isEnabledInFleet(resolved, p.name)).map((p) => p.name).sort(cmp),
    });
  }
  // The KCP's Runtime CRs against the fleet, when the source read them all (./inventory-section.ts).
  const inventory = input.observation.inventory ? compareInventory([...refs.values()], input.observation.inventory) : undefined;
  files.set(SUMMARY_FILE, inventory ? withInventorySection(formatSummary(records, facts), inventory) : formatSummary(records, facts));
  if (input.html) files.set(STATUS_PAGE_FILE, renderStatusPage(records, facts, inventory, input.windows));
  return { records, files, warnings, ...(inventory ? { inventory } : {}) };
}

/** A runtime the source reported nothing about: every cluster unread. */
function notObserved(ref: RuntimeRef): ObservedRuntime {
  const clusters: ClusterRole[] = ['garden', 'kcp', 'skr'];
  return {
    ref,
    skrObjects: new Map(),
    read: new Set(),
    failures: clusters.map((cluster) => ({ cluster, reason: 'Unreachable' as const, message: 'the source reported nothing for this runtime' })),
  };
}
