// The Falco extension's snapshot hook (../snapshot-hook.ts): `kyma-fleet profile refresh` copies
// the Garden's FalcoProfile "falco" (falco.gardener.cloud/v1alpha1, cluster-scoped; what the
// admission webhook reads) into the file Fleet.spec.falcoProfile names, keeping spec.versions only
// (the images are of no use to the checks), entries sorted by version, every value quoted, so the
// same profile always gives the same bytes. A change is described per Falco version: appeared,
// deprecated (with an expiry date still ahead), expired or vanished, with the runtimes pinned to it.

import { cmp } from '../../lib/diagnostics';
import type { KubeObject } from '../../lib/kube-object';
import { parseFleetYaml } from '../../lib/yaml/parse-yaml';
import type { SnapshotChange, SnapshotHook, SnapshotRuntime } from '../snapshot-hook';
import { compareVersions, type FalcoProfile, type FalcoVersionEntry, FALCO_PROFILE_API_VERSION, FALCO_PROFILE_KIND, falcoProfilePath, parseFalcoProfile } from './profile';

/** The profile the Falco admission webhook reads (gardener-extension-shoot-falco-service). */
export const FALCO_PROFILE_NAME = 'falco';
const LISTS = ['falco', 'falcosidekick', 'falcoctl'] as const;
const FIELDS = ['version', 'classification', 'expirationDate', 'rulesVersion'] as const;

export const falcoSnapshot: SnapshotHook = {
  title: 'FalcoProfile',
  option: 'falcoProfile',
  object: () => ({ cluster: 'garden', group: 'falco.gardener.cloud', version: 'v1alpha1', plural: 'falcoprofiles', kind: FALCO_PROFILE_KIND, name: FALCO_PROFILE_NAME }),
  path: falcoProfilePath,
  toSnapshot: falcoProfileSnapshot,
  describeChange: describeProfileChange,
};

/** The snapshot text of a FalcoProfile object, or the problems that make it unusable. */
export function falcoProfileSnapshot(object: KubeObject): { text: string } | { problems: string[] } {
  const { problems } = parseFalcoProfile({ apiVersion: object.apiVersion, kind: object.kind, spec: object.spec });
  if (problems.length > 0) return { problems: problems.map((p) => p.message) };
  const versions = (object.spec as { versions: Record<string, unknown> }).versions;
  const lines = [
    `# Snapshot of the FalcoProfile ${JSON.stringify(object.metadata.name)} of the Garden cluster (${FALCO_PROFILE_API_VERSION}), which the`,
    '# Falco admission webhook checks falcoVersion against. Written by `kyma-fleet profile refresh`; do not edit.',
    `apiVersion: ${FALCO_PROFILE_API_VERSION}`,
    `kind: ${FALCO_PROFILE_KIND}`,
    'metadata:',
    `  name: ${JSON.stringify(object.metadata.name)}`,
    'spec:',
    '  versions:',
  ];
  for (const list of LISTS) {
    const entries = versions[list];
    if (!Array.isArray(entries)) continue;
    const rows = entries
      .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && typeof (e as Record<string, unknown>).version === 'string')
      .sort((a, b) => compareVersions(a.version as string, b.version as string) || cmp(a.version as string, b.version as string));
    if (rows.length === 0) {
      lines.push(`    ${list}: []`);
      continue;
    }
    lines.push(`    ${list}:`);
    for (const row of rows) {
      const fields = FIELDS.filter((f) => typeof row[f] === 'string');
      fields.forEach((f, i) => lines.push(`${i === 0 ? '      - ' : '        '}${f}: ${JSON.stringify(row[f])}`));
    }
  }
  return { text: lines.join('\n') + '\n' };
}

function readProfile(text: Uint8Array | string | undefined): FalcoProfile | undefined {
  if (text === undefined) return undefined;
  const parsed = parseFleetYaml(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, 'profile');
  return parsed.data === undefined ? undefined : parseFalcoProfile(parsed.data).profile;
}

function expired(v: FalcoVersionEntry | undefined, now: Date): boolean {
  return v?.expiresAt !== undefined && v.expiresAt < now.getTime();
}

/** Per Falco version of the profile: appeared, deprecated, expired or vanished, with the runtimes pinned to it. */
export function describeProfileChange(before: Uint8Array | undefined, after: string, now: Date, runtimes: readonly SnapshotRuntime[]): SnapshotChange[] {
  const old = new Map((readProfile(before)?.versions ?? []).map((v) => [v.version, v]));
  const cur = new Map((readProfile(after)?.versions ?? []).map((v) => [v.version, v]));
  const on = (version: string): string[] => runtimes.filter((r) => r.config.falcoVersion === version).map((r) => r.name).sort(cmp);
  const out: SnapshotChange[] = [];
  const all = [...new Set([...old.keys(), ...cur.keys()])].sort(compareVersions);
  for (const version of all) {
    const o = old.get(version);
    const c = cur.get(version);
    if (!c) out.push({ kind: 'vanished', item: version, runtimes: on(version) });
    else if (!o) out.push({ kind: 'appeared', item: version, detail: c.classification + (c.expirationDate ? `, expires ${c.expirationDate}` : ''), runtimes: [] });
    else if (expired(c, now) && !expired(o, now)) out.push({ kind: 'expired', item: version, detail: `expired ${c.expirationDate}`, runtimes: on(version) });
    else if (c.classification === 'deprecated' && o.classification !== 'deprecated') {
      out.push({ kind: 'deprecated', item: version, detail: c.expirationDate ? `expires ${c.expirationDate}` : 'no expiry date', runtimes: on(version) });
    }
  }
  return out;
}
