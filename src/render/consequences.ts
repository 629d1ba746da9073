// What a change makes happen on the clusters, per runtime, for the review (`kyma-fleet diff`): the
// core's classes (a runtime joins or leaves the fleet, a Kyma module installed, removed or moved,
// a Shoot reconcile, a config change only) and each extension's own (its plug-in's `consequences`,
// src/extensions/types.ts), read from the manifests the diff touches, before and after. Objects are
// compared by value, not text: a reordering or a rewrite to the same values makes no class. Pure.

import { parse } from 'yaml';
import { canonical } from '../lib/canonical';
import { cmp } from '../lib/diagnostics';
import { fastParseYaml } from '../lib/yaml/fast-yaml';
import { EXTENSIONS } from '../extensions';
import type { ConsequenceClass, ConsequenceRules, ConsequenceSeverity, ExtensionPlugin, RenderedSide } from '../extensions/types';
import type { TreeDiff } from './tree-diff';

type Rec = Record<string, unknown>;

/** The review lists the most costly first. */
export const SEVERITIES: readonly ConsequenceSeverity[] = ['destructive', 'disruptive', 'routine'];

/** The classes of the core, before the extensions' in their severity. */
const CORE_CLASSES: readonly ConsequenceClass[] = [
  {
    id: 'module-removed',
    label: 'module removed (deletes its resources)',
    severity: 'destructive',
    description: "Kyma's lifecycle-manager uninstalls the module and deletes what it installed, its CRDs and every object of them included",
  },
  {
    id: 'module-installed',
    label: 'module installed',
    severity: 'routine',
    description: "Kyma's lifecycle-manager installs the module (its CRDs, controllers and default custom resource) on the runtime",
  },
  {
    id: 'module-updated',
    label: 'module channel or policy changed',
    severity: 'routine',
    description: "Kyma's lifecycle-manager moves the module to another release channel's version, or changes how it manages the module's default custom resource",
  },
  {
    id: 'runtime-added',
    label: 'runtime joins the fleet',
    severity: 'routine',
    description: 'the runtime is new in dist/: its Kyma CR modules, config objects, Runtime CR fragment and Shoot entries are applied for the first time',
  },
  {
    id: 'runtime-removed',
    label: 'runtime leaves the fleet (objects kept)',
    severity: 'routine',
    description: 'the runtime leaves dist/: its GitOps wiring is deleted with its objects orphaned (Flux deletionPolicy Orphan, Argo CD preserveResourcesOnDeletion), so nothing on its clusters changes, and nothing keeps them in line any more',
  },
];

/** The core's catch-all classes, after every other class of their severity. */
const GENERIC_CLASSES: readonly ConsequenceClass[] = [
  {
    id: 'shoot-reconcile',
    label: 'Shoot reconcile',
    severity: 'routine',
    description: "the Shoot's extensions or resources change (written by kyma-fleet apply garden, or by KIM from the Runtime CR): Gardener reconciles the runtime's cluster",
  },
  {
    id: 'config-only',
    label: 'config only',
    severity: 'routine',
    description: 'configuration objects change, and nothing above: no module, Shoot or extension consequence',
  },
];

/** Every class, most costly first (the core's, then each extension's in registry order, then the catch-alls). Throws on an id given twice. */
export function consequenceClasses(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): readonly ConsequenceClass[] {
  const all = [...CORE_CLASSES, ...extensions.flatMap((e) => e.consequences?.classes ?? []), ...GENERIC_CLASSES];
  const seen = new Set<string>();
  for (const c of all) {
    if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(c.id) || SEVERITIES.includes(c.id as ConsequenceSeverity)) throw new Error(`consequence class id ${JSON.stringify(c.id)}: not a kebab-case id, or a severity name`);
    if (seen.has(c.id)) throw new Error(`consequence class id ${JSON.stringify(c.id)} is declared twice`);
    seen.add(c.id);
  }
  return SEVERITIES.flatMap((s) => all.filter((c) => c.severity === s));
}

/** Per class (every class, in order) the runtimes it applies to; per runtime its classes. */
export interface Consequences {
  readonly classes: readonly ConsequenceClass[];
  readonly runtimesOf: ReadonlyMap<string, readonly string[]>;
  readonly classesOf: ReadonlyMap<string, readonly string[]>;
}

