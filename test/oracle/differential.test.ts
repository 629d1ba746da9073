// Differential testing of registry-cache validation against upstream code (issue 16). fast-check draws
// settings near the edges of the rules (hosts with ports 0/1/65535/65536/leading zeros, schemes, IP
// literals, upper case, punycode, trailing dots, 63/64-character labels, 253/254-character hosts;
// quantities; durations; URLs and proxies with paths, user info, ports, queries and fragments;
// Secret names; duplicate caches). For each: kyma-fleet's verdict (its real check path on a fleet
// holding the setting) and upstream's (the extension's Shoot admission and Gardener's validation of
// spec.resources, on the providerConfig kyma-fleet's render.ts builds, validation bypassed where
// kyma-fleet refuses). Each of kyma-fleet's errors is also judged alone: the offending value, in an
// otherwise valid providerConfig, must be refused by upstream too, or the rule must be in STRICTER
// (a documented, deliberate stricter rule; docs/testing.md "Stricter than upstream, on purpose").
// Every upstream field error must be matched by a kyma-fleet error at the same field.
// Seed: fixed under CI, new per local run (printed); KYMA_FLEET_ORACLE_SEED=<seed> repeats a run,
// KYMA_FLEET_ORACLE_DIFF_CASES=<n> draws more settings (default 2,000).
// Falco and Lakom have differential tests of their own (differential-falco.test.ts, differential-lakom.test.ts).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/lib/diagnostics';
import { formatSegments, resolveField } from '../../src/lib/field-path';
import { describeWithOracle } from './describe-with-oracle';
import { Oracle } from './oracle';
import {
  type KymaFleetVerdict,
  kymaFleetVerdicts,
  ownLayerConfig,
  providerConfigOf,
  renderShootEntry,
  type Setting,
  type UpstreamVerdict,
  upstreamVerdict,
} from './registry-cache-verdicts';

const SEED = Number(process.env.KYMA_FLEET_ORACLE_SEED ?? (process.env.CI === 'true' ? 0x16_d1ff : Date.now() % 0x7fffffff));
const CASES = Number(process.env.KYMA_FLEET_ORACLE_DIFF_CASES ?? 2000);

type Rec = Record<string, unknown>;

/**
 * kyma-fleet's rules that are stricter than upstream on purpose: code (and, where one code covers
 * several checks, the message) → why. docs/testing.md lists the same table.
 */
const STRICTER: readonly { code: string; message?: RegExp; value?: (v: unknown) => boolean; rule: string; reason: string }[] = [
  {
    code: 'E_SECRET_NAME',
    message: /must not contain "reg-cache-"/,
    rule: 'secretReferenceName without "reg-cache-"',
    reason: 'KIM drops and rebuilds every Shoot resource whose name contains "reg-cache-" (its own Garden Secret copies)',
  },
  {
    code: 'E_SECRET_NAME',
    message: /RFC 1123 subdomain/,
    rule: 'secretReferenceName is a DNS-1123 subdomain',
    reason: 'it names a Secret on the runtime, which its API server stores only under such a name, and the Kyma registry-cache webhook requires that Secret to exist; Gardener checks only that spec.resources has the name',
  },
  {
    code: 'E_REGCACHE_NAMESPACE',
    rule: 'namespace is a DNS-1123 label',
    reason: 'the runtime namespace of the RegistryCacheConfigs is not in the providerConfig; a Kubernetes namespace name',
  },
  {
    code: 'E_OUTPUT_COLLISION',
    rule: 'two upstreams give one RegistryCacheConfig name',
    reason: 'e.g. my-reg.io:5000 and my-reg.io-5000: one RegistryCacheConfig object on the runtime would replace the other; upstream sees two distinct upstreams',
  },
  {
    code: 'E_REQUIRED',
    message: /^Required value/,
    rule: 'garbageCollection needs ttl',
    reason: 'the Kyma RegistryCacheConfig CRD (and the Runtime CRD) require ttl inside garbageCollection; Gardener defaults an empty garbageCollection',
  },
  {
    code: 'E_TOO_LONG',
    message: /at most 253 characters/,
    rule: 'secretReferenceName at most 253 characters',
    reason: 'a Secret name on the runtime is at most 253 characters (the schema caps it before the name rules run)',
  },
  {
    code: 'E_QUANTITY',
    value: (v) => typeof v === 'string' && v.trim() !== v,
    rule: 'volume.size without surrounding spaces',
    reason: "the Kyma RegistryCacheConfig CRD's (and the Runtime CRD's) pattern for volume.size refuses them; Go's JSON decoding of a Quantity trims them",
  },
];

