// Where extensions' fleet-wide options sit under Fleet.spec. An extension declares its options in
// `fleetOptions` by name: a plain name is a property of Fleet.spec; a name
// `<group>.<property>` is a property of one of the option groups the core defines here, objects
// that describe the landscape rather than one extension (`kim`: how the landscape's Kyma
// Infrastructure Manager behaves). The schema (./schema.ts) builds the groups from these names, the
// render cache key (../render/input-digest.ts) reads the values through them.

import type { ExtensionPlugin, JsonSchema } from '../extensions/types';

/** The option groups of Fleet.spec, by name: objects whose properties extensions declare. */
export const FLEET_OPTION_GROUPS: Readonly<Record<string, { readonly description: string }>> = {
  kim: { description: 'How the Kyma Infrastructure Manager (KIM) of the landscape behaves.' },
};

/** The group and property of an option name (`kim.x` -> ['kim', 'x']; `x` -> [undefined, 'x']). */
function splitOptionName(name: string): [string | undefined, string] {
  const dot = name.indexOf('.');
  if (dot < 0) return [undefined, name];
  const group = name.slice(0, dot);
  if (!Object.hasOwn(FLEET_OPTION_GROUPS, group)) throw new Error(`fleet option ${JSON.stringify(name)}: no option group ${JSON.stringify(group)}`);
  return [group, name.slice(dot + 1)];
}

/** The value of a declared fleet option in Fleet.spec as written; undefined when not set. */
export function fleetOptionValue(fleetSpec: Readonly<Record<string, unknown>>, name: string): unknown {
  const [group, property] = splitOptionName(name);
  if (group === undefined) return fleetSpec[property];
  const object = fleetSpec[group];
  return typeof object === 'object' && object !== null && !Array.isArray(object) ? (object as Record<string, unknown>)[property] : undefined;
}

/**
 * The Fleet.spec properties the extensions' options make: the plain ones, and each option group
 * (always present, so its YAML keeps validating) with the properties declared for it.
 */
export function fleetOptionSchemas(extensions: readonly ExtensionPlugin<any>[]): { readonly plain: Record<string, JsonSchema>; readonly groups: Record<string, JsonSchema> } {
  const plain: Record<string, JsonSchema> = {};
  const grouped: Record<string, Record<string, JsonSchema>> = Object.fromEntries(Object.keys(FLEET_OPTION_GROUPS).map((g) => [g, {}]));
  for (const e of extensions) {
    for (const [name, schema] of Object.entries(e.fleetOptions ?? {})) {
      const [group, property] = splitOptionName(name);
      if (group === undefined) plain[property] = schema;
      else grouped[group]![property] = schema;
    }
  }
  const groups = Object.fromEntries(
    Object.entries(FLEET_OPTION_GROUPS).map(([g, { description }]) => [g, { type: 'object', additionalProperties: false, description, properties: grouped[g]! }]),
  );
  return { plain, groups };
}
