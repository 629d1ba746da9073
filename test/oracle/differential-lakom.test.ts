// Differential testing of Lakom validation against the Lakom extension's own admission (issue 27).
// fast-check draws `extensions.lakom` settings near the edges of the rules: scopes (the three allowed,
// other cases, spaces, empty, unknown), trusted-keys Secret names (valid, with dots, upper case,
// underscores, "reg-cache-", 253/254 characters, empty), fields of upstream's LakomConfig that the
// fleet format does not have, on fleets that allow scope Cluster and fleets that do not. For each:
// kyma-fleet's verdict (checkFleet) and upstream's: the providerConfig kyma-fleet renders (render.ts
// on the resolved settings; where kyma-fleet refuses, on the setting itself, validation bypassed)
// goes through the extension's Shoot validator (v0.23.0; the trusted-keys Secret is a stand-in with
// one valid key, as the Secret lives in the Garden project and not in the fleet) and its spec.resources
// through Gardener's ValidateResources. Nothing kyma-fleet accepts may be refused upstream; a setting
// kyma-fleet refuses and upstream accepts must be refused by a documented stricter rule only. Where
// both refuse, upstream's message (its list of supported scopes sorted: upstream's order is random)
// must be carried by kyma-fleet's.
// Seed: fixed under CI, new per local run (printed); KYMA_FLEET_ORACLE_SEED=<seed> repeats a run,
// KYMA_FLEET_ORACLE_DIFF_CASES=<n> draws more settings (default 2,000).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderLakom } from '../../src/extensions/lakom/render';
import type { Diagnostic } from '../../src/lib/diagnostics';
import { NOW } from '../helpers/fleet-fixture';
import { describeWithOracle } from './describe-with-oracle';
import { type ExtensionVerdict, extensionVerdicts } from './extension-verdicts';
import { Oracle } from './oracle';

const SEED = Number(process.env.KYMA_FLEET_ORACLE_SEED ?? (process.env.CI === 'true' ? 0x27_1a40 : Date.now() % 0x7fffffff));
const CASES = Number(process.env.KYMA_FLEET_ORACLE_DIFF_CASES ?? 2000);

type Rec = Record<string, unknown>;

/** Stricter than upstream on purpose (docs/testing.md lists the same). */
const STRICTER: readonly { code: string; message?: RegExp; rule: string; reason: string }[] = [
  { code: 'E_LAKOM_CLUSTER_SCOPE', rule: 'scope Cluster only where Fleet.spec.lakom.allowClusterScope', reason: 'it puts a fail-closed signature check on every pod of the runtime, Kyma\'s own included' },
  { code: 'E_LAKOM_SECRET_NAME', message: /RFC 1123 subdomain|must be no more than 253/, rule: 'trustedKeysSecretName is a DNS-1123 subdomain', reason: 'it names a Secret in the Garden project, stored only under such a name; Gardener checks only that spec.resources has the name' },
  { code: 'E_LAKOM_SECRET_NAME', message: /must not contain "reg-cache-"/, rule: 'trustedKeysSecretName without "reg-cache-"', reason: 'KIM drops every Shoot resource whose name contains it' },
  { code: 'E_TOO_LONG', message: /at most 253 characters/, rule: 'trustedKeysSecretName at most 253 characters', reason: 'a Secret name is at most 253 characters (the schema caps it before the name rules run)' },
  { code: 'E_UNKNOWN_FIELD', rule: 'fields outside the fleet format (trustedKeysResourceName, keys, ...)', reason: 'the renderer writes the resource reference itself; key material never goes into the fleet' },
  { code: 'E_SCHEMA', rule: 'types and caps of the fleet schema', reason: 'e.g. a Secret name over 253 characters' },
];

const SCOPES = ['KubeSystem', 'KubeSystemManagedByGardener', 'Cluster', 'cluster', 'kubesystem', 'KUBESYSTEM', '', ' KubeSystem', 'KubeSystem ', 'Namespace', 'kube-system', 'KubeSystemManagedbyGardener'];
const NAMES = ['acme-cosign-keys', 'keys.acme', 'a', 'Acme-Keys', 'acme_keys', 'my-reg-cache-keys', 'reg-cache-keys', '-keys', 'keys-', 'a..b', '', 's'.repeat(253), 's'.repeat(254), `${'a'.repeat(63)}.${'b'.repeat(64)}`];

