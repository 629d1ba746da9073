// The approval flow of the generated workflow (issue 29, docs/ci.md): the pull-request job's diff
// step (`kyma-fleet check`, which runs diff, or `kyma-fleet diff`) passes `--fail-on destructive` and
// records a destructive change as a step output instead of failing (so the comment is still
// posted); the approval step then fails the job
// unless the pull request has the label kyma-fleet/approve-destructive. Both `run:` scripts are run
// here with bash as GitHub runs them, on the example fleet against its own render, with `npx
// kyma-fleet` being the built binary (a two-line shim on PATH); the step's `env:` expressions are
// checked word for word, and filled in as GitHub would evaluate them.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPROVE_DESTRUCTIVE_LABEL, githubWorkflowYaml } from '../../src/scaffold/github-workflow';
import { BIN, EXAMPLE_FLEET, NOW, runBinary } from '../helpers/fleet-fixture';

type Step = Partial<Record<'name' | 'id' | 'if' | 'run' | 'uses', string>> & { env?: Record<string, string> };
const steps = (parse(githubWorkflowYaml()) as { jobs: { fleet: { steps: Step[] } } }).jobs.fleet.steps;
const diffStep = steps.find((s) => s.id === 'diff')!;
const approvalStep = steps.find((s) => s.name?.startsWith('A destructive change needs'))!;
const GITHUB_SHELL = ['--noprofile', '--norc', '-eo', 'pipefail', '-c'];

