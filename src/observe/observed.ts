// What the clusters report for each runtime, whatever the source: a folder of `kubectl get`
// dumps (./dump-source.ts) or live clusters through @kubernetes/client-node (./live-source.ts).
// Sources fill these records; the pure state logic (./states.ts) turns them into per-extension
// states. Nothing here does I/O.

import type { KubeObject } from '../lib/kube-object';

/** A Kubernetes object as read from a cluster or a dump (defined in src/lib, where extensions see it too). */
export type { KubeObject } from '../lib/kube-object';

/** The runtime a source must observe: identity from the fleet, names as the renderer derives them. */
export interface RuntimeRef {
  /** metadata.name of the KymaRuntime (the folder name in dist/ and in dumps). */
  readonly name: string;
  readonly runtimeID: string;
  /** KCP namespace of the Runtime and Kyma CRs and of the kubeconfig-<runtimeID> secret. */
  readonly kcpNamespace: string;
  readonly shootName: string;
  /** Shoot namespace: garden-<project>. */
  readonly shootNamespace: string;
}

/** Where an object lives: the Kyma Control Plane, the Garden project, or the runtime itself. */
export type ClusterRole = 'kcp' | 'garden' | 'skr';

export type FailureReason =
  | 'Forbidden' // 403: only this runtime (or source) becomes Unknown
  | 'Timeout' // no answer in time
  | 'ServerError' // 5xx or 429 after the retries
  | 'Unreachable' // connection refused, DNS, TLS
  | 'NoCredentials' // no kubeconfig-<runtimeID> secret (or no key `config`) to reach the runtime
  | 'RefusedCredentials' // a kubeconfig refused before use: exec/auth-provider without --allow-exec; a runtime's Secret with exec, local files or a server outside skrApiServers; or a 401 from a runtime
  | 'IdentityMismatch' // the cluster or dump belongs to another runtime (runtime-id label, shoot name)
  | 'InvalidData' // an object that is not what its kind promises (dump or API)
  | 'NotDumped'; // dumps only: the dump folder holds nothing for this cluster (no kcp/, garden/ or runtimes/<name>/)

export interface ReadFailure {
  readonly cluster: ClusterRole;
  readonly reason: FailureReason;
  /** One line, sanitised; e.g. the verb and resource a 403 names. */
  readonly message: string;
}

export interface ObservedRuntime {
  readonly ref: RuntimeRef;
  /** KCP: infrastructuremanager.kyma-project.io/v1 Runtime <lowercase runtimeID> in kcpNamespace. */
  readonly runtimeCR?: KubeObject;
  /** KCP: operator.kyma-project.io/v1beta2 Kyma <lowercase runtimeID> in kcpNamespace. */
  readonly kcpKyma?: KubeObject;
  /** Garden: core.gardener.cloud/v1beta1 Shoot shootName in shootNamespace. */
  readonly shoot?: KubeObject;
  /** SKR: operator.kyma-project.io/v1beta2 Kyma default in kyma-system. */
  readonly skrKyma?: KubeObject;
  /**
   * SKR: the objects of the kinds the extensions' status hooks declare (skrKinds), all namespaces,
   * by kind; each list sorted by namespace and name. Empty when the SKR was not read.
   */
  readonly skrObjects: ReadonlyMap<string, readonly KubeObject[]>;
  /** Which clusters were read successfully (an absent object on a read cluster means "not found"). */
  readonly read: ReadonlySet<ClusterRole>;
  /** Reads that failed; the extensions that depend on that cluster become Unknown. */
  readonly failures: readonly ReadFailure[];
}

/** A problem of the whole run (exit 5): bad credentials for KCP or Garden, an unreadable dump folder. */
export interface GlobalFailure {
  /** UnreadableKubeconfig: a kubeconfig file the OS refuses (the message has its error); InvalidKubeconfig: not a kubeconfig, or a context, cluster or user it lacks. */
  readonly reason: 'Unauthorized' | 'UnreadableDump' | 'Unreachable' | 'RefusedCredentials' | 'Forbidden' | 'UnreadableKubeconfig' | 'InvalidKubeconfig';
  readonly message: string;
}

/** A problem with one item of a dump or one API object (reported, never fatal), with its location. */
export interface ObservationWarning {
  /** File (dumps) or API path (live). */
  readonly where: string;
  /** JSON pointer of the item inside the file, e.g. /items/3. */
  readonly pointer: string;
  readonly message: string;
}

export interface Observation {
  /** One entry per requested runtime, by name. */
  readonly runtimes: ReadonlyMap<string, ObservedRuntime>;
  readonly global?: GlobalFailure;
  readonly warnings: readonly ObservationWarning[];
  /**
   * Every Runtime CR of the fleet's KCP namespace, when the source read all of it (a dump's whole
   * kcp/ folder; live, one LIST when asked for): what `status` compares with the fleet.
   */
  readonly inventory?: KcpInventory;
}

/** One Runtime CR of the KCP, as much as the inventory needs. */
export interface KcpRuntimeEntry {
  /** The runtime ID: its runtime-id label, else its name. */
  readonly runtimeID: string;
  /** namespace/name of the Runtime CR. */
  readonly object: string;
  readonly shootName?: string;
  readonly plan?: string;
  readonly region?: string;
}

/** Every Runtime CR of the fleet's KCP namespace, when the whole namespace was read. */
export interface KcpInventory {
  readonly namespace: string;
  /** Sorted by runtime ID. */
  readonly runtimes: readonly KcpRuntimeEntry[];
}
