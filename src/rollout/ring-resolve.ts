// Resolves each runtime against the fleet-wide layers of its ring's revision (docs/rollout.md).
// The input check (src/run/check.ts) has validated and resolved the fleet with the working layers;
// with rollout rings configured and started, every runtime whose ring is on another revision is
// validated and resolved again against that revision's layers (loaded from fleet/rollout/revisions/<id>/
// like a fleet folder, with the runtime's own working file), and carries that revision's model
// (ResolvedRuntime.revisionModel) into render, status and explain. The fleet-wide output (GitOps
// lists) follows the first ring's revision. When the working layers differ from the first ring's
// revision, one warning says so: nothing of that change reaches a runtime before `rollout start`.

import type { ExtensionPlugin } from '../extensions/types';
import { appendAll, type Diagnostic } from '../lib/diagnostics';
import { type LoadedFleet, loadFleet } from '../load/load';
import { resolveFleet, type ResolvedRuntime } from '../resolve/resolve';
import type { FleetModel } from '../validate/model';
import type { RolloutConfig } from '../validate/rollout-options';
import { validateFleet } from '../validate/validate';
import { ringOf } from './rings';
import { changedPaths, type Revision, revisionOfLayers } from './revision';
import { readRollout } from './store';
import type { RolloutState } from './state-file';
import { alignState } from './transitions';

export interface RingResolution {
  /** Every runtime, resolved at its ring's revision (those on the working layers as they were). */
  readonly runtimes: readonly ResolvedRuntime[];
  /** The model the fleet-wide output follows: the first ring's revision's (the working model when it is that revision). */
  readonly model: FleetModel;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The runtimes resolved against the working layers that are not rendered at them (their ring is
   * on another revision): still checked, so a change that would break a later ring fails now.
   */
  readonly workingOnly: readonly ResolvedRuntime[];
  /** The rollout as the commands see it; absent without Fleet.spec.rollout or when fleet/rollout/ is broken. */
  readonly view?: RolloutView;
}

/** The rollout of a checked fleet: its rings, their state and the working layers as a revision. */
export interface RolloutView {
  readonly config: RolloutConfig;
  /** Fitted to the declared rings (transitions.ts alignState); undefined before the first `rollout start`. */
  readonly state?: RolloutState;
  /** Display path of fleet/rollout/state.yaml. */
  readonly stateFile: string;
  /** The working fleet-wide layers as a revision (what `rollout start` stores). */
  readonly working: Revision;
  /** Absolute fleet folder. */
  readonly fleetRoot: string;
  /** The runtimes that were checked in this run, with their ring. */
  readonly runtimes: ReadonlyArray<{ readonly name: string; readonly runtimeID: string; readonly ring: string }>;
}

export interface RingResolveInput {
  /** The working fleet as loaded (its runtime documents are re-validated against revisions). */
  readonly loaded: LoadedFleet;
  /** The working fleet's model and its runtimes resolved against the working layers. */
  readonly model: FleetModel;
  readonly runtimes: readonly ResolvedRuntime[];
  readonly now: Date;
  readonly extensions: readonly ExtensionPlugin<any>[];
  readonly cwd: string;
}

