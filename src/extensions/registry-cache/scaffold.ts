// What `kyma-fleet init` writes for registry-cache: one Docker Hub cache on every runtime, a larger
// one in the production group, and KIM's own cache sync off (the fleet renders the caches itself).

import type { ScaffoldText } from '../types';

export const registryCacheScaffold: ScaffoldText = {
  displayName: 'Registry Cache',
  fleetOptions: `  kim:
    # false: KIM's RegistryCacheConfig controller is off, so kcp/ Runtime fragments carry the caches.
    registryCacheSync: false
`,
  defaults: `      registry-cache:
        enabled: true
        caches:
          # Pull-through cache for Docker Hub on every runtime (each cache is a volume on the Shoot).
          - upstream: docker.io
            volume:
              size: 20Gi
            garbageCollection:
              ttl: 168h
`,
  productionGroup: `      registry-cache:
        caches:
          - upstream: docker.io
            volume:
              size: 50Gi
`,
  productionSummary: 'a larger Docker Hub cache',
};
