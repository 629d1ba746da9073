// `kyma-fleet init` and `kyma-fleet new runtime`: the pure template builders, and the whole path an
// operator takes through the BUILT CLI (run `npm run build` first): init → new runtime → validate →
// synth → edit → diff → synth --check, in a temporary folder.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { renderFleetSchemas } from '../scripts/write-fleet-schemas';
import { parseLabels, schemaRefFrom } from '../src/cli/commands/new';
import { UsageError } from '../src/cli/options';
import { parseFleetYaml } from '../src/lib/yaml/parse-yaml';
import { kymaRuntimeSchema } from '../src/validate/schema';
import { isDNS1123Label } from '../src/lib/k8s-names';
import { dnsLabelNameProblem, FALLBACK_FLEET_NAME, sanitizeDnsLabel, yamlString } from '../src/scaffold/names';
import {
  exampleShootName,
  fleetPackageJson,
  githubWorkflowYaml,
  gitignore,
  runtimeYaml,
  scaffoldFleetRepo,
  WORKFLOW_PATH,
} from '../src/scaffold/templates';
import { FleetFixture, NOW, REPO, runBinary, type RunResult } from './helpers/fleet-fixture';

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const SCHEMA_LINE = /^# yaml-language-server: \$schema=(\S+)$/;

/** A deterministic stand-in for crypto.randomUUID. */
function counterIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}

function workflowSteps(text: string): WorkflowStep[] {
  const wf = parseYaml(text) as { jobs: Record<string, { steps: WorkflowStep[] }> };
  return Object.values(wf.jobs).flatMap((j) => j.steps);
}

