// Reading one fleet document into the model (./validate.ts runs them over the whole fleet): its
// header and schema, the Fleet's options, a group's selector and settings, a runtime's identity,
// the layer of a document that failed its schema (so rules still run on what is left), and the
// checks across files (duplicate runtime names, IDs and Shoots). Diagnostics, never throws.

import type { ExtensionPlugin, RuleReporter } from '../extensions/types';
import { appendAll, cmp, type Diagnostic, type DocPath, type FieldNaming, formatField, quote } from '../lib/diagnostics';
import { isDNS1123Label } from '../lib/k8s-names';
import { gitopsOptionProblems, resolveGitopsOptions } from '../gitops/gitops';
import { parseSkrServerPattern } from '../lib/skr-servers';
import { type LabelSelector, labelKeyProblem, labelValueProblem, selectorProblems } from '../lib/labels';
import type { LoadedDocument } from '../load/load';
import { type FleetOptions, type GroupDeclaration, type Layer, type Policy, type Pos, type RuntimeDeclaration, type RuntimeIdentity } from './model';
import { PositionIndex } from '../lib/yaml/positions';
import { API_VERSION, type FleetKind, SETTINGS_PATH } from './schema';
import { readRolloutOptions } from './rollout-options';
import { documentNaming } from './field-naming';
import { checkDocumentSchema } from './schema-check';
import { MODULE_NAME_PATTERN } from './settings-rules';
import { scanValues } from './value-scan';

export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Names Windows refuses as file or folder names; a runtime folder in dist/ must check out everywhere. */
export const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
export const SETTINGS_KEYS = ['channel', 'modules', 'extensions'];

export type Rec = Record<string, unknown>;

/**
 * A reporter that turns paths relative to `base` into positioned diagnostics of one file; with
 * `naming` (./field-naming.ts) list entries are named by their key, as `explain` names them.
 */
export function reporterFor(file: string, positions: PositionIndex, base: DocPath, sink: Diagnostic[], naming?: FieldNaming): RuleReporter {
  return {
    report(path, code, message, options) {
      const full = [...base, ...path];
      const pos = options?.at === 'key' ? positions.keyAt(full) : positions.valueAt(full);
      sink.push({ severity: options?.severity ?? 'error', code, file, line: pos.line, col: pos.col, field: formatField(full, naming), message });
    },
  };
}

/** The settings layer of a document that failed its schema, for running rules on what is left. */
export function salvagedLayer(doc: LoadedDocument, data: Rec): Layer {
  const settingsPath = SETTINGS_PATH[doc.expectedKind];
  let value: unknown = data;
  for (const seg of settingsPath) value = value && typeof value === 'object' ? (value as Rec)[seg] : undefined;
  return { kind: 'runtime', name: doc.relPath, file: doc.file, settingsPath, settings: pickSettings(value), positions: doc.positions, priority: 0 };
}

export function pickSettings(value: unknown): Rec {
  const out: Rec = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of SETTINGS_KEYS) if ((value as Rec)[k] !== undefined) out[k] = (value as Rec)[k];
  }
  return out;
}

export interface DocumentCheck {
  /** The document's data when its header is right (even if the schema failed). */
  readonly data?: Rec;
  /** True when the document passed every document-level check. */
  readonly valid: boolean;
  /** Fields the schema refused; rules run on the rest (all errors of a run are reported). */
  readonly schemaFields: readonly string[];
}

