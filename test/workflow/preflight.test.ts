// The generated workflow is green on a new repository's first commit, with no secret set (issue 26):
// its `preflight` job's script, run here with bash as the runner runs it, decides which job has the
// secret or variable it needs and leaves a notice for each job it skips; the jobs that need a secret
// run only when preflight says so; the first apply garden, which needs --allow-mass-change, has a
// Run workflow input that the garden step passes on. Before issue 26 the workflow had no preflight
// job and ran apply garden without its secret on every push (exit 5, main red).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { githubWorkflowYaml, REFRESH_CRON, ROLLOUT_CRON } from '../../src/scaffold/github-workflow';

interface Step {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  needs?: string | string[];
  steps: Step[];
  env?: Record<string, string>;
  outputs?: Record<string, string>;
}
const wf = parse(githubWorkflowYaml()) as { on: Record<string, any>; jobs: Record<string, Job> };
/** How GitHub runs a `run:` script with the default shell on Linux (bash --noprofile --norc -eo pipefail {0}). */
const GITHUB_SHELL = ['--noprofile', '--norc', '-eo', 'pipefail', '-c'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-preflight-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Event {
  event: 'push' | 'schedule' | 'workflow_dispatch';
  schedule?: string;
  job?: string;
  secrets?: { GARDEN_KUBECONFIG?: string; KYMA_FLEET_KUBECONFIG?: string };
  vars?: { KYMA_FLEET_GARDEN_PROJECT?: string };
}

/** Runs the preflight step's script as the runner would for `e`: its outputs and the notices it printed. */
function preflight(e: Event): { outputs: Record<string, string>; notices: string[] } {
  const step = wf.jobs.preflight!.steps.find((s) => s.id === 'check')!;
  const output = path.join(tmp, `output-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(output, '');
  const r = spawnSync('bash', [...GITHUB_SHELL, step.run!], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      GITHUB_OUTPUT: output,
      GARDEN_KUBECONFIG: e.secrets?.GARDEN_KUBECONFIG ?? '',
      KYMA_FLEET_KUBECONFIG: e.secrets?.KYMA_FLEET_KUBECONFIG ?? '',
      GARDEN_PROJECT: e.vars?.KYMA_FLEET_GARDEN_PROJECT ?? '',
      EVENT: e.event,
      SCHEDULE: e.schedule ?? '',
      JOB: e.job ?? '',
    },
  });
  expect(r.status, r.stderr).toBe(0);
  const outputs = Object.fromEntries(fs.readFileSync(output, 'utf8').trim().split('\n').map((l) => l.split('=') as [string, string]));
  return { outputs, notices: r.stdout.split('\n').filter((l) => l.startsWith('::notice')) };
}

describe('the preflight job', () => {
  it('reads the secrets and variables the jobs need, and never runs on pull requests', () => {
    const env = wf.jobs.preflight!.steps[0]!.env!;
    expect(env).toMatchObject({
      GARDEN_KUBECONFIG: '${{ secrets.GARDEN_KUBECONFIG }}',
      KYMA_FLEET_KUBECONFIG: '${{ secrets.KYMA_FLEET_KUBECONFIG }}',
      GARDEN_PROJECT: '${{ vars.KYMA_FLEET_GARDEN_PROJECT }}',
      SCHEDULE: '${{ github.event.schedule }}',
      JOB: '${{ inputs.job }}',
    });
    expect(wf.jobs.preflight!.if).toBe("${{ github.event_name != 'pull_request' }}");
    expect(Object.keys(wf.jobs.preflight!.outputs!).sort()).toEqual(['garden', 'refresh', 'rollout']);
  });

  it.each([
    ['push, no secret: the garden job is skipped with a notice', { event: 'push' }, { garden: 'false' }, /kyma-fleet garden job skipped::the secret GARDEN_KUBECONFIG is not set/],
    ['push with GARDEN_KUBECONFIG: the garden job runs', { event: 'push', secrets: { GARDEN_KUBECONFIG: 'x' } }, { garden: 'true' }, undefined],
    ['Run workflow, job garden, no secret', { event: 'workflow_dispatch', job: 'garden' }, { garden: 'false' }, /garden job skipped/],
    ['hourly, no secret: the rollout job is skipped with a notice', { event: 'schedule', schedule: ROLLOUT_CRON }, { rollout: 'false' }, /kyma-fleet rollout job skipped::the secret KYMA_FLEET_KUBECONFIG is not set/],
    ['hourly with KYMA_FLEET_KUBECONFIG: the rollout job runs', { event: 'schedule', schedule: ROLLOUT_CRON, secrets: { KYMA_FLEET_KUBECONFIG: 'x' } }, { rollout: 'true' }, undefined],
    ['weekly, no variable: the refresh job is skipped, naming the variable', { event: 'schedule', schedule: REFRESH_CRON, secrets: { KYMA_FLEET_KUBECONFIG: 'x' } }, { refresh: 'false' }, /refresh job skipped::the repository variable KYMA_FLEET_GARDEN_PROJECT is not set/],
    ['weekly, variable but no secret', { event: 'schedule', schedule: REFRESH_CRON, vars: { KYMA_FLEET_GARDEN_PROJECT: 'p' } }, { refresh: 'false' }, /refresh job skipped::the secret KYMA_FLEET_KUBECONFIG is not set/],
    ['weekly with both: the refresh job runs', { event: 'schedule', schedule: REFRESH_CRON, secrets: { KYMA_FLEET_KUBECONFIG: 'x' }, vars: { KYMA_FLEET_GARDEN_PROJECT: 'p' } }, { refresh: 'true' }, undefined],
  ] as Array<[string, Event, Record<string, string>, RegExp | undefined]>)('%s', (_what, e, expected, notice) => {
    const r = preflight(e);
    expect(r.outputs).toMatchObject(expected);
    if (notice) {
      expect(r.notices).toHaveLength(1);
      expect(r.notices[0]).toMatch(notice);
      expect(r.notices[0]).toContain('docs/ci.md');
    } else {
      expect(r.notices).toEqual([]);
    }
  });

  it('the jobs that need a secret run only when preflight found it, each on its own trigger', () => {
    for (const [job, trigger] of [
      ['garden', "github.event_name == 'push' || (github.event_name == 'workflow_dispatch' && inputs.job == 'garden')"],
      ['rollout', `(github.event_name == 'schedule' && github.event.schedule == '${ROLLOUT_CRON}') || (github.event_name == 'workflow_dispatch' && inputs.job == 'rollout')`],
      ['refresh', `(github.event_name == 'schedule' && github.event.schedule == '${REFRESH_CRON}') || (github.event_name == 'workflow_dispatch' && inputs.job == 'refresh')`],
    ] as const) {
      expect(wf.jobs[job]!.needs, job).toBe('preflight');
      expect(wf.jobs[job]!.if, job).toBe(`\${{ (${trigger}) && needs.preflight.outputs.${job} == 'true' }}`);
    }
    expect(wf.on.schedule).toEqual([{ cron: ROLLOUT_CRON }, { cron: REFRESH_CRON }]);
  });
});

describe('the pull request job without GARDEN_KUBECONFIG', () => {
  it('skips the dry run of apply garden and says so in a notice', () => {
    const steps = wf.jobs.fleet!.steps;
    expect(wf.jobs.fleet!.env).toEqual({ GARDEN_KUBECONFIG: '${{ secrets.GARDEN_KUBECONFIG }}' });
    const dry = steps.find((s) => s.name === 'What apply garden would write into the Shoots')!;
    expect(dry.if).toContain("env.GARDEN_KUBECONFIG != ''");
    const notice = steps.find((s) => s.if === "${{ env.GARDEN_KUBECONFIG == '' }}")!;
    const r = spawnSync('bash', [...GITHUB_SHELL, notice.run!], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/^::notice title=kyma-fleet apply garden --dry-run skipped::the secret GARDEN_KUBECONFIG is not set/);
  });
});

describe('the first apply garden: Run workflow with allow-mass-change', () => {
  const apply = wf.jobs.garden!.steps.find((s) => s.name === 'Apply the Shoot entries')!;

  /** Runs the apply step with a stand-in `npx` that records its arguments and fails as apply garden does on a mass change. */
  function runApply(allow: string, stderr: string, code: number): { args: string; stdout: string; status: number | null } {
    const bin = fs.mkdtempSync(path.join(tmp, 'bin-'));
    const record = path.join(bin, 'args');
    // A stand-in for npx (the real command needs a Garden): it records its arguments, prints what
    // apply garden prints on a mass change and exits as it does.
    fs.writeFileSync(path.join(bin, 'stderr'), `${stderr}\n`);
    fs.writeFileSync(path.join(bin, 'npx'), `#!/bin/bash\nprintf '%s\\n' "$@" > '${record}'\ncat '${path.join(bin, 'stderr')}' >&2\nexit ${code}\n`, { mode: 0o755 });
    const runnerTemp = fs.mkdtempSync(path.join(tmp, 'runner-'));
    const r = spawnSync('bash', [...GITHUB_SHELL, apply.run!], {
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, RUNNER_TEMP: runnerTemp, GARDEN_KUBECONFIG: 'apiVersion: v1', ALLOW_MASS_CHANGE: allow },
    });
    return { args: fs.readFileSync(record, 'utf8'), stdout: r.stdout, status: r.status };
  }

  it('is an input of Run workflow that the apply step passes on', () => {
    expect(wf.on.workflow_dispatch.inputs.job).toMatchObject({ type: 'choice', options: ['rollout', 'refresh', 'garden'] });
    expect(wf.on.workflow_dispatch.inputs['allow-mass-change']).toMatchObject({ type: 'boolean', default: false });
    expect(apply.env).toMatchObject({ ALLOW_MASS_CHANGE: '${{ inputs.allow-mass-change }}' });
  });

  it('a push applies without --allow-mass-change; a stop by E_MASS_CHANGE fails the job and says how to run it', () => {
    const r = runApply('', 'apply garden: error: apply garden would write 9 of the fleet\'s 9 Shoots (…); if that is intended, run again with --allow-mass-change (nothing written) [E_MASS_CHANGE]', 1);
    expect(r.args.split('\n')).toEqual(['kyma-fleet', 'apply', 'garden', '--kubeconfig', expect.stringMatching(/garden\.yaml$/), '--garden-context', 'garden', '']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^::error title=kyma-fleet apply garden stopped::.*run this workflow by hand: Actions, kyma-fleet, Run workflow, job garden, allow-mass-change$/m);
  });

  it('Run workflow with allow-mass-change passes --allow-mass-change', () => {
    const r = runApply('true', 'apply garden: 9 Shoots with entries the fleet writes: 9 written, 0 up to date', 0);
    expect(r.args.split('\n')).toContain('--allow-mass-change');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });
});
