// The kinds of fleet document and their apiVersion: what the loader expects of a file by its folder,
// and what validation's schemas describe. Here, at the load stage, because both stages need it.
export const API_VERSION = 'kyma-fleet.dev/v1alpha1';
export const KINDS = ['Fleet', 'RuntimeGroup', 'KymaRuntime'] as const;
export type FleetKind = (typeof KINDS)[number];
