// The Shoot patch for the Gardener project: spec.extensions entries for the fleet's extensions
// (a disabled one as `disabled: true`) and the spec.resources their providerConfigs reference.
// Shoot.spec.extensions is an atomic list that KIM owns and patches, so this folder is a
// reviewable patch and is wired into Flux/Argo only when the fleet opts in.

import { ApiObject, Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import type { ShootResource } from '../src/extensions/types';
import { PRUNE_PROTECTION } from '../src/lib/manifest';

export interface ShootExtensionEntry {
  readonly type: string;
  readonly providerConfig?: Record<string, unknown>;
  readonly disabled?: boolean;
}

export interface GardenChartProps {
  readonly shootName: string;
  readonly project: string;
  /** Sorted by type. */
  readonly extensions: readonly ShootExtensionEntry[];
  /** Sorted by name, unique. */
  readonly resources: readonly ShootResource[];
}

export const SHOOT_GVK = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' } as const;

export class GardenChart extends Chart {
  constructor(scope: Construct, id: string, props: GardenChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new ApiObject(this, 'shoot', {
      ...SHOOT_GVK,
      metadata: { name: props.shootName, namespace: `garden-${props.project}`, annotations: { ...PRUNE_PROTECTION } },
      spec: {
        extensions: props.extensions.map((e) => ({ ...e })),
        ...(props.resources.length > 0 ? { resources: props.resources.map((r) => ({ name: r.name, resourceRef: { ...r.resourceRef } })) } : {}),
      },
    });
  }
}
