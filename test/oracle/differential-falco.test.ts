// Differential testing of Falco validation against the Falco extension's own admission (issue 27).
// fast-check draws `extensions.falco` settings near the edges of the rules: versions from a
// FalcoProfile whose dates sit around the fleet's `now` (expired a second ago, expiring in a second,
// supported-but-expired, preview, deprecated without date, unknown, malformed, left out), standard
// rule names (unknown, upper case, duplicated), custom rules by configMap, by file (present, missing,
// invalid YAML, outside rules/) and by resourceName (upstream's field, not in the fleet format),
// destinations in every combination (duplicates, disabled, unknown names, with and without Secrets,
// Secret names that are no DNS name), autoUpdate, and falcoConfig resources (not in the fleet format).
// For each: kyma-fleet's verdict (checkFleet on a fleet holding the setting) and upstream's: the
// providerConfig kyma-fleet renders (render.ts on the resolved settings; where kyma-fleet refuses, a
// faithful translation of the setting with kyma-fleet's defaults, validation bypassed) goes through
// the extension's Shoot mutator and Shoot validator, and its spec.resources through Gardener's
// ValidateResources. A setting kyma-fleet accepts must be accepted upstream and left unchanged by the
// mutator (else every GitOps diff shows drift); a setting kyma-fleet refuses and upstream accepts must
// be refused by a documented stricter rule only (docs/testing.md). Where both refuse, every message of
// upstream must appear in kyma-fleet's messages (or be in REWORDED, where the fleet's field names differ).
// otlp: the admission refuses it unless the landscape runs it with --otlp-logging (off by default), an
// operator's flag kyma-fleet cannot see; kyma-fleet warns (W_FALCO_OTLP). So a setting is judged by
// the default admission, and by one with --otlp-logging exactly when kyma-fleet warned: a setting
// accepted without that warning must pass the default admission (refused settings: with the flag).
// Seed: fixed under CI, new per local run (printed); KYMA_FLEET_ORACLE_SEED=<seed> repeats a run,
// KYMA_FLEET_ORACLE_DIFF_CASES=<n> draws more settings (default 2,000).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultFalcoVersion } from '../../src/extensions/falco/defaults';
import { rulesConfigMapName } from '../../src/extensions/falco/names';
import { parseFalcoProfile } from '../../src/extensions/falco/profile';
import { renderFalco } from '../../src/extensions/falco/render';
import type { Diagnostic } from '../../src/lib/diagnostics';
import { resolveField } from '../../src/lib/field-path';
import { NOW } from '../helpers/fleet-fixture';
import { describeWithFalco } from './describe-with-oracle';
import { type ExtensionVerdict, extensionVerdicts, shrink } from './extension-verdicts';
import { Oracle } from './oracle';
import type { KubeObject } from './protocol';

const SEED = Number(process.env.KYMA_FLEET_ORACLE_SEED ?? (process.env.CI === 'true' ? 0x27_fa1c : Date.now() % 0x7fffffff));
const CASES = Number(process.env.KYMA_FLEET_ORACLE_DIFF_CASES ?? 2000);

type Rec = Record<string, unknown>;

const PROFILE_TEXT = `apiVersion: falco.gardener.cloud/v1alpha1
kind: FalcoProfile
metadata:
  name: falco
spec:
  versions:
    falco:
      - {version: "0.40.0", classification: deprecated, expirationDate: "2026-11-21T23:59:59Z", rulesVersion: "3.2.0"}
      - {version: "0.41.3", classification: deprecated, expirationDate: "2026-11-22T00:00:05Z", rulesVersion: "4.0.0"}
      - {version: "0.42.1", classification: supported, rulesVersion: "0.42.1"}
      - {version: "0.43.0", classification: supported, expirationDate: "2026-11-21T00:00:00Z", rulesVersion: "0.43.0"}
      - {version: "0.44.1", classification: preview, rulesVersion: "0.44.0"}
      - {version: "0.45.0", classification: deprecated, rulesVersion: "0.45.0"}
      - {version: "0.46.0", classification: supported, expirationDate: "2027-01-31T00:00:00Z", rulesVersion: "0.46.0"}
`;
const PROFILE = parse(PROFILE_TEXT) as KubeObject;
const RULES = '- rule: Shell in container\n  desc: a shell\n  condition: spawned_process and container and proc.name = bash\n  output: shell (%proc.cmdline)\n  priority: WARNING\n';
const FILES = {
  'profiles/falco-profile.yaml': PROFILE_TEXT,
  'rules/web.yaml': RULES,
  'rules/team-web.yaml': RULES,
  'rules/team/web.yaml': RULES,
  'rules/bad.yaml': '- rule: [unclosed\n',
  'other/x.yaml': RULES,
};

