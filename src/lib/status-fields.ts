// Reading the untyped status of a Kubernetes object as clusters and dumps report it: every field may
// be missing or of the wrong shape, and the status logic must say so instead of throwing. Shared by
// src/status/states.ts and the extensions' status hooks, which judge objects of their own kinds.

export type Rec = Record<string, unknown>;

export function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function rec(v: unknown): Rec | undefined {
  return isRec(v) ? v : undefined;
}

/** A state field is a string or absent; anything else is InvalidData. */
export function isStateField(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A non-negative integer, also from a decimal string (dumps are not always typed). */
export function int(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^[0-9]{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** A status condition in one line: `condition <type> <status> (<reason>): <message>`. */
export function conditionText(c: Rec): string {
  const reason = str(c.reason);
  const message = str(c.message);
  return `condition ${str(c.type) ?? '?'} ${str(c.status) ?? '?'}${reason ? ` (${reason})` : ''}${message ? `: ${message}` : ''}`;
}
