// Validation of every loaded declaration: header, schema (ajv), strings, names and identities,
// per-layer rules of the core settings and of each extension, and the checks across files
// (duplicate runtime names, IDs and Shoots). Returns the typed model plus diagnostics; never throws.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { MAX_RUNTIMES_PER_SHARD, overfullShard, shardCountThatFits, type ShardCount } from '../gitops/gitops';
import { appendAll, type Diagnostic } from '../lib/diagnostics';
import type { LoadedDocument, LoadedFleet } from '../load/load';
import { type FleetModel, type GroupDeclaration, identityOf, type Layer, type RuntimeDeclaration, type RuntimeIdentity } from './model';
import { PositionIndex } from '../lib/yaml/positions';
import { SETTINGS_PATH } from './schema';
import { checkExtensionModulesAgainstCatalog, checkLayerAgainstCatalog } from './catalog-rules';
import { moduleCatalogOf } from './module-catalog';
import { emptySelectorWarnings } from './empty-selectors';
import { fleetSpecNaming, layerNaming } from './field-naming';
import { checkGitopsNames } from './gitops-names';
import { gitTrackedFiles } from './git-tracked';
import { checkCoreSettings } from './settings-rules';
import { type DocumentCheck, type TrackedFiles, type Rec, checkDocument, checkUniqueness, pickSettings, readFleetOptions, readGroup, readRuntime, reporterFor, salvagedLayer } from './documents';

export { reporterFor, WINDOWS_RESERVED } from './documents';

export interface ValidateOptions {
  /** Evaluation time of time-dependent rules (e.g. a version that expires). */
  readonly now: Date;
  /** Accept a fleet without runtimes (refused by default: an empty checkout must not prune a fleet). */
  readonly allowEmpty?: boolean;
  readonly extensions?: readonly ExtensionPlugin<any>[];
  /**
   * This check sees only some of the fleet's runtime files (a part or shard of a large run): the
   * checks that need every runtime (selectors that match none) are left to the whole fleet's check.
   */
  readonly partOfFleet?: boolean;
  /**
   * Runtimes of files that were not parsed in this run (unchanged since a run that validated them):
   * they count for the checks across files (duplicates, empty fleet) but are not in the model.
   */
  readonly knownRuntimes?: readonly RuntimeIdentity[] | RecordedRuntimes;
  /** Which fleet files git already has (a duplicate runtime ID is reported on the new one); git is asked by default. */
  readonly tracked?: TrackedFiles;
}

/**
 * Runtimes of files not parsed in this run, as a run record has them: looked at only as far as the
 * checks need (their 10,000 identities take 30 ms to build).
 */
export interface RecordedRuntimes {
  readonly count: number;
  /** Their identities, for the checks across files. */
  readonly identities: () => readonly RuntimeIdentity[];
  /** Their names and labels (absent where recorded without), for the selectors that match none. */
  readonly labelled: () => ReadonlyArray<{ readonly name: string; readonly labels?: Readonly<Record<string, string>> }>;
  /**
   * True when every runtime of the fleet (these and the parsed ones, `parsed`) is one of a run that
   * passed the checks across files (duplicate names, IDs and Shoots, shards, GitOps names) with the
   * same fleet-wide files and kyma-fleet build, with the identity it had there. Those checks are then
   * not run: they depend on nothing else, and what holds for a set of runtimes (no two alike, no
   * shard too full) holds for every part of it.
   */
  readonly settled: (parsed: readonly RuntimeIdentity[]) => boolean;
}

export interface ValidationResult {
  readonly model?: FleetModel;
  readonly diagnostics: Diagnostic[];
}