/**
 * kyma-fleet's rules that are stricter than upstream on purpose: code and message → why.
 * docs/testing.md ("Stricter than upstream, on purpose") lists the same.
 */
const STRICTER: readonly { code: string; message?: RegExp; rule: string; reason: string }[] = [
  { code: 'E_UNKNOWN_FIELD', rule: 'fields outside the fleet format (falcoConfig, rules.custom[].resourceName, ...)', reason: 'the fleet format exposes what a runtime owner sets; resourceName rules come from `file:` (rendered into a ConfigMap), falcoConfig is left to the extension\'s defaults' },
  { code: 'E_FALCO_RULES', message: /both configMap and file/, rule: 'a custom rule has configMap or file, not both', reason: 'both would be two rule sources in one entry; upstream has no file, it sees one shootConfigMap' },
  { code: 'E_FALCO_RULES', message: /^duplicate entry in custom rules/, rule: 'no custom rule source twice', reason: 'upstream checks duplicates of resourceName only; the same ConfigMap loaded twice is a mistake' },
  { code: 'E_FALCO_RULES', message: /RFC 1123 subdomain|must be no more than 253/, rule: 'configMap is a DNS-1123 subdomain', reason: 'it names a ConfigMap on the runtime, which exists only under such a name; upstream does not look at shootConfigMap' },
  { code: 'E_FALCO_DESTINATION', message: /RFC 1123 subdomain|must be no more than 253/, rule: 'resourceSecretName is a DNS-1123 subdomain', reason: 'it names a Secret in the Garden project; Gardener checks only that spec.resources has the name' },
  { code: 'E_FALCO_DESTINATION', message: /must not contain "reg-cache-"/, rule: 'resourceSecretName without "reg-cache-"', reason: 'KIM drops every Shoot resource whose name contains it' },
  { code: 'E_FALCO_RULES_FILE', rule: 'a rules file exists under rules/, is YAML and fits a ConfigMap', reason: 'kyma-fleet renders the file into the ConfigMap that upstream only names' },
  { code: 'E_PATH_OUTSIDE_ROOT', rule: 'a rules file is inside the fleet folder', reason: 'as above' },
  { code: 'E_OUTPUT_COLLISION', rule: 'two rules files give one ConfigMap name', reason: 'one ConfigMap on the runtime would replace the other' },
  { code: 'E_FALCO_VERSION', message: /must be a version MAJOR\.MINOR\.PATCH/, rule: 'falcoVersion is MAJOR.MINOR.PATCH', reason: 'only without a FalcoProfile; never reached here' },
  { code: 'E_SCHEMA', rule: 'types and caps of the fleet schema', reason: 'e.g. an empty configMap or resourceSecretName: upstream treats an empty name as none' },
  { code: 'E_FALCO_DISABLED_ENTRY', rule: 'a destination with enabled: false is checked too', reason: 'layer values are checked before layering, and a name appears once per list even where one of the two entries is disabled; the disabled entry never reaches the providerConfig' },
];

/** Upstream texts kyma-fleet words with its own field names (configMap/file for shootConfigMap/resourceName). */
const REWORDED: readonly { upstream: RegExp; ours: RegExp; why: string }[] = [
  { upstream: /^found custom rule with neither resource name nor shoot config map defined$/, ours: /^found custom rule with neither configMap nor file defined \[E_FALCO_RULES\]$/, why: 'the fleet\'s field names' },
  { upstream: /^custom rule (\S+) not found in resources$/, ours: /\[E_UNKNOWN_FIELD\]$/, why: 'resourceName is not in the fleet format' },
  { upstream: /^unknown event destination: $/, ours: /^Required value: field is required \[E_REQUIRED\]$/, why: 'an empty destination name: the fleet schema requires a name' },
  { upstream: /^multiple enabled destinations use the same output key /, ours: /^duplicate entry in event destinations \[E_FALCO_DESTINATION\]$/, why: 'one name twice: upstream\'s output-key check runs before its duplicate check' },
];