/** Rules that mirror an upstream check: the value alone must be refused by upstream too. */
const MIRRORED = new Set(['E_REGCACHE_UPSTREAM', 'E_REGCACHE_DUPLICATE', 'E_REGCACHE_URL', 'E_QUANTITY', 'E_REGCACHE_STORAGE_CLASS', 'E_DURATION', 'E_REGCACHE_NO_CACHES']);

const NOT_IN_PROVIDER_CONFIG = new Set(['E_OUTPUT_COLLISION', 'E_REGCACHE_NAMESPACE']);

// ---------------------------------------------------------------------------------------------
// The generator

const L63 = 'a'.repeat(63);
const L64 = 'b'.repeat(64);
const HOST253 = `${L63}.${L63}.${L63}.${'c'.repeat(61)}`;
const HOST254 = `${L63}.${L63}.${L63}.${'c'.repeat(62)}`;
const HOSTS = [
  'docker.io', 'ghcr.io', 'quay.io', 'registry.acme.example', 'my-reg.io', 'localhost', '10.1.2.3', 'xn--bcher-kva.example',
  'Docker.io', 'REGISTRY.IO', 'reg.example.com.', '[::1]', '::1', '[2001:db8::1]', 'bücher.example', 'my_reg.io', '-reg.io',
  'reg-.io', `${L63}.io`, `${L64}.io`, HOST253, HOST254, '', '1.2.3.4.5', 'a..b', '%41.io',
];
const PORTS = ['', ':0', ':1', ':5000', ':65535', ':65536', ':05000', ':080', ':', ':abc', ':99999999999'];
const VALID_HOSTS = HOSTS.slice(0, 8);
const host = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...VALID_HOSTS) }, { weight: 2, arbitrary: fc.constantFrom(...HOSTS) });
const port = fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 2, arbitrary: fc.constantFrom(...PORTS) });

const upstreamArb = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(host, port).map(([h, p]) => h + p) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('https://', 'http://', 'HTTPS://'), host, port, fc.constantFrom('', '/', '/v2', '/org/x')).map((t) => t.join('')) },
  { weight: 1, arbitrary: fc.tuple(host, port, fc.constantFrom('/', '/v2', '/org/x')).map((t) => t.join('')) },
);

const urlArb = fc
  .tuple(
    fc.oneof({ weight: 8, arbitrary: fc.constantFrom('https://', 'http://') }, { weight: 1, arbitrary: fc.constantFrom('ftp://', 'HTTPS://', '', 'https:', 'https:///', '//') }),
    fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('u:p@', 'token@', 'u:%zz@', '@') }),
    host,
    port,
    fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '/v2', '/v2/', '/%zz', '/a b') }),
    fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('?x=1', '?') }),
    fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('#f', '#') }),
  )
  .map((t) => t.join(''));