export function validateFleet(loaded: LoadedFleet, options: ValidateOptions): ValidationResult {
  const extensions = options.extensions ?? EXTENSIONS;
  const diagnostics: Diagnostic[] = [];
  appendAll(diagnostics, loaded.diagnostics);
  // Complete = every layer above the runtimes is valid; an invalid runtime only drops itself.
  const runtimeFolder = `${loaded.displayRoot}/runtimes/`;
  let complete = !diagnostics.some((d) => d.severity === 'error' && !d.file.startsWith(runtimeFolder));

  const checked = (doc: LoadedDocument): DocumentCheck => {
    const result = checkDocument(doc, extensions, diagnostics);
    if (!result.valid) complete = false;
    return result;
  };

  // Fleet first: its options shape the rules of every other file.
  const fleetCheck = loaded.fleet ? checked(loaded.fleet) : undefined;
  const fleetData = fleetCheck?.valid ? fleetCheck.data : undefined;
  const fleetSpec = (fleetData?.spec as Rec | undefined) ?? {};
  const fleetFile = loaded.fleet?.file ?? `${loaded.displayRoot}/fleet.yaml`;
  const fleetPositions = loaded.fleet?.positions;
  // Entries of fleet.yaml's keyed lists (rollout rings, policies, ...) named by their key.
  const fleetNaming = fleetSpecNaming(fleetSpec, extensions);
  const beforeOptions = diagnostics.length;
  const optionsOfFleet = fleetData && fleetPositions ? readFleetOptions(fleetSpec, extensions, reporterFor(fleetFile, fleetPositions, ['spec'], diagnostics, fleetNaming)) : undefined;
  // A broken fleet-wide option (e.g. a policy naming an unknown extension) would cascade into
  // every runtime's cross-layer checks; report it alone.
  if (diagnostics.slice(beforeOptions).some((d) => d.severity === 'error')) complete = false;
  const fleetOptions = optionsOfFleet ?? readFleetOptions({}, extensions, { report() {} });
  // The module catalog (catalog/modules.yaml, written by `kyma-fleet catalog refresh`), when the
  // fleet has one: module names and channels are checked against it (./catalog-rules.ts).
  const { catalog, diagnostics: catalogProblems } = moduleCatalogOf(loaded.files);
  appendAll(diagnostics, catalogProblems);
  if (catalog && fleetData && fleetPositions) checkExtensionModulesAgainstCatalog(fleetSpec, reporterFor(fleetFile, fleetPositions, ['spec'], diagnostics, fleetNaming), catalog);
  const extensionModules = new Map<string, string>();
  for (const e of extensions) {
    const m = fleetOptions.extensionModules[e.name];
    if (m !== false && m !== undefined) extensionModules.set(m, e.name);
  }

  // Extensions digest fleet-wide inputs (e.g. a profile snapshot) once.
  const extensionState = new Map<string, unknown>();
  for (const e of extensions) {
    if (!e.prepare) continue;
    const before = diagnostics.length;
    extensionState.set(
      e.name,
      e.prepare({
        fleetSpec,
        files: loaded.files,
        fleetReporter: fleetPositions ? reporterFor(fleetFile, fleetPositions, ['spec'], diagnostics, fleetNaming) : { report() {} },
        reportInFile(relPath, line, col, code, message) {
          const file = loaded.files.get(relPath)?.file ?? `${loaded.displayRoot}/${relPath}`;
          diagnostics.push({ severity: 'error', code, file, line, col, field: '', message });
        },
      }),
    );
    if (diagnostics.slice(before).some((d) => d.severity === 'error')) complete = false;
  }

  /**
   * Core and extension rules of one layer. With `schemaFields` the layer's document failed its
   * schema: rules still run so that every error of the run is reported, but findings under a
   * refused field are dropped, and a rule tripping over data the schema refused is ignored.
   */
  const layerRules = (layer: Layer, schemaFields?: readonly string[]): void => {
    if (schemaFields) {
      const sink: Diagnostic[] = [];
      try {
        runLayerRules(layer, sink);
      } catch {
        // The data is malformed in a way the schema already reported.
      }
      const refused = (f: string): boolean => schemaFields.some((s) => f === s || f.startsWith(s + '.') || f.startsWith(s + '['));
      appendAll(diagnostics, sink.filter((d) => !refused(d.field)));
      return;
    }
    runLayerRules(layer, diagnostics);
  };
  const runLayerRules = (layer: Layer, diagnostics: Diagnostic[]): void => {
    const naming = layerNaming(layer, extensions);
    const reporter = reporterFor(layer.file, layer.positions, layer.settingsPath, diagnostics, naming);
    checkCoreSettings(layer.settings, reporter, { extensionModules });
    if (catalog) checkLayerAgainstCatalog(layer.settings, reporter, catalog);
    const exts = (layer.settings.extensions ?? {}) as Rec;
    for (const e of extensions) {
      const value = exts[e.name];
      if (!e.validateLayer || value === undefined || value === null || typeof value !== 'object') continue;
      e.validateLayer(value as Rec, reporterFor(layer.file, layer.positions, [...layer.settingsPath, 'extensions', e.name], diagnostics, naming), {
        state: extensionState.get(e.name),
        files: loaded.files,
        now: options.now,
      });
    }
  };

  const defaults: Layer = {
    kind: 'defaults',
    name: 'defaults',
    file: fleetFile,
    settingsPath: SETTINGS_PATH.Fleet,
    settings: pickSettings(fleetSpec.defaults),
    positions: fleetPositions ?? new PositionIndex(),
    priority: -Infinity,
  };
  if (fleetData) layerRules(defaults);
  else if (loaded.fleet && fleetCheck?.data) layerRules(salvagedLayer(loaded.fleet, fleetCheck.data), fleetCheck.schemaFields);

  const groups: GroupDeclaration[] = [];
  for (const doc of loaded.groups) {
    const check = checked(doc);
    if (!check.valid) {
      if (check.data) layerRules(salvagedLayer(doc, check.data), check.schemaFields);
      continue;
    }
    const group = readGroup(doc, check.data!, diagnostics);
    if (!group) {
      complete = false;
      continue;
    }
    layerRules(group.layer);
    groups.push(group);
  }

  const runtimes: RuntimeDeclaration[] = [];
  for (const doc of loaded.runtimes) {
    const check = checkDocument(doc, extensions, diagnostics);
    if (!check.valid) {
      if (check.data) layerRules(salvagedLayer(doc, check.data), check.schemaFields);
      continue;
    }
    const runtime = readRuntime(doc, check.data!, diagnostics);
    if (!runtime) continue;
    layerRules(runtime.layer);
    runtimes.push(runtime);
  }

  const given = options.knownRuntimes;
  const recorded = given !== undefined && 'settled' in given ? given : undefined;
  const listed: readonly RuntimeIdentity[] = given === undefined || 'settled' in given ? [] : given;
  const parsed = runtimes.map(identityOf);
  // The checks see the valid runtimes only (an invalid file fails the run on its own).
  const settled = recorded !== undefined && recorded.settled(parsed);
  if (!settled) {
    const known = recorded ? recorded.identities() : listed;
    checkUniqueness(groups, parsed, known, diagnostics, options.tracked ?? gitTrackedFiles(loaded.root, loaded.displayRoot));
    if (fleetData && fleetPositions) checkShards([...runtimes, ...known].map((r) => r.name), fleetOptions.gitops.shards, fleetFile, fleetPositions, diagnostics);
    if (fleetOptions.gitops.flux.enabled || fleetOptions.gitops.argocd.enabled) checkGitopsNames([...parsed, ...known], diagnostics);
  }
  const knownCount = recorded ? recorded.count : listed.length;

  if (loaded.runtimes.length + knownCount === 0 && !options.allowEmpty && loaded.fleet) {
    diagnostics.push({
      severity: 'error',
      code: 'E_EMPTY_FLEET',
      file: `${loaded.displayRoot}/runtimes`,
      line: 1,
      col: 1,
      field: '',
      message: 'the fleet declares no runtimes; an empty fleet would remove every runtime from dist/ (pass --allow-empty if that is intended)',
    });
  }

  if (!fleetData || !fleetPositions) return { diagnostics };
  const model: FleetModel = {
    root: loaded.root,
    displayRoot: loaded.displayRoot,
    fleetFile,
    fleetPositions,
    options: fleetOptions,
    defaults,
    groups: groups.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    runtimes: runtimes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    files: loaded.files,
    extensionState,
    now: options.now,
    complete,
  };
  // Over the whole fleet, and only when every runtime file was read as valid (an invalid one would
  // be missing here and make its groups look empty).
  const known = recorded ? recorded.labelled() : listed;
  if (!options.partOfFleet && runtimes.length === loaded.runtimes.length && known.every((k) => k.labels !== undefined)) {
    // A selector that is refused already needs no warning that it matches nothing.
    const refused = diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}\0${d.field}`);
    const warnings = emptySelectorWarnings(model, [...runtimes, ...known.map((k) => ({ name: k.name, labels: k.labels! }))]);
    appendAll(diagnostics, warnings.filter((w) => !refused.some((e) => e.startsWith(`${w.file}\0${w.field}`))));
  }
  return { model, diagnostics };
}

/**
 * No shard of dist/gitops/ may hold more runtimes than one shard's Kustomization and ApplicationSets
 * can carry (shards.ts MAX_RUNTIMES_PER_SHARD); the error names the shard count that fits.
 */
function checkShards(names: readonly string[], shards: ShardCount, fleetFile: string, positions: PositionIndex, sink: Diagnostic[]): void {
  const full = overfullShard(names, shards);
  if (!full) return;
  const fits = shardCountThatFits(names);
  const at = positions.valueAt(['spec', 'gitops', 'shards']);
  sink.push({
    severity: 'error',
    code: 'E_GITOPS_SHARD_FULL',
    file: fleetFile,
    line: at.line,
    col: at.col,
    field: 'gitops.shards',
    message:
      `shard ${full.shard} of ${shards} would hold ${full.runtimes} runtimes, more than the ${MAX_RUNTIMES_PER_SHARD} that one shard's Flux and Argo CD objects can carry; ` +
      (fits !== undefined ? `set gitops.shards to ${fits}` : `the fleet is larger than 4096 shards of ${MAX_RUNTIMES_PER_SHARD} runtimes`),
  });
}