// ---------------------------------------------------------------------------------------------
// The generator

const VERSIONS = ['0.42.1', '0.46.0', '0.40.0', '0.41.3', '0.43.0', '0.44.1', '0.45.0', '0.42.0', '1.0.0', '0.42', 'v0.42.1', '0.42.1-rc.1', ''];
const STANDARD = ['falco-rules', 'falco-incubating-rules', 'falco-sandbox-rules', 'falco-default-rules', 'Falco-rules', ''];
const CUSTOM: Rec[] = [
  { configMap: 'my-rules' }, { configMap: 'team.rules' }, { file: 'rules/web.yaml' }, { file: 'rules/team-web.yaml' }, { file: 'rules/team/web.yaml' },
  { configMap: 'My_Rules' }, { configMap: '' }, { configMap: 'a', file: 'rules/web.yaml' }, {}, { resourceName: 'rules-cm' },
  { file: 'rules/missing.yaml' }, { file: 'rules/bad.yaml' }, { file: 'other/x.yaml' }, { file: '../x.yaml' }, { configMap: 'reg-cache-rules' },
];
const DEST_NAMES = ['logging', 'stdout', 'custom', 'central', 'otlp', 'opensearch', 'splunk', 'Logging', 'webhook', ''];
const SECRETS = ['falco-webhook', 'falco.splunk', 'Falco_Webhook', 'falco-reg-cache-x', ''];

const pick = <T>(values: readonly T[], valid: number) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values.slice(0, valid)) }, { weight: 1, arbitrary: fc.constantFrom(...values) });

const destinationArb: fc.Arbitrary<Rec> = fc.record(
  {
    name: pick(DEST_NAMES, 7),
    resourceSecretName: pick(SECRETS, 2),
    enabled: fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  },
  { requiredKeys: ['name'] },
).map((d) => (d.enabled === true && d.name !== 'custom' ? { name: d.name, ...(d.resourceSecretName !== undefined ? { resourceSecretName: d.resourceSecretName } : {}) } : d));

const rulesArb: fc.Arbitrary<Rec> = fc.record(
  {
    standard: fc.oneof(fc.subarray(STANDARD.slice(0, 3)), fc.array(fc.constantFrom(...STANDARD), { maxLength: 3 })),
    custom: fc.array(pick(CUSTOM, 5), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const settingArb: fc.Arbitrary<Rec> = fc
  .record(
    {
      falcoVersion: pick(VERSIONS, 2),
      autoUpdate: fc.boolean(),
      rules: fc.oneof({ weight: 6, arbitrary: rulesArb }, { weight: 1, arbitrary: fc.constant({}) }),
      destinations: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom([{ name: 'logging' }], [{ name: 'stdout' }], [{ name: 'logging' }, { name: 'stdout' }], [{ name: 'custom', resourceSecretName: 'falco-webhook' }, { name: 'stdout' }], [{ name: 'splunk', resourceSecretName: 'falco.splunk' }]) },
        { weight: 4, arbitrary: fc.array(destinationArb, { maxLength: 4 }) },
      ),
      falcoConfig: fc.constantFrom({ resources: { requests: { cpu: '100m', memory: '512Mi' } } }, { resources: { limits: { cpu: '0', memory: '2Ti' } } }),
    },
    { requiredKeys: [] },
  )
  .chain((s) => fc.integer({ min: 0, max: 9 }).map((n) => (n === 0 ? s : Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'falcoConfig')))))
  .map((s) => ({ enabled: true, ...s }));

// ---------------------------------------------------------------------------------------------
// Upstream's verdict on what kyma-fleet renders

const FALCO_STATE = { profileConfigured: true, profile: parseFalcoProfile(PROFILE).profile! };
const RUNTIME = { name: 'case', runtimeID: '0c5e8a3d-7f21-4b6a-9d44-000000000001', shootName: 'c-1', shootProject: 'kyma-dev' } as never;
const secretResource = (name: string) => ({ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } });

interface Rendered {
  providerConfig: Rec;
  resources: Rec[];
}

