// What is applied to the Kyma runtime (SKR) first: the Kyma CR kyma-system/default with the
// fleet-managed modules. Lifecycle Manager treats the SKR Kyma CR as the source of truth for
// modules, so this (not the KCP Kyma CR) is where modules are enabled; it is applied server-side,
// so modules other actors add stay. The extensions' config objects go to skr-config/ (its own
// chart): their CRDs come with the modules enabled here, so they cannot be applied together.

import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { Kyma, KymaSpecModulesCustomResourcePolicy } from '../imports/operator.kyma-project.io';
import { PRUNE_PROTECTION } from '../src/lib/manifest';

export interface KymaModuleEntry {
  readonly name: string;
  readonly channel?: string;
  readonly customResourcePolicy?: 'CreateAndDelete' | 'Ignore';
}

export interface SkrChartProps {
  readonly channel: string;
  /** Regular modules and one per enabled extension, sorted by name. */
  readonly modules: readonly KymaModuleEntry[];
}

export class SkrChart extends Chart {
  constructor(scope: Construct, id: string, props: SkrChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new Kyma(this, 'kyma', {
      metadata: { name: 'default', namespace: 'kyma-system', annotations: { ...PRUNE_PROTECTION } },
      spec: {
        channel: props.channel,
        modules: props.modules.map((m) => ({
          name: m.name,
          channel: m.channel,
          customResourcePolicy:
            m.customResourcePolicy === undefined ? undefined : (m.customResourcePolicy as KymaSpecModulesCustomResourcePolicy),
          // The CRD lists `managed` as required; the API server would default it to true.
          managed: true,
        })),
      },
    });
  }
}
