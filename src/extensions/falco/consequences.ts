// What a Falco change makes happen on a runtime, for the review (`kyma-fleet diff`, the plug-in's
// `consequences`, ../types.ts). Falco runs as a DaemonSet: enabling it puts a pod on every node of
// the runtime (by default 100m CPU and 512Mi requested per node), disabling it takes them away and
// its security events stop; a change of its version, rules or destinations while it runs reaches
// every node. Read from the Shoot's FalcoServiceConfig and the rules ConfigMaps of skr-config/, by
// value: a reordering is no change. Pure.

import { canonical } from '../../lib/canonical';
import type { ConsequenceRules, RenderedSide } from '../types';
import { RULES_CONFIGMAP_PREFIX } from './names';
import { FALCO_RULES_NAMESPACE } from './render';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

const running = (side: RenderedSide): boolean => side.shootEntry !== undefined && side.shootEntry.disabled !== true;

/** The rules ConfigMaps (kube-system, falco-rules-*) of a side, by name. */
function rulesConfigMaps(side: RenderedSide): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of side.skrConfig) {
    const meta = rec(o.metadata);
    if (o.kind !== 'ConfigMap' || meta?.namespace !== FALCO_RULES_NAMESPACE || typeof meta.name !== 'string' || !meta.name.startsWith(RULES_CONFIGMAP_PREFIX)) continue;
    out.set(meta.name, canonical(o.data));
  }
  return out;
}

function sameRuleFiles(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([name, data]) => b.get(name) === data);
}

export const falcoConsequences: ConsequenceRules = {
  classes: [
    {
      id: 'node-agent-added',
      label: 'node agent added (DaemonSet)',
      severity: 'disruptive',
      description: 'Falco starts as a DaemonSet: one pod on every node of the runtime, with its CPU and memory requests (100m and 512Mi by default) on each',
    },
    {
      id: 'node-agent-removed',
      label: 'node agent removed (DaemonSet)',
      severity: 'disruptive',
      description: "Falco's DaemonSet leaves every node of the runtime: its runtime security events stop",
    },
    {
      id: 'node-agent-updated',
      label: 'node agent changed on every node',
      severity: 'routine',
      description: "Falco's version, rules or event destinations change: the pods of its DaemonSet on every node take the new configuration",
    },
  ],
  classify(before, after) {
    const was = running(before);
    const is = running(after);
    if (!was && is) return ['node-agent-added'];
    if (was && !is) return ['node-agent-removed'];
    // Running on both sides, or the Shoot untouched (no entry on either side) while the rules files change.
    const untouched = before.shootEntry === undefined && after.shootEntry === undefined;
    if (!(was && is) && !untouched) return [];
    const configChanged = was && is && canonical(before.shootEntry!.providerConfig) !== canonical(after.shootEntry!.providerConfig);
    return configChanged || !sameRuleFiles(rulesConfigMaps(before), rulesConfigMaps(after)) ? ['node-agent-updated'] : [];
  },
};
