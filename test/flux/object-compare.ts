// Compares a rendered object with what the API server stored: every rendered field must be stored
// with the same value (a field the CRD schema does not know would be pruned silently, a wrong type
// refused), and the fields the server added are listed separately (CRD defaults, server metadata).

/** Metadata the server sets on every object, and Flux's owner labels: not part of the comparison. */
const SERVER_METADATA = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields']);
const FLUX_LABEL_PREFIX = 'kustomize.toolkit.fluxcd.io/';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The stored object without server metadata, status and Flux's owner labels. */
export function withoutServerFields(stored: Record<string, any>): Record<string, any> {
  const copy = JSON.parse(JSON.stringify(stored)) as Record<string, any>;
  delete copy.status;
  for (const key of SERVER_METADATA) delete copy.metadata?.[key];
  const labels = copy.metadata?.labels as Record<string, string> | undefined;
  if (labels) {
    for (const key of Object.keys(labels)) if (key.startsWith(FLUX_LABEL_PREFIX)) delete labels[key];
    if (Object.keys(labels).length === 0) delete copy.metadata.labels;
  }
  return copy;
}

/** Paths where the stored object lacks a rendered field or holds another value. */
export function missingOrChanged(rendered: Json, stored: Json | undefined, at = ''): string[] {
  if (stored === undefined) return [`${at || '.'}: rendered ${JSON.stringify(rendered)}, not stored`];
  if (Array.isArray(rendered)) {
    if (!Array.isArray(stored)) return [`${at}: rendered a list, stored ${JSON.stringify(stored)}`];
    const out = rendered.flatMap((item, i) => missingOrChanged(item, stored[i], `${at}[${i}]`));
    if (stored.length !== rendered.length) out.push(`${at}: rendered ${rendered.length} items, stored ${stored.length}`);
    return out;
  }
  if (rendered !== null && typeof rendered === 'object') {
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return [`${at}: rendered an object, stored ${JSON.stringify(stored)}`];
    return Object.entries(rendered).flatMap(([key, value]) => missingOrChanged(value, stored[key], `${at}.${key}`));
  }
  return rendered === stored ? [] : [`${at}: rendered ${JSON.stringify(rendered)}, stored ${JSON.stringify(stored)}`];
}

/** Paths (with values) the stored object has and the rendered one does not: what the server added. */
export function addedByServer(rendered: Json | undefined, stored: Json, at = ''): string[] {
  if (rendered === undefined) return [`${at} = ${JSON.stringify(stored)}`];
  if (Array.isArray(stored) && Array.isArray(rendered)) return stored.flatMap((item, i) => addedByServer(rendered[i], item, `${at}[${i}]`));
  if (stored !== null && typeof stored === 'object' && !Array.isArray(stored) && rendered !== null && typeof rendered === 'object' && !Array.isArray(rendered)) {
    return Object.entries(stored).flatMap(([key, value]) => addedByServer(rendered[key], value, `${at}.${key}`));
  }
  return [];
}
