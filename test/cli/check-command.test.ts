// `kyma-fleet check` through the built CLI (npm run build first): validate, synth --check and diff
// against a base dist/ in one process, with each command's verdict and output (compared with the
// three commands run one by one), and the fresh-runner check (src/run/committed-record.ts) refusing
// a dist/ that another kyma-fleet build rendered: a changed core renderer and a changed plug-in are
// each simulated by a copy of the built program with one edited line and another version, which
// writes dist/ and its record; the real build must see that dist/ is not what it renders.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import { FleetFixture, NOW, REPO, type RunResult, testProcessEnv } from '../helpers/fleet-fixture';
import { spawnSync } from 'node:child_process';

let fx: FleetFixture | undefined;
afterEach(() => fx?.cleanup());

/** A run with a cache folder of the workspace's own that starts empty (a fresh CI runner). */
let runs = 0;
function cli(args: string[], bin?: string): RunResult {
  const env = { XDG_CACHE_HOME: path.join(fx!.dir, `.cache-${runs++}`) };
  if (!bin) return fx!.runBinary([...args, '--now', NOW], env);
  const r = spawnSync(process.execPath, [bin, ...args, '--now', NOW], { cwd: fx!.dir, encoding: 'utf8', env: { ...testProcessEnv(), ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, errLines: r.stderr.split('\n').filter(Boolean) };
}

const RUNTIME_FILE = 'runtimes/acme-eu-dev-1.yaml';
const KYMA_FILE = 'runtimes/acme-eu-dev-1/skr/kyma-default.yaml';

/** The example fleet with dist/ rendered and a copy of it as the base branch's dist/ (base/). */
function workspace(): FleetFixture {
  fx = FleetFixture.example();
  expect(cli(['synth']).code).toBe(0);
  fs.cpSync(path.join(fx.dir, 'dist'), path.join(fx.dir, 'base'), { recursive: true });
  return fx;
}

describe('kyma-fleet check', () => {
  it('on an unchanged fleet: valid, up to date, no change against the base (exit 0)', () => {
    workspace();
    const r = cli(['check', '--base', 'base', '--markdown', 'diff.md']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('fleet: valid (7 runtimes)\ndist: up to date (7 runtimes)\nagainst base: no change\n');
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(fx!.dir, 'diff.md'), 'utf8')).toBe(cli(['diff', '--out', 'base', '--output', 'markdown']).stdout);
  });

  it('a runtime changed without synth: the verdicts and outputs of validate, synth --check and diff, in one run (exit 3)', () => {
    workspace();
    fx!.replace(RUNTIME_FILE, 'channel: fast\n  modules', 'channel: regular\n  modules');
    const r = cli(['check', '--base', 'base', '--markdown', 'diff.md', '--output-file', 'check.diff']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('fleet: valid (7 runtimes)\n');
    expect(r.stdout).toContain('against base: 0 added, 1 changed, 0 removed files; runtimes: 0 new, 1 changed, 0 removed\n');
    const check = cli(['synth', '--check']);
    expect(check.code).toBe(3);
    expect(r.stderr).toBe(check.stderr);
    expect(cli(['validate', '--out', 'base']).code).toBe(0);
    const diff = cli(['diff', '--out', 'base', '--output', 'markdown', '--output-file', 'diff.diff']);
    expect(diff.code).toBe(0);
    expect(fs.readFileSync(path.join(fx!.dir, 'diff.md'), 'utf8')).toBe(diff.stdout);
    expect(fs.readFileSync(path.join(fx!.dir, 'check.diff'), 'utf8')).toBe(fs.readFileSync(path.join(fx!.dir, 'diff.diff'), 'utf8'));
    expect(fs.readFileSync(path.join(fx!.dir, 'check.diff'), 'utf8')).toContain(`+++ b/${KYMA_FILE}`);
  });

  it('an invalid fleet: the errors as validate reports them, exit 1, no diff written', () => {
    workspace();
    fx!.replace(RUNTIME_FILE, 'channel: fast\n  modules', 'channel: not-a-channel\n  modules');
    const r = cli(['check', '--base', 'base', '--markdown', 'diff.md']);
    const v = cli(['validate', '--out', 'base']);
    expect(v.code).toBe(1);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(v.stderr);
    expect(fs.existsSync(path.join(fx!.dir, 'diff.md'))).toBe(false);
  });

  it('--output json: one document with each verdict', () => {
    workspace();
    fs.appendFileSync(path.join(fx!.dir, 'dist', KYMA_FILE), '# edited by hand\n');
    const r = cli(['check', '--base', 'base', '--output', 'json']);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ ok: false, exitCode: 3, valid: true, errors: 0, upToDate: false, files: { added: [], changed: [KYMA_FILE], removed: [] } });
    expect(doc.diff).toMatchObject({ against: 'base', upToDate: true });
  });
});

/**
 * A copy of the built program (lib/, bin/, package.json) with another version and `edit` applied to
 * one compiled file: what another kyma-fleet release would be. Returns its bin.
 */
function otherBuild(file: string, from: string, to: string): string {
  const root = path.join(fx!.dir, 'other-build');
  fs.cpSync(path.join(REPO, 'lib'), path.join(root, 'lib'), { recursive: true });
  fs.cpSync(path.join(REPO, 'bin'), path.join(root, 'bin'), { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ ...pkg, version: `${pkg.version}-other` }));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const target = path.join(root, 'lib', file);
  const text = fs.readFileSync(target, 'utf8');
  expect(text).toContain(from);
  fs.writeFileSync(target, text.split(from).join(to));
  return path.join(root, 'bin', 'kyma-fleet.js');
}

describe('a dist/ rendered by another kyma-fleet build is never taken as up to date', () => {
  // The first plug-in's compiled render and the core's kustomization writer, each changed in one literal.
  const plugin = EXTENSIONS[0]!.name;
  it.each([
    ['the core renderer', 'src/render/serialize.js', "apiVersion: 'kustomize.config.k8s.io/v1beta1'", "apiVersion: 'kustomize.config.k8s.io/v1beta2'"],
    [`a plug-in (${plugin})`, `src/extensions/${plugin}/render.js`, "apiVersion: 'registry.extensions.gardener.cloud/v1alpha3'", "apiVersion: 'registry.extensions.gardener.cloud/v1alpha9'"],
  ])('%s changed', (_what, file, from, to) => {
    fx = FleetFixture.example();
    const other = otherBuild(file, from, to);
    expect(cli(['synth'], other).code).toBe(0);
    // The other build's own check on a fresh runner: its record, its output, up to date.
    expect(cli(['check'], other).code).toBe(0);
    const r = cli(['check']);
    expect(r.stderr).toContain('dist: out of date');
    expect(r.code).toBe(3);
    expect(cli(['synth', '--check']).code).toBe(3);
  });
});
