// What `kyma-fleet init` writes for Falco: off by default, on in the production group with the
// standard rules, reporting to the Gardener logging stack.

import type { ScaffoldText } from '../types';

export const falcoScaffold: ScaffoldText = {
  displayName: 'Falco',
  defaults: `      falco:
        enabled: false
`,
  productionGroup: `      falco:
        enabled: true
        rules:
          standard:
            - falco-rules
        destinations:
          - name: logging
`,
  productionSummary: 'Falco runtime security with the standard rules, reporting to the Gardener logging stack',
};
