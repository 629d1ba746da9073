// The snapshot hook of the extension contract (./types.ts): an extension whose rules check against
// a copy of a cluster object the fleet keeps in its folder (a file a fleet option names) tells `kyma-fleet profile refresh` which object that is, how to turn it into the snapshot
// file, and what a change of the snapshot means. The core reads the object, resolves the fleet with
// the old and the new snapshot, writes the file atomically and prints what the hook describes;
// it never names an extension.

import type { KubeObject } from '../lib/kube-object';

/** The cluster object a snapshot copies. */
export interface SnapshotObject {
  /** The cluster that serves it. */
  readonly cluster: 'garden' | 'kcp';
  readonly group: string;
  readonly version: string;
  /** Resource name (lowercase plural of the kind). */
  readonly plural: string;
  readonly kind: string;
  readonly name: string;
  /** Absent for a cluster-scoped object. */
  readonly namespace?: string;
}

/** One change between two snapshots (e.g. a version that vanished), with the runtimes it affects. */
export interface SnapshotChange {
  /** What happened, e.g. 'appeared', 'expired', 'vanished'. */
  readonly kind: string;
  /** What it happened to, e.g. '0.43.0'. */
  readonly item: string;
  /** Short detail, e.g. 'supported' or 'expired 2026-07-31T23:59:59Z'. */
  readonly detail?: string;
  /** Names of the runtimes this change concerns, sorted. */
  readonly runtimes: readonly string[];
}

/** A runtime where the extension is enabled, with its resolved settings under the current snapshot. */
export interface SnapshotRuntime {
  readonly name: string;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface SnapshotHook {
  /** What the snapshot is called in messages: the kind of the object it copies. */
  readonly title: string;
  /** The Fleet.spec option that names the snapshot file (for messages). */
  readonly option: string;
  /** The object to copy, given the Fleet.spec (its options may name it). */
  object(fleetSpec: Readonly<Record<string, unknown>>): SnapshotObject;
  /** Fleet-relative path of the snapshot file the Fleet names; undefined when it keeps none. */
  path(fleetSpec: Readonly<Record<string, unknown>>): string | undefined;
  /** The snapshot file's text for the object as read; deterministic. Or why it cannot be one. */
  toSnapshot(object: KubeObject): { readonly text: string } | { readonly problems: readonly string[] };
  /**
   * What changed from `before` (the old file's bytes; undefined when there was none) to `after`,
   * judged at `now`; `runtimes` are those that enable the extension, resolved with the old snapshot.
   */
  describeChange(before: Uint8Array | undefined, after: string, now: Date, runtimes: readonly SnapshotRuntime[]): readonly SnapshotChange[];
}
