// Defaults the renderer writes for an enabled registry cache: only the namespace of the config CRs.
// Size 10Gi and ttl 168h are not written: Gardener applies them in memory on admission and the
// Shoot keeps providerConfig as given, so writing them would only add noise to every diff.

import { DEFAULT_NAMESPACE } from './schema';

export function registryCacheDefaults(value: Record<string, unknown>): Record<string, unknown> {
  return value.namespace === undefined ? { namespace: DEFAULT_NAMESPACE } : {};
}
