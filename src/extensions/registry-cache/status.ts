// The registry-cache status hook (../status-hook.ts): `kyma-fleet status` reads every
// RegistryCacheConfig of the runtime cluster, and this module judges the ones the fleet renders, by
// upstream. A config whose spec is refused or not reconciled keeps the extension from Ready, with
// the config's own words (its state and conditions); KIM's Runtime CR conditions about the
// registry cache fail it too.

import { cmp, quote } from '../../lib/diagnostics';
import { conditionText, int, isRec, isStateField, type Rec, rec, str } from '../../lib/status-fields';
import type { KubeObject, StatusFinding, StatusHook, StatusHookInput, StatusHookResult } from '../status-hook';

const KIND = 'RegistryCacheConfig';

export const registryCacheStatus: StatusHook = {
  skrKinds: [{ group: 'core.kyma-project.io', version: 'v1beta1', plural: 'registrycacheconfigs', kind: KIND }],
  reasons: { Failed: ['RegistryCacheConfigFailed'], Progressing: ['RegistryCacheConfigPending'] },
  runtimeConditions: /registry.?cache/i,
  findings: registryCacheFindings,
};

/** One finding per rendered cache that is not Ready; the Ready ones are counted. */
function registryCacheFindings({ config, skrObjects }: StatusHookInput): StatusHookResult {
  const findings: StatusFinding[] = [];
  const namespace = typeof config.namespace === 'string' ? config.namespace : 'kyma-system';
  const upstreams = (Array.isArray(config.caches) ? config.caches : [])
    .map((c) => (isRec(c) && typeof c.upstream === 'string' ? c.upstream : undefined))
    .filter((u): u is string => u !== undefined)
    .sort(cmp);
  const live: readonly KubeObject[] = skrObjects.get(KIND) ?? [];
  let readyCount = 0;
  for (const upstream of upstreams) {
    const matches = live.filter((o) => rec(o.spec)?.upstream === upstream);
    const obj = matches.find((o) => o.metadata.namespace === namespace) ?? matches[0];
    if (!obj) {
      findings.push({ state: 'Unknown', reason: 'NotFound', message: `RegistryCacheConfig for upstream ${upstream} not found in namespace ${namespace} (nor in any other) on the runtime` });
      continue;
    }
    const finding = configFinding(obj);
    if (finding) findings.push(finding);
    else readyCount++;
  }
  const ready = readyCount > 0 ? [`${readyCount} RegistryCacheConfig${readyCount === 1 ? '' : 's'} Ready`] : [];
  return { findings, ready };
}

/** What keeps one RegistryCacheConfig from Ready; undefined when it is Ready for its spec. */
function configFinding(obj: KubeObject): StatusFinding | undefined {
  const name = `RegistryCacheConfig ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
  const status = obj.status;
  if (status === undefined || status === null) return { state: 'Progressing', reason: 'RegistryCacheConfigPending', message: `${name}: no status yet` };
  if (!isRec(status)) return { state: 'Unknown', reason: 'InvalidData', message: `${name}: status is not an object` };
  const conditions = status.conditions;
  if (conditions !== undefined && conditions !== null && !Array.isArray(conditions)) {
    return { state: 'Unknown', reason: 'InvalidData', message: `${name}: status.conditions is not a list` };
  }
  if (!isStateField(status.state)) {
    return { state: 'Unknown', reason: 'InvalidData', message: `${name}: state ${quote(status.state)} is not a RegistryCacheConfig state` };
  }
  const conds = ((conditions as unknown[] | undefined) ?? []).filter(isRec);
  const notTrue = conds.find((c) => c.status === 'False') ?? conds.find((c) => c.status !== 'True');
  const state = str(status.state);
  const detail = notTrue ? `, ${conditionText(notTrue)}` : '';
  const generation = int(obj.metadata.generation);
  const isStale = (c: Rec): boolean => {
    const og = int(c.observedGeneration);
    return og !== undefined && og > 0 && generation !== undefined && og < generation;
  };
  const staleCondition = conds.find(isStale);
  // The CRD's state enum has no Error: a controller's write of `state: Error` is refused whole,
  // so a failed config can stay Pending (or Ready) with a False condition of its spec. A False
  // condition is a failure, whatever the state says.
  const falseCondition = conds.find((c) => c.status === 'False' && !isStale(c));
  if (state === 'Failed' || state === 'Error') {
    return { state: 'Failed', reason: 'RegistryCacheConfigFailed', message: `${name}: state ${state}${detail}` };
  }
  if (falseCondition && (state === undefined || ['Pending', 'Ready', 'Terminating', ''].includes(state))) {
    return { state: 'Failed', reason: 'RegistryCacheConfigFailed', message: `${name}: state ${state || 'not set'} but ${conditionText(falseCondition)}` };
  }
  if (state === 'Pending' || state === 'Terminating' || state === undefined || state === '') {
    return { state: 'Progressing', reason: 'RegistryCacheConfigPending', message: `${name}: state ${state || 'not set'}${detail}` };
  }
  if (state !== 'Ready') {
    return { state: 'Unknown', reason: 'InvalidData', message: `${name}: state ${quote(status.state)} is not a RegistryCacheConfig state` };
  }
  if (staleCondition) {
    return {
      state: 'Progressing',
      reason: 'RegistryCacheConfigPending',
      message: `${name}: condition ${str(staleCondition.type) ?? '?'} is for generation ${int(staleCondition.observedGeneration)}, the spec is generation ${generation}`,
    };
  }
  return undefined;
}
