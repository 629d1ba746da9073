// The module catalog snapshot `kyma-fleet catalog refresh` writes to fleet/catalog/modules.yaml:
// the modules of the landscape's Kyma Control Plane (its ModuleReleaseMeta objects) with the
// channels each offers. This module reads it (the loader hands it over as an auxiliary file) and
// writes its text. Sorted and deterministic: the same KCP gives the same bytes. Pure.

import type { AuxFile } from '../extensions/types';
import { cmp, type Diagnostic, type DocPath, formatField, quote } from '../lib/diagnostics';
import { parseFleetYaml } from '../lib/yaml/parse-yaml';
import { catalogNaming } from './field-naming';
import { API_VERSION } from './schema';
import { CHANNEL_PATTERN, MODULE_NAME_PATTERN } from './settings-rules';

/** Fleet-relative path of the catalog; without the file, validation checks no module against a catalog. */
export const CATALOG_PATH = 'catalog/modules.yaml';
export const CATALOG_KIND = 'ModuleCatalog';
export const CATALOG_HEADER = '# written by kyma-fleet catalog refresh from the ModuleReleaseMeta objects of the Kyma Control Plane; do not edit\n';

export interface CatalogModule {
  readonly name: string;
  /** Sorted; empty for a mandatory module. */
  readonly channels: readonly string[];
  /** Installed on every runtime by Lifecycle Manager; a Kyma CR may not list it. */
  readonly mandatory?: boolean;
}

export interface ModuleCatalog {
  /** The catalog file as shown in diagnostics. */
  readonly file: string;
  readonly modules: ReadonlyMap<string, CatalogModule>;
  /** Every channel some module offers, sorted. */
  readonly channels: readonly string[];
}

/** The text of the catalog file for these modules (sorted by name, channels sorted). */
export function formatModuleCatalog(modules: readonly CatalogModule[]): string {
  const lines = [CATALOG_HEADER.trimEnd(), `apiVersion: ${API_VERSION}`, `kind: ${CATALOG_KIND}`, 'spec:'];
  const sorted = [...modules].sort((a, b) => cmp(a.name, b.name));
  if (sorted.length === 0) lines.push('  modules: []');
  else lines.push('  modules:');
  for (const m of sorted) {
    lines.push(`    - name: ${m.name}`);
    if (m.mandatory) lines.push('      mandatory: true');
    else lines.push(`      channels: [${[...m.channels].sort(cmp).join(', ')}]`);
  }
  return lines.join('\n') + '\n';
}

const parsedCache = new WeakMap<AuxFile, { catalog?: ModuleCatalog; diagnostics: Diagnostic[] }>();

/** The catalog of a fleet's auxiliary files, or nothing when it has none (parsed once per file). */
export function moduleCatalogOf(files: ReadonlyMap<string, AuxFile>): { catalog?: ModuleCatalog; diagnostics: readonly Diagnostic[] } {
  const file = files.get(CATALOG_PATH);
  if (!file) return { diagnostics: [] };
  let parsed = parsedCache.get(file);
  if (!parsed) parsedCache.set(file, (parsed = parseModuleCatalog(file.bytes, file.file)));
  return parsed;
}

/** Parses the catalog file; every problem is a diagnostic at its line (code E_CATALOG). Never throws. */
export function parseModuleCatalog(bytes: Uint8Array, file: string): { catalog?: ModuleCatalog; diagnostics: Diagnostic[] } {
  const parsed = parseFleetYaml(bytes, file);
  const diagnostics: Diagnostic[] = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (parsed.data === undefined || diagnostics.length > 0) return { diagnostics };
  const data = parsed.data;
  const naming = catalogNaming(data);
  const problem = (path: DocPath, message: string): void => {
    const pos = parsed.positions.valueAt(path);
    diagnostics.push({ severity: 'error', code: 'E_CATALOG', file, line: pos.line, col: pos.col, field: formatField(path, naming), message });
  };
  if (!isRec(data) || data.apiVersion !== API_VERSION || data.kind !== CATALOG_KIND) {
    problem([], `the module catalog must have apiVersion ${API_VERSION} and kind ${CATALOG_KIND}; rewrite it with kyma-fleet catalog refresh`);
    return { diagnostics };
  }
  const list = isRec(data.spec) ? data.spec.modules : undefined;
  if (!Array.isArray(list)) {
    problem(['spec', 'modules'], 'must be a list of modules');
    return { diagnostics };
  }
  const modules = new Map<string, CatalogModule>();
  const channels = new Set<string>();
  list.forEach((m: unknown, i: number) => {
    const at = ['spec', 'modules', i];
    if (!isRec(m) || typeof m.name !== 'string' || !MODULE_NAME_PATTERN.test(m.name) || m.name === '') {
      return problem([...at, 'name'], `must be a module name matching '^([a-z]{3,}(-[a-z]{3,})*)?$' (got ${quote(isRec(m) ? m.name : m)})`);
    }
    if (modules.has(m.name)) return problem([...at, 'name'], `Duplicate value: ${quote(m.name)}`);
    if (m.mandatory === true) {
      modules.set(m.name, { name: m.name, channels: [], mandatory: true });
      return;
    }
    const chs = m.channels;
    if (!Array.isArray(chs) || chs.some((c) => typeof c !== 'string' || !CHANNEL_PATTERN.test(c))) {
      return problem([...at, 'channels'], `must be a list of channels (lowercase letters) (got ${quote(chs)})`);
    }
    const sorted = [...new Set(chs as string[])].sort(cmp);
    for (const c of sorted) channels.add(c);
    modules.set(m.name, { name: m.name, channels: sorted });
  });
  if (diagnostics.length > 0) return { diagnostics };
  return { catalog: { file, modules, channels: [...channels].sort(cmp) }, diagnostics };
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