const QUANTITIES = [
  '1e3', '10Gi', '1.5Gi', '0.5', '0', '-1Gi', '10GB', '1Ki', '1e400', '99999999999999999999999Ei', '1', '100Mi', '+1Gi', '.5Gi', '1.', '0.0',
  '-0', '1e-3', '1E3', '1K', '1k', '1m', ' 1Gi', '1Gi ', '1e1.5', '1 Gi', '0x10', '', '1Ei', '8Ei', '-0.001', '1n', '1e-10',
];
const DURATIONS = [
  '0s', '1h30m', '1.5h', '168h0m0s', '-1h', '7d', '', '0', '1h 30m', '+1h', '1x', '.5h', '1e3s', '-0s', '9223372036854775807ns',
  '9223372036854775808ns', '2562047h', '2562048h', 'P7D', '1µs', '168h', '1h-1m', '.s', '-',
];
const NAMES = ['pull-a', 'quay.pull', 'Pull_B', 'reg-cache-x', 'my-reg-cache-x', '-bad', 'a.', `${'s'.repeat(253)}`, `${'s'.repeat(254)}`, 'a_b', 'UPPER'];
const STORAGE_CLASSES = ['premium-rwo', 'standard', 'gp3.fast', 'Premium_SSD', '-bad', `${'s'.repeat(253)}`, 'a..b'];

/** The first `valid` values of a list are ones upstream accepts; draw them half of the time. */
const edgy = (values: readonly string[], valid: number) => fc.oneof(fc.constantFrom(...values.slice(0, valid)), fc.constantFrom(...values));

const cacheArb: fc.Arbitrary<Rec> = fc.record(
  {
    upstream: upstreamArb,
    remoteURL: urlArb,
    volume: fc.record({ size: edgy(QUANTITIES, 4), storageClassName: edgy(STORAGE_CLASSES, 3) }, { requiredKeys: [] }),
    garbageCollection: fc.oneof({ weight: 9, arbitrary: edgy(DURATIONS, 2).map((ttl) => ({ ttl })) }, { weight: 1, arbitrary: fc.constant({}) }),
    secretReferenceName: edgy(NAMES, 2),
    proxy: fc.record({ httpProxy: urlArb, httpsProxy: urlArb }, { requiredKeys: [] }),
    enabled: fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 4, arbitrary: fc.constant(true) }),
  },
  { requiredKeys: ['upstream'] },
);

// Caches with values upstream accepts (edges included: ports 1 and 65535, IPv4, punycode, 0s, 1e3,
// 63-character labels and 253-character hosts, "/" as path), so that both verdicts are reached often.
const validHost = fc.constantFrom(...VALID_HOSTS, `${L63}.io`, HOST253);
const validPort = fc.constantFrom('', '', ':1', ':5000', ':65535');
const validCacheArb: fc.Arbitrary<Rec> = fc.record(
  {
    upstream: fc.tuple(validHost, validPort).map(([h, p]) => h + p),
    remoteURL: fc.tuple(fc.constantFrom('https://', 'http://'), validHost, validPort, fc.constantFrom('', '/')).map((t) => t.join('')),
    volume: fc.record({ size: fc.constantFrom(...QUANTITIES.slice(0, 4)), storageClassName: fc.constantFrom(...STORAGE_CLASSES.slice(0, 3)) }, { requiredKeys: [] }),
    garbageCollection: fc.constantFrom(...DURATIONS.slice(0, 4)).map((ttl) => ({ ttl })),
    secretReferenceName: fc.constantFrom(...NAMES.slice(0, 2)),
    proxy: fc.record({ httpProxy: fc.constantFrom('http://proxy.example:3128', 'https://10.1.2.3:8443/') }, { requiredKeys: [] }),
  },
  { requiredKeys: ['upstream'] },
);

/** A valid cache with one field taken from an edge cache: one fault at a time reaches the case verdicts. */
const oneEdgeCacheArb: fc.Arbitrary<Rec> = fc
  .tuple(validCacheArb, cacheArb, fc.constantFrom('upstream', 'remoteURL', 'volume', 'garbageCollection', 'secretReferenceName', 'proxy'))
  .map(([valid, edge, key]) => (edge[key] === undefined ? valid : { ...valid, [key]: edge[key] }));

