// Slow test (a few minutes: npm installs the dependencies): the package as an operator gets it.
// Packs the tarball (`npm run pack`'s script), installs it into an empty folder outside the repo, and
// runs the installed CLI there: --version, init, then validate and synth of the fleet init wrote
// (issue 21). The install runs no script of the package, and every relative link of the README and
// docs it ships resolves inside node_modules/kyma-fleet (issue 26).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/fleet-fixture';

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-install-'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
}

describe('the packed tarball, installed into an empty folder (slow)', () => {
  it('installs with npm and its CLI runs --version, init, validate and synth', { timeout: 600_000 }, () => {
    // scripts/pack.mjs packs the lib/ that pretest built (`npm run pack` builds first, which would
    // rebuild lib/ while other test files run the binary from it).
    const packed = JSON.parse(run(process.execPath, ['scripts/pack.mjs', '--json', '--pack-destination', work], REPO)) as { filename: string }[];
    const tarball = path.join(work, packed[0]!.filename);
    expect(fs.existsSync(tarball)).toBe(true);

    const app = path.join(work, 'app');
    fs.mkdirSync(app);
    // --foreground-scripts makes npm print every lifecycle script it runs: the package has none.
    const installLog = execFileSync('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', '--loglevel', 'info', tarball], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
    expect(installLog).not.toMatch(/kyma-fleet@[^ ]+ (prepare|preinstall|install|postinstall)\b/);
    const installed = path.join(app, 'node_modules', 'kyma-fleet');
    expect((JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts).toBeUndefined();
    expect(fs.existsSync(path.join(installed, 'test')), 'no tests in the package').toBe(false);
    expect(fs.existsSync(path.join(installed, 'src')), 'no TypeScript sources in the package').toBe(false);

    // --no: never fetch kyma-fleet from a registry; only the installed one may answer.
    expect(run('npx', ['--no', '--', 'kyma-fleet', '--version'], app).trim()).toBe(VERSION);
    // The help's documentation link points into the installed package (its docs index).
    const docs = /^Documentation: (\S+)$/m.exec(run('npx', ['--no', '--', 'kyma-fleet', '--help'], app))?.[1];
    expect(docs).toBe(path.join(fs.realpathSync(installed), 'docs', 'README.md'));
    expect(fs.existsSync(docs!)).toBe(true);
    // Every relative link of the shipped Markdown resolves inside the installed package.
    const markdown = ['README.md', ...fs.readdirSync(path.join(installed, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    expect(markdown.length).toBeGreaterThan(5);
    const broken: string[] = [];
    for (const file of markdown) {
      const text = fs.readFileSync(path.join(installed, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        const abs = path.resolve(path.dirname(path.join(installed, file)), target);
        if (path.relative(installed, abs).startsWith('..') || !fs.existsSync(abs)) broken.push(`${file}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);

    const initOut = run('npx', ['--no', '--', 'kyma-fleet', 'init', 'my-fleet'], app);
    expect(initOut).toContain('my-fleet: created fleet "my-fleet"');
    const fleetRepo = path.join(app, 'my-fleet');
    const fleetPkg = JSON.parse(fs.readFileSync(path.join(fleetRepo, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(fleetPkg.devDependencies['kyma-fleet']).toBe(VERSION);
    for (const kind of ['fleet', 'kymaruntime', 'runtimegroup']) {
      expect(fs.readFileSync(path.join(fleetRepo, 'schemas', `${kind}.json`), 'utf8')).toBe(fs.readFileSync(path.join(installed, 'schemas', `${kind}.json`), 'utf8'));
    }

    // The new fleet validates and renders with the installed CLI (the fleet repo has no node_modules).
    const bin = path.join(app, 'node_modules', '.bin', 'kyma-fleet');
    run(bin, ['validate'], fleetRepo);
    const synthOut = run(bin, ['synth'], fleetRepo);
    expect(synthOut).not.toBe('');
    expect(fs.existsSync(path.join(fleetRepo, 'dist', '.kyma-fleet-index.json'))).toBe(true);
    expect(fs.readdirSync(path.join(fleetRepo, 'dist', 'runtimes')).length).toBeGreaterThan(0);
  });
});
