// Turns what the clusters report about one runtime (./observed.ts) into one state per extension:
// Ready, Progressing, Failed, Drifted, Disabled or Unknown, each with a reason from a fixed
// vocabulary and a message quoted (sanitised) from the cluster object that decided it. Pure: no
// I/O, no clock; the same input gives the same output.
//
// Rules (also in README.md "Status"). An extension is "enabled in the fleet" when its resolved
// state is `enabled`; `disabled` and `unset` both mean off. On the live Shoot an absent entry
// and `disabled: true` both mean off.
//
// | State       | When (which one wins when several apply: see Precedence below)                       | Reasons |
// |-------------|-------------------------------------------------------------------------------------|---------|
// | Disabled    | off in the fleet and off in the live Shoot                                            | DisabledInFleet |
// | Drifted     | off in the fleet, on in the Shoot; on in the fleet, off in the Shoot; or a field the   | ShootExtensionEnabled, ShootExtensionDisabled, |
// |             | rendered Shoot fragment sets has another value in the live entry (fields the fragment | ShootConfigDrift |
// |             | leaves unset are not compared; `secretReferenceName` by presence, because KIM renames |  |
// |             | it to reg-cache-<uuid>; sizes as quantities, ttl as Go durations)                     |  |
// | Failed      | Shoot lastErrors name the extension type; Shoot lastOperation Failed/Error/Aborted;   | ShootLastError, ShootOperationFailed, |
// |             | the Kyma module state Error or Warning; an extension's own object on the SKR that its | ModuleError, ModuleWarning, the Failed reasons of |
// |             | status hook finds failed (e.g. a config CR Failed, or a condition False for its spec);| the status hooks (src/extensions/<name>/status.ts), |
// |             | the Runtime CR state Failed, or a Runtime condition False the hook claims;            | RuntimeFailed, RuntimeConditionFalse, |
// |             | `apply garden` could not write this render's entry (garden-apply.json)                | ShootApplyFailed |
// | Progressing | Shoot observedGeneration < generation (stale: never Ready), lastOperation            | ShootGenerationStale, ShootOperationProcessing, |
// |             | Processing/Pending, no Shoot status yet; module Processing/Deleting/empty or not yet  | ShootNotReconciled, ModuleProcessing, ModuleNotListed, |
// |             | listed in status.modules; a hook's object not reconciled yet (e.g. Pending, no status,| the Progressing reasons of the status hooks, |
// |             | a condition older than its generation); Runtime Pending/Terminating/no status; an entry| RuntimePending, NotApplied |
// |             | `apply garden` writes that this render changed and it has not written yet            |  |
// | Unknown     | a cluster the extension needs was not read (reason = the read failure); a needed      | Forbidden, Timeout, ServerError, Unreachable, NoCredentials, |
// |             | object is missing; a status field has the wrong shape; module Unmanaged               | RefusedCredentials, IdentityMismatch, InvalidData, NotDumped, |
// |             |                                                                                       | NotFound, ModuleUnmanaged |
// | Ready       | on in the fleet and nothing above applies                                             | Reconciled |
//
// Precedence: the Shoot is needed first (not read or not found: Unknown). Off in the fleet: Drifted
// when the Shoot has it on, Failed when lastErrors name it, else Disabled. On in the fleet: every
// finding of every source is collected and the worst wins, Failed > Drifted > Unknown >
// Progressing; within one state the most specific source wins (the extension's own objects, as its
// status hook judges them, then the Kyma module, then the Runtime CR, then the Shoot). A stale Shoot (observedGeneration < generation) reports
// only ShootGenerationStale: its lastOperation and lastErrors describe an older spec.
//
// Entries that `kyma-fleet apply garden` writes (types KIM does not manage): when the live entry
// differs from the render, its report (garden-apply.json) tells why. The last run for this render
// (same entry digest) failed: Failed (ShootApplyFailed, the server's message). It wrote this render:
// someone changed it since, Drifted as above. Otherwise this render was not applied yet: Progressing
// (NotApplied), never Drifted, since nothing is wrong until the applier has run.
//
// Clusters an enabled extension needs: garden (the Shoot) always; kcp (the Runtime CR) for
// extensions KIM writes into the Shoot (shootEntryWrittenBy 'kim'); skr for the objects of its status
// hook's skrKinds (../extensions/status-hook.ts); and for the module status the SKR Kyma kyma-system/default, or, when the SKR was not read or has no
// Kyma, the KCP Kyma of the runtime (KLM keeps the same status.modules there). The SKR Kyma's
// global-account and subaccount labels must match the fleet's declaration, else the SKR counts as
// not read (IdentityMismatch): a kubeconfig or dump of another runtime never reports as this one.

