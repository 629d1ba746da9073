// Slow test (a few minutes: npm installs the dependencies twice): what a new user's first pull request
// does on a CI runner, following only the README (issue 26). The README's install block runs line by
// line as written, from a stand-in clone (bin/ of this repository, the tarball scripts/pack.mjs
// packs, which `npm run pack` runs after its build): init vendors the tarball, npm install, synth,
// git init and the first commit. Then a pull request that adds a runtime, merged as GitHub checks it
// out; a clone of it elsewhere (the tarball's original folder and the author's node_modules removed);
// `npm ci` there; and the run steps of the generated workflow's pull-request job in order, with the
// `if` conditions GitHub would evaluate (no GARDEN_KUBECONFIG secret: the dry run is skipped with a
// notice). Before issue 26 the README installed a `file:` path outside the fleet repository, and
// `npm ci` on the runner failed with ENOENT.
//
// npm's cache: a runner starts with an empty one, and the registry packages must then come over the
// network. Nothing but Go modules may be downloaded at test time, so the author's and the runner's
// caches are each a fresh copy of this machine's real npm cache (read, never written: copied before
// the author's install, so nothing the author's install cached reaches the runner), used with
// --prefer-offline: a package the machine has never installed is still fetched from the registry.
// The vendored tarball never comes from a cache: npm reads `file:` dependencies from their path.

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from '../helpers/fleet-fixture';

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
/** How GitHub runs a `run:` script with the default shell on Linux. */
const GITHUB_SHELL = ['--noprofile', '--norc', '-eo', 'pipefail', '-c'];

/** The commands of the `sh` block under "## Install" (comments dropped): README_INSTALL_BLOCK. */
function readmeInstallBlock(): string[] {
  const section = /^## Install\n([\s\S]*?)^## /m.exec(README)?.[1] ?? '';
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}
const README_INSTALL_BLOCK = readmeInstallBlock();

const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-ci-runner-'));
afterAll(() => fs.rmSync(sandbox, { recursive: true, force: true }));

const realCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
/** A fresh copy of the machine's npm cache (see the header). */
function cacheCopy(name: string): string {
  const dir = path.join(sandbox, name);
  fs.mkdirSync(dir);
  if (fs.existsSync(path.join(realCache, '_cacache'))) fs.cpSync(path.join(realCache, '_cacache'), path.join(dir, '_cacache'), { recursive: true });
  return dir;
}

/** The environment of a person or runner: own HOME (no ~/.npmrc, no ~/.gitconfig), own npm cache. */
function envWith(cache: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = path.join(sandbox, `home-${path.basename(cache)}`);
  fs.mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    npm_config_cache: cache,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    GIT_AUTHOR_NAME: 'Ada',
    GIT_AUTHOR_EMAIL: 'ada@acme.test',
    GIT_COMMITTER_NAME: 'Ada',
    GIT_COMMITTER_EMAIL: 'ada@acme.test',
    GIT_CONFIG_NOSYSTEM: '1',
    ...extra,
  };
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', [...GITHUB_SHELL, script], { cwd, env, encoding: 'utf8', timeout: 600_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Step {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

/**
 * GitHub's verdict on a step's `if` for a pull request without secrets, from the outcomes so far.
 * Knows the terms the workflow uses; any other term fails the test (so it is taught, not guessed).
 */
function evaluateIf(condition: string | undefined, outcomes: ReadonlyMap<string, string>, failed: boolean, work = ''): boolean {
  if (condition === undefined) return !failed;
  const expr = /^\$\{\{\s*(.*?)\s*\}\}$/.exec(condition)?.[1] ?? condition;
  let statusFunction = false;
  const result = expr.split(/\s*&&\s*/).every((term) => {
    if (term === '!cancelled()') return (statusFunction = true);
    let m = /^steps\.([\w-]+)\.outcome == '(\w+)'$/.exec(term);
    if (m) return outcomes.get(m[1]!) === m[2];
    m = /^env\.GARDEN_KUBECONFIG (==|!=) ''$/.exec(term);
    if (m) return m[1] === '=='; // the secret is not set
    if (term === 'github.event.pull_request.head.repo.full_name == github.repository') return true;
    m = /^hashFiles\('([\w.-]+)'\) != ''$/.exec(term);
    if (m) return fs.existsSync(path.join(work, m[1]!));
    throw new Error(`a step condition this test does not know: ${term}`);
  });
  return statusFunction ? result : result && !failed;
}