/** Checks the CI workflow: triggers, permissions and the steps of the contract, in order. */
function expectWorkflow(text: string): void {
  const wf = parseYaml(text) as Record<string, any>;
  expect(Object.keys(wf.on)).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
  expect(wf.on.push).toEqual({ branches: ['main'] });
  expect(wf.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
  // Pull requests: the review job, with a dry run of apply garden; a merge to main: apply garden.
  expect(wf.jobs.fleet.if).toContain("github.event_name == 'pull_request'");
  expect(wf.jobs.fleet.steps.at(-1).run).toMatch(/npx kyma-fleet apply garden --dry-run --kubeconfig "\$RUNNER_TEMP\/garden.yaml" --garden-context garden/);
  expect(wf.jobs.garden.if).toContain("github.event_name == 'push'");
  expect(wf.jobs.garden.permissions).toEqual({ contents: 'write' });
  expect(wf.jobs.garden.concurrency).toEqual({ group: 'kyma-fleet-garden', 'cancel-in-progress': false });
  const gardenRuns = (wf.jobs.garden.steps as WorkflowStep[]).map((st) => st.run ?? '').join('\n');
  expect(gardenRuns).toMatch(/npx kyma-fleet apply garden --kubeconfig "\$RUNNER_TEMP\/garden.yaml" --garden-context garden "\$\{mass\[@\]\}"/);
  expect(gardenRuns).not.toContain('--dry-run');
  expect(gardenRuns).toContain('git add fleet/status/garden-apply.json');
  // Hourly and on demand: the rollout rings job (docs/rollout.md) observes, advances (a closed gate,
  // exit 6, is no failure), renders and proposes the result as a pull request.
  expect(wf.on.schedule).toEqual([{ cron: '17 * * * *' }, { cron: '23 5 * * 1' }]);
  expect(wf.jobs.rollout.if).toContain("github.event.schedule == '17 * * * *'");
  expect(wf.jobs.rollout.concurrency).toEqual({ group: 'kyma-fleet-rollout', 'cancel-in-progress': false });
  const rolloutRuns = (wf.jobs.rollout.steps as WorkflowStep[]).map((st) => st.run ?? '').join('\n');
  expect(rolloutRuns).toMatch(/npx kyma-fleet status "\$\{live\[@\]\}"\n[^]*npx kyma-fleet rollout advance "\$\{live\[@\]\}" \|\| code=\$\?\n[^]*\[ "\$code" != 6 \][^]*npx kyma-fleet synth\n/);
  expect(rolloutRuns).toContain('git add fleet/status fleet/rollout dist');
  expect(rolloutRuns).toContain('gh pr create --base main');
  // Weekly and on demand, optional: the refresh job onboards new runtimes and refreshes the
  // catalog and snapshots (docs/onboarding.md), then proposes the result as a pull request.
  expect(wf.jobs.refresh.if).toContain("github.event.schedule == '23 5 * * 1'");
  const refreshRuns = (wf.jobs.refresh.steps as WorkflowStep[]).map((st) => st.run ?? '').join('\n');
  expect(refreshRuns).toMatch(/npx kyma-fleet import runtimes "\$\{kc\[@\]\}" --kcp-context kcp --project "\$GARDEN_PROJECT"\n[^]*npx kyma-fleet catalog refresh "\$\{kc\[@\]\}" --kcp-context kcp\n[^]*npx kyma-fleet profile refresh "\$\{kc\[@\]\}" --garden-context garden[^]*npx kyma-fleet synth/);
  expect(refreshRuns).toContain('gh pr create --base main');
  const steps = workflowSteps(text);
  const index = (pred: (s: WorkflowStep) => boolean, what: string): number => {
    const i = steps.findIndex(pred);
    expect(i, what).toBeGreaterThanOrEqual(0);
    return i;
  };
  const order = [
    index((s) => s.uses?.startsWith('actions/checkout@') === true, 'checkout'),
    index((s) => s.uses?.startsWith('actions/setup-node@') === true && String(s.with?.['node-version']) === '20', 'setup-node 20'),
    index((s) => s.run === 'npm ci', 'npm ci'),
    // validate, synth --check and diff against the base in one process (issue 28).
    index((s) => /npx kyma-fleet check --base "\$RUNNER_TEMP\/base\/dist" --markdown diff\.md --output-file kyma-fleet\.diff/.test(s.run ?? ''), 'check --base … --markdown diff.md'),
    index((s) => s.uses === 'marocchino/sticky-pull-request-comment@v2' && s.with?.path === 'diff.md', 'PR comment with diff.md'),
  ];
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  // The comment is posted also when dist/ is stale, whenever check wrote it (the fleet is valid).
  expect(steps.find((s) => s.uses?.startsWith('marocchino/'))!.if).toContain("hashFiles('diff.md') != ''");
}

/** Every `$schema=` first line of the fleet files under `root` points at an existing file. */
function expectSchemaCommentsResolve(root: string, fleetRel = 'fleet'): void {
  const fleet = path.join(root, fleetRel);
  const files = [
    'fleet.yaml',
    ...fs.readdirSync(path.join(fleet, 'groups')).map((f) => `groups/${f}`),
    ...fs.readdirSync(path.join(fleet, 'runtimes')).map((f) => `runtimes/${f}`),
  ];
  for (const f of files) {
    const m = SCHEMA_LINE.exec(fs.readFileSync(path.join(fleet, f), 'utf8').split('\n')[0]!);
    expect(m, f).not.toBeNull();
    const target = path.resolve(path.dirname(path.join(fleet, f)), m![1]!);
    expect(fs.existsSync(target), `${f} -> ${m![1]}`).toBe(true);
    expect(path.relative(root, target).startsWith('..'), `${f}: schema inside the repository`).toBe(false);
  }
}

describe('names', () => {
  it.each([
    ['acme-fleet', 'acme-fleet'],
    ['My Acme Fleet', 'my-acme-fleet'],
    ['Äcme_Prod.2', 'acme-prod-2'],
    ['--x--', 'x'],
    ['日本', FALLBACK_FLEET_NAME],
    ['', FALLBACK_FLEET_NAME],
    ['CON', 'con-fleet'],
    ['lpt1', 'lpt1-fleet'],
    ['a'.repeat(62) + '-b', 'a'.repeat(62)],
    ['x'.repeat(100), 'x'.repeat(63)],
  ])('sanitizeDnsLabel(%j) = %j', (input, expected) => {
    const name = sanitizeDnsLabel(input);
    expect(name).toBe(expected);
    expect(isDNS1123Label(name)).toBe(true);
  });

  it.each([
    ['eu-central-1', 'eu-central-1'],
    ['c-3f1e8d6', 'c-3f1e8d6'],
    ['3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01', '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01'],
    ['yes', '"yes"'],
    ['on', '"on"'],
    ['null', '"null"'],
    ['0.40', '"0.40"'],
    ['0012', '"0012"'],
    ['1e3', '"1e3"'],
    ['2026-01-01', '"2026-01-01"'],
    ['a: b', '"a: b"'],
    ['#x', '"#x"'],
    ['', '""'],
  ])('yamlString(%j) = %s and reads back as the same string', (value, expected) => {
    expect(yamlString(value)).toBe(expected);
    expect(parseYaml(`v: ${yamlString(value)}`, { version: '1.2' })).toEqual({ v: value });
    expect(parseYaml(`v: ${yamlString(value)}`, { version: '1.1' })).toEqual({ v: value });
  });

  it('says why a name cannot be a fleet or runtime name, with the validator codes', () => {
    expect(dnsLabelNameProblem('acme-eu-1')).toBeUndefined();
    expect(dnsLabelNameProblem('Acme')).toEqual({ code: 'E_NAME_DNS1123', message: expect.stringMatching(/RFC 1123 label.*\(got "Acme"\)$/) });
    expect(dnsLabelNameProblem('a.b')?.message).toBe('must not contain dots (got "a.b")');
    expect(dnsLabelNameProblem('x'.repeat(64))?.message).toMatch(/^must be no more than 63 characters/);
    expect(dnsLabelNameProblem('com1')).toEqual({ code: 'E_NAME_RESERVED', message: '"com1" is a reserved device name on Windows and cannot be a folder in dist/' });
  });

  it('parses --label values in order and refuses malformed ones', () => {
    expect(parseLabels(['tier=production', 'geo=eu', 'note=a=b', 'empty='])).toEqual([
      ['tier', 'production'],
      ['geo', 'eu'],
      ['note', 'a=b'],
      ['empty', ''],
    ]);
    expect(() => parseLabels(['tier'])).toThrow(UsageError);
    expect(() => parseLabels(['=x'])).toThrow(/KEY=VALUE/);
    expect(() => parseLabels(['a=1', 'a=2'])).toThrow(/given twice/);
  });
});

describe('template builders', () => {
  const schemas = renderFleetSchemas();
  const files = scaffoldFleetRepo({ name: 'acme', kymaFleetVersion: '9.8.7', schemas, newId: counterIds() });

  it('lists every file of a new fleet repository', () => {
    expect([...files.keys()]).toEqual([
      '.github/workflows/kyma-fleet.yml',
      '.gitignore',
      'README.md',
      'fleet/fleet.yaml',
      'fleet/groups/production.yaml',
      'fleet/runtimes/example-dev.yaml',
      'fleet/runtimes/example-prod.yaml',
      'package.json',
      'schemas/fleet.json',
      'schemas/kymaruntime.json',
      'schemas/runtimegroup.json',
    ]);
    for (const [name, text] of schemas) expect(files.get(`schemas/${name}`)).toBe(text);
  });

  it('writes fleet files that pass the YAML gate and reference schemas inside the repository', () => {
    for (const [rel, text] of files) {
      if (!rel.startsWith('fleet/')) continue;
      expect(parseFleetYaml(Buffer.from(text), rel).diagnostics, rel).toEqual([]);
      const ref = SCHEMA_LINE.exec(text.split('\n')[0]!)![1]!;
      expect(files.has(path.posix.normalize(path.posix.join(path.posix.dirname(rel), ref))), `${rel}: ${ref}`).toBe(true);
    }
  });

  it('writes the fleet defaults of the contract', () => {
    const fleet = parseYaml(files.get('fleet/fleet.yaml')!) as Record<string, any>;
    expect(fleet.metadata.name).toBe('acme');
    expect(fleet.spec.defaults.channel).toBe('regular');
    expect(fleet.spec.defaults.modules.length).toBeGreaterThan(0);
    expect(fleet.spec.defaults.extensions['registry-cache']).toMatchObject({ enabled: true, caches: [{ upstream: 'docker.io' }] });
    expect(fleet.spec.defaults.extensions['registry-cache'].caches).toHaveLength(1);
    expect(fleet.spec.defaults.extensions.falco).toEqual({ enabled: false });
    expect(fleet.spec.gitops.flux).toMatchObject({ enabled: true, sourceRef: { kind: 'GitRepository', name: 'kyma-fleet' }, path: './dist' });
    const group = parseYaml(files.get('fleet/groups/production.yaml')!) as Record<string, any>;
    expect(group).toMatchObject({ kind: 'RuntimeGroup', metadata: { name: 'production' }, spec: { selector: { matchLabels: { tier: 'production' } } } });
  });

  it('gives the example runtimes fresh IDs and Shoot names derived from them', () => {
    const dev = parseYaml(files.get('fleet/runtimes/example-dev.yaml')!) as Record<string, any>;
    const prod = parseYaml(files.get('fleet/runtimes/example-prod.yaml')!) as Record<string, any>;
    expect(dev.spec.runtimeID).toBe('00000000-0000-4000-8000-000000000001');
    expect(prod.spec.runtimeID).toBe('00000000-0000-4000-8000-000000000004');
    expect(new Set([dev, prod].flatMap((r) => [r.spec.runtimeID, r.spec.globalAccountID, r.spec.subaccountID])).size).toBe(6);
    expect(prod.metadata.labels).toEqual({ tier: 'production' });
    expect(dev.spec.shoot.name).toBe(exampleShootName(dev.spec.runtimeID));
    expect(exampleShootName('3F1E8D62-9c1a-4c4e-8a0e-2b7f6d1c9e01')).toBe('c-3f1e8d6');
  });

  it('writes a runtime file from flags: schema line first, labels in order, values quoted where needed', () => {
    const text = runtimeYaml({
      name: 'acme-1',
      schemaRef: '../../schemas/kymaruntime.json',
      labels: [
        ['tier', 'production'],
        ['kyma-fleet.dev/version', '0.40'],
      ],
      runtimeID: '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01',
      globalAccountID: '0012',
      subaccountID: 'yes',
      region: 'eu-central-1',
      shoot: { name: 'c-3f1e8d6', project: 'kyma-prod' },
    });
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/kymaruntime.json');
    expect(text).toContain('    kyma-fleet.dev/version: "0.40"\n');
    const parsed = parseFleetYaml(Buffer.from(text), 'runtimes/acme-1.yaml');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.data).toEqual({
      apiVersion: 'kyma-fleet.dev/v1alpha1',
      kind: 'KymaRuntime',
      metadata: { name: 'acme-1', labels: { tier: 'production', 'kyma-fleet.dev/version': '0.40' } },
      spec: {
        runtimeID: '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01',
        globalAccountID: '0012',
        subaccountID: 'yes',
        region: 'eu-central-1',
        shoot: { name: 'c-3f1e8d6', project: 'kyma-prod' },
      },
    });
    expect(Object.keys((parsed.data as any).metadata.labels)).toEqual(['tier', 'kyma-fleet.dev/version']);
  });

  it('writes a package.json that depends on this kyma-fleet version, and documents the vendored install', () => {
    const pkg = JSON.parse(fleetPackageJson('kyma-fleet', VERSION));
    expect(pkg.name).not.toBe('kyma-fleet');
    expect(pkg.private).toBe(true);
    expect(pkg.devDependencies).toEqual({ 'kyma-fleet': VERSION });
    expect(JSON.parse(files.get('package.json')!).devDependencies).toEqual({ 'kyma-fleet': '9.8.7' });
    const readme = files.get('README.md')!;
    // No registry serves kyma-fleet yet: the README says so and installs a vendored tarball instead (no placeholder URL; test/cli/init-install.test.ts).
    expect(readme).toMatch(/asks the npm registry for kyma-fleet 9\.8\.7,\n {3}which no registry serves yet/);
    expect(readme).toContain('npm install --save-dev --save-exact ./vendor/kyma-fleet-9.8.7.tgz');
    expect(readme).not.toMatch(/(?<!--no-install )npx kyma-fleet [a-z]/);
  });

  it('ignores dependencies, the cache, the lock and the leftovers of a killed synth', () => {
    expect(gitignore().trim().split('\n')).toEqual(['node_modules/', '.cache/', '*.lock', '.dist.tmp-*', '.dist.old-*', 'dist.shard-*/']);
  });

  it('writes the CI workflow, the same as the example and as in docs/ci.md', () => {
    const text = files.get(WORKFLOW_PATH)!;
    expect(text).toBe(githubWorkflowYaml());
    expectWorkflow(text);
    expect(fs.readFileSync(path.join(REPO, 'examples/github-actions/kyma-fleet.yml'), 'utf8')).toBe(text);
    expect(fs.existsSync(path.join(REPO, '.github/workflows/kyma-fleet.yml'))).toBe(false);
    expect(fs.readFileSync(path.join(REPO, 'docs/ci.md'), 'utf8')).toContain('```yaml\n' + text + '```\n');
  });

  it('finds the schemas by walking up from the fleet folder, or falls back to the published URL', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-ref-'));
    try {
      const repo = path.join(tmp, 'repo');
      fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
      fs.mkdirSync(path.join(repo, 'landscapes/eu/fleet/runtimes'), { recursive: true });
      const fleet = path.join(repo, 'landscapes/eu/fleet');
      expect(schemaRefFrom(path.join(fleet, 'runtimes'), fleet)).toBe(kymaRuntimeSchema().$id);
      // Above the repository root (.git) nothing is looked at.
      fs.mkdirSync(path.join(tmp, 'schemas'));
      fs.writeFileSync(path.join(tmp, 'schemas/kymaruntime.json'), '{}');
      expect(schemaRefFrom(path.join(fleet, 'runtimes'), fleet)).toBe(kymaRuntimeSchema().$id);
      fs.mkdirSync(path.join(repo, 'schemas'));
      fs.writeFileSync(path.join(repo, 'schemas/kymaruntime.json'), '{}');
      expect(schemaRefFrom(path.join(fleet, 'runtimes'), fleet)).toBe('../../../../schemas/kymaruntime.json');
      expect(schemaRefFrom(path.join(REPO, 'fleet/runtimes'), path.join(REPO, 'fleet'))).toBe('../../schemas/kymaruntime.json');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('from init to a reviewed change, through the built CLI', () => {
  let tmp: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const ID_1 = '5b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d';
  const ID_2 = '8d7c6b5a-4e3f-4a2b-9c1d-0e9f8a7b6c5d';

  const identity = (id: string, shoot: string): string[] => [
    '--runtime-id',
    id,
    '--global-account',
    '0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7',
    '--subaccount',
    '6a2d4f10-1e3b-4c7d-9f58-0b9e2c7d4a11',
    '--region',
    'eu-central-1',
    '--shoot',
    shoot,
    '--project',
    'kyma-prod',
  ];
  const inRepo = (args: string[]): RunResult => runBinary(args, repo, env);
  const runtimeFiles = (): string[] => fs.readdirSync(path.join(repo, 'fleet/runtimes')).sort();

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-scaffold-'));
    repo = path.join(tmp, 'acme-fleet');
    env = { KYMA_FLEET_CACHE_DIR: path.join(tmp, 'cache') };
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('init creates a repository that references its own editor schemas', () => {
    const r = runBinary(['init', 'acme-fleet'], tmp, env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^acme-fleet: created fleet "acme-fleet" \(11 files/);
    for (const f of ['.gitignore', 'README.md', 'package.json', WORKFLOW_PATH, 'fleet/fleet.yaml', 'fleet/groups/production.yaml']) {
      expect(fs.existsSync(path.join(repo, f)), f).toBe(true);
    }
    expect(runtimeFiles()).toEqual(['example-dev.yaml', 'example-prod.yaml']);
    for (const [name, text] of renderFleetSchemas()) expect(fs.readFileSync(path.join(repo, 'schemas', name), 'utf8')).toBe(text);
    expectSchemaCommentsResolve(repo);
    expectWorkflow(fs.readFileSync(path.join(repo, WORKFLOW_PATH), 'utf8'));
    expect(JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).devDependencies).toEqual({ 'kyma-fleet': VERSION });
    expect((parseYaml(fs.readFileSync(path.join(repo, 'fleet/fleet.yaml'), 'utf8')) as any).metadata.name).toBe('acme-fleet');
    expect(fs.readdirSync(tmp).filter((f) => f.includes('init-tmp'))).toEqual([]);
  });

  it('init draws fresh runtime IDs every time and names the fleet after the folder', () => {
    const r = runBinary(['init', 'nested/My Other Fleet'], tmp, env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cd 'nested/My Other Fleet'");
    const other = path.join(tmp, 'nested/My Other Fleet');
    expect((parseYaml(fs.readFileSync(path.join(other, 'fleet/fleet.yaml'), 'utf8')) as any).metadata.name).toBe('my-other-fleet');
    const id = (root: string): string => (parseYaml(fs.readFileSync(path.join(root, 'fleet/runtimes/example-dev.yaml'), 'utf8')) as any).spec.runtimeID;
    expect(id(other)).not.toBe(id(repo));
    // An existing empty folder is fine; --name overrides the folder name.
    fs.mkdirSync(path.join(tmp, 'empty'));
    const e = runBinary(['init', 'empty', '--name', 'landscape-eu'], tmp, env);
    expect(e.code).toBe(0);
    expect((parseYaml(fs.readFileSync(path.join(tmp, 'empty/fleet/fleet.yaml'), 'utf8')) as any).metadata.name).toBe('landscape-eu');
  });

  it('init refuses a folder that is not empty (exit 1) and bad usage (exit 2), writing nothing', () => {
    const again = runBinary(['init', 'acme-fleet'], tmp, env);
    expect(again.code).toBe(1);
    expect(again.errLines).toEqual(['error: acme-fleet exists and is not empty; kyma-fleet init only writes into a new or empty folder']);
    fs.writeFileSync(path.join(tmp, 'a-file'), 'x');
    const file = runBinary(['init', 'a-file'], tmp, env);
    expect(file.code).toBe(1);
    expect(file.errLines).toHaveLength(1);
    expect(runBinary(['init'], tmp, env).code).toBe(2);
    const badName = runBinary(['init', 'fresh', '--name', 'Acme_Fleet'], tmp, env);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^error: --name: a lowercase RFC 1123 label .*\(got "Acme_Fleet"\)\n$/);
    const reserved = runBinary(['init', 'fresh', '--name', 'nul'], tmp, env);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toBe('error: --name: "nul" is a reserved device name on Windows and cannot be a folder in dist/\n');
    expect(fs.existsSync(path.join(tmp, 'fresh'))).toBe(false);
  });

  it('the new repository validates and renders at once', () => {
    const v = inRepo(['validate']);
    expect(v.stderr).toBe('');
    expect(v.stdout).toBe('fleet: valid (2 runtimes, 1 group)\n');
    expect(v.code).toBe(0);
  });

  it('new runtime writes a valid runtime file with a resolving schema line', () => {
    const r = inRepo(['new', 'runtime', 'acme-eu-prod', ...identity(ID_1, 'c-5b0c1f3'), '--label', 'tier=production', '--label', 'geo=eu']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`fleet/runtimes/acme-eu-prod.yaml: written (runtime ID ${ID_1}); the fleet has 3 runtimes; next: kyma-fleet synth\n`);
    const text = fs.readFileSync(path.join(repo, 'fleet/runtimes/acme-eu-prod.yaml'), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/kymaruntime.json');
    expect(parseYaml(text)).toEqual({
      apiVersion: 'kyma-fleet.dev/v1alpha1',
      kind: 'KymaRuntime',
      metadata: { name: 'acme-eu-prod', labels: { tier: 'production', geo: 'eu' } },
      spec: {
        runtimeID: ID_1,
        globalAccountID: '0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7',
        subaccountID: '6a2d4f10-1e3b-4c7d-9f58-0b9e2c7d4a11',
        region: 'eu-central-1',
        shoot: { name: 'c-5b0c1f3', project: 'kyma-prod' },
      },
    });
    expectSchemaCommentsResolve(repo);
  });

  it('new runtime refuses a duplicate name (exit 1), nothing written', () => {
    const before = fs.readFileSync(path.join(repo, 'fleet/runtimes/acme-eu-prod.yaml'), 'utf8');
    const r = inRepo(['new', 'runtime', 'acme-eu-prod', ...identity(ID_2, 'c-8d7c6b5')]);
    expect(r.code).toBe(1);
    expect(r.errLines).toEqual([
      'error: fleet/runtimes/acme-eu-prod.yaml already exists: runtime "acme-eu-prod" is declared there; choose another name or edit that file [E_DUPLICATE_RUNTIME]',
      'fleet/runtimes/acme-eu-prod.yaml: not written',
    ]);
    expect(fs.readFileSync(path.join(repo, 'fleet/runtimes/acme-eu-prod.yaml'), 'utf8')).toBe(before);
    expect(runtimeFiles()).toEqual(['acme-eu-prod.yaml', 'example-dev.yaml', 'example-prod.yaml']);
  });

  it('new runtime refuses a duplicate runtime ID, compared case-insensitively (exit 1)', () => {
    const r = inRepo(['new', 'runtime', 'acme-eu-prod-2', ...identity(ID_1.toUpperCase(), 'c-8d7c6b5')]);
    expect(r.code).toBe(1);
    expect(r.errLines[0]).toMatch(
      new RegExp(`^error: --runtime-id: runtime ID "${ID_1.toUpperCase()}" is already declared in fleet/runtimes/acme-eu-prod\\.yaml:\\d+:\\d+, which git already has; this file is new \\(a copy\\?\\): give it its own runtime's values or delete it \\[E_DUPLICATE_RUNTIME_ID\\]$`),
    );
    expect(runtimeFiles()).toEqual(['acme-eu-prod.yaml', 'example-dev.yaml', 'example-prod.yaml']);
  });

  it('new runtime requires the identity flags and explains where the runtime ID comes from (exit 2)', () => {
    const args = identity(ID_2, 'c-8d7c6b5');
    const r = inRepo(['new', 'runtime', 'acme-eu-dev', ...args.slice(2)]);
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: kyma-fleet new runtime acme-eu-dev needs --runtime-id; the runtime ID is assigned by the Kyma Environment Broker/);
    const two = inRepo(['new', 'runtime', 'acme-eu-dev', ...args.slice(0, 8)]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('needs --shoot, --project');
    expect(runtimeFiles()).toEqual(['acme-eu-prod.yaml', 'example-dev.yaml', 'example-prod.yaml']);
  });

  it.each([
    ['a runtime ID that is not a UUID', ['acme-x', ...identity('not-a-uuid', 'c-1')], 'error: --runtime-id: must be a UUID such as 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01 (got "not-a-uuid") [E_RUNTIME_ID]'],
    ['a name that is not a DNS-1123 label', ['Acme_X', ...identity(ID_2, 'c-1')], 'error: NAME: must be a DNS-1123 label'],
    ['a Windows device name', ['aux', ...identity(ID_2, 'c-1')], 'error: NAME: "aux" is a reserved device name on Windows and cannot be a folder in dist/ [E_NAME_RESERVED]'],
    ['a path as name', ['../../escape', ...identity(ID_2, 'c-1')], 'error: NAME: '],
    ['a Shoot name that is not a DNS-1123 label', ['acme-x', ...identity(ID_2, 'C_1')], 'error: --shoot: must be a DNS-1123 label (got "C_1") [E_IDENTITY]'],
    ['a bad label key', ['acme-x', ...identity(ID_2, 'c-1'), '--label', 'bad key=x'], 'error: --label: '],
    ['a label without =', ['acme-x', ...identity(ID_2, 'c-1'), '--label', 'tier'], 'error: --label must be KEY=VALUE'],
  ])('new runtime refuses %s (exit 2), nothing written', (_what, args, message) => {
    const r = inRepo(['new', 'runtime', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(message), r.stderr).toBe(true);
    expect(runtimeFiles()).toEqual(['acme-eu-prod.yaml', 'example-dev.yaml', 'example-prod.yaml']);
    expect(fs.existsSync(path.join(tmp, 'escape.yaml'))).toBe(false);
  });

  it('new runtime reports a bad name even when the schema refused another flag first', () => {
    const r = inRepo(['new', 'runtime', 'Bad', ...identity(`${ID_2}0000`, 'c-1')]);
    expect(r.code).toBe(2);
    expect(r.errLines).toEqual([
      'error: --runtime-id: must be at most 36 characters (got 40) [E_TOO_LONG]',
      expect.stringMatching(/^error: NAME: a lowercase RFC 1123 label .*\(got "Bad"\) \[E_NAME_DNS1123\]$/),
      'nothing written',
    ]);
  });

  it('new runtime refuses unknown kinds and a missing fleet', () => {
    expect(inRepo(['new']).code).toBe(2);
    const kind = inRepo(['new', 'group', 'europe']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toBe('error: unknown kind "group"; kyma-fleet new supports: runtime\n');
    const missing = inRepo(['new', 'runtime', 'acme-x', '--fleet', 'nowhere', ...identity(ID_2, 'c-1')]);
    expect(missing.code).toBe(1);
    expect(missing.errLines[0]).toMatch(/^nowhere:1:1: error: fleet folder not found/);
  });

  it('validate (exit 0) and synth (exit 0) render every runtime into dist/', () => {
    const v = inRepo(['validate']);
    expect(v.code).toBe(0);
    expect(v.stdout).toBe('fleet: valid (3 runtimes, 1 group)\n');
    const s = inRepo(['synth']);
    expect(s.stderr).toBe('');
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/^dist: written \(3 runtimes, \d+ files\)\n$/);
    for (const name of ['acme-eu-prod', 'example-dev', 'example-prod']) {
      for (const target of ['skr', 'kcp', 'garden']) expect(fs.existsSync(path.join(repo, 'dist/runtimes', name, target, 'kustomization.yaml')), `${name}/${target}`).toBe(true);
    }
    expect(fs.existsSync(path.join(repo, 'dist/gitops/flux/kustomization.yaml'))).toBe(true);
    // The production group matched the new runtime by its label: Falco is one of its Kyma modules.
    const kyma = parseYaml(fs.readFileSync(path.join(repo, 'dist/runtimes/acme-eu-prod/skr/kyma-default.yaml'), 'utf8')) as any;
    expect(kyma.spec.channel).toBe('regular');
    expect(kyma.spec.modules.map((m: { name: string }) => m.name)).toEqual(expect.arrayContaining(['falco', 'registry-cache', 'telemetry']));
    expect(inRepo(['synth', '--check']).code).toBe(0);
  });

  it('an edited runtime shows in diff, and synth --check fails until synth ran again', () => {
    const file = path.join(repo, 'fleet/runtimes/acme-eu-prod.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  region: eu-central-1\n', '  region: eu-central-1\n  channel: fast\n'));
    const d = inRepo(['diff']);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('+++ b/runtimes/acme-eu-prod/skr/kyma-default.yaml');
    expect(d.stdout).toContain('-  channel: regular\n+  channel: fast\n');
    expect(d.stdout).toContain('0 added, 1 changed, 0 removed files; runtimes: 0 new, 1 changed, 0 removed');
    const md = inRepo(['diff', '--output', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('**Changed runtimes:** `acme-eu-prod`');

    const stale = inRepo(['synth', '--check']);
    expect(stale.code).toBe(3);
    expect(stale.stderr).toContain('dist: out of date: 0 added, 1 changed, 0 removed; run kyma-fleet synth');
    expect(inRepo(['synth']).code).toBe(0);
    const fresh = inRepo(['synth', '--check']);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toBe('dist: up to date (3 runtimes)\n');
    expect(inRepo(['diff']).stdout).not.toContain('+++');
  });

  it('new runtime takes the new runtime back when the fleet would no longer validate (a policy)', () => {
    const fleetFile = path.join(repo, 'fleet/fleet.yaml');
    const original = fs.readFileSync(fleetFile, 'utf8');
    try {
      fs.writeFileSync(
        fleetFile,
        original.replace('  defaults:\n', '  policies:\n    - name: critical-runs-falco\n      selector:\n        matchLabels:\n          tier: critical\n      requireExtensions:\n        - falco\n  defaults:\n'),
      );
      expect(inRepo(['validate']).code).toBe(0);
      const r = inRepo(['new', 'runtime', 'acme-critical', ...identity(ID_2, 'c-8d7c6b5'), '--label', 'tier=critical']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/error at defaults\.extensions\.falco\.enabled: policy "critical-runs-falco" requires extension falco on runtime "acme-critical"/);
      expect(r.errLines.at(-1)).toBe('fleet: 1 error with the new runtime; fleet/runtimes/acme-critical.yaml not written');
      expect(fs.readdirSync(path.join(repo, 'fleet/runtimes')).sort()).toEqual(['acme-eu-prod.yaml', 'example-dev.yaml', 'example-prod.yaml']);
    } finally {
      fs.writeFileSync(fleetFile, original);
    }
  });

  it('new runtime refuses to add to a fleet that is already invalid', () => {
    const file = path.join(repo, 'fleet/runtimes/example-dev.yaml');
    const original = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, original.replace('project: kyma-dev', 'project: Kyma_Dev'));
      const r = inRepo(['new', 'runtime', 'acme-eu-dev', ...identity(ID_2, 'c-8d7c6b5')]);
      expect(r.code).toBe(1);
      expect(r.errLines[0]).toMatch(/^fleet\/runtimes\/example-dev\.yaml:\d+:\d+: error at shoot\.project: /);
      expect(r.errLines.at(-1)).toBe('fleet: 1 error; fix the fleet before adding a runtime (nothing written)');
      expect(fs.existsSync(path.join(repo, 'fleet/runtimes/acme-eu-dev.yaml'))).toBe(false);
    } finally {
      fs.writeFileSync(file, original);
    }
  });
});

describe('new runtime in a fleet without a schemas/ folder', () => {
  it('references the published schema URL and keeps the example fleet valid', () => {
    const f = FleetFixture.example();
    try {
      const env = { KYMA_FLEET_CACHE_DIR: path.join(f.dir, '.cache') };
      const r = f.runBinary(
        ['new', 'runtime', 'acme-eu-prod-3', '--now', NOW, '--runtime-id', '0f1e2d3c-4b5a-4697-8877-665544332211', '--global-account', 'ga-1', '--subaccount', 'sa-1', '--region', 'eu-central-1', '--shoot', 'c-0f1e2d3', '--project', 'kyma-prod', '--label', 'geo=eu'],
        env,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(f.read('runtimes/acme-eu-prod-3.yaml').split('\n')[0]).toBe(`# yaml-language-server: $schema=${kymaRuntimeSchema().$id}`);
      const v = f.runBinary(['validate', '--now', NOW], env);
      expect(v.code).toBe(0);
      expect(v.stdout).toBe('fleet: valid (8 runtimes, 3 groups)\n');
    } finally {
      f.cleanup();
    }
  });
});
