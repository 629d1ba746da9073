// The Lakom fleet option, read once per run into the plug-in's state: whether this fleet lets a
// runtime use scope Cluster. The schema (./schema.ts, lakomFleetOptionSchema) has already checked
// its shape; a value of another type counts as not allowed.

import type { PrepareInput } from '../types';

/** Name of the option under `Fleet.spec`. */
export const LAKOM_FLEET_OPTION = 'lakom';

export interface LakomState {
  /** Fleet.spec.lakom.allowClusterScope === true. */
  readonly allowClusterScope: boolean;
}

export function prepareLakomState(input: Pick<PrepareInput, 'fleetSpec'>): LakomState {
  const option = input.fleetSpec[LAKOM_FLEET_OPTION];
  const allow = typeof option === 'object' && option !== null && (option as Record<string, unknown>).allowClusterScope === true;
  return { allowClusterScope: allow };
}
