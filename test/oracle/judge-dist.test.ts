// Every render judged by upstream code (issues 16 and 27): the example fleet's dist/ (rendered by the
// CLI, and the committed one) and a generated fleet of 200 runtimes rendered by the CLI. Every enabled
// registry-cache, shoot-falco-service and shoot-lakom-service entry of every Shoot fragment decodes
// strictly and passes its extension's Shoot admission (Falco's mutator changing nothing, its versions
// judged against the fleet's FalcoProfile as of synth's --now); every Runtime fragment maps, by KIM's
// own code, to the registry-cache entry and resources rendered in garden/ (up to KIM's Secret names,
// by the name rule). A refusal or difference fails with a reproducer. Broken copies show that the
// judge (and `npm run oracle -- judge`) fails.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, parseDocument } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateFleet } from '../../bench/generate-fleet';
import { EXAMPLE_FLEET, NOW, REPO, runBinary } from '../helpers/fleet-fixture';
import { main as oracleCli } from './cli';
import { describeWithOracle, falcoSkipReason } from './describe-with-oracle';
import { judgeDist, type JudgeOptions, type JudgeResult } from './judge';
import { Oracle } from './oracle';
import { reproducers } from './reproducer';

let tmp: string;
let oracle: Oracle;

const PROFILE_FILE = path.join(EXAMPLE_FLEET, 'profiles', 'falco-profile.yaml');
/** The example fleet's FalcoProfile snapshot (the generated fleet copies it) and synth's --now. */
const JUDGE: JudgeOptions = { falcoProfile: parse(fs.readFileSync(PROFILE_FILE, 'utf8')), now: NOW };
/** Falco entries are judged where the Falco snapshot is (else listed as not judged, with the reason). */
const falcoVerdicts = (judged: string[]) => (falcoSkipReason() ? ['not-judged'] : judged);

/** Renders fleetDir into <tmp>/<name>/dist with the real CLI. */
function renderWithCli(fleetDir: string, name: string): string {
  const work = path.join(tmp, name);
  fs.mkdirSync(work, { recursive: true });
  const out = path.join(work, 'dist');
  const r = runBinary(['synth', '--fleet', fleetDir, '--out', out, '--now', NOW, '--no-cache'], work);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

function expectAllAccepted(result: JudgeResult, dist: string): void {
  expect(reproducers(result, dist).join('\n\n')).toBe('');
  expect(result.ok).toBe(true);
}

/** How many lines of one entry got each verdict. */
function verdicts(result: JudgeResult, entry: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of result.lines) if (l.entry === entry) out[l.verdict] = (out[l.verdict] ?? 0) + 1;
  return out;
}

function runtimeCount(dist: string): number {
  return fs.readdirSync(path.join(dist, 'runtimes')).length;
}

