// The digest of everything one runtime's rendered files depend on: its identity, its resolved
// settings (defaults included), the fleet options rendering reads (the core's and every extension's
// fleetOptions, which its prepare() turns into the state its render reads), the auxiliary files
// (rules, profiles) and the program's own code (lib/code-key.ts). Equal digests mean equal files, so
// incremental synth renders only runtimes whose digest changed. Pure apart from reading the code once.

import { createHash } from 'node:crypto';
import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { fleetOptionValue } from '../validate/fleet-options';
import type { FleetModel } from '../validate/model';
import type { ResolvedRuntime } from '../resolve/resolve';
import { codeKey } from '../lib/code-key';

/**
 * Digest of the fleet-wide inputs every runtime shares (computed once per run). `extensions` must be
 * the list the model was validated and is rendered with.
 */
export function fleetInputDigest(model: FleetModel, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): string {
  const h = createHash('sha256').update(codeKey());
  const { kcpNamespace, extensionModules } = model.options;
  h.update(JSON.stringify({ kcpNamespace, extensionModules }));
  h.update(JSON.stringify(extensionFleetOptions(model.options.spec, extensions)));
  for (const [rel, file] of [...model.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    h.update(rel).update('\0').update(file.bytes).update('\0');
  }
  return h.digest('hex');
}

export function runtimeInputDigest(fleetDigest: string, r: ResolvedRuntime): string {
  const rt = r.runtime;
  return createHash('sha256')
    .update(r.revisionModel ? revisionDigest(r.revisionModel) : fleetDigest)
    .update(JSON.stringify({ name: rt.name, id: rt.runtimeID, shoot: rt.shoot, settings: r.settings }))
    .digest('hex');
}

/** fleetInputDigest of the model of a rollout revision (src/rollout/), once per model. */
const revisionDigests = new WeakMap<FleetModel, string>();
function revisionDigest(model: FleetModel): string {
  let digest = revisionDigests.get(model);
  if (digest === undefined) revisionDigests.set(model, (digest = fleetInputDigest(model)));
  return digest;
}

/**
 * Each extension's fleet options as written (the Fleet.spec values of the names it declares in
 * fleetOptions; absent ones as null), by extension name: what its prepare() reads into the state
 * its render sees.
 */
function extensionFleetOptions(fleetSpec: Readonly<Record<string, unknown>>, extensions: readonly ExtensionPlugin<any>[]): Array<[string, Array<[string, unknown]>]> {
  return extensions.map((e) => [e.name, Object.keys(e.fleetOptions ?? {}).map((name) => [name, fleetOptionValue(fleetSpec, name) ?? null])]);
}