function renderResolved(config: Rec): Rendered {
  const r = renderFalco({ state: 'enabled', config, runtime: RUNTIME, env: { state: FALCO_STATE, files: new Map(), now: new Date(NOW) } });
  return { providerConfig: r.shootExtension!.providerConfig as Rec, resources: [...(r.shootResources ?? [])] as unknown as Rec[] };
}

/** What kyma-fleet would render for a setting it refuses: the setting as it stands, with its defaults. */
function renderBypass(setting: Rec): Rendered {
  const destinations = ((setting.destinations as Rec[] | undefined) ?? [])
    .filter((d) => d.enabled !== false)
    .map(({ enabled: _e, ...d }) => d)
    .sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
  const resources: Rec[] = [];
  let rules: Rec | undefined;
  if (setting.rules !== undefined) {
    const r = setting.rules as { standard?: string[]; custom?: Rec[] };
    rules = {
      ...(r.standard !== undefined ? { standard: r.standard } : {}),
      ...(r.custom !== undefined
        ? {
            custom: r.custom.map((c) => {
              if (typeof c.resourceName === 'string') {
                resources.push({ name: c.resourceName, resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: c.resourceName } });
                return { resourceName: c.resourceName };
              }
              const name = (c.configMap as string | undefined) ?? (typeof c.file === 'string' ? rulesConfigMapName(c.file) : undefined);
              return name ? { shootConfigMap: name } : {};
            }),
          }
        : {}),
    };
  }
  const secrets = [...new Set(destinations.map((d) => d.resourceSecretName).filter((s): s is string => typeof s === 'string' && s !== ''))].sort();
  resources.push(...secrets.map(secretResource));
  return {
    providerConfig: {
      apiVersion: 'falco.extensions.gardener.cloud/v1alpha1',
      kind: 'FalcoServiceConfig',
      falcoVersion: setting.falcoVersion ?? defaultFalcoVersion(FALCO_STATE.profile, new Date(NOW)),
      autoUpdate: setting.autoUpdate ?? true,
      rules: rules ?? { standard: ['falco-rules'] },
      destinations: destinations.length > 0 ? destinations : [{ name: 'logging' }],
      ...(setting.falcoConfig !== undefined ? { falcoConfig: setting.falcoConfig } : {}),
    },
    resources,
  };
}

interface Upstream {
  accepted: boolean;
  messages: string[];
  mutations: string[];
}

async function upstreamVerdict(oracle: Oracle, rendered: Rendered, otlpLogging: boolean): Promise<Upstream> {
  const shoot = { metadata: { name: 'c-1', namespace: 'garden-kyma-dev' }, spec: { extensions: [{ type: 'shoot-falco-service', providerConfig: rendered.providerConfig }], ...(rendered.resources.length > 0 ? { resources: rendered.resources } : {}) } };
  const [falco, resources] = await Promise.all([
    oracle.ask('falco/validate', { shoot, falcoProfile: PROFILE, now: NOW, otlpLogging }),
    oracle.ask('shoot/validate-resources', { shoot }),
  ]);
  return { accepted: falco.accepted && resources.accepted, messages: [...(falco.errors ?? []), ...(resources.errors ?? [])], mutations: falco.mutations ?? [] };
}

// ---------------------------------------------------------------------------------------------
// Judging one case

interface Judged {
  setting: Rec;
  kymaFleet: ExtensionVerdict;
  upstream: Upstream;
  stricter: { diagnostic: Diagnostic; rule: string }[];
  mirrored: Diagnostic[];
  problems: string[];
  /** Upstream messages kyma-fleet does not carry (both refused). */
  unmatchedMessages: string[];
}