describeWithOracle('every render judged by upstream code', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-oracle-'));
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the example fleet: every registry-cache entry passes admission, every Runtime maps to its garden/ entry', async () => {
    const dist = renderWithCli(EXAMPLE_FLEET, 'example');
    const result = await judgeDist(oracle, dist, JUDGE);
    expectAllAccepted(result, dist);
    const n = runtimeCount(dist);
    expect(result.counts.equal).toBe(n); // one Runtime fragment per runtime
    expect(verdicts(result, 'spec.resources')).toEqual({ accepted: n }); // one Shoot fragment per runtime
    // Every runtime has a registry-cache entry; the example turns it off on one.
    const registryCache = verdicts(result, 'registry-cache');
    expect(Object.keys(registryCache).sort()).toEqual(['accepted', 'disabled']);
    expect(registryCache.accepted! + registryCache.disabled!).toBe(n);
    // Falco entries pass the Falco admission (the example turns Falco off on some runtimes); Lakom's too.
    expect(Object.keys(verdicts(result, 'shoot-falco-service')).sort()).toEqual(falcoVerdicts(['accepted', 'disabled']));
    expect(Object.keys(verdicts(result, 'shoot-lakom-service')).sort()).toContain('accepted');
    expect(result.lines.filter((l) => l.verdict === 'not-judged' && l.entry !== 'shoot-falco-service')).toEqual([]);
    // The name rule was exercised: runtimes with credentials.
    expect(result.lines.some((l) => l.notes.some((n) => n.startsWith('name rule: reg-cache-')))).toBe(true);
  });

  it('the committed dist/ of the example fleet (its garden/ and kcp/ folders)', async () => {
    const dist = path.join(REPO, 'dist');
    const result = await judgeDist(oracle, dist, JUDGE);
    expectAllAccepted(result, dist);
    expect(result.counts.equal).toBe(runtimeCount(dist));
  });

  it('a generated fleet of 200 runtimes rendered by the CLI', async () => {
    const fleet = path.join(tmp, 'generated', 'fleet');
    const stats = generateFleet(fleet, 200, 16);
    const dist = renderWithCli(fleet, 'generated');
    // The generated fleet sends Falco events to otlp on some runtimes: accepted where the landscape runs
    // the Falco admission with --otlp-logging, refused with upstream's default (docs/testing.md).
    const result = await judgeDist(oracle, dist, { ...JUDGE, otlpLogging: true });
    expectAllAccepted(result, dist);
    if (!falcoSkipReason()) {
      const byDefault = await judgeDist(oracle, dist, JUDGE);
      const refused = byDefault.lines.filter((l) => l.verdict === 'refused');
      expect(refused.length).toBeGreaterThan(0);
      expect(new Set(refused.flatMap((l) => [l.entry, ...l.messages]))).toEqual(new Set(['shoot-falco-service', 'destination "otlp" is not configured']));
    }
    expect(result.counts.equal).toBe(200);
    expect(verdicts(result, 'spec.resources')).toEqual({ accepted: 200 });
    expect(verdicts(result, 'registry-cache')).toEqual({ accepted: 200 - stats.registryCacheDisabled, disabled: stats.registryCacheDisabled });
    expect(Object.keys(verdicts(result, 'shoot-falco-service')).sort()).toEqual(falcoVerdicts(['accepted', 'disabled']));
    expect(stats.registryCacheDisabled).toBeGreaterThan(0);
    expect(stats.cacheOverrides).toBeGreaterThan(0);
  }, 180_000);

  it('fails, with a reproducer, when a Shoot entry is refused or a Runtime differs from KIM (judge and CLI)', async () => {
    const dist = renderWithCli(EXAMPLE_FLEET, 'broken');
    const fragment = (runtime: string, target: string, prefix: string): string => {
      const dir = path.join(dist, 'runtimes', runtime, target);
      return path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith(prefix))!);
    };
    const shootFile = fragment('acme-eu-prod-2', 'garden', 'shoot-');
    const runtimeFile = fragment('acme-eu-prod-1', 'kcp', 'runtime-');

    const judgeArgs = ['judge', dist, '--falco-profile', PROFILE_FILE, '--now', NOW];
    expect(await oracleCli(judgeArgs)).toBe(0);

    // A Shoot cache with a field the extension does not know, and a Runtime cache of another size.
    const shoot = parseDocument(fs.readFileSync(shootFile, 'utf8'));
    shoot.setIn(['spec', 'extensions', 0, 'providerConfig', 'caches', 0, 'size'], '10Gi');
    fs.writeFileSync(shootFile, shoot.toString());
    // And a Shoot whose spec.resources names one Secret twice.
    const usShootFile = fragment('acme-us-prod-1', 'garden', 'shoot-');
    const usShoot = parseDocument(fs.readFileSync(usShootFile, 'utf8'));
    const resources = usShoot.toJS().spec.resources as unknown[];
    usShoot.setIn(['spec', 'resources'], [...resources, resources[0]]);
    fs.writeFileSync(usShootFile, usShoot.toString());
    const rt = parseDocument(fs.readFileSync(runtimeFile, 'utf8'));
    const items = rt.toJS().spec.imageRegistryCache as { config: { upstream: string } }[];
    const europe = items.findIndex((i) => i.config.upstream === 'europe-docker.pkg.dev');
    rt.setIn(['spec', 'imageRegistryCache', europe, 'config', 'volume', 'size'], '31Gi');
    fs.writeFileSync(runtimeFile, rt.toString());
    // A Falco entry on a version past its date, another without its defaults (the mutator adds them),
    // and a Lakom entry with a scope Lakom does not know.
    const falcoIndex = (doc: ReturnType<typeof parseDocument>, type: string) => (doc.toJS().spec.extensions as { type: string }[]).findIndex((e) => e.type === type);
    shoot.setIn(['spec', 'extensions', falcoIndex(shoot, 'shoot-falco-service'), 'providerConfig', 'falcoVersion'], '0.43.0');
    shoot.setIn(['spec', 'extensions', falcoIndex(shoot, 'shoot-lakom-service'), 'providerConfig', 'scope'], 'Namespace');
    fs.writeFileSync(shootFile, shoot.toString());
    usShoot.deleteIn(['spec', 'extensions', falcoIndex(usShoot, 'shoot-falco-service'), 'providerConfig', 'autoUpdate']);
    fs.writeFileSync(usShootFile, usShoot.toString());

    const result = await judgeDist(oracle, dist, JUDGE);
    expect(result.ok).toBe(false);
    const text = reproducers(result, dist).join('\n\n');
    expect(text).toContain('runtimes/acme-eu-prod-2/garden/');
    expect(text).toContain('runtimes/acme-eu-prod-1/kcp/');
    expect(text).toContain('failed to decode providerConfig: strict decoding error: unknown field "caches[0].size"');
    expect(text).toContain('kyma-fleet: accepted (rendered by synth)');
    expect(text).toMatch(/runtimes\/acme-us-prod-1\/garden\/\S+ \(Shoot \S+\) spec.resources\n/);
    expect(text).toMatch(/spec.resources\[\d\].name: Duplicate value: "[^"]+"/);
    expect(text).toMatch(/providerConfig \(decoded\)\.caches\[\d\]\.volume\.size: KIM "31Gi", kyma-fleet "30Gi"/);
    expect(text).toContain('providerConfig.scope: Unsupported value: "Namespace"');
    if (!falcoSkipReason()) {
      expect(text).toContain('chosen version is marked as deprecated');
      expect(text).toContain('the Falco mutator changes providerConfig.autoUpdate: rendered (none), mutator true');
    }
    expect(await oracleCli(judgeArgs)).toBe(1);
  });

  it('npm run oracle -- judge: usage errors exit 2', async () => {
    expect(await oracleCli(['judge'])).toBe(2);
    expect(await oracleCli(['judge', tmp, '--bogus'])).toBe(2);
    expect(await oracleCli(['judge', path.join(tmp, 'no-such-dist')])).toBe(2);
    expect(await oracleCli(['frobnicate'])).toBe(2);
  });
});
