// Renders Lakom for one runtime. Lakom has no Kyma module, no Kyma-side CR and no KIM field: the
// whole extension is the Shoot entry shoot-lakom-service with its LakomConfig, written by
// `kyma-fleet apply garden`, plus the spec.resources entry of the trusted keys Secret that
// `trustedKeysResourceName` names. An unset scope is left out (upstream's Go type writes null; the
// landscape's default scope then applies). A layer that turns Lakom off renders `disabled: true`,
// the upstream opt-out of an extension the landscape enables for every Shoot.

import type { ExtensionRendering, RenderInput, ShootResource } from '../types';
import type { LakomState } from './options';

export const LAKOM_CONFIG_API_VERSION = 'lakom.extensions.gardener.cloud/v1alpha1';
export const LAKOM_CONFIG_KIND = 'LakomConfig';

export function renderLakom(input: RenderInput<LakomState>): ExtensionRendering {
  if (input.state === 'disabled') return { shootExtension: { disabled: true } };
  if (input.state !== 'enabled') return {};
  const scope = input.config.scope as string | undefined;
  const secret = input.config.trustedKeysSecretName as string | undefined;
  // The resource entry is named after the Secret, as the other extensions name theirs: two
  // extensions referencing the same Secret share one entry.
  const resources: ShootResource[] = secret === undefined ? [] : [{ name: secret, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: secret } }];
  return {
    shootExtension: {
      providerConfig: {
        apiVersion: LAKOM_CONFIG_API_VERSION,
        kind: LAKOM_CONFIG_KIND,
        ...(scope !== undefined ? { scope } : {}),
        ...(secret !== undefined ? { trustedKeysResourceName: secret } : {}),
      },
    },
    shootResources: resources,
  };
}
