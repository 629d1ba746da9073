// The validated fleet: typed declarations that later stages (resolve, render, explain) read.
// Each layer keeps its file and position index so every resolved value can say where it came from.

import type { AuxFile } from '../extensions/types';
import type { DocPath } from '../lib/diagnostics';
import type { LabelSelector } from '../lib/labels';
import type { GitopsOptions } from '../gitops/gitops';
import type { RolloutConfig } from './rollout-options';
import type { PositionIndex } from '../lib/yaml/positions';

export type LayerKind = 'defaults' | 'group' | 'runtime';

/** One source of settings: Fleet.spec.defaults, a RuntimeGroup's spec.settings, or a KymaRuntime's spec. */
export interface Layer {
  readonly kind: LayerKind;
  /** 'defaults', the group name or the runtime name. */
  readonly name: string;
  readonly file: string;
  /** Where the settings sit inside the document (['spec'], ['spec','settings'], ['spec','defaults']). */
  readonly settingsPath: DocPath;
  /** The settings exactly as written (only the layerable fields). */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly positions: PositionIndex;
  /** Order among layers: defaults -Infinity, groups their priority, the runtime +Infinity. */
  readonly priority: number;
}

export interface ShootRef {
  readonly name: string;
  readonly project: string;
}

export interface RuntimeDeclaration {
  readonly name: string;
  readonly file: string;
  readonly positions: PositionIndex;
  readonly runtimeID: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
  readonly region: string;
  readonly shoot: ShootRef;
  readonly labels: Readonly<Record<string, string>>;
  readonly layer: Layer;
}

/** Line and column of a value in its file. */
export interface Pos {
  readonly line: number;
  readonly col: number;
}

/**
 * What the checks across runtime files need of one runtime (duplicate names, IDs and Shoots):
 * small enough to remember between runs for files that did not change.
 */
export interface RuntimeIdentity {
  readonly file: string;
  readonly name: string;
  readonly runtimeID: string;
  readonly shoot: ShootRef;
  /** Positions of metadata.name, spec.runtimeID and spec.shoot.name. */
  readonly at: { readonly name: Pos; readonly runtimeID: Pos; readonly shootName: Pos };
  /** metadata.labels, for the selectors that match no runtime (./empty-selectors.ts); absent in identities written before they were kept. */
  readonly labels?: Readonly<Record<string, string>>;
}

export function identityOf(r: RuntimeDeclaration): RuntimeIdentity {
  const pos = (p: (string | number)[]): Pos => {
    const { line, col } = r.positions.valueAt(p);
    return { line, col };
  };
  return {
    file: r.file,
    name: r.name,
    runtimeID: r.runtimeID,
    shoot: { name: r.shoot.name, project: r.shoot.project },
    at: { name: pos(['metadata', 'name']), runtimeID: pos(['spec', 'runtimeID']), shootName: pos(['spec', 'shoot', 'name']) },
    labels: r.labels,
  };
}

export interface GroupDeclaration {
  readonly name: string;
  readonly file: string;
  readonly positions: PositionIndex;
  readonly priority: number;
  readonly selector: LabelSelector;
  readonly layer: Layer;
}

export interface Policy {
  readonly name: string;
  readonly selector: LabelSelector;
  readonly requireExtensions: readonly string[];
  /** Position of the policy in fleet.yaml (for messages). */
  readonly index: number;
}

export interface FleetOptions {
  /** @default 'kcp-system' */
  readonly kcpNamespace: string;
  /** Module name per extension, or false when the extension adds no module. */
  readonly extensionModules: Readonly<Record<string, string | false>>;
  readonly policies: readonly Policy[];
  /** Flux and Argo CD wiring, defaults applied. */
  readonly gitops: GitopsOptions;
  /** Largest share of previously rendered runtimes one synth may remove. @default 0.1 */
  readonly maxRemovalShare: number;
  /** Host patterns of runtime API servers the status reporter may contact (src/lib/skr-servers.ts); undefined: none. */
  readonly skrApiServers?: readonly string[];
  /** Rollout rings (Fleet.spec.rollout, ./rollout-options.ts); undefined without them. */
  readonly rollout?: RolloutConfig;
  /** Fleet.spec as written, for extensions that read their own fleet-wide options. */
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface FleetModel {
  readonly root: string;
  readonly displayRoot: string;
  readonly fleetFile: string;
  readonly fleetPositions: PositionIndex;
  readonly options: FleetOptions;
  readonly defaults: Layer;
  /** Sorted by name. */
  readonly groups: readonly GroupDeclaration[];
  /** Sorted by name. */
  readonly runtimes: readonly RuntimeDeclaration[];
  readonly files: ReadonlyMap<string, AuxFile>;
  /** Result of each extension's prepare(), by extension name. */
  readonly extensionState: ReadonlyMap<string, unknown>;
  readonly now: Date;
  /** False when some declaration was invalid: cross-layer checks are then skipped (no cascades). */
  readonly complete: boolean;
}
