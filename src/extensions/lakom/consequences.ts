// What a Lakom change makes happen on a runtime, for the review (`kyma-fleet diff`, the plug-in's
// `consequences`, ../types.ts). Lakom's webhooks deny pods whose images are not signed by a trusted
// key, on the pods its scope covers: KubeSystemManagedByGardener (Gardener's own pods in
// kube-system; upstream's default, and what the landscape runs where the fleet writes no entry or
// no scope), KubeSystem (every kube-system pod), Cluster (every pod in every namespace). A wider
// scope, or Lakom turned on, can deny pods that ran before; a narrower one, or Lakom turned off,
// checks fewer; other trusted keys can deny images signed only by a key that is gone. Pure.

import type { ConsequenceRules, RenderedSide } from '../types';
import { CLUSTER_SCOPE } from './schema';

/** How much a scope covers; 0 is Lakom turned off. */
const COVERAGE: Readonly<Record<string, number>> = { KubeSystemManagedByGardener: 1, KubeSystem: 2, [CLUSTER_SCOPE]: 3 };
const LANDSCAPE_DEFAULT = 1;

function coverage(side: RenderedSide): number {
  const entry = side.shootEntry;
  if (!entry) return LANDSCAPE_DEFAULT;
  if (entry.disabled === true) return 0;
  const config = entry.providerConfig as Record<string, unknown> | undefined;
  return typeof config?.scope === 'string' ? (COVERAGE[config.scope] ?? LANDSCAPE_DEFAULT) : LANDSCAPE_DEFAULT;
}

const trustedKeys = (side: RenderedSide): unknown => (side.shootEntry?.providerConfig as Record<string, unknown> | undefined)?.trustedKeysResourceName;

export const lakomConsequences: ConsequenceRules = {
  classes: [
    {
      id: 'enforcement-widened',
      label: 'enforcement widened',
      severity: 'disruptive',
      description:
        'Lakom checks the image signatures of more pods (turned on, or a wider scope; Cluster: every pod in every namespace, Kyma\'s own included): a pod whose image is not signed by a trusted key is no longer started',
    },
    {
      id: 'enforcement-narrowed',
      label: 'enforcement narrowed',
      severity: 'routine',
      description: 'Lakom checks the image signatures of fewer pods (turned off, or a narrower scope): unsigned images start where they were denied',
    },
    {
      id: 'trusted-keys-changed',
      label: 'trusted keys changed',
      severity: 'disruptive',
      description: "the Secret of trusted keys that Lakom adds to the landscape's is replaced or dropped (trustedKeysSecretName): images signed only by a key no longer trusted are denied",
    },
  ],
  classify(before, after) {
    if (before.shootEntry === undefined && after.shootEntry === undefined) return [];
    const from = coverage(before);
    const to = coverage(after);
    const out: string[] = [];
    if (to > from) out.push('enforcement-widened');
    if (to < from) out.push('enforcement-narrowed');
    // User keys add to the landscape's: only keys that go (replaced or dropped) can deny images.
    const keys = trustedKeys(before);
    if (from > 0 && to > 0 && keys !== undefined && keys !== trustedKeys(after)) out.push('trusted-keys-changed');
    return out;
  },
};
