// The status hook of the extension contract (../types.ts): how `kyma-fleet status` asks an extension
// about objects only it understands. An extension declares the kinds of its own objects on the
// runtime cluster (SKR); the status sources read them for every extension alike, and the core hands
// each extension its objects and resolved settings and merges the findings it returns with those
// of the Shoot, the Kyma module and the Runtime CR (precedence in src/status/states.ts).
// A module of its own so that extensions need not import src/status/ (imports run status -> extensions).

import type { KubeObject } from '../lib/kube-object';

export type { KubeObject } from '../lib/kube-object';

/** A kind of namespaced object on the runtime cluster that status reads in all namespaces. */
export interface SkrKind {
  readonly group: string;
  readonly version: string;
  /** Resource name (the lowercase plural of the kind). */
  readonly plural: string;
  readonly kind: string;
}

/** The states a finding can carry; Ready and Disabled are decided by the core. */
export type FindingState = 'Failed' | 'Drifted' | 'Unknown' | 'Progressing';

/** Something that keeps an enabled extension from being Ready; the message names the object. */
export interface StatusFinding {
  readonly state: FindingState;
  readonly reason: string;
  readonly message: string;
}

export interface StatusHookInput {
  /** The extension's resolved settings on the runtime (it is enabled there; defaults applied). */
  readonly config: Readonly<Record<string, unknown>>;
  /**
   * The runtime's objects of the hook's skrKinds, by kind, each list sorted by namespace and name
   * (empty when there are none). The hook is only asked when the runtime cluster was read.
   */
  readonly skrObjects: ReadonlyMap<string, readonly KubeObject[]>;
}

export interface StatusHookResult {
  readonly findings: readonly StatusFinding[];
  /** What was found fine, one short phrase each (joined into the Ready message). */
  readonly ready: readonly string[];
}

export interface StatusHook {
  /** Kinds of the extension's objects on the runtime cluster that the sources read. */
  readonly skrKinds: readonly SkrKind[];
  /** Reasons the findings may carry beyond the core's vocabulary, by state (docs and tests). */
  readonly reasons: Readonly<Partial<Record<FindingState, readonly string[]>>>;
  /**
   * For an extension KIM writes into the Shoot: the Runtime CR conditions (matched against their
   * type and reason) that concern it; a False one fails it (RuntimeConditionFalse). Absent: none.
   */
  readonly runtimeConditions?: RegExp;
  /** Findings about the extension's own objects. Pure. */
  findings(input: StatusHookInput): StatusHookResult;
}

/**
 * How the core compares the providerConfig the fleet renders with the live Shoot entry's (fields the
 * fragment leaves unset are never compared); an extension declares them as ExtensionPlugin.shootDrift.
 * Leaves are named by their field name.
 */
export interface DriftRules {
  /** Keys that identify the entries of a list of objects, tried in order (default: name). */
  readonly listKeys?: readonly string[];
  /** Fields whose live value means the same in another spelling (a quantity, a duration): true when equal. */
  readonly sameValue?: Readonly<Record<string, (expected: unknown, live: unknown) => boolean>>;
  /**
   * Fields compared by presence only, because whoever writes the entry renames the value: what the
   * drift message says when the live entry lacks one the fleet sets (given the rendered value).
   */
  readonly presenceOnly?: Readonly<Record<string, (expected: string) => string>>;
}

/** The SKR kinds the status sources read for some extensions: each kind once, in plug-in order. */
export function statusSkrKinds(extensions: readonly { readonly status?: StatusHook }[]): SkrKind[] {
  const out: SkrKind[] = [];
  for (const e of extensions) for (const k of e.status?.skrKinds ?? []) if (!out.some((o) => o.kind === k.kind)) out.push(k);
  return out;
}