/** Header, schema and string checks of one document. */
export function checkDocument(doc: LoadedDocument, extensions: readonly ExtensionPlugin<any>[], sink: Diagnostic[]): DocumentCheck {
  const data = doc.data;
  // List entries named by their key (as the schema's findings name them: secretPaths below).
  const naming = documentNaming(doc.expectedKind, data, extensions);
  const report = (path: DocPath, code: string, message: string, at: 'key' | 'value' = 'value'): void => {
    const pos = at === 'key' ? doc.positions.keyAt(path) : doc.positions.valueAt(path);
    sink.push({ severity: 'error', code, file: doc.file, line: pos.line, col: pos.col, field: formatField(path, naming), message });
  };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    report([], 'E_TYPE', `a fleet file must be a map with apiVersion, kind, metadata and spec (got ${Array.isArray(data) ? 'a list' : quote(data)})`);
    return { valid: false, schemaFields: [] };
  }
  const rec = data as Rec;
  let ok = true;
  if (rec.apiVersion !== API_VERSION) {
    report(['apiVersion'], 'E_API_VERSION', `apiVersion must be ${quote(API_VERSION)} (got ${quote(rec.apiVersion)})`);
    ok = false;
  }
  if (rec.kind !== doc.expectedKind) {
    const where = { Fleet: 'fleet.yaml', RuntimeGroup: 'files in groups/', KymaRuntime: 'files in runtimes/' }[doc.expectedKind];
    report(['kind'], 'E_KIND', `${where} must declare kind ${doc.expectedKind} (got ${quote(rec.kind)})`);
    ok = false;
  }
  const findings = scanValues(rec);
  const secretPaths = new Set<string>();
  for (const f of findings) {
    report(f.path, f.code, f.message, f.code === 'E_SECRET_INLINE' ? 'key' : 'value');
    if (f.code === 'E_SECRET_INLINE') secretPaths.add(formatField(f.path, naming));
    ok = false;
  }
  if (rec.apiVersion !== API_VERSION || rec.kind !== doc.expectedKind) return { valid: false, schemaFields: [] };
  const schemaDiags = checkDocumentSchema(doc.expectedKind as FleetKind, rec, doc.file, doc.positions, extensions).filter(
    (d) => !(d.code === 'E_UNKNOWN_FIELD' && secretPaths.has(d.field)),
  );
  appendAll(sink, schemaDiags);
  if (schemaDiags.length > 0 || !ok) return { data: rec, valid: false, schemaFields: schemaDiags.map((d) => d.field) };

  const meta = rec.metadata as Rec;
  const name = String(meta.name);
  const base = doc.relPath.split('/').pop()!.replace(/\.yaml$/, '');
  if (!isDNS1123Label(name)) {
    report(
      ['metadata', 'name'],
      'E_NAME_DNS1123',
      `must be a DNS-1123 label: at most 63 lowercase alphanumeric characters or '-', starting and ending with an alphanumeric (got ${quote(name)})`,
    );
    ok = false;
  } else if (WINDOWS_RESERVED.test(name)) {
    report(['metadata', 'name'], 'E_NAME_RESERVED', `${quote(name)} is a reserved device name on Windows and cannot be a folder in dist/`);
    ok = false;
  }
  if (doc.expectedKind !== 'Fleet' && name !== base) {
    report(['metadata', 'name'], 'E_NAME_MISMATCH', `must equal the file name ${quote(base)} (got ${quote(name)}); rename the file or the declaration`);
    ok = false;
  }
  for (const [k, v] of Object.entries((meta.labels as Record<string, string> | undefined) ?? {})) {
    const kp = labelKeyProblem(k);
    if (kp) report(['metadata', 'labels', k], 'E_LABEL', `${kp} (got ${quote(k)})`, 'key');
    const vp = labelValueProblem(v);
    if (vp) report(['metadata', 'labels', k], 'E_LABEL', `${vp} (got ${quote(v)})`);
    if (kp || vp) ok = false;
  }
  return { data: rec, valid: ok, schemaFields: [] };
}

