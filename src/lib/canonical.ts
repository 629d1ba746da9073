// A value's canonical text for comparing rendered objects by value: JSON with map keys sorted and
// list items sorted by their own canonical text, so that neither key order nor list order counts
// (the review's consequence classes: a reordering is no change). Undefined map values are left
// out, as a YAML or JSON round trip leaves them out. Pure.

import { cmp } from './diagnostics';

const isRec = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).sort(cmp).join(',')}]`;
  if (isRec(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort(cmp)
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
