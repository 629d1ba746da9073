// The published package holds what the CLI needs at run time, the docs its help and README link to,
// and nothing else: `npm run pack`'s script (scripts/pack.mjs --dry-run) lists the files the tarball
// would get, and this test asserts that list (issue 21); its package.json runs no scripts (issue 26).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/fleet-fixture';

interface PackEntry {
  readonly files: { readonly path: string }[];
  readonly name: string;
  readonly version: string;
}

/** The files `npm run pack` would put into the tarball, from the current lib/ (built by pretest; the script itself builds nothing). */
function packedFiles(): { entry: PackEntry; files: string[] } {
  const out = execFileSync(process.execPath, ['scripts/pack.mjs', '--dry-run', '--json'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const entry = (JSON.parse(out) as PackEntry[])[0]!;
  return { entry, files: entry.files.map((f) => f.path).sort() };
}

describe('npm pack: the package file list', () => {
  it('is publishable: not private, license text present', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('Apache-2.0');
    expect(Array.isArray(pkg.files)).toBe(true);
    const license = fs.readFileSync(path.join(REPO, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });

  it('has the binary, the compiled CLI, its run-time parts, schemas, README, docs and LICENSE, and no tests or sources', () => {
    expect(fs.existsSync(path.join(REPO, 'lib/src/cli/main.js')), 'lib/ is built by `npm run build` (pretest)').toBe(true);
    const { entry, files } = packedFiles();
    expect(entry.name).toBe('kyma-fleet');
    for (const needed of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      'bin/kyma-fleet.js',
      'lib/src/cli/main.js',
      'lib/src/run/parallel/worker.js', // loaded by path as a worker thread
      'lib/generated/fleet-validators.js', // loaded by path (schema-check.ts)
      'lib/scripts/write-fleet-schemas.js', // init writes the editor schemas
      'lib/charts/skr-chart.js',
      'lib/imports/operator.kyma-project.io.js',
      'schemas/kymaruntime.json',
      'schemas/output/common.schema.json', // the JSON output shapes (docs/cli.md), for scripts that read --output json
      'schemas/output/status.schema.json',
      'docs/README.md', // the help's "Documentation:" link
      'docs/cli.md',
      'examples/github-actions/kyma-fleet.yml', // docs/ci.md links to it
    ]) {
      expect(files, needed).toContain(needed);
    }
    const unwanted = files.filter((f) =>
      /^(test|lib\/test|lib\/bench|bench|\.bench|src|charts|imports|scripts|fleet|dist|node_modules|fleet-status-sample|vendor|\.ci)\//.test(f) ||
      /\.(ts|map)$/.test(f),
    );
    expect(unwanted).toEqual([]);
    // Every file is one of the listed kinds: nothing slips in through a broad pattern.
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|bin\/kyma-fleet\.js|lib\/(src|charts|imports)\/.+\.js|lib\/generated\/fleet-validators\.js|lib\/scripts\/write-fleet-schemas\.js|schemas\/[a-z]+\.json|schemas\/output\/[a-z-]+\.schema\.json|docs\/[a-z-]+\.md|docs\/README\.md|docs\/images\/[a-z-]+\.png|examples\/github-actions\/kyma-fleet\.yml)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
  });

  it('runs no scripts when installed: its package.json has no scripts (the clone\'s prepare builds lib/) and no devDependencies', () => {
    const out = execFileSync(process.execPath, ['scripts/pack.mjs', '--pack-destination', fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-pack-'))], { cwd: REPO, encoding: 'utf8' }).trim();
    try {
      const manifest = JSON.parse(execFileSync('tar', ['-xzOf', out, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
      expect(manifest.scripts).toBeUndefined();
      expect(manifest.devDependencies).toBeUndefined();
      const clone = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, any>;
      expect(clone.scripts.prepare, 'npm ci in the clone builds lib/ (README, .ci/run)').toBe('npm run build');
      const { scripts: _s, devDependencies: _d, ...rest } = clone;
      expect(manifest).toEqual(rest);
    } finally {
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
    }
  });

  it('refuses a plain npm pack in the clone, which would ship the prepare script, and says what to run', () => {
    let failed: { status: number; stderr: string } | undefined;
    try {
      execFileSync('npm', ['pack', '--dry-run'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      failed = err as { status: number; stderr: string };
    }
    expect(failed?.status).not.toBe(0);
    expect(failed?.stderr).toContain('pack: error: run `npm run pack` to build the kyma-fleet tarball');
  });

  it('ships the compiled module of every source file the CLI is made of', () => {
    const { files } = packedFiles();
    const sources: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) sources.push(rel);
      }
    };
    for (const root of ['src', 'charts']) walk(root);
    const missing = sources.map((s) => `lib/${s.replace(/\.ts$/, '.js')}`).filter((js) => !files.includes(js));
    expect(missing).toEqual([]);
  });
});
