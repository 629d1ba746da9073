// The digest of everything one runtime's rendered files depend on: its identity, its resolved
// settings (defaults included), the fleet options rendering reads, the auxiliary files (rules,
// profiles) and the program's own code (lib/code-key.ts). Equal digests mean equal files, so
// incremental synth renders only runtimes whose digest changed. Pure apart from reading the code once.

import { createHash } from 'node:crypto';
import type { FleetModel } from '../fleet/model';
import type { ResolvedRuntime } from '../fleet/resolve';
import { codeKey } from '../lib/code-key';

/** Digest of the fleet-wide inputs every runtime shares (computed once per run). */
export function fleetInputDigest(model: FleetModel): string {
  const h = createHash('sha256').update(codeKey());
  const { kcpNamespace, kimRegistryCacheSync, extensionModules } = model.options;
  h.update(JSON.stringify({ kcpNamespace, kimRegistryCacheSync, extensionModules }));
  for (const [rel, file] of [...model.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    h.update(rel).update('\0').update(file.bytes).update('\0');
  }
  return h.digest('hex');
}

export function runtimeInputDigest(fleetDigest: string, r: ResolvedRuntime): string {
  const rt = r.runtime;
  return createHash('sha256')
    .update(fleetDigest)
    .update(JSON.stringify({ name: rt.name, id: rt.runtimeID, shoot: rt.shoot, settings: r.settings }))
    .digest('hex');
}
