// What is applied to the Kyma runtime (SKR) once skr/ is in and the modules it enables have
// installed their CRDs: each enabled extension's config objects (its config CRs, rule
// ConfigMaps). A separate folder because Flux and Argo CD dry-run every object of a folder before
// applying any: a config CR beside the Kyma CR that installs its CRD would fail that dry-run and
// hold back the Kyma CR itself (fleet-operations.md §2).

import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import type { ExtensionRendering } from '../src/extensions/types';
import { SKR_CONFIG_ANNOTATIONS } from '../src/lib/manifest';

export interface SkrConfigChartProps {
  readonly extensions: readonly ExtensionRendering[];
}

export class SkrConfigChart extends Chart {
  constructor(scope: Construct, id: string, props: SkrConfigChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    for (const e of props.extensions) e.skrConfig?.(this);
    for (const object of this.apiObjects) {
      for (const [key, value] of Object.entries(SKR_CONFIG_ANNOTATIONS)) object.metadata.addAnnotation(key, value);
    }
  }
}
