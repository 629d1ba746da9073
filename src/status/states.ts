// Turns what the clusters report about one runtime (./observed.ts) into one state per extension:
// Ready, Progressing, Failed, Drifted, Disabled or Unknown, each with a reason from a fixed
// vocabulary and a message quoted (sanitised) from the cluster object that decided it. Pure: no
// I/O, no clock; the same input gives the same output. The rules, the precedence between the
// sources and the clusters each extension needs: docs/architecture.md, "Status: one state per
// extension". The findings of each source are in ./findings.ts, the drift comparison in ./drift.ts.

import { entryDigest, type RuntimeApplyRecord } from '../apply/garden-report';
import type { ShootExtensionEntry } from '../apply/shoot-entries';
import { EXTENSIONS } from '../extensions';
import type { FindingState, StatusFinding } from '../extensions/status-hook';
import type { ExtensionPlugin } from '../extensions/types';
import type { ResolvedRuntime } from '../resolve/resolve';
import { cmp } from '../lib/diagnostics';
import { isRec, type Rec, rec } from '../lib/status-fields';
import type { Manifest } from '../render/render-runtime';
import type { FailureReason, ObservedRuntime } from '../observe/observed';
import { sanitizeMessage } from '../observe/sanitize';
import { driftOf, MAX_DIFFS } from './drift';
import { clusterUnknown, hookFindings, lastOperationText, moduleFindings, runtimeFindings, shootFindings } from './findings';

export type StatusState = 'Ready' | 'Progressing' | 'Failed' | 'Drifted' | 'Disabled' | 'Unknown';

/** The states in the order reports list them. */
export const STATUS_STATES: readonly StatusState[] = ['Ready', 'Progressing', 'Failed', 'Drifted', 'Disabled', 'Unknown'];

/** Worst first: the summary state of a runtime is the first of these any extension has. */
export const SEVERITY_ORDER: readonly StatusState[] = ['Failed', 'Drifted', 'Unknown', 'Progressing', 'Ready', 'Disabled'];

export const READ_FAILURE_REASONS: readonly FailureReason[] = [
  'Forbidden',
  'Timeout',
  'ServerError',
  'Unreachable',
  'NoCredentials',
  'RefusedCredentials',
  'IdentityMismatch',
  'InvalidData',
  'NotDumped',
];

/** The reasons of the core: the Shoot, the Kyma module, the Runtime CR, `apply garden`, the reads. */
const CORE_REASONS: Readonly<Record<StatusState, readonly string[]>> = {
  Ready: ['Reconciled'],
  Disabled: ['DisabledInFleet'],
  Drifted: ['ShootExtensionEnabled', 'ShootExtensionDisabled', 'ShootConfigDrift'],
  Failed: ['ShootLastError', 'ShootOperationFailed', 'ModuleError', 'ModuleWarning', 'RuntimeFailed', 'RuntimeConditionFalse', 'ShootApplyFailed'],
  Progressing: ['ShootGenerationStale', 'ShootOperationProcessing', 'ShootNotReconciled', 'ModuleProcessing', 'ModuleNotListed', 'RuntimePending', 'NotApplied'],
  Unknown: [...READ_FAILURE_REASONS, 'NotFound', 'ModuleUnmanaged'],
};