export function readFleetOptions(spec: Rec, extensions: readonly ExtensionPlugin<any>[], reporter: RuleReporter): FleetOptions {
  const kcpNamespace = typeof spec.kcpNamespace === 'string' ? spec.kcpNamespace : 'kcp-system';
  if (!isDNS1123Label(kcpNamespace)) {
    reporter.report(['kcpNamespace'], 'E_NAMESPACE', `must be a DNS-1123 label (got ${quote(kcpNamespace)})`);
  }
  const written = (spec.extensionModules as Rec | undefined) ?? {};
  const extensionModules: Record<string, string | false> = {};
  for (const e of extensions) {
    const v = written[e.name];
    if (v === true) {
      reporter.report(['extensionModules', e.name], 'E_TYPE', 'must be a module name or false (got true)');
    } else if (typeof v === 'string' && (v === '' || !MODULE_NAME_PATTERN.test(v))) {
      reporter.report(['extensionModules', e.name], 'E_MODULE_NAME', `must match the module catalog pattern '^([a-z]{3,}(-[a-z]{3,})*)?$' (got ${quote(v)})`);
    }
    extensionModules[e.name] = typeof v === 'string' ? v : v === false ? false : (e.defaultModuleName ?? false);
  }
  const policies: Policy[] = [];
  const known = new Set(extensions.map((e) => e.name));
  const seen = new Set<string>();
  ((spec.policies as Rec[] | undefined) ?? []).forEach((p, index) => {
    const name = String(p.name);
    if (seen.has(name)) reporter.report(['policies', index, 'name'], 'E_POLICY_DUPLICATE', `Duplicate value: ${quote(name)}`);
    seen.add(name);
    for (const [path, msg] of selectorProblems(p.selector as LabelSelector)) {
      reporter.report(['policies', index, 'selector', ...path], 'E_SELECTOR', msg);
    }
    (p.requireExtensions as string[]).forEach((ext, j) => {
      if (!known.has(ext)) {
        reporter.report(['policies', index, 'requireExtensions', j], 'E_EXTENSION_UNKNOWN', `unknown extension ${quote(ext)}; supported: ${[...known].join(', ')}`);
      }
    });
    policies.push({ name, selector: p.selector as LabelSelector, requireExtensions: p.requireExtensions as string[], index });
  });
  for (const [path, code, message] of gitopsOptionProblems(spec.gitops)) reporter.report(path, code, message);
  const gitops = resolveGitopsOptions(spec.gitops, kcpNamespace);
  const guard = (spec.removalGuard as Rec | undefined) ?? {};
  const maxRemovalShare = typeof guard.maxShare === 'number' ? guard.maxShare : 0.1;
  const skrApiServers = Array.isArray(spec.skrApiServers) ? (spec.skrApiServers as unknown[]).filter((p): p is string => typeof p === 'string') : undefined;
  skrApiServers?.forEach((p, index) => {
    const parsed = parseSkrServerPattern(p);
    if (typeof parsed === 'string') reporter.report(['skrApiServers', index], 'E_SKR_API_SERVER', `${parsed} (got ${quote(p)})`);
  });
  const rollout = readRolloutOptions(spec, reporter);
  return { kcpNamespace, extensionModules, policies, gitops, maxRemovalShare, skrApiServers, ...(rollout ? { rollout } : {}), spec };
}

export function readGroup(doc: LoadedDocument, data: Rec, sink: Diagnostic[]): GroupDeclaration | undefined {
  const spec = data.spec as Rec;
  const selector = spec.selector as LabelSelector;
  const reporter = reporterFor(doc.file, doc.positions, ['spec', 'selector'], sink);
  const problems = selectorProblems(selector);
  for (const [path, msg] of problems) reporter.report(path, 'E_SELECTOR', msg);
  if (problems.length > 0) return undefined;
  const name = String((data.metadata as Rec).name);
  const priority = spec.priority as number;
  return {
    name,
    file: doc.file,
    positions: doc.positions,
    priority,
    selector,
    layer: { kind: 'group', name, file: doc.file, settingsPath: SETTINGS_PATH.RuntimeGroup, settings: pickSettings(spec.settings), positions: doc.positions, priority },
  };
}

export function readRuntime(doc: LoadedDocument, data: Rec, sink: Diagnostic[]): RuntimeDeclaration | undefined {
  const spec = data.spec as Rec;
  const shoot = spec.shoot as Rec;
  const reporter = reporterFor(doc.file, doc.positions, ['spec'], sink);
  const before = sink.length;
  const runtimeID = String(spec.runtimeID);
  if (!UUID.test(runtimeID)) reporter.report(['runtimeID'], 'E_RUNTIME_ID', `must be a UUID such as 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01 (got ${quote(runtimeID)})`);
  for (const field of ['globalAccountID', 'subaccountID', 'region'] as const) {
    const p = labelValueProblem(String(spec[field]));
    // These become label values on the Kyma and Runtime CRs.
    if (p || spec[field] === '') reporter.report([field], 'E_IDENTITY', `${p ?? 'must not be empty'} (got ${quote(spec[field])})`);
  }
  if (!isDNS1123Label(String(shoot.name))) reporter.report(['shoot', 'name'], 'E_IDENTITY', `must be a DNS-1123 label (got ${quote(shoot.name)})`);
  const project = String(shoot.project);
  if (!isDNS1123Label(project) || project.length > 63 - 'garden-'.length) {
    reporter.report(['shoot', 'project'], 'E_IDENTITY', `must be a DNS-1123 label of at most 56 characters, so that garden-<project> is a namespace name (got ${quote(project)})`);
  }
  if (sink.length > before) return undefined;
  const name = String((data.metadata as Rec).name);
  return {
    name,
    file: doc.file,
    positions: doc.positions,
    runtimeID,
    globalAccountID: String(spec.globalAccountID),
    subaccountID: String(spec.subaccountID),
    region: String(spec.region),
    shoot: { name: String(shoot.name), project },
    labels: ((data.metadata as Rec).labels as Record<string, string> | undefined) ?? {},
    layer: { kind: 'runtime', name, file: doc.file, settingsPath: SETTINGS_PATH.KymaRuntime, settings: pickSettings(spec), positions: doc.positions, priority: Infinity },
  };
}