export function resolveAtRingRevisions(input: RingResolveInput): RingResolution {
  const { loaded, model } = input;
  const unchanged: RingResolution = { runtimes: input.runtimes, model, diagnostics: [], workingOnly: [] };
  const config = model.options.rollout;
  if (!config) return unchanged;
  const stored = readRollout(loaded.root, loaded.displayRoot);
  if (stored.diagnostics.length > 0) return { ...unchanged, diagnostics: stored.diagnostics };
  const working = revisionOfLayers(loaded);
  if (!working) {
    return {
      ...unchanged,
      diagnostics: [{ severity: 'error', code: 'E_FLEET_CHANGED', file: model.fleetFile, line: 1, col: 1, field: '', message: 'fleet.yaml or a group file changed while it was read; run again' }],
    };
  }
  const ringOfRuntime = new Map(model.runtimes.map((r) => [r.name, ringOf(r.labels, config)]));
  const members = model.runtimes.map((r) => ({ name: r.name, runtimeID: r.runtimeID, ring: ringOfRuntime.get(r.name)! }));
  const base = { config, stateFile: stored.stateFile, working, fleetRoot: loaded.root, runtimes: members };
  // Before the first start every ring follows the working layers.
  if (!stored.state) return { ...unchanged, view: base };
  const state = alignState(stored.state, config);
  const view: RolloutView = { ...base, state };
  const diagnostics: Diagnostic[] = [];
  const first = state.rings[0]!;
  if (first.revision !== working.id) {
    const pos = stored.positions?.valueAt(['rings', 0, 'revision']) ?? { line: 1, col: 1 };
    const from = stored.revisions.get(first.revision)?.revision;
    const changed = from ? changedPaths(from, working) : [];
    diagnostics.push({
      severity: 'warning',
      code: 'W_ROLLOUT_PENDING',
      file: stored.stateFile,
      line: pos.line,
      col: pos.col,
      field: 'rings[0].revision',
      message:
        `the fleet-wide layers differ from revision ${first.revision} that ring ${first.name} is on` +
        (changed.length > 0 ? ` (${summarize(changed)})` : '') +
        `: the change reaches no runtime until \`kyma-fleet rollout start\``,
    });
  }

  const revisionOfRing = new Map(state.rings.map((r) => [r.name, r.revision]));
  // The runtimes of each revision other than the working one.
  const byRevision = new Map<string, Set<string>>();
  for (const [name, ring] of ringOfRuntime) {
    const revision = revisionOfRing.get(ring)!;
    if (revision === working.id) continue;
    if (!byRevision.has(revision)) byRevision.set(revision, new Set());
    byRevision.get(revision)!.add(name);
  }
  // Every revision a ring is on gets its model, also without runtimes in this run (a synth in parts
  // checks none here): the fleet-wide output follows the first ring's, and the run record keeps the
  // time thresholds of all of them (rolloutModelsBeside).
  for (const ring of state.rings) if (ring.revision !== working.id && !byRevision.has(ring.revision)) byRevision.set(ring.revision, new Set());

  const models = new Map<string, FleetModel>([[working.id, model]]);
  const atRevision = new Map<string, ResolvedRuntime>();
  for (const [id, names] of [...byRevision].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kept = stored.revisions.get(id)!;
    const result = resolveAtRevision(input, kept.dir, kept.revision, names);
    appendAll(diagnostics, result.diagnostics);
    if (!result.model) continue;
    models.set(id, result.model);
    for (const r of result.runtimes) atRevision.set(r.runtime.name, r);
  }
  const primary = models.get(first.revision) ?? model;
  const used = new Set(state.rings.map((r) => r.revision));
  besides.set(primary, [...models].filter(([id, m]) => used.has(id) && m !== primary).map(([, m]) => m));
  const runtimes = input.runtimes.map((r) => {
    const revised = atRevision.get(r.runtime.name);
    if (revised) return revised.revisionModel === primary ? { ...revised, revisionModel: undefined } : revised;
    // On the working layers: its model is the working one, which is not the fleet-wide one when the first ring is elsewhere.
    return primary === model ? r : { ...r, revisionModel: model };
  });
  // The working resolution of the runtimes rendered at another revision, with the working model.
  const workingOnly = input.runtimes.filter((r) => atRevision.has(r.runtime.name)).map((r) => (primary === model ? r : { ...r, revisionModel: model }));
  return { runtimes, model: primary, diagnostics, workingOnly, view };
}

/** Validates and resolves the named runtimes of the working fleet against a stored revision's layers. */
function resolveAtRevision(input: RingResolveInput, dir: string, revision: Revision, names: ReadonlySet<string>): { model?: FleetModel; runtimes: ResolvedRuntime[]; diagnostics: Diagnostic[] } {
  const layers = loadFleet({ fleetDir: dir, cwd: input.cwd, extensions: input.extensions });
  const files = new Set(input.model.runtimes.filter((r) => names.has(r.name)).map((r) => r.file));
  const composed: LoadedFleet = { ...layers, runtimes: input.loaded.runtimes.filter((d) => files.has(d.file)), reusedRuntimes: [] };
  // Only the runtimes at this revision: selectors are checked over the whole fleet, not here.
  const validated = validateFleet(composed, { now: input.now, allowEmpty: true, extensions: input.extensions, partOfFleet: true });
  const diagnostics = [...validated.diagnostics];
  if (!validated.model) {
    diagnostics.push({
      severity: 'error',
      code: 'E_ROLLOUT_REVISION_INVALID',
      file: `${layers.displayRoot}/`,
      line: 1,
      col: 1,
      field: '',
      message: `revision ${revision.id} does not validate any more (see the errors above); the runtimes of the rings on it cannot be rendered: \`kyma-fleet rollout start\` a fixed revision and advance it`,
    });
    return { runtimes: [], diagnostics };
  }
  const resolved = resolveFleet(validated.model, input.extensions);
  appendAll(diagnostics, resolved.diagnostics);
  return { model: validated.model, runtimes: resolved.runtimes.map((r) => ({ ...r, revisionModel: validated.model })), diagnostics };
}

/** The models of the other revisions the rings are on, by the model the fleet-wide output follows. */
const besides = new WeakMap<FleetModel, readonly FleetModel[]>();

/**
 * The models of the revisions the rings are on besides `model` (the one a check returned): what
 * the run record needs for the time thresholds of every ring (src/run/run-record.ts). Empty
 * without rollout rings.
 */
export function rolloutModelsBeside(model: FleetModel): readonly FleetModel[] {
  return besides.get(model) ?? [];
}

function summarize(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(', ');
  return `changed: ${shown}${paths.length > 5 ? `, … (${paths.length - 5} more)` : ''}`;
}