import { entryDigest, type RuntimeApplyRecord } from '../apply/garden-report';
import type { ShootExtensionEntry } from '../apply/shoot-entries';
import { EXTENSIONS } from '../extensions';
import type { FindingState, StatusFinding } from '../extensions/status-hook';
import type { ExtensionPlugin } from '../extensions/types';
import type { ResolvedRuntime } from '../resolve/resolve';
import { cmp, quote } from '../lib/diagnostics';
import { parseGoDuration } from '../lib/go-duration';
import { parseQuantity } from '../lib/quantity';
import { conditionText, int, isRec, isStateField, type Rec, rec, str } from '../lib/status-fields';
import type { Manifest } from '../render/render-runtime';
import type { ClusterRole, FailureReason, KubeObject, ObservedRuntime } from '../observe/observed';
import { sanitizeMessage } from '../observe/sanitize';

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

const CLUSTER_NAMES: Readonly<Record<ClusterRole, string>> = {
  garden: 'Garden cluster',
  kcp: 'Kyma Control Plane',
  skr: 'runtime cluster (SKR)',
};

const MAX_DIFFS = 20;

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
    return applyFinding(applied, type, entryDigest(expected as unknown as ShootExtensionEntry), shootName) ?? drift;
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
    const diffs: string[] = [];
    if (expected && expected.providerConfig !== undefined) {
      compareValue(expected.providerConfig, liveEntry!.providerConfig, `spec.extensions[type=${type}].providerConfig`, '', diffs);
    }
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
function applyFinding(applied: RuntimeApplyRecord | undefined, type: string, digest: string, shootName: string): Finding | undefined {
  const same = applied?.entries[type] === digest;
  if (same && (applied!.outcome === 'Applied' || applied!.outcome === 'Unchanged')) return undefined;
  if (same) {
    const reason = applied!.reason ? `${applied!.reason}: ` : '';
    return { state: 'Failed', reason: 'ShootApplyFailed', message: `kyma-fleet apply garden could not write ${type} into ${shootName} (${applied!.time}): ${reason}${applied!.message ?? applied!.outcome}` };
  }
  const last = applied === undefined ? 'no run recorded for this runtime' : `the last run (${applied.time}) wrote an earlier render`;
  return { state: 'Progressing', reason: 'NotApplied', message: `${shootName}: the rendered ${type} entry is not on the Shoot yet; kyma-fleet apply garden writes it (${last})` };
}

/** Unknown when `cluster` was not read, with the reason of its read failure. */
function clusterUnknown(observed: ObservedRuntime, cluster: ClusterRole): Finding | undefined {
  if (observed.read.has(cluster)) return undefined;
  const failure = observed.failures.find((f) => f.cluster === cluster);
  return {
    state: 'Unknown',
    reason: failure?.reason ?? 'Unreachable',
    message: `${CLUSTER_NAMES[cluster]} not read: ${failure?.message || 'the source reported nothing for it'}`,
  };
}

// --------------------------------------------------------------------------------------------- Shoot