// ---------------------------------------------------------------------------------------------
// Reading the manifests

const PARSE_OPTIONS = { version: '1.2', schema: 'core', maxAliasCount: 0, uniqueKeys: true } as const;

/** One side of a runtime's change: its touched objects by target. */
interface Side {
  kyma?: Rec;
  shoot?: Rec;
  runtime?: Rec;
  skrConfig: Rec[];
  /** Canonical text of every touched object, sorted: equal on both sides when nothing changes in value. */
  canon: string[];
}

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Our own output has the common shape the fast path reads; anything else goes through `yaml`. Undefined when unreadable. */
function parseManifest(text: string, memo: Map<string, Rec | undefined>): Rec | undefined {
  if (memo.has(text)) return memo.get(text);
  let doc: unknown;
  try {
    doc = fastParseYaml(text.replace(/\r\n?/g, '\n'))?.data ?? parse(text, PARSE_OPTIONS);
  } catch {
    doc = undefined;
  }
  const out = isRec(doc) ? doc : undefined;
  memo.set(text, out);
  return out;
}

const TARGET = /^runtimes\/([^/]+)\/(skr|skr-config|kcp|garden)\//;

function addTo(side: Side, target: string, doc: Rec): void {
  side.canon.push(canonical(doc));
  if (target === 'skr-config') side.skrConfig.push(doc);
  else if (target === 'skr' && doc.kind === 'Kyma') side.kyma = doc;
  else if (target === 'garden' && doc.kind === 'Shoot') side.shoot = doc;
  else if (target === 'kcp' && doc.kind === 'Runtime') side.runtime = doc;
  else if (target === 'skr') side.skrConfig.push(doc); // config objects of a dist/ from before the two-step SKR layout
}

/** Identical texts (a Kyma CR, a config object) recur across runtimes: parsed once, up to this many kept. */
const MEMO_MAX = 4096;

/** The touched manifests of each runtime, by runtime (texts only: a runtime is parsed when it is classified). */
function manifestsByRuntime(d: TreeDiff): Map<string, Array<[target: string, texts: { readonly before?: string; readonly after?: string }]>> {
  const out = new Map<string, Array<[string, { readonly before?: string; readonly after?: string }]>>();
  for (const [file, texts] of d.manifests) {
    const m = TARGET.exec(file);
    if (!m) continue;
    let list = out.get(m[1]!);
    if (!list) out.set(m[1]!, (list = []));
    list.push([m[2]!, texts]);
  }
  return out;
}

/** One runtime's two sides, parsed. */
function sidesOf(files: ReadonlyArray<[string, { readonly before?: string; readonly after?: string }]>, memo: Map<string, Rec | undefined>): { before: Side; after: Side } {
  if (memo.size > MEMO_MAX) memo.clear();
  const sides = { before: { skrConfig: [], canon: [] } as Side, after: { skrConfig: [], canon: [] } as Side };
  for (const [target, texts] of files) {
    const before = texts.before === undefined ? undefined : parseManifest(texts.before, memo);
    const after = texts.after === undefined ? undefined : parseManifest(texts.after, memo);
    if (before) addTo(sides.before, target, before);
    if (after) addTo(sides.after, target, after);
  }
  return sides;
}

// ---------------------------------------------------------------------------------------------
// The core's rules

const spec = (o: Rec | undefined): Rec => (isRec(o?.spec) ? (o!.spec as Rec) : {});
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

/** module name -> how lifecycle-manager runs it (its effective channel, policy, managed). */
function modulesOf(kyma: Rec | undefined): Map<string, string> {
  const s = spec(kyma);
  const out = new Map<string, string>();
  for (const m of list(s.modules)) {
    if (typeof m.name !== 'string') continue;
    out.set(m.name, canonical({ channel: m.channel ?? s.channel, policy: m.customResourcePolicy ?? 'CreateAndDelete', managed: m.managed ?? true }));
  }
  return out;
}

