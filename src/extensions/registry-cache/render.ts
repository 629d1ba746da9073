// Renders registry-cache for one runtime on all three targets, the way KIM wires it:
// SKR RegistryCacheConfig CRs (what the Kyma module reads), the KIM Runtime CR's
// spec.imageRegistryCache (what KIM turns into the Shoot extension), and the Shoot's
// registry-cache extension with its RegistryConfig providerConfig, mapped field by field as KIM
// maps it (registry_config.go), plus the spec.resources entries for credential Secrets. Where KIM
// syncs RegistryCacheConfigs itself (Fleet.spec.kim.registryCacheSync, ./options.ts), KIM owns
// spec.imageRegistryCache: no Runtime CR field is contributed (and so no kcp/ fragment written).

import type { Construct } from 'constructs';
import { RegistryCacheConfig, RegistryCacheConfigSpecVolumeSize } from '../../../imports/core.kyma-project.io';
import { OWNED_LABELS } from '../../lib/manifest';
import { cacheObjectName, cacheUid } from './naming';
import type { RegistryCacheState } from './options';
import type { ExtensionRendering, RenderInput, ShootResource } from '../types';

interface Cache {
  readonly upstream: string;
  readonly remoteURL?: string;
  readonly volume?: { readonly size?: string; readonly storageClassName?: string };
  readonly garbageCollection?: { readonly ttl: string };
  readonly secretReferenceName?: string;
  readonly proxy?: { readonly httpProxy?: string; readonly httpsProxy?: string };
}

/** The cache fields exactly as the Kyma RegistryCacheConfig spec and the Gardener RegistryConfig name them. */
function cacheSpec(c: Cache): Record<string, unknown> {
  return {
    upstream: c.upstream,
    ...(c.remoteURL !== undefined ? { remoteURL: c.remoteURL } : {}),
    ...(c.volume !== undefined ? { volume: { ...c.volume } } : {}),
    ...(c.garbageCollection !== undefined ? { garbageCollection: { ...c.garbageCollection } } : {}),
    ...(c.secretReferenceName !== undefined ? { secretReferenceName: c.secretReferenceName } : {}),
    ...(c.proxy !== undefined ? { proxy: { ...c.proxy } } : {}),
  };
}

/** Where the RegistryCacheConfigs live on the runtime when `namespace` is not set. */
export const DEFAULT_NAMESPACE = 'kyma-system';

export function renderRegistryCache(input: RenderInput<RegistryCacheState | undefined>): ExtensionRendering {
  const kimSyncsCaches = input.env.state?.kimSyncsCaches === true;
  if (input.state !== 'enabled') {
    // KIM removes the extension from the Shoot when the Runtime has no caches; an explicit
    // `disabled: true` keeps the intent visible in the Shoot patch.
    return {
      ...(kimSyncsCaches ? {} : { runtimeSpec: { imageRegistryCache: [] } }),
      ...(input.state === 'disabled' ? { shootExtension: { disabled: true } } : {}),
    };
  }
  const namespace = String(input.config.namespace ?? DEFAULT_NAMESPACE);
  const caches = (input.config.caches as Cache[] | undefined) ?? [];
  const secrets = [...new Set(caches.map((c) => c.secretReferenceName).filter((s): s is string => s !== undefined))].sort();
  const resources: ShootResource[] = secrets.map((name) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } }));
  return {
    skrConfig: (scope: Construct) => {
      for (const c of caches) {
        const name = cacheObjectName(c.upstream);
        new RegistryCacheConfig(scope, `registrycacheconfig-${name}`, {
          metadata: { name, namespace, labels: { ...OWNED_LABELS } },
          spec: {
            upstream: c.upstream,
            remoteUrl: c.remoteURL,
            volume: c.volume && {
              size: c.volume.size !== undefined ? RegistryCacheConfigSpecVolumeSize.fromString(c.volume.size) : undefined,
              storageClassName: c.volume.storageClassName,
            },
            garbageCollection: c.garbageCollection,
            secretReferenceName: c.secretReferenceName,
            proxy: c.proxy && { httpProxy: c.proxy.httpProxy, httpsProxy: c.proxy.httpsProxy },
          },
        });
      }
    },
    ...(kimSyncsCaches
      ? {}
      : {
          runtimeSpec: {
            imageRegistryCache: caches.map((c) => ({
              name: cacheObjectName(c.upstream),
              namespace,
              uid: cacheUid(input.runtime.runtimeID, c.upstream),
              config: cacheSpec(c),
            })),
          },
        }),
    shootExtension: {
      providerConfig: {
        apiVersion: 'registry.extensions.gardener.cloud/v1alpha3',
        kind: 'RegistryConfig',
        caches: caches.map(cacheSpec),
      },
    },
    shootResources: resources,
  };
}
