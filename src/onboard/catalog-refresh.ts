// `kyma-fleet catalog refresh` without the command line: the ModuleReleaseMeta objects of the KCP
// (operator.kyma-project.io/v1beta2, in the fleet's KCP namespace) become the module catalog
// snapshot fleet/catalog/modules.yaml (../validate/module-catalog.ts), written atomically; what
// changed against the previous snapshot is listed. Objects the CRD would refuse are skipped with a
// warning; they cannot be on a real KCP, but a dump is any file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import type { ReadObject } from '../observe/object-reader';
import { sanitizeMessage } from '../observe/sanitize';
import { CATALOG_PATH, type CatalogModule, formatModuleCatalog, parseModuleCatalog } from '../validate/module-catalog';
import { CHANNEL_PATTERN, MODULE_NAME_PATTERN } from '../validate/settings-rules';
import { replaceFile } from './fleet-files';

export const MODULE_RELEASE_META_GVR = { group: 'operator.kyma-project.io', version: 'v1beta2', plural: 'modulereleasemetas', kind: 'ModuleReleaseMeta' } as const;

export interface CatalogBuild {
  readonly modules: readonly CatalogModule[];
  readonly warnings: ReadonlyArray<{ readonly where: string; readonly message: string }>;
}

/** The catalog modules of the ModuleReleaseMeta objects; one module named by several objects merges their channels. */
export function buildCatalog(objects: readonly ReadObject[]): CatalogBuild {
  const warnings: Array<{ where: string; message: string }> = [];
  const byName = new Map<string, { channels: Set<string>; mandatory: boolean }>();
  for (const { obj, where } of objects) {
    const spec = isRec(obj.spec) ? obj.spec : {};
    const name = spec.moduleName;
    const skip = (why: string): void => void warnings.push({ where, message: `ModuleReleaseMeta ${sanitizeMessage(obj.metadata.name, 100)} skipped: ${why}` });
    if (typeof name !== 'string' || name === '' || name.length > 64 || !MODULE_NAME_PATTERN.test(name)) {
      skip(`spec.moduleName must match '^([a-z]{3,}(-[a-z]{3,})*)?$' (got ${JSON.stringify(sanitizeMessage(String(name), 80))})`);
      continue;
    }
    const mandatory = isRec(spec.mandatory);
    const channels: string[] = [];
    if (!mandatory) {
      if (!Array.isArray(spec.channels)) {
        skip('it has neither spec.channels nor spec.mandatory');
        continue;
      }
      let bad = false;
      for (const c of spec.channels) {
        const ch = isRec(c) ? c.channel : undefined;
        if (typeof ch !== 'string' || ch.length < 3 || ch.length > 32 || !CHANNEL_PATTERN.test(ch)) bad = true;
        else channels.push(ch);
      }
      if (bad) {
        skip('a spec.channels entry has no channel of 3 to 32 lowercase letters');
        continue;
      }
    }
    const entry = byName.get(name);
    if (entry) {
      warnings.push({ where, message: `module ${name} is named by more than one ModuleReleaseMeta; their channels are merged` });
      for (const c of channels) entry.channels.add(c);
      entry.mandatory ||= mandatory;
    } else byName.set(name, { channels: new Set(channels), mandatory });
  }
  const modules = [...byName]
    .sort(([a], [b]) => cmp(a, b))
    .map(([name, e]): CatalogModule => (e.mandatory && e.channels.size === 0 ? { name, channels: [], mandatory: true } : { name, channels: [...e.channels].sort(cmp) }));
  return { modules, warnings };
}

export interface CatalogChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Modules whose channels changed: `name: +fast -experimental`. */
  readonly changed: readonly string[];
}

export interface CatalogRefreshResult {
  readonly file: string;
  readonly written: boolean;
  /** Undefined when there was no readable catalog before. */
  readonly change?: CatalogChange;
  readonly modules: number;
}

/** Writes <fleet>/catalog/modules.yaml (throws FleetWriteError); `fileDisplay` names it in messages. */
export function writeCatalog(fleetRoot: string, fileDisplay: string, modules: readonly CatalogModule[]): CatalogRefreshResult {
  const target = path.join(fleetRoot, CATALOG_PATH);
  let before: readonly CatalogModule[] | undefined;
  try {
    const old = parseModuleCatalog(fs.readFileSync(target), fileDisplay).catalog;
    if (old) before = [...old.modules.values()];
  } catch {
    // no previous catalog
  }
  const written = replaceFile(target, formatModuleCatalog(modules), fileDisplay);
  return { file: fileDisplay, written, modules: modules.length, ...(before ? { change: compareCatalogs(before, modules) } : {}) };
}

export function compareCatalogs(before: readonly CatalogModule[], after: readonly CatalogModule[]): CatalogChange {
  const old = new Map(before.map((m) => [m.name, m]));
  const now = new Map(after.map((m) => [m.name, m]));
  const added = [...now.keys()].filter((n) => !old.has(n)).sort(cmp);
  const removed = [...old.keys()].filter((n) => !now.has(n)).sort(cmp);
  const changed: string[] = [];
  for (const [name, m] of [...now].sort(([a], [b]) => cmp(a, b))) {
    const o = old.get(name);
    if (!o) continue;
    const plus = m.channels.filter((c) => !o.channels.includes(c)).map((c) => `+${c}`);
    const minus = o.channels.filter((c) => !m.channels.includes(c)).map((c) => `-${c}`);
    const flag = o.mandatory === m.mandatory ? [] : [m.mandatory ? 'now mandatory' : 'no longer mandatory'];
    if (plus.length + minus.length + flag.length > 0) changed.push(`${name}: ${[...plus, ...minus, ...flag].join(' ')}`);
  }
  return { added, removed, changed };
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
