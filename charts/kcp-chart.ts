// What is applied to the Kyma Control Plane: a fragment of the KIM Runtime CR, named by the
// lowercase runtime ID, holding only the spec fields extensions own (ExtensionRendering.runtimeSpec;
// written only when some extension contributes one, src/render/render-runtime.ts). It is
// applied server-side next to KEB's full Runtime CR and must never be pruned: deleting a Runtime
// CR deprovisions the cluster.

import { ApiObject, Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { Runtime } from '../imports/infrastructuremanager.kyma-project.io';
import type { ExtensionRendering } from '../src/extensions/types';
import { PRUNE_PROTECTION } from '../src/lib/manifest';

export interface KcpChartProps {
  readonly runtimeID: string;
  readonly namespace: string;
  readonly extensions: readonly ExtensionRendering[];
}

export class KcpChart extends Chart {
  constructor(scope: Construct, id: string, props: KcpChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    const spec: Record<string, unknown> = {};
    for (const e of props.extensions) Object.assign(spec, e.runtimeSpec ?? {});
    // A fragment: the generated Runtime class requires the whole spec KEB owns, so the object is
    // built from its GVK; tests validate it against the CRD schema minus the fields KEB sets.
    new ApiObject(this, 'runtime', {
      ...Runtime.GVK,
      metadata: { name: props.runtimeID.toLowerCase(), namespace: props.namespace, annotations: { ...PRUNE_PROTECTION } },
      spec,
    });
  }
}
