// Which lists of each fleet document have an identifying key, so that every diagnostic names a
// list entry the way `explain` does (`caches[upstream=docker.io]`, issue 26 item 5). The settings'
// keyed lists are the resolver's merge keys (modules by name, each extension's `keyedLists`), the
// very list `explain` builds its paths from (src/resolve/resolve.ts keyedListsOf): one list, so a
// diagnostic and `explain` cannot disagree. Besides those, fleet.yaml's policies and rollout rings
// and the module catalog's modules are named by their `name`. The text itself:
// src/lib/field-path.ts.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import type { FieldNaming, KeyedList } from '../lib/field-path';
import type { FleetKind } from '../load/kinds';
import type { Layer } from './model';
import { SETTINGS_PATH } from './schema';

type Rec = Record<string, unknown>;

/** Lists of fleet.yaml outside the settings whose entries have a unique name. */
const FLEET_LISTS: readonly KeyedList[] = [
  { path: ['spec', 'policies'], key: 'name' },
  { path: ['spec', 'rollout', 'rings'], key: 'name' },
];

/** The module catalog (catalog/modules.yaml): one entry per module name. */
const CATALOG_LISTS: readonly KeyedList[] = [{ path: ['spec', 'modules'], key: 'name' }];

const settingsLists = new WeakMap<readonly ExtensionPlugin<any>[], readonly KeyedList[]>();

/** The keyed lists of the settings, relative to the settings: what layers merge entry by entry, by key. */
export function settingsKeyedLists(extensions: readonly ExtensionPlugin<any>[]): readonly KeyedList[] {
  let lists = settingsLists.get(extensions);
  if (!lists) {
    lists = [
      { path: ['modules'], key: 'name' },
      ...extensions.flatMap((e) => e.keyedLists.map((k) => ({ path: ['extensions', e.name, ...k.path], key: k.key }))),
    ];
    settingsLists.set(extensions, lists);
  }
  return lists;
}

const under = (base: readonly (string | number)[], lists: readonly KeyedList[]): KeyedList[] =>
  lists.map((l) => ({ path: [...base.map(String), ...l.path], key: l.key }));

/** Naming for a whole fleet document of `kind` (paths from the document's root). */
export function documentNaming(kind: FleetKind, data: unknown, extensions: readonly ExtensionPlugin<any>[]): FieldNaming {
  const lists = under(SETTINGS_PATH[kind], settingsKeyedLists(extensions));
  return { root: data, lists: kind === 'Fleet' ? [...lists, ...FLEET_LISTS] : lists };
}

/** Naming for fleet.yaml when only its spec is at hand. */
export function fleetSpecNaming(spec: Readonly<Rec>, extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): FieldNaming {
  return documentNaming('Fleet', { spec }, extensions);
}

/** Naming for the paths of one layer's document (paths from the document's root, through layer.settingsPath). */
export function layerNaming(layer: Layer, extensions: readonly ExtensionPlugin<any>[]): FieldNaming {
  let root: unknown = layer.settings;
  for (let i = layer.settingsPath.length - 1; i >= 0; i--) root = { [String(layer.settingsPath[i])]: root };
  return { root, lists: under(layer.settingsPath, settingsKeyedLists(extensions)) };
}

/** Naming for the module catalog file. */
export function catalogNaming(data: unknown): FieldNaming {
  return { root: data, lists: CATALOG_LISTS };
}
