// The contract every extension folder implements. The loader, validator, resolver and CLI only
// know this interface and the list in ./index.ts, so a third extension is one new folder.

import type { Construct } from 'constructs';
import type { DocPath, Severity } from '../lib/diagnostics';
import type { KeyedList } from '../lib/field-path';
import type { UpstreamPin } from '../lib/supported-versions';
import type { SnapshotHook } from './snapshot-hook';
import type { DriftRules, StatusHook } from './status-hook';

/** A JSON Schema (draft-07 subset that ajv compiles in strict mode). */
export type JsonSchema = Record<string, unknown>;

/**
 * A list inside an extension's settings that layers merge entry by entry, by `key` (path relative
 * to the extension's settings, e.g. {path: ['caches'], key: 'upstream'}). Diagnostics and `explain`
 * name its entries by that key (src/lib/field-path.ts).
 */
export type { KeyedList };

/** A file of the fleet folder other than the three declaration kinds (rules files, profiles). */
export interface AuxFile {
  /** Path relative to the fleet folder, always with forward slashes, e.g. 'rules/web.yaml'. */
  readonly relPath: string;
  /** Path as shown in diagnostics (relative to the current folder). */
  readonly file: string;
  readonly bytes: Uint8Array;
}

export interface ReportOptions {
  readonly severity?: Severity;
  /** Point at the key of the field instead of its value (e.g. for unknown or forbidden fields). */
  readonly at?: 'key' | 'value';
}

/** Collects diagnostics of a rule; `path` is relative to the extension's settings. */
export interface RuleReporter {
  report(path: DocPath, code: string, message: string, options?: ReportOptions): void;
}

/** What rules may read besides the value under test. Pure data; rules do no I/O. */
export interface RuleEnvironment<State> {
  /** Result of the extension's `prepare`. */
  readonly state: State;
  /** All auxiliary files of the fleet, by relPath. */
  readonly files: ReadonlyMap<string, AuxFile>;
  /** Evaluation time for time-dependent rules (version expiry); injected by the CLI. */
  readonly now: Date;
}

export interface PrepareInput {
  /** The validated `Fleet.spec` (fleet-wide options; the plug-in reads its own options from it). */
  readonly fleetSpec: Readonly<Record<string, unknown>>;
  readonly files: ReadonlyMap<string, AuxFile>;
  /** Reports a problem in the Fleet file at a path relative to `Fleet.spec`. */
  readonly fleetReporter: RuleReporter;
  /** Reports a problem in an auxiliary file (line and column within that file). */
  reportInFile(relPath: string, line: number, col: number, code: string, message: string): void;
}

/** Identity of a runtime, for rules that depend on it (e.g. names derived from the runtime ID). */
export interface RuntimeIdentity {
  readonly name: string;
  readonly runtimeID: string;
}

/** A Shoot `spec.resources[]` entry (a Secret or ConfigMap in the Garden project namespace). */
export interface ShootResource {
  readonly name: string;
  readonly resourceRef: { readonly apiVersion: 'v1'; readonly kind: 'Secret' | 'ConfigMap'; readonly name: string };
}

/** What the renderer knows about the runtime an extension renders for. */
export interface RenderRuntime extends RuntimeIdentity {
  readonly shootName: string;
  /** Gardener project; the Shoot namespace is garden-<project>. */
  readonly shootProject: string;
}