const settingArb: fc.Arbitrary<Setting> = fc
  .record({
    caches: fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 15, arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: validCacheArb }, { weight: 2, arbitrary: oneEdgeCacheArb }, { weight: 1, arbitrary: cacheArb }), { minLength: 1, maxLength: 3 }) }),
    namespace: fc.option(fc.constantFrom('kyma-system', 'registry', 'a'.repeat(63), 'Kyma-System', 'ns_1'), { nil: undefined, freq: 4 }),
    duplicate: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ caches, namespace, duplicate }) => {
    // One in six settings with two or more caches repeats an upstream (or its derived name).
    const out = caches.map((c) => ({ ...c }));
    if (duplicate === 0 && out.length >= 2) out[out.length - 1]!.upstream = out[0]!.upstream;
    if (duplicate === 1 && out.length >= 2 && typeof out[0]!.upstream === 'string') out[out.length - 1]!.upstream = String(out[0]!.upstream).replace(':', '-');
    return { enabled: true, ...(namespace !== undefined ? { namespace } : {}), caches: out };
  });

// ---------------------------------------------------------------------------------------------
// Judging one case

const PREFIX = 'extensions.registry-cache.';
const UPSTREAM_PREFIX = 'spec.extensions[0].providerConfig.';

/** An upstream field `caches[1].volume.size` → ['caches', 1, 'volume', 'size']. */
function parseField(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/**
 * A kyma-fleet diagnostic's field below the extension as a path into the setting: it names a cache
 * by its upstream (`caches[upstream=docker.io].volume.size`, as explain does), upstream counts.
 */
function ourPath(d: Diagnostic, setting: Setting): (string | number)[] {
  return d.field.startsWith(PREFIX) ? (resolveField(d.field.slice(PREFIX.length), setting) ?? []) : [];
}

function valueAt(root: unknown, p: readonly (string | number)[]): unknown {
  let node = root;
  for (const seg of p) node = node && typeof node === 'object' ? (node as Rec)[seg as string] : undefined;
  return node;
}

function withValueAt(p: readonly (string | number)[], value: unknown): Rec {
  const cache: Rec = { upstream: 'probe.example' };
  let node = cache;
  p.forEach((seg, i) => {
    if (i === p.length - 1) node[seg as string] = value;
    else node = (node[seg as string] ??= {}) as Rec;
  });
  return cache;
}

type Classification = 'agreed' | 'stricter' | 'bug';

interface JudgedDiagnostic {
  diagnostic: Diagnostic;
  code: string;
  /** Upstream refuses the value alone (undefined: the value is not in the providerConfig). */
  upstreamRefuses?: boolean;
  upstreamMessages: string[];
  classification: Classification;
  stricterRule?: string;
}

interface Judged {
  setting: Setting;
  kymaFleet: KymaFleetVerdict;
  upstream: UpstreamVerdict;
  diagnostics: JudgedDiagnostic[];
  /** Upstream field errors at fields where kyma-fleet reported nothing. */
  missed: string[];
  problems: string[];
}

/** Upstream on the offending value alone, in an otherwise valid providerConfig. */
async function probeAlone(oracle: Oracle, d: Diagnostic, setting: Setting): Promise<{ refuses?: boolean; messages: string[] }> {
  const rel = ourPath(d, setting);
  if (d.code === 'E_REGCACHE_NO_CACHES') {
    const r = await oracle.ask('registry-cache/validate-config', { providerConfig: providerConfigOf([]) });
    return { refuses: r.fieldErrors.length > 0, messages: r.fieldErrors.map((e) => e.error) };
  }
  if (rel[0] !== 'caches' || typeof rel[1] !== 'number' || rel.length < 3) return { messages: [] };
  const sub = rel.slice(2);
  const value = valueAt(setting, rel);
  if (sub[0] === 'secretReferenceName') {
    const name = String(value);
    const resources = [{ name, resourceRef: { apiVersion: 'v1', kind: 'Secret', name } }];
    const pc = providerConfigOf([{ upstream: 'probe.example', secretReferenceName: name }]);
    const [a, r] = await Promise.all([
      oracle.ask('registry-cache/validate', { providerConfig: pc, resources, standInSecrets: true }),
      oracle.ask('shoot/validate-resources', { shoot: { spec: { resources } } }),
    ]);
    return { refuses: !a.accepted || !r.accepted, messages: [...(a.errors ?? []), ...(r.errors ?? [])] };
  }
  const caches = d.code === 'E_REGCACHE_DUPLICATE' ? [{ upstream: value }, { upstream: value }] : [sub[0] === 'upstream' ? { upstream: value } : withValueAt(sub, value)];
  if (sub[0] === 'garbageCollection' && sub.length === 1) caches[0] = { upstream: 'probe.example', garbageCollection: value };
  const r = await oracle.ask('registry-cache/validate-config', { providerConfig: providerConfigOf(caches as Rec[]) });
  if (r.decodeError !== undefined) return { refuses: true, messages: [r.decodeError] };
  return { refuses: r.fieldErrors.length > 0, messages: r.fieldErrors.map((e) => e.error) };
}

/** Checks on a cache entry with `enabled: false`: upstream never sees that entry. */
const DISABLED_ENTRY_RULE = {
  rule: 'a cache with enabled: false is checked too',
  reason: 'layer rules check every value a file sets, before layering: a cache a file disables must still be well-formed, and an upstream appears once per list even where one of the two entries is disabled; the disabled entry never reaches the providerConfig',
};

function stricterRuleOf(d: Diagnostic, setting: Setting): string | undefined {
  const rel = ourPath(d, setting);
  if (rel[0] === 'caches' && typeof rel[1] === 'number' && setting.caches?.[rel[1]]?.enabled === false) return DISABLED_ENTRY_RULE.rule;
  // A duplicate of a disabled entry: upstream sees one of the two only.
  if (d.code === 'E_REGCACHE_DUPLICATE' && typeof rel[1] === 'number') {
    const upstream = setting.caches?.[rel[1]]?.upstream;
    if (setting.caches?.some((c, j) => j < (rel[1] as number) && c.upstream === upstream && c.enabled === false)) return DISABLED_ENTRY_RULE.rule;
  }
  const value = valueAt(setting, rel);
  return STRICTER.find((s) => s.code === d.code && (!s.message || s.message.test(d.message)) && (!s.value || s.value(value)))?.rule;
}

/** JSON with sorted keys. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
}

async function judge(oracle: Oracle, setting: Setting, kymaFleet: KymaFleetVerdict): Promise<Judged> {
  const problems: string[] = [];
  const own = ownLayerConfig(setting);
  const config = kymaFleet.resolved ?? own.config;
  if (kymaFleet.resolved) {
    // The bypass (own layer) must be what kyma-fleet resolves where it accepts.
    const sorted = [...(own.config.caches as Rec[])].sort((a, b) => (String(a.upstream) < String(b.upstream) ? -1 : 1));
    if (canonical(sorted) !== canonical(kymaFleet.resolved.caches)) problems.push(`resolution differs from the own-layer bypass: ${JSON.stringify(kymaFleet.resolved.caches)}`);
  }
  const upstream = await upstreamVerdict(oracle, renderShootEntry(config));
  const diagnostics = await Promise.all(
    kymaFleet.errors.map(async (d): Promise<JudgedDiagnostic> => {
      // Rules over things that are not in the providerConfig (names on the runtime) have no upstream counterpart.
      const probe = NOT_IN_PROVIDER_CONFIG.has(d.code) ? { messages: [] } : await probeAlone(oracle, d, setting);
      const stricterRule = stricterRuleOf(d, setting);
      // A value on a disabled entry never reaches upstream: stricter by construction (if it is well-formed, nothing is reported).
      const classification: Classification = stricterRule === DISABLED_ENTRY_RULE.rule ? 'stricter' : probe.refuses ? 'agreed' : stricterRule ? 'stricter' : 'bug';
      return { diagnostic: d, code: d.code, ...(probe.refuses !== undefined ? { upstreamRefuses: probe.refuses } : {}), upstreamMessages: probe.messages, classification, ...(stricterRule ? { stricterRule } : {}) };
    }),
  );
  if (!kymaFleet.accepted && kymaFleet.errors.length === 0) problems.push('refused by kyma-fleet without an error for the runtime');
  if (kymaFleet.accepted && !upstream.accepted) problems.push('accepted by kyma-fleet, refused by upstream');
  if (!kymaFleet.accepted && upstream.accepted && !diagnostics.some((d) => d.classification === 'stricter')) problems.push('refused by kyma-fleet, accepted by upstream, not by a documented stricter rule');
  for (const d of diagnostics) if (d.classification === 'bug') problems.push(`${d.code} at ${d.diagnostic.field}: upstream accepts the value alone, and the rule is not a documented stricter one`);
  // Every upstream field error must be one kyma-fleet reports too (same field, or the field's cache entry).
  const missed: string[] = [];
  if (upstream.decodeError === undefined && !kymaFleet.accepted) {
    const ours = new Set(kymaFleet.errors.map((d) => formatSegments(ourPath(d, setting))));
    for (const fe of upstream.fieldErrors) {
      const rel = parseField(fe.field.slice(UPSTREAM_PREFIX.length));
      if (rel[0] === 'caches' && typeof rel[1] === 'number') rel[1] = own.layerIndex[rel[1]] ?? rel[1];
      const field = rel.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '').replace(/\.\[/g, '[');
      // "at least one cache" is a rule over resolved settings, which kyma-fleet runs only on valid layers.
      if (field === 'caches' && fe.type === 'FieldValueRequired' && ours.size > 0) continue;
      if (![...ours].some((o) => field === o || field.startsWith(`${o}.`) || field.startsWith(`${o}[`) || (field === 'caches' && o === 'enabled'))) missed.push(fe.error);
    }
  }
  for (const m of missed) problems.push(`upstream refuses a field kyma-fleet accepts: ${m}`);
  return { setting, kymaFleet, upstream, diagnostics, missed, problems };
}

/** Greedy shrinking: drop caches and fields while the same problems remain. */
async function minimize(oracle: Oracle, judged: Judged, workDir: string): Promise<Judged> {
  const signature = (j: Judged) => j.problems.map((p) => p.replace(/ at \S+/, '').replace(/: .*/, '')).sort().join('|');
  const target = signature(judged);
  let best = judged;
  const candidates = (s: Setting): Setting[] => {
    const caches = s.caches ?? [];
    const out: Setting[] = [];
    caches.forEach((_, i) => out.push({ ...s, caches: caches.filter((__, j) => j !== i) }));
    caches.forEach((c, i) => {
      for (const key of Object.keys(c)) if (key !== 'upstream') out.push({ ...s, caches: caches.map((x, j) => (j === i ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== key)) : x)) });
    });
    if (s.namespace !== undefined) out.push({ ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'namespace')), caches } as Setting);
    return out;
  };
  for (let progress = true; progress; ) {
    progress = false;
    for (const candidate of candidates(best.setting)) {
      const [kf] = kymaFleetVerdicts([candidate], fs.mkdtempSync(path.join(workDir, 'candidate-')));
      const j = await judge(oracle, candidate, kf!);
      if (j.problems.length > 0 && signature(j) === target) {
        best = j;
        progress = true;
        break;
      }
    }
  }
  return best;
}

