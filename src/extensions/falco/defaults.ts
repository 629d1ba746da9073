// The Falco admission mutator's defaults (kyma-gardener-apis.md §1 item 7, §7.1), computed here so
// the rendered providerConfig already carries them. If the renderer left them out, the mutator
// would add them on the Shoot and every GitOps diff would show drift.

import type { RuleEnvironment } from '../types';
import { compareVersions, type FalcoProfile, type FalcoState } from './profile';

/**
 * The version the mutator picks when `falcoVersion` is left out: the highest version classified
 * `supported` that has not expired at `now`. Undefined when the profile has none.
 */
export function defaultFalcoVersion(profile: FalcoProfile, now: Date): string | undefined {
  let best: string | undefined;
  for (const v of profile.versions) {
    if (v.classification !== 'supported') continue;
    if (v.expiresAt !== undefined && v.expiresAt < now.getTime()) continue;
    if (best === undefined || compareVersions(v.version, best) > 0) best = v.version;
  }
  return best;
}

/**
 * Defaults for the resolved settings of an enabled Falco extension; only fields the settings leave
 * out are returned. Objects are fresh on every call (shared references would become YAML anchors).
 * - `autoUpdate: true`;
 * - `falcoVersion`: {@link defaultFalcoVersion} of the FalcoProfile (none without a usable profile);
 * - `rules: {standard: [falco-rules]}` only when `rules` is absent (an explicit empty `rules` is an
 *   error, as at admission, not defaulted);
 * - `destinations: [{name: logging}]` when there is no enabled destination.
 */
export function falcoDefaults(value: Record<string, unknown>, env: RuleEnvironment<FalcoState>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value.autoUpdate === undefined) out.autoUpdate = true;
  const profile = env.state?.profile; // state is undefined if prepare never ran
  if (value.falcoVersion === undefined && profile !== undefined) {
    const version = defaultFalcoVersion(profile, env.now);
    if (version !== undefined) out.falcoVersion = version;
  }
  if (value.rules === undefined) out.rules = { standard: ['falco-rules'] };
  if (!Array.isArray(value.destinations) || value.destinations.length === 0) out.destinations = [{ name: 'logging' }];
  return out;
}