export interface RenderInput<State> {
  /** enabled: configured and on; disabled: a layer turned it off; unset: no layer mentions it. */
  readonly state: 'enabled' | 'disabled' | 'unset';
  /** Resolved configuration (defaults applied); empty unless enabled. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly runtime: RenderRuntime;
  readonly env: RuleEnvironment<State>;
}

/** One extension's share of a runtime's manifests, across the apply targets. */
export interface ExtensionRendering {
  /**
   * Adds the extension's config objects for the Kyma runtime (config CRs, ConfigMaps) to the
   * skr-config chart: applied after skr/ (the Kyma CR whose modules install their CRDs).
   */
  readonly skrConfig?: (scope: Construct) => void;
  /**
   * Fields of the KIM Runtime CR's spec this extension owns (e.g. its cache list); undefined
   * where KIM writes them itself. The kcp/ fragment is written only when some extension gives one.
   */
  readonly runtimeSpec?: Readonly<Record<string, unknown>>;
  /** The Shoot spec.extensions entry (type is added by the renderer); undefined writes none. */
  readonly shootExtension?: { readonly providerConfig?: Record<string, unknown>; readonly disabled?: boolean };
  /** Shoot spec.resources the providerConfig references. */
  readonly shootResources?: readonly ShootResource[];
}

export interface ExtensionPlugin<State = unknown> {
  /** Key under `settings.extensions` (the extension's fleet name). */
  readonly name: string;
  /** One-line description (schema docs and `explain`). */
  readonly description: string;
  /** Type of the Gardener Shoot extension (`spec.extensions[].type`), often shoot-<name>-service. */
  readonly shootExtensionType: string;
  /**
   * Who writes this extension's Shoot entry: 'kim' when KIM derives it from the Runtime CR (the
   * fleet renders it for review and drift detection only); absent when `kyma-fleet apply garden`
   * writes it (KIM keeps Shoot entries of types it does not manage).
   */
  readonly shootEntryWrittenBy?: 'kim';
  /**
   * Kyma module that an enabled extension adds to the Kyma CR (the Fleet may rename or omit it).
   * Absent for an extension without a Kyma module: none is added unless `Fleet.spec.extensionModules`
   * names one.
   */
  readonly defaultModuleName?: string;
  /** Schema of `extensions.<name>` in one layer. Every field optional; includes `enabled`. */
  readonly schema: JsonSchema;
  /**
   * JSON Schema of the providerConfig of this extension's Shoot entry as upstream decodes it
   * (strictly: an unknown field fails Shoot admission). The tests check every rendered Shoot
   * fragment against it (charts/shoot-fragment-schema.ts). Absent: the entry is not checked.
   */
  readonly providerConfigSchema?: JsonSchema;
  /**
   * The CRDs that the kinds of this extension's skr-config objects need, by kind (e.g. a config
   * kind -> its <plural>.<group> CRD name). The SKR apply waits for them
   * (Flux health checks) before the config objects are applied. Core kinds (ConfigMap) need none.
   */
  readonly skrConfigCrds?: Readonly<Record<string, string>>;
  /**
   * Extra fleet-wide options this extension adds under `Fleet.spec` (property name -> schema); a
   * name `<group>.<property>` adds a property to an option group of the core (`kim.<property>`,
   * src/validate/fleet-options.ts). prepare() reads them into the state; the render cache key hashes them.
   */
  readonly fleetOptions?: Readonly<Record<string, JsonSchema>>;
  /**
   * Hints for fields users often write but the format does not have, by dotted path relative to
   * the extension with list indices dropped (e.g. 'caches.http': 'KIM does not propagate ...').
   */
  readonly unknownFieldHints?: Readonly<Record<string, string>>;
  /** Lists that merge by key across layers. */
  readonly keyedLists: readonly KeyedList[];
  /** Fleet-relative paths of auxiliary files this extension needs loaded (besides rules/**). */
  filesToLoad?(fleetSpec: Readonly<Record<string, unknown>>): string[];
  /** Digests fleet-wide inputs once (e.g. parses a profile snapshot). Pure. */
  prepare?(input: PrepareInput): State;
  /**
   * Instants (ms since the epoch) at which this extension's rules or defaults change their verdict
   * for the same input (e.g. the expiry dates of versions). Incremental synth reuses earlier results
   * only while `now` stays between the same two thresholds; omit when nothing depends on `now`.
   */
  timeThresholds?(state: State): readonly number[];
  /** Rules over one layer's value of `extensions.<name>` (format checks, duplicates in one list). */
  validateLayer?(value: Record<string, unknown>, reporter: RuleReporter, env: RuleEnvironment<State>): void;
  /**
   * Rules over the resolved settings of one runtime where the extension is enabled. Keyed lists
   * are arrays sorted by key without disabled entries; a reported path may index them by
   * position (['destinations', 1, 'name']), the framework maps it to the file that set the value.
   */
  validateResolved?(
    value: Record<string, unknown>,
    reporter: RuleReporter,
    env: RuleEnvironment<State> & {
      readonly runtime: RuntimeIdentity;
      /** Top-level lists the layers left empty before defaults filled them (ResolvedExtension.emptiedLists). */
      readonly emptiedLists?: readonly string[];
    },
  ): void;
  /**
   * The manifest kinds validateTransition reads from the previous render: only their files
   * (`<kind>-<name>.yaml`) are read and parsed. The whole skr-config/ folder when absent.
   */
  readonly transitionKinds?: readonly string[];
  /**
   * Rules about changing from the previous render to this one (immutable fields), for an enabled
   * extension. `previous` holds the runtime's manifests of the last synth's skr-config/ folder (of the
   * transitionKinds, when given; empty on the first render). Paths index keyed lists by position,
   * as in validateResolved.
   */
  validateTransition?(
    value: Record<string, unknown>,
    previous: readonly Record<string, unknown>[],
    reporter: RuleReporter,
    env: RuleEnvironment<State> & { readonly runtime: RuntimeIdentity },
  ): void;
  /**
   * Defaults the product writes out (e.g. what an admission mutator would set), for the
   * resolved settings of an enabled extension. Returns an object of default values; the resolver
   * fills them in where no layer set a value (maps recursively, lists only when absent or empty)
   * and records their provenance as "default of <extension>". Pure.
   */
  defaults?(value: Record<string, unknown>, env: RuleEnvironment<State>): Record<string, unknown>;
  /** The extension's manifests for one runtime. Pure: builds constructs and data, writes nothing. */
  render?(input: RenderInput<State>): ExtensionRendering;
  /**
   * What `kyma-fleet status` asks the extension about its own objects on the runtime cluster
   * (./status-hook.ts). Absent: its status comes from the Shoot, module and Runtime CR alone.
   */
  readonly status?: StatusHook;
  /**
   * How `kyma-fleet status` compares this extension's rendered Shoot entry with the live one, where
   * values come back in another spelling or renamed (./status-hook.ts DriftRules). Absent: plainly.
   */
  readonly shootDrift?: DriftRules;
  /**
   * A copy of a cluster object this extension's rules check against, kept in the fleet folder (e.g.
   * a profile a fleet option names): `kyma-fleet profile refresh` rewrites it from the
   * cluster (./snapshot-hook.ts). Absent: the extension keeps no snapshot.
   */
  readonly snapshot?: SnapshotHook;
  /** Upstream code pinned in the tests to judge this extension's output (`kyma-fleet version`). */
  readonly testedAgainst?: readonly UpstreamPin[];
  /** What `kyma-fleet init` writes for this extension in a new fleet repository; absent: init leaves it out. */
  readonly scaffold?: ScaffoldText;
  /**
   * What a change of this extension's rendering makes happen on a runtime (a cache's images lost, a
   * node agent on every node), for the review of `kyma-fleet diff` (src/render/consequences.ts).
   * Absent: its changes count as a Shoot reconcile or a config change only.
   */
  readonly consequences?: ConsequenceRules;
}

/** How much a consequence costs; the review lists destructive ones first. */
export type ConsequenceSeverity = 'destructive' | 'disruptive' | 'routine';

/** A kind of consequence a change has on a runtime's clusters (`kyma-fleet diff`, `--fail-on`). */
export interface ConsequenceClass {
  /** Stable kebab-case id, unique across the core and every extension (--fail-on, JSON). */
  readonly id: string;
  /** What it is, in a few words, e.g. 'cache removed (images lost)'. */
  readonly label: string;
  /** destructive: something on the cluster is deleted or lost; disruptive: what runs or may run on the nodes changes; routine: neither. */
  readonly severity: ConsequenceSeverity;
  /** What happens on the cluster, one sentence (the review and docs/ci.md show it). */
  readonly description: string;
}

/**
 * One side (before or after) of a change of one runtime, as far as it concerns one extension: the
 * objects of the runtime's rendered files that the change touches, parsed. An object whose file the
 * change leaves alone is absent on both sides, so compare the two sides, never one side with a default.
 */
export interface RenderedSide {
  /** The Shoot fragment's spec.extensions entry of this extension's type; undefined when the Shoot has none (or is untouched). */
  readonly shootEntry?: Readonly<Record<string, unknown>>;
  /** The Shoot fragment's spec.resources (empty when the Shoot is untouched). */
  readonly shootResources: readonly Readonly<Record<string, unknown>>[];
  /** The KIM Runtime CR fragment's spec (kcp/), when touched. */
  readonly runtimeSpec?: Readonly<Record<string, unknown>>;
  /** The touched objects of skr-config/ (config CRs, ConfigMaps), of every extension. */
  readonly skrConfig: readonly Readonly<Record<string, unknown>>[];
}

export interface ConsequenceRules {
  /** Every class the extension can report, each id unique (the core refuses a clash at load). */
  readonly classes: readonly ConsequenceClass[];
  /**
   * The ids of `classes` that the change from `before` to `after` makes happen on a runtime that is
   * in the fleet on both sides. A reordering or a rewrite to the same values yields none. Pure.
   */
  classify(before: RenderedSide, after: RenderedSide): readonly string[];
}

/** An extension's part of the files `kyma-fleet init` writes (YAML text, each line ending in a newline). */
export interface ScaffoldText {
  /** How the generated README names the extension, e.g. "Registry Cache". */
  readonly displayName: string;
  /** Its fleet options under `Fleet.spec`, indented two spaces (written before `gitops:`). */
  readonly fleetOptions?: string;
  /** Its entry under `spec.defaults.extensions` of fleet.yaml, indented six spaces. */
  readonly defaults: string;
  /** Its entry under `spec.settings.extensions` of the production group, indented six spaces. */
  readonly productionGroup?: string;
  /** What the production group gives a runtime through it, for the group's header comment. */
  readonly productionSummary?: string;
}