describe('a new fleet repository on a CI runner, following only the README (slow)', () => {
  it('the README install block is the one this test runs', () => {
    expect(README_INSTALL_BLOCK).toEqual([
      'npm ci && npm run pack',
      `node bin/kyma-fleet.js init ../my-fleet --kyma-fleet-from kyma-fleet-${VERSION}.tgz`,
      'cd ../my-fleet && npm install',
      'npx --no-install kyma-fleet synth',
      'git init -b main && git add . && git commit -m "kyma-fleet init"',
    ]);
  });

  it('init with the packed tarball, commit, clone elsewhere, npm ci, then the pull-request job in order', { timeout: 1_200_000 }, () => {
    const authorCache = cacheCopy('author-cache');
    const runnerCache = cacheCopy('runner-cache');
    const author = envWith(authorCache);

    // The clone: its bin/ (lib/ built by pretest) and the tarball `npm run pack` writes.
    const clone = path.join(sandbox, 'kyma-fleet');
    fs.mkdirSync(clone);
    fs.symlinkSync(path.join(REPO, 'bin'), path.join(clone, 'bin'));
    execFileSync(process.execPath, ['scripts/pack.mjs', '--pack-destination', clone], { cwd: REPO, encoding: 'utf8' });
    expect(fs.existsSync(path.join(clone, `kyma-fleet-${VERSION}.tgz`))).toBe(true);

    // The README's install block after `npm ci && npm run pack`, as written.
    const install = bash(README_INSTALL_BLOCK.slice(1).join('\n'), clone, author);
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    const repo = path.join(sandbox, 'my-fleet');
    const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; version?: string }> };
    expect(lock.packages['node_modules/kyma-fleet']).toMatchObject({ resolved: `file:vendor/kyma-fleet-${VERSION}.tgz`, version: VERSION });
    expect(JSON.stringify(lock)).not.toContain(sandbox);
    expect(execFileSync('git', ['ls-files', 'vendor', 'package-lock.json', 'dist/.kyma-fleet-index.json'], { cwd: repo, encoding: 'utf8', env: author }).trim().split('\n')).toEqual([
      'dist/.kyma-fleet-index.json',
      'package-lock.json',
      `vendor/kyma-fleet-${VERSION}.tgz`,
    ]);

    // A pull request adding a runtime, merged into main as GitHub checks it out (HEAD^1 = main).
    const change = bash(
      [
        'git switch -c add-runtime',
        'npx --no-install kyma-fleet new runtime acme-eu-prod --runtime-id 5b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d --global-account 0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7 --subaccount 7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f --region eu-central-1 --shoot c-5b0c1f3 --project kyma-prod --label tier=production',
        'npx --no-install kyma-fleet synth',
        'git add . && git commit -q -m "add acme-eu-prod"',
        'git switch -q main && git switch -q -c pull/1/merge && git merge -q --no-ff add-runtime -m "Merge pull request #1"',
      ].join('\n'),
      repo,
      author,
    );
    expect(change.status, change.stderr).toBe(0);

    // The runner: a clone elsewhere, with nothing of the author's machine.
    const work = path.join(sandbox, 'runner', 'work');
    fs.mkdirSync(work, { recursive: true });
    execFileSync('git', ['clone', '-q', '--depth', '2', '--branch', 'pull/1/merge', `file://${repo}`, work], { env: author });
    fs.rmSync(clone, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });

    const runnerTemp = path.join(sandbox, 'runner', 'temp');
    fs.mkdirSync(runnerTemp);
    const summary = path.join(runnerTemp, 'step-summary.md');
    const runner = envWith(runnerCache, { CI: 'true', GITHUB_ACTIONS: 'true', RUNNER_TEMP: runnerTemp, GITHUB_STEP_SUMMARY: summary, GARDEN_KUBECONFIG: '' });

    const wf = parse(fs.readFileSync(path.join(work, '.github/workflows/kyma-fleet.yml'), 'utf8')) as { jobs: { fleet: { steps: Step[]; env: Record<string, string> } } };
    expect(wf.jobs.fleet.env).toEqual({ GARDEN_KUBECONFIG: '${{ secrets.GARDEN_KUBECONFIG }}' });
    const outcomes = new Map<string, string>();
    const ran: string[] = [];
    const notices: string[] = [];
    let failed = false;
    for (const step of wf.jobs.fleet.steps) {
      const label = step.name ?? step.run ?? step.uses!;
      if (!evaluateIf(step.if, outcomes, failed, work)) {
        if (step.id) outcomes.set(step.id, 'skipped');
        continue;
      }
      if (step.uses) {
        // Actions run by GitHub itself: checkout and setup-node are what this clone and this Node.js
        // are; the artifact and the comment need files the steps before wrote.
        if (step.uses.startsWith('actions/upload-artifact@') || step.uses.startsWith('marocchino/')) {
          expect(fs.existsSync(path.join(work, String(step.with!.path))), `${label}: ${String(step.with!.path)}`).toBe(true);
        }
        ran.push(step.uses.split('@')[0]!);
        continue;
      }
      const r = bash(step.run!, work, runner);
      notices.push(...r.stdout.split('\n').filter((l) => l.startsWith('::notice')));
      ran.push(label);
      if (step.id) outcomes.set(step.id, r.status === 0 ? 'success' : 'failure');
      expect(r.status, `${label}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (r.status !== 0) failed = true;
    }
    expect(ran).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'npm ci',
      'Read dist/ of the base branch',
      'Validate, check that dist/ is up to date, diff against the base branch',
      'actions/upload-artifact',
      'marocchino/sticky-pull-request-comment',
      'A destructive change needs the label kyma-fleet/approve-destructive',
      'No dry run of apply garden without the secret GARDEN_KUBECONFIG',
    ]);
    expect(fs.existsSync(path.join(work, 'node_modules', 'kyma-fleet', 'lib', 'src', 'cli', 'main.js'))).toBe(true);
    const diff = fs.readFileSync(path.join(work, 'diff.md'), 'utf8');
    expect(diff).toContain('acme-eu-prod');
    expect(fs.readFileSync(summary, 'utf8')).toBe(diff);
    expect(fs.readFileSync(path.join(work, 'kyma-fleet.diff'), 'utf8')).toContain('+++ b/runtimes/acme-eu-prod/skr/kyma-default.yaml');
    expect(notices).toEqual([expect.stringMatching(/^::notice title=kyma-fleet apply garden --dry-run skipped::the secret GARDEN_KUBECONFIG is not set/)]);
  });
});
