// Reads one KIM Runtime CR of the Kyma Control Plane into what a KymaRuntime file declares: the
// identity (runtime ID, global account, subaccount, region, Shoot name; the Gardener project is not
// in the CR and comes from --project) and the labels group selectors match, copied from the CR's
// labels by a configurable rule (docs/onboarding.md). Pure: the object in, a candidate or the one
// reason it cannot be imported out. The CR comes from a cluster or a dump, so every field is checked.

import type { KubeObject } from '../lib/kube-object';
import { isDNS1123Label } from '../lib/k8s-names';
import { labelKeyProblem, labelValueProblem } from '../lib/labels';
import { sanitizeMessage } from '../observe/sanitize';

export const RUNTIME_ID_LABEL = 'kyma-project.io/runtime-id';
export const GLOBAL_ACCOUNT_LABEL = 'kyma-project.io/global-account-id';
export const SUBACCOUNT_LABEL = 'kyma-project.io/subaccount-id';
export const REGION_LABEL = 'kyma-project.io/region';
export const SHOOT_NAME_LABEL = 'kyma-project.io/shoot-name';
export const PLAN_NAME_LABEL = 'kyma-project.io/broker-plan-name';

/** Copies the value of the Runtime CR label `from` into the runtime's label `label`. */
export interface LabelRule {
  readonly from: string;
  readonly label: string;
}

/** The labels KEB sets that fleets select by: plan, region, platform region, provider. */
export const DEFAULT_LABEL_RULES: readonly LabelRule[] = [
  { from: PLAN_NAME_LABEL, label: 'plan' },
  { from: REGION_LABEL, label: 'region' },
  { from: 'kyma-project.io/platform-region', label: 'platform-region' },
  { from: 'kyma-project.io/provider', label: 'provider' },
];

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A Runtime CR that can become a KymaRuntime file (its name is chosen later, ./naming.ts). */
export interface ImportCandidate {
  readonly runtimeID: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
  readonly region: string;
  readonly shoot: { readonly name: string; readonly project: string };
  /** Fleet labels in rule order. */
  readonly labels: ReadonlyArray<readonly [string, string]>;
  /** The broker plan name (for the file name), when the CR has one. */
  readonly plan?: string;
  /** Where the CR was read: `<file>#<pointer>` or `live:<api path>`. */
  readonly where: string;
  /** The CR's namespace/name, for messages. */
  readonly object: string;
  /** Labels a rule names that the CR lacks (the runtime is imported without them). */
  readonly missingLabels: readonly string[];
}

/** A Runtime CR that is not imported, and why (one line). */
export interface Refusal {
  readonly where: string;
  readonly object: string;
  /** The runtime ID when one could be read (it still counts as present in the KCP). */
  readonly runtimeID?: string;
  readonly reason: string;
}

export type RuntimeCrReading = { readonly ok: true; readonly candidate: ImportCandidate } | { readonly ok: false; readonly refusal: Refusal };

export interface ReadOptions {
  /** Gardener project of the Shoots (the Runtime CR does not name it). */
  readonly project: string;
  readonly labelRules: readonly LabelRule[];
}

/** The runtime ID a Runtime CR names (its runtime-id label, else its name when that is a UUID). */
export function runtimeIdOf(obj: KubeObject): string | undefined {
  const label = obj.metadata.labels?.[RUNTIME_ID_LABEL];
  if (typeof label === 'string' && UUID.test(label)) return label;
  if (label === undefined && UUID.test(obj.metadata.name)) return obj.metadata.name;
  return undefined;
}

