// Layering: Fleet defaults, then matching groups by priority, then the runtime. Each layer is
// flattened into leaf assignments (keyed lists by key, other lists and scalars whole) that
// overwrite each other in layer order, so every resolved value knows the file and line that set
// it and what it overrode. Pure: data in, data out.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin, KeyedList } from '../extensions/types';
import { cmp, type Diagnostic, type DocPath, formatField, quote } from '../lib/diagnostics';
import { type FieldSegment, formatSegments } from '../lib/field-path';
import { selectorMatches } from '../lib/labels';
import { layerNaming, settingsKeyedLists } from '../validate/field-naming';
import type { FleetModel, GroupDeclaration, Layer, LayerKind, RuntimeDeclaration } from '../validate/model';

type Rec = Record<string, unknown>;

/** Marks a path segment that names an entry of a keyed list: KEYED + field + '=' + key. */
const KEYED = '\u0001';

/** The resolved path segment of an entry of a keyed list (displayPath writes it as [field=key]). */
function keyedSegment(field: string, entry: Rec): string {
  return `${KEYED}${field}=${String(entry[field])}`;
}

export type Source =
  | {
      readonly kind: 'layer';
      readonly layer: LayerKind;
      readonly name: string;
      readonly file: string;
      /** Path inside the file, e.g. ['spec','extensions','<extension>','enabled']. */
      readonly docPath: DocPath;
      readonly line: number;
      readonly col: number;
    }
  | { readonly kind: 'default'; readonly extension: string };

export interface Assignment {
  /** Resolved path; keyed-list entries are KEYED segments. */
  readonly path: readonly string[];
  readonly value: unknown;
  readonly source: Source;
  /** Values of lower layers this one replaced, lowest first. */
  readonly overridden: ReadonlyArray<{ readonly value: unknown; readonly source: Source }>;
}

export type ExtensionState = 'enabled' | 'disabled' | 'unset';

export interface ResolvedExtension {
  readonly state: ExtensionState;
  /** Effective configuration (without `enabled`); keyed lists are arrays sorted by key. */
  readonly config: Rec;
  /**
   * Top-level lists the layers left empty (every entry disabled, or set to []) before the
   * extension's defaults were filled in, e.g. ['destinations']; absent when none. A default that
   * replaces such a list is worth a warning: the extension's validateResolved decides.
   */
  readonly emptiedLists?: readonly string[];
}

export interface ResolvedModule {
  readonly name: string;
  readonly channel?: string;
  readonly customResourcePolicy?: 'CreateAndDelete' | 'Ignore';
}

export interface ResolvedSettings {
  readonly channel?: string;
  readonly modules: readonly ResolvedModule[];
  /** Every extension any layer mentions, by name. */
  readonly extensions: Readonly<Record<string, ResolvedExtension>>;
}

export interface ResolvedRuntime {
  readonly runtime: RuntimeDeclaration;
  /** Groups whose selector matches, in the order they were applied. */
  readonly groups: readonly GroupDeclaration[];
  readonly settings: ResolvedSettings;
  /** Every resolved leaf with its provenance, sorted by path. */
  readonly assignments: readonly Assignment[];
  /**
   * The model of the rollout revision it was resolved against, when that is not the fleet's model
   * (its ring is on other fleet-wide layers: src/rollout/ring-resolve.ts); render, explain and
   * status use it instead of the fleet's.
   */
  readonly revisionModel?: FleetModel;
}

export interface ResolveResult {
  readonly runtimes: ResolvedRuntime[];
  readonly diagnostics: Diagnostic[];
}

/** The keyed lists of the settings (the same list names the entries in diagnostics: ../validate/field-naming.ts). */
export function keyedListsOf(extensions: readonly ExtensionPlugin<any>[]): readonly KeyedList[] {
  return settingsKeyedLists(extensions);
}

const pathKey = (path: readonly string[]): string => path.join('\u0000');