let tmp: string;
let shim: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-approval-'));
  shim = path.join(tmp, 'bin');
  fs.mkdirSync(shim);
  // `npx kyma-fleet ARGS` as npm runs it in a fleet repository: the installed binary.
  fs.writeFileSync(path.join(shim, 'npx'), `#!/bin/sh\n[ "$1" = kyma-fleet ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
}, 60_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A pull request's checkout: the example fleet changed by `edit`, the base branch's dist/ in RUNNER_TEMP. */
function pullRequest(name: string, edit: (fleet: string) => void): { work: string; env: NodeJS.ProcessEnv; output: string } {
  const work = path.join(tmp, name);
  fs.cpSync(EXAMPLE_FLEET, path.join(work, 'fleet'), { recursive: true });
  const synth = runBinary(['synth', '--now', NOW], work);
  expect(synth.code, synth.stderr).toBe(0);
  const runnerTemp = path.join(tmp, `${name}-temp`);
  fs.mkdirSync(path.join(runnerTemp, 'base'), { recursive: true });
  fs.cpSync(path.join(work, 'dist'), path.join(runnerTemp, 'base', 'dist'), { recursive: true });
  edit(path.join(work, 'fleet'));
  expect(runBinary(['synth', '--now', NOW], work).code).toBe(0);
  const output = path.join(runnerTemp, 'output');
  fs.writeFileSync(output, '');
  const env = { PATH: `${shim}:${process.env.PATH}`, RUNNER_TEMP: runnerTemp, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: path.join(runnerTemp, 'summary.md'), SOURCE_DATE_EPOCH: String(Date.parse(NOW) / 1000) };
  return { work, env, output };
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('bash', [...GITHUB_SHELL, script], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The approval step with its env as GitHub evaluates it: the diff step's output, and whether the label is on the pull request. */
function approval(cwd: string, env: NodeJS.ProcessEnv, outputFile: string, labels: string[]): { status: number; stdout: string } {
  const destructive = /^destructive=(.*)$/m.exec(fs.readFileSync(outputFile, 'utf8'))?.[1] ?? '';
  const r = bash(approvalStep.run!, cwd, { ...env, DESTRUCTIVE: destructive, APPROVED: String(labels.includes(APPROVE_DESTRUCTIVE_LABEL)) });
  return { status: r.status, stdout: r.stdout };
}

const dropDockerCache = (fleet: string): void => {
  const file = path.join(fleet, 'groups/production.yaml');
  const text = fs.readFileSync(file, 'utf8');
  const from = '          - upstream: docker.io\n            volume:\n              size: 50Gi\n';
  expect(text).toContain(from);
  fs.writeFileSync(file, text.replace(from, '          - upstream: docker.io\n            enabled: false\n'));
};

describe('the generated workflow: a destructive change needs the approval label', () => {
  it('the steps read what this test fills in: the diff step output and the label on the pull request', () => {
    expect(diffStep.run).toMatch(/^npx kyma-fleet (check|diff) .*--fail-on destructive.* \|\| code=\$\?$/m);
    expect(diffStep.run).toContain('echo "destructive=true" >> "$GITHUB_OUTPUT"');
    expect(approvalStep.if).toBe("${{ !cancelled() && steps.diff.outcome == 'success' }}");
    expect(approvalStep.env).toEqual({
      DESTRUCTIVE: '${{ steps.diff.outputs.destructive }}',
      APPROVED: `\${{ contains(github.event.pull_request.labels.*.name, '${APPROVE_DESTRUCTIVE_LABEL}') }}`,
    });
    // The approval step comes after the comment, so that the comment is there to read.
    expect(steps.indexOf(approvalStep)).toBeGreaterThan(steps.findIndex((s) => s.uses?.startsWith('marocchino/')));
  });

  it('a cache removed: the diff step succeeds and records it, the comment says so; the job fails without the label and passes with it', () => {
    const pr = pullRequest('destructive', dropDockerCache);
    const diff = bash(diffStep.run!, pr.work, pr.env);
    expect(diff.status, diff.stderr).toBe(0);
    expect(fs.readFileSync(pr.output, 'utf8')).toBe('destructive=true\n');
    const md = fs.readFileSync(path.join(pr.work, 'diff.md'), 'utf8');
    expect(md).toContain('| **cache removed (images lost)** `cache-removed` | destructive | 3 |');
    expect(md).toContain('**This change needs an explicit approval**');
    const refused = approval(pr.work, pr.env, pr.output, []);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`::error title=kyma-fleet: a destructive change needs approval::`);
    expect(refused.stdout).toContain(APPROVE_DESTRUCTIVE_LABEL);
    const approved = approval(pr.work, pr.env, pr.output, ['documentation', APPROVE_DESTRUCTIVE_LABEL]);
    expect(approved).toMatchObject({ status: 0, stdout: expect.stringContaining('::notice title=kyma-fleet destructive change approved::') });
  });

  it('a change that loses nothing (a cache TTL): nothing recorded, the job passes without the label', () => {
    const pr = pullRequest('routine', (fleet) => {
      const file = path.join(fleet, 'fleet.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('ttl: 168h', 'ttl: 336h'));
    });
    const diff = bash(diffStep.run!, pr.work, pr.env);
    expect(diff.status, diff.stderr).toBe(0);
    expect(fs.readFileSync(pr.output, 'utf8')).toBe('');
    expect(fs.readFileSync(path.join(pr.work, 'diff.md'), 'utf8')).toContain('| Shoot reconcile `shoot-reconcile` | routine |');
    expect(approval(pr.work, pr.env, pr.output, [])).toEqual({ status: 0, stdout: 'no destructive change\n' });
  });

  it('any other failure of diff still fails the diff step (no comment from a broken run)', () => {
    const pr = pullRequest('broken-base', () => {});
    // A base dist/ that cannot be read as one: a file where the folder should be.
    fs.rmSync(path.join(String(pr.env.RUNNER_TEMP), 'base', 'dist'), { recursive: true });
    fs.writeFileSync(path.join(String(pr.env.RUNNER_TEMP), 'base', 'dist'), 'not a folder\n');
    const diff = bash(diffStep.run!, pr.work, pr.env);
    expect(diff.status).not.toBe(0);
    expect(diff.status).not.toBe(1);
    expect(fs.readFileSync(pr.output, 'utf8')).toBe('');
  });
});
