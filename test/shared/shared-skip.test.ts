// `npm test` passes on a clone without ../shared beside it (issue 26): every test file that reads
// ../shared is run here with the folder hidden (KYMA_FLEET_SHARED pointing at a folder that does
// not exist, as on a newcomer's clone), through vitest itself. With CI unset it is skipped with one
// line naming what is missing; with CI=true it fails, as the Go-built tests do without Go. Before
// issue 26, test/cluster/imported-crds.test.ts failed with ENOENT there.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/fleet-fixture';

/** The test files that read ../shared (found by what they import or spell), for the list below. */
function filesReadingShared(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.test.ts') && rel !== 'test/shared/shared-skip.test.ts') {
        const text = fs.readFileSync(path.join(REPO, rel), 'utf8').replace(/^\s*\/\/.*$/gm, '');
        if (/shared-folder'|'\.\.', 'shared'|\.\.\/shared\//.test(text)) out.push(rel);
      }
    }
  };
  walk('test');
  return out.sort();
}

const MISSING = path.join(REPO, '.no-shared-here');

function vitest(file: string, ci: boolean): { status: number | null; output: string } {
  const { CI: _ci, ...env } = process.env;
  const r = spawnSync(process.execPath, [path.join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '-c', 'test/shared/vitest.files.config.mts', '--reporter', 'verbose', file], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...env, KYMA_FLEET_SHARED: MISSING, ...(ci ? { CI: 'true' } : {}), NO_COLOR: '1', FORCE_COLOR: '0' },
    timeout: 300_000,
  });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

describe('tests that read ../shared, on a clone without it', () => {
  it('are the files this test knows', () => {
    expect(filesReadingShared()).toEqual(['test/cluster/imported-crds.test.ts']);
  });

  it.each(filesReadingShared())('%s: skipped with one line naming what is missing (CI unset)', { timeout: 300_000 }, (file) => {
    expect(fs.existsSync(MISSING)).toBe(false);
    const r = vitest(file, false);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toMatch(/skipped: \S*\.no-shared-here\/crds is missing \(a clone without \.\.\/shared beside it\); required under CI=true/);
    expect(r.output).toMatch(/Tests +(\d+ passed \| )?[1-9]\d* skipped/);
    expect(r.output).not.toMatch(/\d+ failed/);
  });

  it.each(filesReadingShared())('%s: required under CI=true', { timeout: 300_000 }, (file) => {
    const r = vitest(file, true);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/\.\.\/shared\/crds unavailable under CI=true: \S*\.no-shared-here\/crds is missing/);
  });
});