function reproducer(j: Judged): string {
  return [
    `seed=${SEED} setting (extensions.registry-cache of one runtime): ${JSON.stringify(j.setting)}`,
    ...j.problems.map((p) => `  problem: ${p}`),
    `  kyma-fleet: ${j.kymaFleet.accepted ? 'accepted' : 'refused'}`,
    ...j.kymaFleet.errors.map((d) => `    ${d.field}: ${d.message} [${d.code}]`),
    `  upstream:   ${j.upstream.accepted ? 'accepted' : 'refused'}`,
    ...j.upstream.messages.map((m) => `    ${m}`),
    ...j.diagnostics.filter((d) => d.classification === 'bug').map((d) => `  ${d.code} alone, upstream: ${d.upstreamMessages.join('; ') || 'accepted'}`),
  ].join('\n');
}

describeWithOracle('registry-cache validation, differential against upstream', () => {
  let oracle: Oracle;
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-differential-'));
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(`${CASES} generated settings: nothing kyma-fleet accepts is refused upstream; every stricter refusal is documented`, async () => {
    console.info(`[fast-check] oracle › differential: seed=${SEED} cases=${CASES} (KYMA_FLEET_ORACLE_SEED, KYMA_FLEET_ORACLE_DIFF_CASES)`);
    const settings = fc.sample(settingArb, { seed: SEED, numRuns: CASES });
    const started = Date.now();
    const verdicts = kymaFleetVerdicts(settings, tmp);
    const judged: Judged[] = [];
    for (let i = 0; i < settings.length; i += 200) {
      judged.push(...(await Promise.all(settings.slice(i, i + 200).map((s, k) => judge(oracle, s, verdicts[i + k]!)))));
    }
    const counts = { cases: judged.length, bothAccept: 0, bothRefuse: 0, acceptedByKymaFleetRefusedByUpstream: 0, refusedByKymaFleetAcceptedByUpstream: 0 };
    const table = new Map<string, { diagnostics: number; agreed: number; stricter: number; bugs: number }>();
    for (const j of judged) {
      if (j.kymaFleet.accepted && j.upstream.accepted) counts.bothAccept++;
      else if (!j.kymaFleet.accepted && !j.upstream.accepted) counts.bothRefuse++;
      else if (j.kymaFleet.accepted) counts.acceptedByKymaFleetRefusedByUpstream++;
      else counts.refusedByKymaFleetAcceptedByUpstream++;
      for (const d of j.diagnostics) {
        const key = d.stricterRule && d.classification === 'stricter' ? `${d.code} (${d.stricterRule})` : d.code;
        const row = table.get(key) ?? { diagnostics: 0, agreed: 0, stricter: 0, bugs: 0 };
        row.diagnostics++;
        row[d.classification === 'agreed' ? 'agreed' : d.classification === 'stricter' ? 'stricter' : 'bugs']++;
        table.set(key, row);
      }
    }
    console.info(`[differential] ${JSON.stringify(counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.info(`[differential] per rule (errors kyma-fleet reported; agreed: upstream refuses the value alone too):\n${[...table.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([rule, r]) => `  ${rule.padEnd(72)} errors=${r.diagnostics} agreed=${r.agreed} stricter=${r.stricter} bugs=${r.bugs}`)
      .join('\n')}`);

    const failing = judged.filter((j) => j.problems.length > 0);
    const shown: string[] = [];
    fs.mkdirSync(path.join(tmp, 'minimize'), { recursive: true });
    for (const j of failing.slice(0, 5)) shown.push(reproducer(await minimize(oracle, j, path.join(tmp, 'minimize'))), `  (as generated: ${JSON.stringify(j.setting)}; ${j.problems.length} problems)`);
    expect(shown.join('\n\n'), `${failing.length} of ${judged.length} settings disagree; minimal reproducers of the first ones`).toBe('');
    expect(counts.acceptedByKymaFleetRefusedByUpstream).toBe(0);
    // The generator must reach both sides and every rule, or the comparison says little.
    expect(counts.bothAccept).toBeGreaterThan(CASES / 20);
    expect(counts.bothRefuse).toBeGreaterThan(CASES / 5);
    expect(counts.refusedByKymaFleetAcceptedByUpstream).toBeGreaterThan(0);
    for (const code of MIRRORED) expect(table.has(code), `no case reached ${code}`).toBe(true);
  }, 600_000);
});