const settingArb: fc.Arbitrary<Rec> = fc
  .record(
    {
      scope: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SCOPES.slice(0, 3)) }, { weight: 2, arbitrary: fc.constantFrom(...SCOPES) }),
      trustedKeysSecretName: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NAMES.slice(0, 3)) }, { weight: 2, arbitrary: fc.constantFrom(...NAMES) }),
      extra: fc.constantFrom<Rec>({ trustedKeysResourceName: 'acme-cosign-keys' }, { keys: [] }, { scope2: 'x' }),
    },
    { requiredKeys: [] },
  )
  .chain((s) => fc.integer({ min: 0, max: 9 }).map((n) => {
    const { extra, ...rest } = s;
    return { enabled: true, ...rest, ...(n === 0 && extra ? extra : {}) } as Rec;
  }));

const RUNTIME = { name: 'case', runtimeID: '0c5e8a3d-7f21-4b6a-9d44-000000000001', shootName: 'c-1', shootProject: 'kyma-dev' } as never;

function render(config: Rec, allowClusterScope: boolean): { providerConfig: Rec; resources: Rec[] } {
  const r = renderLakom({ state: 'enabled', config, runtime: RUNTIME, env: { state: { allowClusterScope }, files: new Map(), now: new Date(NOW) } });
  return { providerConfig: r.shootExtension!.providerConfig as Rec, resources: [...(r.shootResources ?? [])] as unknown as Rec[] };
}

interface Upstream {
  accepted: boolean;
  messages: string[];
}

async function upstreamVerdict(oracle: Oracle, rendered: { providerConfig: Rec; resources: Rec[] }): Promise<Upstream> {
  const shoot = { metadata: { name: 'c-1', namespace: 'garden-kyma-dev' }, spec: { extensions: [{ type: 'shoot-lakom-service', providerConfig: rendered.providerConfig }], ...(rendered.resources.length > 0 ? { resources: rendered.resources } : {}) } };
  const [lakom, resources] = await Promise.all([oracle.ask('lakom/validate', { shoot, standInSecrets: true }), oracle.ask('shoot/validate-resources', { shoot })]);
  return { accepted: lakom.accepted && resources.accepted, messages: [...(lakom.errors ?? []), ...(resources.errors ?? [])] };
}

/** Upstream's field error without its path, with the supported values sorted (their order is random upstream). */
function normalizeUpstream(message: string): string {
  const bare = message.replace(/^spec\.extensions\[\d+\]\.providerConfig\.\S+: /, '');
  return bare.replace(/supported values: (.*)$/, (_m, list: string) => `supported values: ${list.split(', ').sort().join(', ')}`);
}

interface Judged {
  setting: Rec;
  allowClusterScope: boolean;
  kymaFleet: ExtensionVerdict;
  upstream: Upstream;
  stricter: { diagnostic: Diagnostic; rule: string }[];
  problems: string[];
}

async function judge(oracle: Oracle, setting: Rec, allowClusterScope: boolean, kymaFleet: ExtensionVerdict): Promise<Judged> {
  const { enabled: _e, ...own } = setting;
  const upstream = await upstreamVerdict(oracle, render(kymaFleet.resolved ? (kymaFleet.resolved.config as Rec) : own, allowClusterScope));
  const problems: string[] = [];
  const stricter: Judged['stricter'] = [];
  const mirrored: Diagnostic[] = [];
  for (const d of kymaFleet.errors) {
    const rule = STRICTER.find((s) => s.code === d.code && (!s.message || s.message.test(d.message)))?.rule;
    if (rule) stricter.push({ diagnostic: d, rule });
    else mirrored.push(d);
  }
  if (kymaFleet.accepted && !upstream.accepted) problems.push('accepted by kyma-fleet, refused by upstream');
  if (!kymaFleet.accepted && upstream.accepted) for (const d of mirrored) problems.push(`${d.code} at ${d.field} ("${d.message}"): upstream accepts the setting, and the rule is not a documented stricter one`);
  if (!kymaFleet.accepted && !upstream.accepted && mirrored.length > 0) {
    const ours = kymaFleet.errors.map((d) => d.message);
    for (const m of upstream.messages.filter((x) => x.includes('providerConfig.scope'))) {
      if (!ours.some((o) => o.includes(normalizeUpstream(m)))) problems.push(`upstream's message is not in kyma-fleet's: ${m}`);
    }
  }
  return { setting, allowClusterScope, kymaFleet, upstream, stricter, problems };
}