function moduleClasses(before: Side, after: Side): string[] {
  if (!before.kyma && !after.kyma) return [];
  const a = modulesOf(before.kyma);
  const b = modulesOf(after.kyma);
  const out: string[] = [];
  if ([...a.keys()].some((n) => !b.has(n))) out.push('module-removed');
  if ([...b.keys()].some((n) => !a.has(n))) out.push('module-installed');
  if ([...b].some(([n, how]) => a.has(n) && a.get(n) !== how)) out.push('module-updated');
  return out;
}

function shootReconciles(before: Side, after: Side): boolean {
  if (!before.shoot && !after.shoot) return false;
  const part = (o: Rec | undefined): string => canonical({ extensions: spec(o).extensions ?? [], resources: spec(o).resources ?? [] });
  return part(before.shoot) !== part(after.shoot);
}

/** What one extension sees of a side. */
function renderedSide(side: Side, shootType: string): RenderedSide {
  const entry = list(spec(side.shoot).extensions).find((e) => e.type === shootType);
  return {
    ...(entry ? { shootEntry: entry } : {}),
    shootResources: list(spec(side.shoot).resources),
    ...(side.runtime ? { runtimeSpec: spec(side.runtime) } : {}),
    skrConfig: side.skrConfig,
  };
}

/** The classes of one runtime in the fleet before and after, in the order of `order`. */
function classifyRuntime(before: Side, after: Side, extensions: readonly ExtensionPlugin<any>[], order: ReadonlyMap<string, number>): string[] {
  const found = new Set<string>(moduleClasses(before, after));
  for (const e of extensions) {
    const rules: ConsequenceRules | undefined = e.consequences;
    if (!rules) continue;
    const own = new Set(rules.classes.map((c) => c.id));
    for (const id of rules.classify(renderedSide(before, e.shootExtensionType), renderedSide(after, e.shootExtensionType))) {
      if (!own.has(id)) throw new Error(`extension ${e.name}: classify returned ${JSON.stringify(id)}, which is not one of its classes`);
      found.add(id);
    }
  }
  if (shootReconciles(before, after)) found.add('shoot-reconcile');
  if (found.size === 0 && before.canon.sort(cmp).join('\n') !== after.canon.sort(cmp).join('\n')) found.add('config-only');
  return [...found].sort((x, y) => order.get(x)! - order.get(y)!);
}

/** The consequences of a diff: every touched runtime's classes (none for a reordering or a no-op). */
export function classifyDiff(d: TreeDiff, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Consequences {
  const classes = consequenceClasses(extensions);
  const order = new Map(classes.map((c, i) => [c.id, i]));
  const classesOf = new Map<string, string[]>();
  for (const r of d.runtimes.added) classesOf.set(r, ['runtime-added']);
  for (const r of d.runtimes.removed) classesOf.set(r, ['runtime-removed']);
  // Runtime by runtime, so that only one runtime's objects are held at a time.
  const manifests = manifestsByRuntime(d);
  const memo = new Map<string, Rec | undefined>();
  for (const r of d.runtimes.changed) {
    const files = manifests.get(r);
    if (!files) continue;
    const s = sidesOf(files, memo);
    const found = classifyRuntime(s.before, s.after, extensions, order);
    if (found.length > 0) classesOf.set(r, found);
  }
  const runtimesOf = new Map<string, string[]>(classes.map((c) => [c.id, []]));
  for (const [r, ids] of [...classesOf].sort(([a], [b]) => cmp(a, b))) for (const id of ids) runtimesOf.get(id)!.push(r);
  return { classes, runtimesOf, classesOf: new Map([...classesOf].sort(([a], [b]) => cmp(a, b))) };
}

/**
 * The class ids a `--fail-on` list names: class ids, or a severity name for all its classes.
 * Unknown words come back in `unknown`.
 */
export function resolveFailOn(words: readonly string[], classes: readonly ConsequenceClass[]): { ids: string[]; unknown: string[] } {
  const ids = new Set<string>();
  const unknown: string[] = [];
  for (const w of words) {
    if (SEVERITIES.includes(w as ConsequenceSeverity)) classes.filter((c) => c.severity === w).forEach((c) => ids.add(c.id));
    else if (classes.some((c) => c.id === w)) ids.add(w);
    else unknown.push(w);
  }
  return { ids: classes.map((c) => c.id).filter((id) => ids.has(id)), unknown };
}
