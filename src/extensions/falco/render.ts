// Renders Falco for one runtime. KIM has no Falco support, so there is no Runtime CR field: the
// SKR gets one ConfigMap in kube-system per rules file (the extension reads shoot ConfigMaps), and
// the Shoot gets the shoot-falco-service extension with a FalcoServiceConfig that already carries
// the mutator's defaults, plus spec.resources for destination Secrets.

import type { Construct } from 'constructs';
import { OWNED_LABELS } from '../../lib/manifest';
import { rulesConfigMapName } from './names';
import type { ExtensionRendering, RenderInput, ShootResource } from '../types';
import { baseName } from './paths';
import type { FalcoState } from './profile';

type CustomRule = { readonly configMap?: string; readonly file?: string };
type Destination = { readonly name: string; readonly resourceSecretName?: string };

/** Namespace Falco reads custom rule ConfigMaps from on the runtime. */
export const FALCO_RULES_NAMESPACE = 'kube-system';

export function renderFalco(input: RenderInput<FalcoState>): ExtensionRendering {
  if (input.state === 'disabled') return { shootExtension: { disabled: true } };
  if (input.state !== 'enabled') return {};
  const c = input.config;
  const rules = (c.rules as { standard?: string[]; custom?: CustomRule[] } | undefined) ?? {};
  const files = (rules.custom ?? []).map((r) => r.file).filter((f): f is string => f !== undefined);
  const destinations = (c.destinations as Destination[] | undefined) ?? [];
  const secrets = [...new Set(destinations.map((d) => d.resourceSecretName).filter((s): s is string => s !== undefined))].sort();
  const resources: ShootResource[] = secrets.map((name) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } }));
  return {
    skrConfig: (scope: Construct) => {
      for (const file of [...new Set(files)].sort()) {
        const aux = input.env.files.get(file);
        if (!aux) continue; // validation reports missing files; never reached for a valid fleet
        const name = rulesConfigMapName(file);
        new (configMapClass())(scope, `configmap-${name}`, {
          metadata: { name, namespace: FALCO_RULES_NAMESPACE, labels: { ...OWNED_LABELS } },
          // LF line endings: a CRLF file would be written as a quoted string full of \r escapes.
          data: { [baseName(file)]: new TextDecoder().decode(aux.bytes).replace(/\r\n?/g, '\n') },
        });
      }
    },
    shootExtension: {
      providerConfig: {
        apiVersion: 'falco.extensions.gardener.cloud/v1alpha1',
        kind: 'FalcoServiceConfig',
        ...(c.falcoVersion !== undefined ? { falcoVersion: c.falcoVersion } : {}),
        autoUpdate: c.autoUpdate ?? true,
        rules: {
          ...(rules.standard !== undefined ? { standard: [...rules.standard] } : {}),
          ...(rules.custom !== undefined
            ? { custom: rules.custom.map((r) => ({ shootConfigMap: r.configMap ?? rulesConfigMapName(r.file!) })) }
            : {}),
        },
        destinations: destinations.map((d) => ({ name: d.name, ...(d.resourceSecretName !== undefined ? { resourceSecretName: d.resourceSecretName } : {}) })),
      },
    },
    shootResources: resources,
  };
}

/** cdk8s-plus-28's ConfigMap, loaded on first use: the library takes ~90 ms to load, and a run that renders no Falco rules needs none of it. */
function configMapClass(): typeof import('cdk8s-plus-28').ConfigMap {
  return (require('cdk8s-plus-28') as typeof import('cdk8s-plus-28')).ConfigMap;
}