export function readRuntimeCr(obj: KubeObject, where: string, options: ReadOptions): RuntimeCrReading {
  const object = `${obj.metadata.namespace ?? ''}/${sanitizeMessage(obj.metadata.name, 100)}`;
  const refuse = (reason: string, runtimeID?: string): RuntimeCrReading => ({
    ok: false,
    refusal: { where, object, ...(runtimeID !== undefined ? { runtimeID } : {}), reason: sanitizeMessage(reason, 400) },
  });
  const labels = obj.metadata.labels ?? {};
  const meta = obj.metadata as { deletionTimestamp?: unknown };

  // Identity: the runtime ID names the CR (KEB: lowercase runtime ID) and its runtime-id label.
  const idLabel = labels[RUNTIME_ID_LABEL];
  let runtimeID: string;
  if (idLabel !== undefined) {
    if (!UUID.test(idLabel)) return refuse(`label ${RUNTIME_ID_LABEL} is not a UUID (got ${show(idLabel)})`);
    runtimeID = idLabel;
    if (obj.metadata.name !== idLabel.toLowerCase()) {
      return refuse(`metadata.name ${show(obj.metadata.name)} is not the lowercase runtime ID of its label ${RUNTIME_ID_LABEL} (${idLabel}); KEB names a Runtime CR by its runtime ID`, runtimeID);
    }
  } else if (UUID.test(obj.metadata.name)) runtimeID = obj.metadata.name;
  else return refuse(`no label ${RUNTIME_ID_LABEL} and metadata.name ${show(obj.metadata.name)} is not a runtime ID (a UUID)`);
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return refuse('the Runtime CR is being deleted (metadata.deletionTimestamp is set)', runtimeID);

  const required = (key: string, what: string): string | { problem: string } => {
    const v = labels[key];
    if (v === undefined || v === '') return { problem: `label ${key} (${what}) is missing; KEB sets it and KIM requires it` };
    const p = labelValueProblem(v);
    return p ? { problem: `label ${key}: ${p} (got ${show(v)})` } : v;
  };
  const globalAccountID = required(GLOBAL_ACCOUNT_LABEL, 'the global account ID');
  if (typeof globalAccountID !== 'string') return refuse(globalAccountID.problem, runtimeID);
  const subaccountID = required(SUBACCOUNT_LABEL, 'the subaccount ID');
  if (typeof subaccountID !== 'string') return refuse(subaccountID.problem, runtimeID);

  const shootSpec = isRec(obj.spec) && isRec(obj.spec.shoot) ? obj.spec.shoot : {};
  const region = firstOf(shootSpec.region, labels[REGION_LABEL]);
  if (region === undefined) return refuse(`neither spec.shoot.region nor label ${REGION_LABEL} names the region`, runtimeID);
  const regionProblem = labelValueProblem(region);
  if (regionProblem) return refuse(`region: ${regionProblem} (got ${show(region)})`, runtimeID);

  const shootName = firstOf(shootSpec.name, labels[SHOOT_NAME_LABEL]);
  if (shootName === undefined) return refuse(`neither spec.shoot.name nor label ${SHOOT_NAME_LABEL} names the Shoot`, runtimeID);
  const labelShoot = labels[SHOOT_NAME_LABEL];
  if (labelShoot !== undefined && labelShoot !== shootName) {
    return refuse(`spec.shoot.name ${show(shootName)} and label ${SHOOT_NAME_LABEL} ${show(labelShoot)} disagree`, runtimeID);
  }
  if (!isDNS1123Label(shootName)) return refuse(`the Shoot name ${show(shootName)} is not a DNS-1123 label`, runtimeID);

  const out: Array<readonly [string, string]> = [];
  const missingLabels: string[] = [];
  for (const rule of options.labelRules) {
    const v = labels[rule.from];
    if (v === undefined) {
      missingLabels.push(rule.from);
      continue;
    }
    const p = labelValueProblem(v);
    if (p) return refuse(`label ${rule.from} (for the fleet label ${rule.label}): ${p} (got ${show(v)})`, runtimeID);
    out.push([rule.label, v]);
  }
  const plan = labels[PLAN_NAME_LABEL];
  return {
    ok: true,
    candidate: {
      runtimeID,
      globalAccountID,
      subaccountID,
      region,
      shoot: { name: shootName, project: options.project },
      labels: out,
      ...(plan !== undefined && plan !== '' ? { plan } : {}),
      where,
      object,
      missingLabels,
    },
  };
}

/**
 * Parses `--label-from KEY=LABEL` values (the Runtime CR label KEY becomes the runtime label
 * LABEL); a problem is thrown as a message. Given at least once, they replace DEFAULT_LABEL_RULES.
 */
export function parseLabelRules(values: readonly string[]): LabelRule[] {
  const out: LabelRule[] = [];
  for (const v of values) {
    const eq = v.lastIndexOf('=');
    if (eq <= 0 || eq === v.length - 1) throw new Error(`--label-from must be KEY=LABEL, e.g. --label-from kyma-project.io/broker-plan-name=plan (got ${JSON.stringify(v)})`);
    const from = v.slice(0, eq);
    const label = v.slice(eq + 1);
    for (const [what, key] of [
      ['KEY', from],
      ['LABEL', label],
    ] as const) {
      const p = labelKeyProblem(key);
      if (p) throw new Error(`--label-from ${JSON.stringify(v)}: ${what} is not a label key: ${p}`);
    }
    if (out.some((r) => r.label === label)) throw new Error(`--label-from: the label ${JSON.stringify(label)} is given twice`);
    out.push({ from, label });
  }
  return out;
}

function firstOf(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}

function show(v: string): string {
  return JSON.stringify(sanitizeMessage(v, 80));
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
