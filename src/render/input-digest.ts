// The digest of everything one runtime's rendered files depend on: its identity, its resolved
// settings (defaults included), the fleet options rendering reads, the auxiliary files (rules,
// profiles) and the renderer's own code. Equal digests mean equal files, so incremental synth
// renders only runtimes whose digest changed. Pure apart from reading the renderer's code once.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FleetModel } from '../fleet/model';
import type { ResolvedRuntime } from '../fleet/resolve';
import { packageVersion } from '../lib/version';

let rendererKey: string | undefined;

/** Package version plus the compiled code of charts, render and extensions (a code change renders again). */
function renderer(): string {
  if (rendererKey !== undefined) return rendererKey;
  const h = createHash('sha256').update(packageVersion());
  const roots = [path.join(__dirname), path.join(__dirname, '../extensions'), path.join(__dirname, '../../charts')];
  const visit = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else if (/\.(js|ts)$/.test(e.name) && !e.name.endsWith('.d.ts')) h.update(e.name).update(fs.readFileSync(p));
    }
  };
  for (const r of roots) visit(r);
  rendererKey = h.digest('hex');
  return rendererKey;
}

/** Digest of the fleet-wide inputs every runtime shares (computed once per run). */
export function fleetInputDigest(model: FleetModel): string {
  const h = createHash('sha256').update(renderer());
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