function keyedSpecAt(path: readonly string[], specs: readonly KeyedList[]): KeyedList | undefined {
  // Keyed entries inside keyed lists are not nested in today's format; compare plain segments.
  return specs.find((s) => s.path.length === path.length && s.path.every((seg, i) => seg === path[i]));
}

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Flattens one layer's settings into leaf assignments (without history). */
export function flattenLayer(layer: Layer, specs: readonly KeyedList[]): Assignment[] {
  const out: Assignment[] = [];
  const visit = (value: unknown, path: string[], docPath: (string | number)[]): void => {
    if (isRec(value)) {
      for (const k of Object.keys(value).sort(cmp)) visit(value[k], [...path, k], [...docPath, k]);
      return;
    }
    const spec = Array.isArray(value) ? keyedSpecAt(path, specs) : undefined;
    if (spec && Array.isArray(value)) {
      value.forEach((entry, i) => {
        if (isRec(entry)) visit(entry, [...path, keyedSegment(spec.key, entry)], [...docPath, i]);
      });
      return;
    }
    const full = [...layer.settingsPath, ...docPath];
    const pos = layer.positions.valueAt(full);
    out.push({
      path,
      value,
      source: { kind: 'layer', layer: layer.kind, name: layer.name, file: layer.file, docPath: full, line: pos.line, col: pos.col },
      overridden: [],
    });
  };
  visit(layer.settings, [], []);
  return out;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Resolves every runtime of a validated fleet. */
export function resolveFleet(model: FleetModel, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): ResolveResult {
  const specs = keyedListsOf(extensions);
  const flat = new Map<Layer, Assignment[]>();
  const flatOf = (layer: Layer): Assignment[] => {
    let f = flat.get(layer);
    if (!f) flat.set(layer, (f = flattenLayer(layer, specs)));
    return f;
  };
  // The layers' assignments with their path keys, computed once per layer (the defaults and
  // groups apply to thousands of runtimes).
  const keyedFlat = new Map<Layer, Array<readonly [string, Assignment]>>();
  const keyedFlatOf = (layer: Layer): ReadonlyArray<readonly [string, Assignment]> => {
    let f = keyedFlat.get(layer);
    if (!f) keyedFlat.set(layer, (f = flatOf(layer).map((a) => [pathKey(a.path), a] as const)));
    return f;
  };
  const diagnostics: Diagnostic[] = [];
  const reportedConflicts = new Set<string>();
  const runtimes = model.runtimes.map((runtime) => {
    const groups = model.groups
      .filter((g) => selectorMatches(g.selector, runtime.labels))
      .sort((a, b) => a.priority - b.priority || cmp(a.name, b.name));
    const merged = new Map<string, Assignment>();
    const apply = (assignments: ReadonlyArray<readonly [string, Assignment]>): void => {
      for (const [k, a] of assignments) {
        const prev = merged.get(k);
        merged.set(k, prev ? { ...a, overridden: [...prev.overridden, { value: prev.value, source: prev.source }] } : a);
      }
    };
    apply(keyedFlatOf(model.defaults));
    for (let i = 0; i < groups.length; ) {
      let j = i;
      while (j < groups.length && groups[j]!.priority === groups[i]!.priority) j++;
      const tier = groups.slice(i, j);
      if (tier.length > 1) checkTierConflicts(tier, flatOf, runtime, diagnostics, reportedConflicts, extensions);
      for (const g of tier) apply(keyedFlatOf(g.layer));
      i = j;
    }
    // A runtime's own layer applies once: not cached.
    apply(flattenLayer(runtime.layer, specs).map((a) => [pathKey(a.path), a] as const));
    return buildResolved(runtime, groups, merged, specs, extensions, model);
  });
  return { runtimes, diagnostics };
}

/** Two groups of equal priority that both match a runtime must not set a field differently. */
function checkTierConflicts(
  tier: readonly GroupDeclaration[],
  flatOf: (layer: Layer) => Assignment[],
  runtime: RuntimeDeclaration,
  sink: Diagnostic[],
  reported: Set<string>,
  extensions: readonly ExtensionPlugin<any>[],
): void {
  const first = new Map<string, { group: GroupDeclaration; a: Assignment }>();
  for (const group of tier) {
    for (const a of flatOf(group.layer)) {
      const k = pathKey(a.path);
      const prev = first.get(k);
      if (!prev) {
        first.set(k, { group, a });
        continue;
      }
      if (sameValue(prev.a.value, a.value)) continue;
      const id = `${prev.group.name}\u0000${group.name}\u0000${k}`;
      if (reported.has(id)) continue;
      reported.add(id);
      const src = a.source as Extract<Source, { kind: 'layer' }>;
      const other = prev.a.source as Extract<Source, { kind: 'layer' }>;
      sink.push({
        severity: 'error',
        code: 'E_OVERRIDE_CONFLICT',
        file: src.file,
        line: src.line,
        col: src.col,
        field: formatField(src.docPath, layerNaming(group.layer, extensions)),
        message:
          `set to ${quote(a.value)} here and to ${quote(prev.a.value)} by group ${quote(prev.group.name)} (${other.file}:${other.line}:${other.col}); ` +
          `both groups have priority ${group.priority} and match runtime ${quote(runtime.name)}: give one a higher priority or make them agree`,
      });
    }
  }
}

function buildResolved(
  runtime: RuntimeDeclaration,
  groups: GroupDeclaration[],
  merged: Map<string, Assignment>,
  specs: readonly KeyedList[],
  extensions: readonly ExtensionPlugin<any>[],
  model: FleetModel,
): ResolvedRuntime {
  const assignments = [...merged.values()];
  const tree = treeOf(assignments, specs);
  const modules = ((tree.modules as Rec[] | undefined) ?? []).map((m) => m as unknown as ResolvedModule);
  const resolvedExtensions: Record<string, ResolvedExtension> = {};
  const extTree = (tree.extensions as Rec | undefined) ?? {};
  for (const name of Object.keys(extTree).sort(cmp)) {
    const raw = extTree[name] as Rec;
    const { enabled, ...config } = raw;
    const state: ExtensionState = enabled === true ? 'enabled' : enabled === false ? 'disabled' : 'unset';
    const plugin = extensions.find((e) => e.name === name);
    const emptiedLists = state === 'enabled' ? Object.keys(config).filter((k) => Array.isArray(config[k]) && (config[k] as unknown[]).length === 0) : [];
    if (state === 'enabled' && plugin?.defaults) {
      const env = { state: model.extensionState.get(name), files: model.files, now: model.now };
      const filled = fillDefaults(config, plugin.defaults(config, env));
      for (const a of flattenValue(filled, ['extensions', name], specs)) {
        assignments.push({ path: a.path, value: a.value, source: { kind: 'default', extension: name }, overridden: [] });
      }
      mergeFilled(config, filled);
    }
    resolvedExtensions[name] = { state, config: state === 'enabled' ? config : {}, ...(emptiedLists.length > 0 ? { emptiedLists } : {}) };
  }
  // Sorted by path key, each key computed once (not twice per comparison).
  const keyed = assignments.map((a) => [pathKey(a.path), a] as const).sort((x, y) => cmp(x[0], y[0]));
  for (let i = 0; i < keyed.length; i++) assignments[i] = keyed[i]![1];
  const settings: ResolvedSettings = {
    ...(typeof tree.channel === 'string' ? { channel: tree.channel } : {}),
    modules,
    extensions: resolvedExtensions,
  };
  return { runtime, groups, settings, assignments };
}

/** Builds the effective settings object from leaf assignments. */
function treeOf(assignments: readonly Assignment[], specs: readonly KeyedList[]): Rec {
  const root: Rec = {};
  for (const a of assignments) {
    let node = root;
    for (let i = 0; i < a.path.length - 1; i++) {
      const seg = a.path[i]!;
      if (!isRec(node[seg])) node[seg] = {};
      node = node[seg] as Rec;
    }
    node[a.path[a.path.length - 1]!] = a.value;
  }
  const convert = (node: unknown, path: string[]): unknown => {
    if (!isRec(node)) return node;
    if (keyedSpecAt(path, specs)) {
      // Entries sorted by key; `enabled: false` removes an entry a lower layer added.
      return Object.keys(node)
        .sort(cmp)
        .map((k) => node[k] as Rec)
        .filter((entry) => entry.enabled !== false)
        .map((entry) => {
          const { enabled: _enabled, ...rest } = entry;
          return convert(rest, [...path, '*']);
        });
    }
    const out: Rec = {};
    for (const k of Object.keys(node).sort(cmp)) out[k] = convert(node[k], [...path, k]);
    return out;
  };
  return convert(root, []) as Rec;
}

/** Fills `defaults` into `value` where unset: maps recursively, anything else only when absent or an empty list. Returns what was filled. */
function fillDefaults(value: Rec, defaults: Rec): Rec {
  const filled: Rec = {};
  for (const [k, d] of Object.entries(defaults)) {
    if (d === undefined) continue;
    // An empty list counts as unset: a list the layers emptied gets the extension's default, as
    // an admission mutator would add it (anything else would drift).
    if (value[k] === undefined || (Array.isArray(value[k]) && (value[k] as unknown[]).length === 0)) filled[k] = d;
    else if (isRec(value[k]) && isRec(d)) {
      const inner = fillDefaults(value[k] as Rec, d);
      if (Object.keys(inner).length > 0) filled[k] = inner;
    }
  }
  return filled;
}

function mergeFilled(target: Rec, filled: Rec): void {
  for (const [k, v] of Object.entries(filled)) {
    if (isRec(v) && isRec(target[k])) mergeFilled(target[k] as Rec, v);
    else target[k] = v;
  }
}

/** Flattens a plain value (e.g. filled defaults) below `base` into path/value leaves. */
function flattenValue(value: unknown, base: string[], specs: readonly KeyedList[]): { path: string[]; value: unknown }[] {
  const out: { path: string[]; value: unknown }[] = [];
  const visit = (v: unknown, path: string[]): void => {
    if (isRec(v)) {
      for (const k of Object.keys(v).sort(cmp)) visit(v[k], [...path, k]);
      return;
    }
    const spec = Array.isArray(v) ? keyedSpecAt(path, specs) : undefined;
    if (spec && Array.isArray(v)) {
      for (const entry of v) if (isRec(entry)) visit(entry, [...path, keyedSegment(spec.key, entry)]);
      return;
    }
    out.push({ path, value: v });
  };
  visit(value, base);
  return out;
}

/**
 * Human form of a resolved path: extensions.<extension>.caches[upstream=docker.io].volume.size,
 * written by the formatter diagnostics use (../lib/field-path.ts).
 */
export function displayPath(path: readonly string[]): string {
  const segments: FieldSegment[] = path.map((seg) => {
    if (!seg.startsWith(KEYED)) return seg;
    const eq = seg.indexOf('=');
    return { key: seg.slice(1, eq), value: seg.slice(eq + 1) };
  });
  return formatSegments(segments);
}

/**
 * Maps a path into a resolved extension config (keyed lists indexed by position) to resolved
 * segments, so a rule's report can be located through provenance.
 */
export function toResolvedSegments(config: Rec, extension: string, path: DocPath, specs: readonly KeyedList[]): string[] {
  const out = ['extensions', extension];
  let node: unknown = config;
  for (const seg of path) {
    if (Array.isArray(node) && typeof seg === 'number') {
      const spec = keyedSpecAt(out, specs);
      const entry = node[seg];
      if (spec && isRec(entry)) {
        out.push(keyedSegment(spec.key, entry));
        node = entry;
        continue;
      }
      // An atomic list: the whole list is one leaf.
      return out;
    }
    out.push(String(seg));
    node = isRec(node) ? node[String(seg)] : undefined;
  }
  return out;
}

/** The assignment that best explains a resolved path: exact, else its key field or first child, else an ancestor. */
export function findAssignment(assignments: readonly Assignment[], path: readonly string[]): Assignment | undefined {
  const k = pathKey(path);
  let child: Assignment | undefined;
  for (const a of assignments) {
    const ak = pathKey(a.path);
    if (ak === k) return a;
    if (!child && ak.startsWith(k + '\u0000')) {
      const last = path[path.length - 1] ?? '';
      const keyField = last.startsWith(KEYED) ? last.slice(1, last.indexOf('=')) : undefined;
      if (keyField === undefined || a.path[path.length] === keyField) child = a;
    }
  }
  if (child) return child;
  for (let n = path.length - 1; n > 0; n--) {
    const anc = pathKey(path.slice(0, n));
    const a = assignments.find((x) => pathKey(x.path) === anc);
    if (a) return a;
  }
  return assignments.find((a) => pathKey(a.path).startsWith(pathKey(path.slice(0, 2)) + '\u0000'));
}