/** Every reason a state can carry, by state: the core's and those the extensions' status hooks add. */
export function statusReasons(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Readonly<Record<StatusState, readonly string[]>> {
  const out = Object.fromEntries(STATUS_STATES.map((s) => [s, [...CORE_REASONS[s]]])) as Record<StatusState, string[]>;
  for (const e of extensions) {
    for (const [state, reasons] of Object.entries(e.status?.reasons ?? {}) as Array<[FindingState, readonly string[]]>) {
      for (const r of reasons) if (!out[state].includes(r)) out[state].push(r);
    }
  }
  return out;
}

/** Every reason a state can carry with the registered extensions, by state (documentation and tests). */
export const REASONS: Readonly<Record<StatusState, readonly string[]>> = statusReasons();

/** True when the fleet enables the extension for the runtime (`disabled` and `unset` both mean off). */
export function isEnabledInFleet(resolved: ResolvedRuntime, extension: string): boolean {
  return resolved.settings.extensions[extension]?.state === 'enabled';
}

/** True for Unknown reasons that mean "could not read", after which the last known state is kept. */
export function isReadFailureReason(reason: string): boolean {
  return (READ_FAILURE_REASONS as readonly string[]).includes(reason);
}

export interface ExtensionStatus {
  readonly state: StatusState;
  readonly reason: string;
  /** One line, sanitised, naming the object it comes from. */
  readonly message: string;
}

export interface RuntimeStatus {
  readonly name: string;
  readonly runtimeID: string;
  /** The worst state of its extensions (SEVERITY_ORDER). */
  readonly state: StatusState;
  /** By extension name, sorted. */
  readonly extensions: Readonly<Record<string, ExtensionStatus>>;
}

/** Module name per extension as the Fleet configures it (false or absent: the extension adds none). */
export type ModuleNames = Readonly<Record<string, string | false | undefined>>;


type Finding = StatusFinding;

/** Order in which findings of different states win. */
const FINDING_ORDER: readonly FindingState[] = ['Failed', 'Drifted', 'Unknown', 'Progressing'];

export function deriveStatus(
  observed: ObservedRuntime,
  resolved: ResolvedRuntime,
  renderedShoot: Manifest | undefined,
  moduleNames: ModuleNames,
  extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS,
  /** What the last `kyma-fleet apply garden` did to this runtime's Shoot (its report), if anything. */
  applied?: RuntimeApplyRecord,
): RuntimeStatus {
  observed = checkSkrIdentity(observed, resolved);
  const out: Record<string, ExtensionStatus> = {};
  for (const plugin of [...extensions].sort((a, b) => cmp(a.name, b.name))) {
    const moduleName = moduleNames[plugin.name];
    const s = deriveExtension(plugin, observed, resolved, renderedShoot, typeof moduleName === 'string' && moduleName !== '' ? moduleName : undefined, applied);
    out[plugin.name] = { state: s.state, reason: s.reason, message: sanitizeMessage(s.message) };
  }
  return { name: resolved.runtime.name, runtimeID: resolved.runtime.runtimeID, state: summaryState(Object.values(out).map((e) => e.state)), extensions: out };
}

/**
 * The SKR Kyma carries the global account and subaccount labels KLM syncs; when they name another
 * account than the fleet declares, what was read is another runtime's cluster (a wrong kubeconfig or
 * dump): the SKR counts as not read, with IdentityMismatch, whatever the source.
 */
function checkSkrIdentity(observed: ObservedRuntime, resolved: ResolvedRuntime): ObservedRuntime {
  const kyma = observed.skrKyma;
  if (!observed.read.has('skr') || !kyma) return observed;
  const labels = kyma.metadata.labels ?? {};
  const rt = resolved.runtime;
  const checks: Array<[string, string, string]> = [
    ['kyma-project.io/global-account-id', rt.globalAccountID, 'global account'],
    ['kyma-project.io/subaccount-id', rt.subaccountID, 'subaccount'],
  ];
  for (const [label, expected, what] of checks) {
    const value = labels[label];
    if (typeof value === 'string' && value.toLowerCase() !== expected.toLowerCase()) {
      const read = new Set(observed.read);
      read.delete('skr');
      return {
        ...observed,
        skrKyma: undefined,
        skrObjects: new Map(),
        read,
        failures: [
          { cluster: 'skr', reason: 'IdentityMismatch', message: `Kyma kyma-system/default belongs to ${what} ${value} (label ${label}), the fleet declares ${expected} for ${rt.name}: the cluster read is another runtime's` },
          ...observed.failures.filter((f) => f.cluster !== 'skr'),
        ],
      };
    }
  }
  return observed;
}

/** The worst of some states; Disabled when there are none. */
export function summaryState(states: readonly StatusState[]): StatusState {
  for (const s of SEVERITY_ORDER) if (states.includes(s)) return s;
  return 'Disabled';
}

// ---------------------------------------------------------------------------------------------

function deriveExtension(
  plugin: ExtensionPlugin<any>,
  observed: ObservedRuntime,
  resolved: ResolvedRuntime,
  renderedShoot: Manifest | undefined,
  moduleName: string | undefined,
  applied: RuntimeApplyRecord | undefined,
): ExtensionStatus {
  const type = plugin.shootExtensionType;
  const enabledInFleet = isEnabledInFleet(resolved, plugin.name);

  // The Shoot decides everything else, so it is needed first.
  const gardenUnknown = clusterUnknown(observed, 'garden');
  if (gardenUnknown) return gardenUnknown;
  const ref = observed.ref;
  const shoot = observed.shoot;
  const shootName = `Shoot ${ref.shootNamespace}/${ref.shootName}`;
  if (!shoot) return { state: 'Unknown', reason: 'NotFound', message: `${shootName} not found in the Garden cluster` };
  const spec = rec(shoot.spec);
  const liveExtensions = spec?.extensions;
  if (liveExtensions !== undefined && !Array.isArray(liveExtensions)) {
    return { state: 'Unknown', reason: 'InvalidData', message: `${shootName}: spec.extensions is not a list` };
  }
  const liveEntry = (liveExtensions ?? []).find((e): e is Rec => isRec(e) && e.type === type);
  const liveOn = liveEntry !== undefined && liveEntry.disabled !== true;
  const liveOff = liveEntry === undefined ? `${shootName}: spec.extensions has no ${type} entry` : `${shootName}: spec.extensions[type=${type}] is disabled: true`;

  // An entry apply garden writes and has not (yet) written as rendered: its report says why.
  const notWritten = (drift: Finding): Finding => {
    const expected = fragmentEntry(renderedShoot, type);
    if (plugin.shootEntryWrittenBy !== undefined || expected === undefined) return drift;
    return applyFinding(applied, type, entryDigest(expected as unknown as ShootExtensionEntry), shootName, drift) ?? drift;
  };

  if (!enabledInFleet) {
    if (liveOn) {
      return notWritten({ state: 'Drifted', reason: 'ShootExtensionEnabled', message: `${shootName}: spec.extensions[type=${type}] is enabled; the fleet disables ${plugin.name}` });
    }
    const shootStatus = shootFindings(shoot, shootName, type);
    const lastError = shootStatus.find((f) => f.reason === 'ShootLastError');
    if (lastError) return lastError;
    return { state: 'Disabled', reason: 'DisabledInFleet', message: `${liveOff}; the fleet disables ${plugin.name}` };
  }

  const findings: Finding[] = [];
  const ready: string[] = [];

  // The extension's own objects on the SKR (config CRs), judged by its status hook.
  if (plugin.status) hookFindings(plugin, observed, resolved, findings, ready);

  // The Kyma module of the extension.
  if (moduleName !== undefined) moduleFindings(observed, moduleName, findings, ready);

  // The KIM Runtime CR, for an extension whose Shoot entry KIM writes from it.
  if (plugin.shootEntryWrittenBy === 'kim') runtimeFindings(observed, plugin.status?.runtimeConditions, findings, ready);

  // The Shoot: drift of the entry, then its status.
  if (!liveOn) {
    findings.push(notWritten({ state: 'Drifted', reason: 'ShootExtensionDisabled', message: `${liveOff}; the fleet enables ${plugin.name}` }));
  } else {
    const expected = fragmentEntry(renderedShoot, type);
    const diffs = expected && expected.providerConfig !== undefined ? driftOf(expected.providerConfig, liveEntry!.providerConfig, `spec.extensions[type=${type}].providerConfig`, plugin.shootDrift) : [];
    if (diffs.length > 0) {
      const more = diffs.length > 1 ? ` (and ${diffs.length - 1}${diffs.length >= MAX_DIFFS ? '+' : ''} more difference${diffs.length === 2 ? '' : 's'})` : '';
      findings.push(notWritten({ state: 'Drifted', reason: 'ShootConfigDrift', message: `${shootName}: ${diffs[0]}${more}` }));
    }
  }
  const shootStatus = shootFindings(shoot, shootName, type);
  for (const f of shootStatus) findings.push(f);
  if (shootStatus.length === 0) ready.unshift(`${shootName}: ${type} matches the fleet, lastOperation ${lastOperationText(shoot, false)}`);

  for (const state of FINDING_ORDER) {
    const f = findings.find((x) => x.state === state);
    if (f) return f;
  }
  return { state: 'Ready', reason: 'Reconciled', message: ready.join('; ') };
}

/**
 * Why an entry that `apply garden` writes is not on the Shoot as rendered: undefined when its last
 * run wrote this very render (then it changed since: drift), Failed when that run could not write
 * it, else Progressing (NotApplied).
 */
function applyFinding(applied: RuntimeApplyRecord | undefined, type: string, digest: string, shootName: string, drift: Finding): Finding | undefined {
  const same = applied?.entries[type] === digest;
  if (same && (applied!.outcome === 'Applied' || applied!.outcome === 'Unchanged')) return undefined;
  if (same) {
    const reason = applied!.reason ? `${applied!.reason}: ` : '';
    return { state: 'Failed', reason: 'ShootApplyFailed', message: `kyma-fleet apply garden could not write ${type} into ${shootName} (${applied!.time}): ${reason}${applied!.message ?? applied!.outcome}` };
  }
  const last = applied === undefined ? 'no run recorded for this runtime' : `the last run (${applied.time}) wrote an earlier render`;
  // What the Shoot has instead (issue 26: an entry with other values is on the Shoot, not missing).
  const prefix = `${shootName}: `;
  const found = drift.message.startsWith(prefix) ? drift.message.slice(prefix.length) : drift.message;
  const has =
    drift.reason === 'ShootConfigDrift'
      ? `the ${type} entry on the Shoot has other values than the rendered one (${found})`
      : drift.reason === 'ShootExtensionEnabled'
        ? `the ${type} entry on the Shoot is still enabled; the rendered one disables it`
        : /disabled: true/.test(found)
          ? `the ${type} entry on the Shoot is disabled; the rendered one enables it`
          : `the rendered ${type} entry is not on the Shoot yet`;
  return { state: 'Progressing', reason: 'NotApplied', message: `${prefix}${has}; kyma-fleet apply garden writes it (${last})` };
}

function fragmentEntry(renderedShoot: Manifest | undefined, type: string): Rec | undefined {
  const extensions = rec(renderedShoot?.spec)?.extensions;
  if (!Array.isArray(extensions)) return undefined;
  return extensions.find((e): e is Rec => isRec(e) && e.type === type);
}
