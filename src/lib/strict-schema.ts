// Small builders of JSON Schemas for objects that upstream decodes strictly (an unknown field is
// an error there, so it is one here): the providerConfig schemas of the extensions' Shoot entries
// and the Shoot fragment schema of charts/shoot-fragment-schema.ts.

export type Schema = Record<string, unknown>;

/** A string that is set (Gardener's types treat "" as unset). */
export const NON_EMPTY_STRING: Schema = { type: 'string', minLength: 1 };

/** An object with exactly these properties (some required), no others. */
export function strictObject(properties: Record<string, unknown>, required: string[] = []): Schema {
  return { type: 'object', additionalProperties: false, ...(required.length > 0 ? { required } : {}), properties };
}
