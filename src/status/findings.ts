// The findings of each source about one enabled extension of one runtime, for ./states.ts: the
// Shoot's status, the Runtime CR (for entries KIM writes), the Kyma module, and the extension's own
// objects as its status hook judges them. Each source pushes what keeps the extension from Ready
// (a finding) or what it found fine (a ready phrase); states.ts decides which finding wins.

import type { StatusFinding } from '../extensions/status-hook';
import type { ExtensionPlugin } from '../extensions/types';
import { quote } from '../lib/diagnostics';
import { conditionText, int, isRec, isStateField, type Rec, rec, str } from '../lib/status-fields';
import type { ResolvedRuntime } from '../resolve/resolve';
import type { ClusterRole, KubeObject, ObservedRuntime } from '../observe/observed';

type Finding = StatusFinding;

const CLUSTER_NAMES: Readonly<Record<ClusterRole, string>> = {
  garden: 'Garden cluster',
  kcp: 'Kyma Control Plane',
  skr: 'runtime cluster (SKR)',
};


/** Unknown when `cluster` was not read, with the reason of its read failure. */
export function clusterUnknown(observed: ObservedRuntime, cluster: ClusterRole): Finding | undefined {
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
export function shootFindings(shoot: KubeObject, name: string, type: string): Finding[] {
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

export function lastOperationText(shoot: KubeObject, withDescription = true): string {
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

// --------------------------------------------------------------------------------------------- status hooks

/**
 * The extension's findings about its own objects on the SKR (its status hook): Unknown when the
 * SKR was not read, else what the hook says of the objects of its kinds.
 */
export function hookFindings(plugin: ExtensionPlugin<any>, observed: ObservedRuntime, resolved: ResolvedRuntime, findings: Finding[], ready: string[]): void {
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
export function runtimeFindings(observed: ObservedRuntime, concerning: RegExp | undefined, findings: Finding[], ready: string[]): void {
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

export function moduleFindings(observed: ObservedRuntime, module: string, findings: Finding[], ready: string[]): void {
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