function stricterRule(d: Diagnostic, setting: Rec): string | undefined {
  // A value on a destination that a layer disables never reaches the providerConfig; nor does the
  // other half of a duplicate name one of whose entries is disabled.
  const destinations = (setting.destinations as Rec[] | undefined) ?? [];
  // The entry's position: diagnostics name a destination by its name where that is unique (as explain does).
  const at = d.field.startsWith('extensions.falco.') ? resolveField(d.field.slice('extensions.falco.'.length), setting) : undefined;
  const m = at?.[0] === 'destinations' && typeof at[1] === 'number' ? at[1] : undefined;
  const disabledEntry = STRICTER.find((s) => s.code === 'E_FALCO_DISABLED_ENTRY')!.rule;
  if (m !== undefined && destinations[m]?.enabled === false) return disabledEntry;
  if (m !== undefined && /^duplicate entry/.test(d.message) && destinations.some((x) => x.name === destinations[m]?.name && x.enabled === false)) return disabledEntry;
  // A custom rule written with upstream's resourceName has neither of the fleet's fields: the same refusal as its unknown field.
  const c = /^extensions\.falco\.rules\.custom\[(\d+)\]$/.exec(d.field);
  const custom = c ? ((setting.rules as { custom?: Rec[] } | undefined)?.custom?.[Number(c[1])] ?? {}) : undefined;
  if (custom && /neither configMap nor file/.test(d.message) && Object.keys(custom).some((k) => k !== 'configMap' && k !== 'file')) return STRICTER.find((x) => x.code === 'E_UNKNOWN_FIELD')!.rule;
  return STRICTER.find((s) => s.code === d.code && (!s.message || s.message.test(d.message)))?.rule;
}

async function judge(oracle: Oracle, setting: Rec, kymaFleet: ExtensionVerdict): Promise<Judged> {
  const rendered = kymaFleet.resolved ? renderResolved(kymaFleet.resolved.config as Rec) : renderBypass(setting);
  // accepted: the default admission, or one with --otlp-logging where kyma-fleet warned; refused: with
  // --otlp-logging, so that the landscape's flag is never what tells the two apart
  const otlpLogging = kymaFleet.accepted ? kymaFleet.warnings.some((w) => w.code === 'W_FALCO_OTLP') : true;
  const upstream = await upstreamVerdict(oracle, rendered, otlpLogging);
  const problems: string[] = [];
  const stricter: Judged['stricter'] = [];
  const mirrored: Diagnostic[] = [];
  for (const d of kymaFleet.errors) {
    const rule = stricterRule(d, setting);
    if (rule) stricter.push({ diagnostic: d, rule });
    else mirrored.push(d);
  }
  if (kymaFleet.accepted && !upstream.accepted) problems.push('accepted by kyma-fleet, refused by upstream');
  if (kymaFleet.accepted && upstream.mutations.length > 0) problems.push(`accepted by kyma-fleet, changed by the Falco mutator: ${upstream.mutations.join('; ')}`);
  if (!kymaFleet.accepted && upstream.accepted && mirrored.length > 0) {
    for (const d of mirrored) problems.push(`${d.code} at ${d.field} ("${d.message}"): upstream accepts the setting, and the rule is not a documented stricter one`);
  }
  const unmatchedMessages: string[] = [];
  if (!kymaFleet.accepted && !upstream.accepted && mirrored.length > 0) {
    const ours = kymaFleet.errors.map((d) => `${d.message} [${d.code}]`);
    for (const m of upstream.messages) {
      if (ours.some((o) => o.includes(m))) continue;
      if (REWORDED.some((r) => r.upstream.test(m) && ours.some((o) => r.ours.test(o)))) continue;
      // A message of a check kyma-fleet makes stricter (e.g. the Secret name) or of a value only the bypass sets.
      if (stricter.length > 0) continue;
      unmatchedMessages.push(m);
    }
  }
  for (const m of unmatchedMessages) problems.push(`upstream's message is not in kyma-fleet's: ${m}`);
  return { setting, kymaFleet, upstream, stricter, mirrored, problems, unmatchedMessages };
}

function reproducer(j: Judged): string {
  return [
    `seed=${SEED} setting (extensions.falco of one runtime): ${JSON.stringify(j.setting)}`,
    ...j.problems.map((p) => `  problem: ${p}`),
    `  kyma-fleet: ${j.kymaFleet.accepted ? 'accepted' : 'refused'}`,
    ...j.kymaFleet.errors.map((d) => `    ${d.field}: ${d.message} [${d.code}]`),
    `  upstream:   ${j.upstream.accepted ? 'accepted' : 'refused'}${j.upstream.mutations.length > 0 ? ` (mutator: ${j.upstream.mutations.join('; ')})` : ''}`,
    ...j.upstream.messages.map((m) => `    ${m}`),
  ].join('\n');
}