/**
 * Which of some fleet files (as displayed) git already has: a set of them, or undefined when git
 * cannot tell (not installed, not a repository). Asked only when two runtime files collide.
 */
export type TrackedFiles = (files: readonly string[]) => ReadonlySet<string> | undefined;

/** Duplicate group names, runtime names, runtime IDs (case-insensitive: CR names are lowercase) and Shoots. */
export function checkUniqueness(groups: readonly GroupDeclaration[], parsed: readonly RuntimeIdentity[], known: readonly RuntimeIdentity[], sink: Diagnostic[], tracked: TrackedFiles = () => undefined): void {
  const dup = <T extends { file: string }>(items: readonly T[], keyOf: (t: T) => string, path: DocPath, at: (t: T) => Pos, code: string, what: (t: T) => string, copies = false): void => {
    const first = new Map<string, T>();
    for (const item of items) {
      const key = keyOf(item);
      const prev = first.get(key);
      if (!prev) {
        first.set(key, item);
        continue;
      }
      const report = (on: T, other: T, message: string): void => {
        const pos = at(on);
        sink.push({ severity: 'error', code, file: on.file, line: pos.line, col: pos.col, field: formatField(path), message });
      };
      const where = (t: T): string => {
        const p = at(t);
        return `${t.file}:${p.line}:${p.col}`;
      };
      if (!copies) {
        report(item, prev, `${what(item)} is already declared in ${where(prev)}`);
        continue;
      }
      // A copied runtime file (issue 26): the file that is new in the working tree is the copy;
      // report it there. When git cannot tell them apart, report both, each naming the other.
      const inGit = tracked([prev.file, item.file]);
      const prevIn = inGit?.has(prev.file) ?? false;
      const itemIn = inGit?.has(item.file) ?? false;
      if (inGit && prevIn !== itemIn) {
        const [copy, original] = itemIn ? [prev, item] : [item, prev];
        report(copy, original, `${what(copy)} is already declared in ${where(original)}, which git already has; this file is new (a copy?): give it its own runtime's values or delete it`);
        continue;
      }
      const state = !inGit ? 'git cannot tell which file is new' : prevIn ? 'git has both files' : 'git has neither file yet';
      report(prev, item, `${what(prev)} is also declared in ${where(item)} (${state}); keep it in one file`);
      report(item, prev, `${what(item)} is also declared in ${where(prev)} (${state}); keep it in one file`);
    }
  };
  const groupName = (g: GroupDeclaration): Pos => g.positions.valueAt(['metadata', 'name']);
  dup(groups, (g) => g.name, ['metadata', 'name'], groupName, 'E_DUPLICATE_GROUP', (g) => `group ${quote(g.name)}`);
  const name = (r: RuntimeIdentity): string => r.name;
  const id = (r: RuntimeIdentity): string => r.runtimeID.toLowerCase();
  const shoot = (r: RuntimeIdentity): string => `${r.shoot.project}/${r.shoot.name}`;
  const all = known.length === 0 ? parsed : [...parsed, ...known];
  // Without a duplicate (nearly every fleet) nothing is reported, and nothing needs sorting.
  if (!repeats(all, name) && !repeats(all, id) && !repeats(all, shoot)) return;
  // In file order (the loader's), so "already declared in" names the same file whichever files
  // were parsed; identities of unparsed files are merged in by file.
  const sorted = known.length === 0 ? parsed : [...all].sort((a, b) => cmp(a.file, b.file));
  dup(sorted, name, ['metadata', 'name'], (r) => r.at.name, 'E_DUPLICATE_RUNTIME', (r) => `runtime ${quote(r.name)}`);
  dup(sorted, id, ['spec', 'runtimeID'], (r) => r.at.runtimeID, 'E_DUPLICATE_RUNTIME_ID', (r) => `runtime ID ${quote(r.runtimeID)}`, true);
  dup(sorted, shoot, ['spec', 'shoot', 'name'], (r) => r.at.shootName, 'E_DUPLICATE_SHOOT', (r) => `Shoot garden-${r.shoot.project}/${r.shoot.name}`, true);
}

/** Whether two items have the same key. */
function repeats<T>(items: readonly T[], keyOf: (t: T) => string): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}
