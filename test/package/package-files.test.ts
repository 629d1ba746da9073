// The published package holds what the CLI needs at run time and nothing else: `npm pack --dry-run`
// lists the files the tarball would get, and this test asserts that list (issue 21).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/fleet-fixture';

interface PackEntry {
  readonly files: { readonly path: string }[];
  readonly name: string;
  readonly version: string;
}

/** The files `npm pack` would put into the tarball, from the current lib/ (built by pretest). */
function packedFiles(): { entry: PackEntry; files: string[] } {
  // --ignore-scripts: the prepare script would rebuild lib/ while other test files run the binary.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
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

  it('has the binary, the compiled CLI, its run-time parts, schemas, README and LICENSE, and no tests or sources', () => {
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
    ]) {
      expect(files, needed).toContain(needed);
    }
    const unwanted = files.filter((f) =>
      /^(test|lib\/test|lib\/bench|bench|\.bench|src|charts|imports|scripts|fleet|dist|docs|examples|node_modules|fleet-status-sample)\//.test(f) ||
      /\.(ts|map)$/.test(f),
    );
    expect(unwanted).toEqual([]);
    // Every file is one of the listed kinds: nothing slips in through a broad pattern.
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|bin\/kyma-fleet\.js|lib\/(src|charts|imports)\/.+\.js|lib\/generated\/fleet-validators\.js|lib\/scripts\/write-fleet-schemas\.js|schemas\/[a-z]+\.json|schemas\/output\/[a-z-]+\.schema\.json)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
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