describeWithFalco('Falco validation, differential against the Falco extension\'s admission', () => {
  let oracle: Oracle;
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-differential-falco-'));
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const verdicts = (settings: Rec[], dir: string) => extensionVerdicts('falco', settings, dir, { fleetSpec: { falcoProfile: 'profiles/falco-profile.yaml' }, files: FILES });

  it(`${CASES} generated settings: nothing kyma-fleet accepts is refused or changed upstream; every stricter refusal is documented`, async () => {
    console.info(`[fast-check] oracle › differential-falco: seed=${SEED} cases=${CASES} (KYMA_FLEET_ORACLE_SEED, KYMA_FLEET_ORACLE_DIFF_CASES)`);
    const settings = fc.sample(settingArb, { seed: SEED, numRuns: CASES });
    const started = Date.now();
    const kf = verdicts(settings, tmp);
    const judged: Judged[] = [];
    for (let i = 0; i < settings.length; i += 200) {
      judged.push(...(await Promise.all(settings.slice(i, i + 200).map((s, k) => judge(oracle, s, kf[i + k]!)))));
    }
    const counts = { cases: judged.length, bothAccept: 0, bothRefuse: 0, acceptedByKymaFleetRefusedByUpstream: 0, refusedByKymaFleetAcceptedByUpstream: 0 };
    const table = new Map<string, { errors: number; stricter: number; mirrored: number }>();
    for (const j of judged) {
      if (j.kymaFleet.accepted && j.upstream.accepted) counts.bothAccept++;
      else if (!j.kymaFleet.accepted && !j.upstream.accepted) counts.bothRefuse++;
      else if (j.kymaFleet.accepted) counts.acceptedByKymaFleetRefusedByUpstream++;
      else counts.refusedByKymaFleetAcceptedByUpstream++;
      for (const d of j.kymaFleet.errors) {
        const s = j.stricter.find((x) => x.diagnostic === d);
        const key = s ? `${d.code} (${s.rule})` : d.code;
        const row = table.get(key) ?? { errors: 0, stricter: 0, mirrored: 0 };
        row.errors++;
        row[s ? 'stricter' : 'mirrored']++;
        table.set(key, row);
      }
    }
    const mutated = judged.filter((j) => j.kymaFleet.accepted && j.upstream.mutations.length > 0).length;
    console.info(`[differential-falco] ${JSON.stringify({ ...counts, acceptedByKymaFleetChangedByMutator: mutated })} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.info(`[differential-falco] per rule (errors kyma-fleet reported):\n${[...table.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rule, r]) => `  ${rule.padEnd(90)} errors=${r.errors} stricter=${r.stricter} mirrored=${r.mirrored}`).join('\n')}`);

    const failing = judged.filter((j) => j.problems.length > 0);
    const shown: string[] = [];
    for (const j of failing.slice(0, 5)) {
      const signature = j.problems.map((p) => p.replace(/: .*/, '')).sort().join('|');
      const small = await shrink(j.setting, async (candidate) => {
        const [v] = verdicts([candidate], fs.mkdtempSync(path.join(tmp, 'shrink-')));
        const c = await judge(oracle, candidate, v!);
        return c.problems.length > 0 && c.problems.map((p) => p.replace(/: .*/, '')).sort().join('|') === signature;
      });
      const [v] = verdicts([small], fs.mkdtempSync(path.join(tmp, 'shrunk-')));
      shown.push(reproducer(await judge(oracle, small, v!)), `  (as generated: ${JSON.stringify(j.setting)})`);
    }
    expect(shown.join('\n\n'), `${failing.length} of ${judged.length} settings disagree; minimal reproducers of the first ones`).toBe('');
    expect(counts.acceptedByKymaFleetRefusedByUpstream).toBe(0);
    expect(mutated).toBe(0);
    // The generator must reach both sides, or the comparison says little.
    expect(counts.bothAccept).toBeGreaterThan(CASES / 20);
    expect(counts.bothRefuse).toBeGreaterThan(CASES / 10);
    expect(counts.refusedByKymaFleetAcceptedByUpstream).toBeGreaterThan(0);
    for (const code of ['E_FALCO_VERSION', 'E_FALCO_RULES', 'E_FALCO_DESTINATION']) expect([...table.keys()].some((k) => k.startsWith(code)), `no case reached ${code}`).toBe(true);
  }, 900_000);
});
