// The upstream code that judges registry-cache output in the tests (the oracle, test/oracle/):
// Gardener's registry-cache admission on the Shoot entries, KIM's mapping on the Runtime CR
// entries. `kyma-fleet version` and the README's "Supported versions" name these pins; a test
// compares them with the oracle's go.mod files.

import type { UpstreamPin } from '../../lib/supported-versions';

export const registryCacheTestedAgainst: readonly UpstreamPin[] = [
  {
    judges: 'Shoot entries, by the extension admission',
    goMod: 'test/oracle/admission/go.mod',
    modules: {
      'github.com/gardener/gardener-extension-registry-cache': 'v0.24.0',
      'github.com/gardener/gardener': 'v1.149.0',
    },
  },
  {
    judges: 'Runtime CR entries, by KIM mapping them into the Shoot',
    goMod: 'test/oracle/kim/go.mod',
    modules: {
      'github.com/kyma-project/infrastructure-manager': 'v0.0.0-20260313132546-aa49051f0dea',
      'github.com/gardener/gardener/pkg/apis': 'v1.140.1',
      'github.com/gardener/gardener-extension-registry-cache': 'v0.21.0',
    },
  },
];