/** Findings of the Shoot status for an extension type; empty when the Shoot is reconciled and fine. */
function shootFindings(shoot: KubeObject, name: string, type: string): Finding[] {
  const status = shoot.status;
  if (status === undefined || status === null) {
    return [{ state: 'Progressing', reason: 'ShootNotReconciled', message: `${name}: no status yet` }];
  }
  if (!isRec(status)) return [{ state: 'Unknown', reason: 'InvalidData', message: `${name}: status is not an object` }];
  const generation = int(shoot.metadata.generation);
  const observedGeneration = int(status.observedGeneration);
  if (generation !== undefined && observedGeneration !== undefined && observedGeneration < generation) {
    return [
      {
        state: 'Progressing',
        reason: 'ShootGenerationStale',
        message: `${name}: observedGeneration ${observedGeneration} < generation ${generation}; Gardener has not reconciled the latest spec yet (lastOperation ${lastOperationText(shoot)})`,
      },
    ];
  }
  const out: Finding[] = [];
  const lastErrors = status.lastErrors;
  if (lastErrors !== undefined && lastErrors !== null && !Array.isArray(lastErrors)) {
    out.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status.lastErrors is not a list` });
  } else {
    for (const e of (lastErrors as unknown[] | undefined) ?? []) {
      if (!isRec(e)) continue;
      const description = str(e.description) ?? '';
      const task = str(e.taskID) ?? '';
      if (mentions(description, type) || mentions(task, type)) {
        out.push({ state: 'Failed', reason: 'ShootLastError', message: `${name}: lastError${task ? ` (task ${task})` : ''}: ${description}` });
        break;
      }
    }
  }
  const op = status.lastOperation;
  if (op === undefined || op === null) {
    out.push({ state: 'Progressing', reason: 'ShootNotReconciled', message: `${name}: no lastOperation yet` });
  } else if (!isRec(op)) {
    out.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status.lastOperation is not an object` });
  } else {
    const state = str(op.state);
    const text = `${name}: lastOperation ${lastOperationText(shoot)}`;
    if (state === 'Failed' || state === 'Error' || state === 'Aborted') out.push({ state: 'Failed', reason: 'ShootOperationFailed', message: text });
    else if (state === 'Processing' || state === 'Pending') out.push({ state: 'Progressing', reason: 'ShootOperationProcessing', message: text });
    else if (state !== 'Succeeded') out.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: lastOperation state ${quote(op.state)} is not a Gardener state` });
  }
  return out;
}

function lastOperationText(shoot: KubeObject, withDescription = true): string {
  const op = rec(rec(shoot.status)?.lastOperation);
  if (!op) return 'none';
  const description = withDescription ? str(op.description) : undefined;
  return `${str(op.type) ?? '?'} ${str(op.state) ?? '?'}${description ? `: ${description}` : ''}`;
}

/** Case-insensitive: does `text` name the extension type as a word (not as part of a longer name)? */
function mentions(text: string, type: string): boolean {
  const t = text.toLowerCase();
  const needle = type.toLowerCase();
  for (let i = t.indexOf(needle); i >= 0; i = t.indexOf(needle, i + 1)) {
    const before = t[i - 1];
    const after = t[i + needle.length];
    if (!isNameChar(before) && !isNameChar(after)) return true;
  }
  return false;
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && /[a-z0-9-]/.test(c);
}

function fragmentEntry(renderedShoot: Manifest | undefined, type: string): Rec | undefined {
  const extensions = rec(renderedShoot?.spec)?.extensions;
  if (!Array.isArray(extensions)) return undefined;
  return extensions.find((e): e is Rec => isRec(e) && e.type === type);
}

// --------------------------------------------------------------------------------------------- drift

/**
 * Compares what the fragment sets with the live value; fields the fragment leaves unset are not
 * compared. Lists of objects that all carry an `upstream` or `name` are matched by it (an entry
 * missing on either side is a difference); other lists must be equal.
 */
function compareValue(expected: unknown, live: unknown, path: string, leaf: string, diffs: string[]): void {
  if (diffs.length >= MAX_DIFFS) return;
  if (leaf === 'secretReferenceName') {
    // KIM copies the Secret into the Garden project as reg-cache-<uuid>: compare presence only.
    if (typeof expected === 'string' && expected !== '' && !(typeof live === 'string' && live !== '')) {
      diffs.push(`${path} is ${describe(live)}; the fleet references the credentials Secret ${quote(expected)} (KIM names its Garden copy reg-cache-<uuid>)`);
    }
    return;
  }
  if (isRec(expected)) {
    if (!isRec(live)) {
      diffs.push(`${path} is ${describe(live)}; the fleet renders an object`);
      return;
    }
    for (const k of Object.keys(expected).sort(cmp)) compareValue(expected[k], live[k], `${path}.${k}`, k, diffs);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(live)) {
      diffs.push(`${path} is ${describe(live)}; the fleet renders a list`);
      return;
    }
    const key = listKey(expected);
    if (key === undefined) {
      if (canonical(expected) !== canonical(live)) diffs.push(`${path} is ${quote(live)}; the fleet renders ${quote(expected)}`);
      return;
    }
    const liveByKey = new Map<string, Rec>();
    for (const e of live) if (isRec(e) && typeof e[key] === 'string' && !liveByKey.has(e[key] as string)) liveByKey.set(e[key] as string, e);
    const expectedKeys = new Set<string>();
    for (const e of expected as Rec[]) {
      const k = e[key] as string;
      expectedKeys.add(k);
      const l = liveByKey.get(k);
      if (!l) diffs.push(`${path}[${key}=${k}] is missing; the fleet renders it`);
      else compareValue(e, l, `${path}[${key}=${k}]`, '', diffs);
    }
    for (const l of live) {
      if (diffs.length >= MAX_DIFFS) return;
      const k = isRec(l) && typeof l[key] === 'string' ? (l[key] as string) : undefined;
      if (k === undefined || !expectedKeys.has(k)) diffs.push(`${path}${k === undefined ? '' : `[${key}=${k}]`} is an entry the fleet does not render`);
    }
    return;
  }
  if (!sameScalar(expected, live, leaf)) diffs.push(`${path} is ${describe(live)}; the fleet renders ${quote(expected)}`);
}

function listKey(list: readonly unknown[]): string | undefined {
  for (const key of ['upstream', 'name']) {
    if (list.length === 0) return undefined;
    const values = list.map((e) => (isRec(e) && typeof e[key] === 'string' ? (e[key] as string) : undefined));
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length) return key;
  }
  return undefined;
}

function sameScalar(expected: unknown, live: unknown, leaf: string): boolean {
  if (expected === live) return true;
  if (leaf === 'size' && (typeof live === 'string' || typeof live === 'number') && typeof expected === 'string') {
    const a = parseQuantity(expected);
    const b = parseQuantity(String(live));
    return a !== undefined && b !== undefined && a.sign === b.sign && a.value === b.value;
  }
  if (leaf === 'ttl' && typeof live === 'string' && typeof expected === 'string') {
    // KIM marshals metav1.Duration: 168h becomes 168h0m0s.
    const a = parseGoDuration(expected);
    const b = parseGoDuration(live);
    return a.ok && b.ok && a.nanoseconds === b.nanoseconds;
  }
  return false;
}

function describe(value: unknown): string {
  return value === undefined ? 'not set' : quote(value);
}

/** JSON with sorted keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isRec(v) ? Object.fromEntries(Object.keys(v).sort(cmp).map((k) => [k, v[k]])) : v,
  );
}

// --------------------------------------------------------------------------------------------- status hooks

/**
 * The extension's findings about its own objects on the SKR (its status hook): Unknown when the
 * SKR was not read, else what the hook says of the objects of its kinds.
 */
function hookFindings(plugin: ExtensionPlugin<any>, observed: ObservedRuntime, resolved: ResolvedRuntime, findings: Finding[], ready: string[]): void {
  const hook = plugin.status!;
  if (hook.skrKinds.length > 0) {
    const unknown = clusterUnknown(observed, 'skr');
    if (unknown) {
      findings.push(unknown);
      return;
    }
  }
  const skrObjects = new Map(hook.skrKinds.map((k) => [k.kind, observed.skrObjects.get(k.kind) ?? []] as const));
  const result = hook.findings({ config: resolved.settings.extensions[plugin.name]?.config ?? {}, skrObjects });
  findings.push(...result.findings);
  ready.push(...result.ready);
}

// --------------------------------------------------------------------------------------------- Runtime CR

/** `concerning`: the Runtime conditions (type and reason) about the extension; a False one fails it. */
function runtimeFindings(observed: ObservedRuntime, concerning: RegExp | undefined, findings: Finding[], ready: string[]): void {
  const unknown = clusterUnknown(observed, 'kcp');
  if (unknown) {
    findings.push(unknown);
    return;
  }
  const ref = observed.ref;
  const name = `Runtime ${ref.kcpNamespace}/${ref.runtimeID.toLowerCase()}`;
  const runtime = observed.runtimeCR;
  if (!runtime) {
    findings.push({ state: 'Unknown', reason: 'NotFound', message: `${name} not found in the Kyma Control Plane` });
    return;
  }
  const status = runtime.status;
  if (status === undefined || status === null) {
    findings.push({ state: 'Progressing', reason: 'RuntimePending', message: `${name}: no status yet` });
    return;
  }
  if (!isRec(status)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status is not an object` });
    return;
  }
  const conditions = status.conditions;
  if (conditions !== undefined && conditions !== null && !Array.isArray(conditions)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status.conditions is not a list` });
    return;
  }
  if (!isStateField(status.state)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: state ${quote(status.state)} is not a Runtime state` });
    return;
  }
  const falseConditions = ((conditions as unknown[] | undefined) ?? []).filter((c): c is Rec => isRec(c) && c.status === 'False');
  const state = str(status.state);
  const ownCondition = concerning && falseConditions.find((c) => concerning.test(`${str(c.type) ?? ''} ${str(c.reason) ?? ''}`));
  if (state === 'Failed') {
    const c = ownCondition ?? falseConditions[0];
    findings.push({ state: 'Failed', reason: 'RuntimeFailed', message: `${name}: state Failed${c ? `, ${conditionText(c)}` : ''}` });
  } else if (ownCondition) {
    findings.push({ state: 'Failed', reason: 'RuntimeConditionFalse', message: `${name}: ${conditionText(ownCondition)}` });
  } else if (state === 'Pending' || state === 'Terminating' || state === undefined || state === '') {
    findings.push({ state: 'Progressing', reason: 'RuntimePending', message: `${name}: state ${state || 'not set'}` });
  } else if (state === 'Ready') {
    ready.push(`${name}: Ready`);
  } else {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: state ${quote(status.state)} is not a Runtime state` });
  }
}

// --------------------------------------------------------------------------------------------- Kyma module

function moduleFindings(observed: ObservedRuntime, module: string, findings: Finding[], ready: string[]): void {
  const ref = observed.ref;
  let kyma: KubeObject | undefined;
  let name: string;
  if (observed.read.has('skr') && observed.skrKyma) {
    kyma = observed.skrKyma;
    name = 'Kyma kyma-system/default';
  } else if (observed.read.has('kcp') && observed.kcpKyma) {
    kyma = observed.kcpKyma;
    name = `Kyma ${ref.kcpNamespace}/${ref.runtimeID.toLowerCase()}`;
  } else {
    const unknown = clusterUnknown(observed, 'skr');
    findings.push(unknown ?? { state: 'Unknown', reason: 'NotFound', message: 'Kyma kyma-system/default not found on the runtime' });
    return;
  }
  const status = kyma.status;
  if (status !== undefined && status !== null && !isRec(status)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status is not an object` });
    return;
  }
  const modules = status?.modules;
  if (modules !== undefined && modules !== null && !Array.isArray(modules)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: status.modules is not a list` });
    return;
  }
  const entry = ((modules as unknown[] | undefined) ?? []).find((m): m is Rec => isRec(m) && m.name === module);
  if (!entry) {
    findings.push({ state: 'Progressing', reason: 'ModuleNotListed', message: `${name}: module ${module} is not listed in status.modules yet` });
    return;
  }
  if (!isStateField(entry.state)) {
    findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: module ${module} state ${quote(entry.state)} is not a module state` });
    return;
  }
  const state = str(entry.state);
  const message = str(entry.message);
  const text = `${name}: module ${module} ${state || 'without state'}${message ? `: ${message}` : ''}`;
  switch (state) {
    case 'Ready':
      ready.push(`${name}: module ${module} Ready`);
      return;
    case 'Error':
      findings.push({ state: 'Failed', reason: 'ModuleError', message: text });
      return;
    case 'Warning':
      findings.push({ state: 'Failed', reason: 'ModuleWarning', message: text });
      return;
    case 'Processing':
    case 'Deleting':
    case '':
    case undefined:
      findings.push({ state: 'Progressing', reason: 'ModuleProcessing', message: text });
      return;
    case 'Unmanaged':
      findings.push({ state: 'Unknown', reason: 'ModuleUnmanaged', message: `${text}; Lifecycle Manager does not report its state` });
      return;
    default:
      findings.push({ state: 'Unknown', reason: 'InvalidData', message: `${name}: module ${module} state ${quote(entry.state)} is not a module state` });
  }
}