function reproducer(j: Judged): string {
  return [
    `seed=${SEED} setting (extensions.lakom of one runtime; allowClusterScope: ${j.allowClusterScope}): ${JSON.stringify(j.setting)}`,
    ...j.problems.map((p) => `  problem: ${p}`),
    `  kyma-fleet: ${j.kymaFleet.accepted ? 'accepted' : 'refused'}`,
    ...j.kymaFleet.errors.map((d) => `    ${d.field}: ${d.message} [${d.code}]`),
    `  upstream:   ${j.upstream.accepted ? 'accepted' : 'refused'}`,
    ...j.upstream.messages.map((m) => `    ${m}`),
  ].join('\n');
}

describeWithOracle('Lakom validation, differential against the Lakom extension\'s admission', () => {
  let oracle: Oracle;
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-differential-lakom-'));
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(`${CASES} generated settings: nothing kyma-fleet accepts is refused upstream; every stricter refusal is documented`, async () => {
    console.info(`[fast-check] oracle › differential-lakom: seed=${SEED} cases=${CASES} (KYMA_FLEET_ORACLE_SEED, KYMA_FLEET_ORACLE_DIFF_CASES)`);
    const settings = fc.sample(settingArb, { seed: SEED, numRuns: CASES });
    const started = Date.now();
    // Half on a fleet that allows scope Cluster, half on one that does not.
    const halves = [false, true].map((allow) => {
      const own = settings.filter((_, i) => i % 2 === (allow ? 1 : 0));
      return { allow, own, verdicts: extensionVerdicts('lakom', own, path.join(tmp, String(allow)), { fleetSpec: allow ? { lakom: { allowClusterScope: true } } : {} }) };
    });
    const judged: Judged[] = [];
    for (const h of halves) judged.push(...(await Promise.all(h.own.map((s, i) => judge(oracle, s, h.allow, h.verdicts[i]!)))));
    const counts = { cases: judged.length, bothAccept: 0, bothRefuse: 0, acceptedByKymaFleetRefusedByUpstream: 0, refusedByKymaFleetAcceptedByUpstream: 0 };
    const table = new Map<string, number>();
    for (const j of judged) {
      if (j.kymaFleet.accepted && j.upstream.accepted) counts.bothAccept++;
      else if (!j.kymaFleet.accepted && !j.upstream.accepted) counts.bothRefuse++;
      else if (j.kymaFleet.accepted) counts.acceptedByKymaFleetRefusedByUpstream++;
      else counts.refusedByKymaFleetAcceptedByUpstream++;
      for (const d of j.kymaFleet.errors) {
        const s = j.stricter.find((x) => x.diagnostic === d);
        const key = s ? `${d.code} (stricter: ${s.rule})` : `${d.code} (mirrors upstream)`;
        table.set(key, (table.get(key) ?? 0) + 1);
      }
    }
    console.info(`[differential-lakom] ${JSON.stringify(counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.info(`[differential-lakom] per rule:\n${[...table.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rule, n]) => `  ${rule.padEnd(90)} errors=${n}`).join('\n')}`);
    const failing = judged.filter((j) => j.problems.length > 0);
    expect(failing.slice(0, 5).map(reproducer).join('\n\n'), `${failing.length} of ${judged.length} settings disagree`).toBe('');
    expect(counts.acceptedByKymaFleetRefusedByUpstream).toBe(0);
    expect(counts.bothAccept).toBeGreaterThan(CASES / 10);
    expect(counts.bothRefuse).toBeGreaterThan(CASES / 20);
    expect(counts.refusedByKymaFleetAcceptedByUpstream).toBeGreaterThan(0);
    expect([...table.keys()].some((k) => k.startsWith('E_LAKOM_SCOPE (mirrors upstream)')), 'no case reached E_LAKOM_SCOPE').toBe(true);
  }, 600_000);
});
