// The bench's diff-wide scenario (bench/diff-wide.ts, issue 29) measures what it claims: the
// fleet-wide change is a fleet validate accepts, it changes every runtime (and the Shoot of every
// runtime with registry-cache on), the built CLI's pull-request comment reports exactly that with
// its consequence counts, and the check the bench runs after every diff refuses a comment that says
// anything else. Runs the built CLI (npm run build first), as the bench does.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyWideChange, checkWideComment, parseDiffComment, statFingerprint, WIDE_MODULE, wideExpectation, type WideChange } from '../bench/diff-wide';
import { generateFleet, type FleetStats } from '../bench/generate-fleet';
import { checkFleet } from '../src/run/check';
import { BIN, NOW, REPO } from './helpers/fleet-fixture';

const N = 60;
let tmp: string;
let stats: FleetStats;
let wide: WideChange;
let comment: string;

function cli(args: string[], cacheDir: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args, '--now', NOW], { cwd: REPO, encoding: 'utf8', env: { ...process.env, KYMA_FLEET_CACHE_DIR: cacheDir } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-diff-wide-'));
  stats = generateFleet(path.join(tmp, 'fleet'), N, 42);
  fs.cpSync(path.join(tmp, 'fleet'), path.join(tmp, 'wide'), { recursive: true });
  wide = applyWideChange(path.join(tmp, 'wide'));
  const synth = cli(['synth', '--fleet', path.join(tmp, 'fleet'), '--out', path.join(tmp, 'dist')], path.join(tmp, 'cache-synth'));
  expect(synth.code, synth.stderr).toBe(0);
  const diff = cli(['diff', '--fleet', path.join(tmp, 'wide'), '--out', path.join(tmp, 'dist'), '--output', 'markdown', '--output-file', path.join(tmp, 'full.diff')], path.join(tmp, 'cache-diff'));
  expect(diff.code, diff.stderr).toBe(0);
  comment = diff.stdout;
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the fleet-wide change', () => {
  it('is a fleet validate accepts (the one warning the generated fleet has on purpose aside)', () => {
    const r = checkFleet({ fleetDir: path.join(tmp, 'wide'), cwd: REPO, now: new Date(NOW) });
    expect(r.ok).toBe(true);
    expect(r.diagnostics.filter((d) => d.code !== 'W_FALCO_OTLP')).toEqual([]);
  });

  it('reaches every runtime, and the Shoot of every runtime with registry-cache on', () => {
    expect(wide.runtimes).toBe(N);
    expect(stats.registryCacheDisabled).toBeGreaterThan(0);
    expect(wide.registryCacheOn).toBe(N - stats.registryCacheDisabled);
    const got = parseDiffComment(comment);
    expect(got.runtimes).toEqual({ added: 0, changed: N, removed: 0 });
    expect(got.consequences).toEqual({ 'module-installed': N, 'shoot-reconcile': N - stats.registryCacheDisabled });
    expect(fs.statSync(path.join(tmp, 'full.diff')).size).toBeGreaterThan(0);
  });

  it('refuses a fleet that already has the change, and one where a runtime names the module', () => {
    expect(() => applyWideChange(path.join(tmp, 'wide'))).toThrow(/default module already/);
    const other = path.join(tmp, 'named');
    fs.cpSync(path.join(tmp, 'fleet'), other, { recursive: true });
    const file = path.join(other, 'runtimes', fs.readdirSync(path.join(other, 'runtimes')).sort()[0]!);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, /\n {2}modules:\n/.test(text) ? text.replace(/\n {2}modules:\n/, `\n  modules:\n    - name: ${WIDE_MODULE}\n`) : text.replace(/\nspec:\n/, `\nspec:\n  modules:\n    - name: ${WIDE_MODULE}\n`));
    expect(() => applyWideChange(other)).toThrow(/named in 1 group or runtime file/);
  });
});

describe("the bench's check of the comment", () => {
  it("accepts the built CLI's comment for the change", () => {
    expect(() => checkWideComment(comment, wideExpectation(wide, true))).not.toThrow();
    // A build before issue 29 has no consequence section: only the summary is required of it.
    expect(() => checkWideComment(comment, wideExpectation(wide, false))).not.toThrow();
  });

  it('refuses a comment with another count of changed runtimes or of a consequence class', () => {
    expect(() => checkWideComment(comment, { changedRuntimes: N + 1 })).toThrow(/expected 0 new, 61 changed/);
    expect(() => checkWideComment(comment, wideExpectation({ ...wide, registryCacheOn: wide.registryCacheOn - 1 }, true))).toThrow(/consequence shoot-reconcile/);
    expect(() => checkWideComment(comment.replace(/^#### What the change does on the clusters\n/m, '#### Something else\n'), wideExpectation(wide, true))).toThrow(/no consequence section/);
    expect(() => checkWideComment(comment + 'x'.repeat(60000), wideExpectation(wide, true))).toThrow(/not under 60000/);
  });

  it('refuses the comment of a diff that changed nothing', () => {
    const same = cli(['diff', '--fleet', path.join(tmp, 'fleet'), '--out', path.join(tmp, 'dist'), '--output', 'markdown'], path.join(tmp, 'cache-same'));
    expect(same.code).toBe(0);
    // An empty diff's comment has no summary of runtimes at all.
    expect(() => checkWideComment(same.stdout, wideExpectation(wide, true))).toThrow(/no "runtimes: A new, C changed, R removed" summary/);
  });

  it('reads counts with thousands separators', () => {
    const md = '0 added, 1 changed, 0 removed files; runtimes: 0 new, 10000 changed, 0 removed\n\n#### What the change does on the clusters\n\n| consequence | severity | runtimes |\n|---|---|---:|\n| module installed `module-installed` | routine | 10,000 |\n| **cache removed (images lost)** `cache-removed` | destructive | 1,234 |\n\n';
    expect(parseDiffComment(md)).toEqual({ runtimes: { added: 0, changed: 10000, removed: 0 }, consequences: { 'module-installed': 10000, 'cache-removed': 1234 }, hasConsequenceSection: true });
  });
});

describe('statFingerprint (the check that diff left dist/ alone)', () => {
  it('changes when a file of the tree is rewritten, added or removed', () => {
    const dir = path.join(tmp, 'fp');
    fs.mkdirSync(path.join(dir, 'a'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a', 'x.yaml'), 'one\n');
    const first = statFingerprint(dir);
    expect(statFingerprint(dir)).toBe(first);
    fs.writeFileSync(path.join(dir, 'a', 'x.yaml'), 'two words\n'); // another size: file times may not tick within a few ms
    const rewritten = statFingerprint(dir);
    expect(rewritten).not.toBe(first);
    fs.writeFileSync(path.join(dir, 'a', 'y.yaml'), '');
    expect(statFingerprint(dir)).not.toBe(rewritten);
  });
});
