// How `kyma-fleet status` judges drift of the registry-cache Shoot entry (../status-hook.ts
// DriftRules): caches are matched by upstream; KIM copies a cache's credentials Secret into the
// Garden project as reg-cache-<uuid>, so secretReferenceName is compared by presence; sizes are
// quantities and a ttl a Go duration (KIM marshals metav1.Duration: 168h becomes 168h0m0s).

import { quote } from '../../lib/diagnostics';
import { parseGoDuration } from '../../lib/go-duration';
import { parseQuantity } from '../../lib/quantity';
import type { DriftRules } from '../status-hook';

export const registryCacheDrift: DriftRules = {
  listKeys: ['upstream', 'name'],
  presenceOnly: {
    secretReferenceName: (expected) => `the fleet references the credentials Secret ${quote(expected)} (KIM names its Garden copy reg-cache-<uuid>)`,
  },
  sameValue: {
    size: (expected, live) => {
      if (typeof expected !== 'string' || !(typeof live === 'string' || typeof live === 'number')) return false;
      const a = parseQuantity(expected);
      const b = parseQuantity(String(live));
      return a !== undefined && b !== undefined && a.sign === b.sign && a.value === b.value;
    },
    ttl: (expected, live) => {
      if (typeof expected !== 'string' || typeof live !== 'string') return false;
      const a = parseGoDuration(expected);
      const b = parseGoDuration(live);
      return a.ok && b.ok && a.nanoseconds === b.nanoseconds;
    },
  },
};
