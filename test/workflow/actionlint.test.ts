// Every GitHub Actions workflow `kyma-fleet init` can write passes rhysd/actionlint (built from source
// at a pinned version, test/actionlint/), and actionlint is seen refusing what GitHub refuses: a
// secret read in a job's `if` (the reason the workflow has a preflight job), an input or a job output
// that does not exist, a dispatch input of a type GitHub does not know. Without Go the file is skipped
// with one line; under CI=true it is required (issue 26).

import { beforeAll, expect, it } from 'vitest';
import { renderFleetSchemas } from '../../scripts/write-fleet-schemas';
import { scaffoldFleetRepo, WORKFLOW_PATH } from '../../src/scaffold/templates';
import { ensureActionlint, lintWorkflows, actionlintUnavailableReason } from '../actionlint/actionlint';
import { describeWithTool } from '../helpers/describe-with-tool';
import { REPO } from '../helpers/fleet-fixture';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SKIP_ENV = 'KYMA_FLEET_ACTIONLINT_SKIP';
const reason = actionlintUnavailableReason();
if (reason) process.env[SKIP_ENV] = reason;
else delete process.env[SKIP_ENV];

/** Every workflow file init writes, over the ways it can be called (where kyma-fleet comes from). */
function workflowsInitWrites(): Map<string, string> {
  const out = new Map<string, string>();
  const schemas = renderFleetSchemas();
  let n = 0;
  const newId = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  for (const kymaFleetFrom of [undefined, 'file:vendor/kyma-fleet-0.1.0.tgz', 'git+https://git.acme.test/kyma-fleet.git#v0.1.0', '9.9.9']) {
    const files = scaffoldFleetRepo({ name: 'acme', kymaFleetVersion: '0.1.0', ...(kymaFleetFrom ? { kymaFleetFrom } : {}), schemas, newId });
    for (const [rel, text] of files) {
      if (!rel.startsWith('.github/workflows/')) continue;
      const seen = [...out].find(([, t]) => t === text);
      if (!seen) out.set(`${String(out.size)}-${path.posix.basename(rel)}`, text);
    }
  }
  return out;
}

describeWithTool('actionlint', SKIP_ENV, 'actionlint over the workflows init writes', () => {
  let actionlint: string;
  beforeAll(async () => {
    actionlint = await ensureActionlint((line) => process.stderr.write(`actionlint: ${line}\n`));
  }, 900_000);

  const workflow = scaffoldFleetRepo({ name: 'acme', kymaFleetVersion: '0.1.0', schemas: renderFleetSchemas(), newId: () => '00000000-0000-4000-8000-000000000001' }).get(WORKFLOW_PATH)!;

  it('passes every workflow init can write, and the example in examples/', () => {
    const workflows = workflowsInitWrites();
    expect(workflows.size).toBeGreaterThan(0);
    workflows.set('example.yml', fs.readFileSync(path.join(REPO, 'examples/github-actions/kyma-fleet.yml'), 'utf8'));
    const r = lintWorkflows(actionlint, workflows);
    expect(r.problems).toEqual([]);
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([
    [
      'a secret read in a job-level if',
      (t: string) => t.replace("if: ${{ (github.event_name == 'push' ||", "if: ${{ secrets.GARDEN_KUBECONFIG != '' && (github.event_name == 'push' ||"),
      /context "secrets" is not allowed here/,
    ],
    ['a dispatch input that does not exist', (t: string) => t.replace('${{ inputs.allow-mass-change }}', '${{ inputs.allow-mass-changes }}'), /property "allow-mass-changes" is not defined/],
    ['a preflight output that does not exist', (t: string) => t.replace("needs.preflight.outputs.garden == 'true'", "needs.preflight.outputs.gardn == 'true'"), /property "gardn" is not defined/],
    ['a job that needs an unknown job', (t: string) => t.replace('    needs: preflight\n', '    needs: prefligt\n'), /job "garden" needs job "prefligt" which does not exist/],
    ['a dispatch input of an unknown type', (t: string) => t.replace('        type: choice\n', '        type: choise\n'), /input type of workflow_dispatch event must be one of/],
  ])('refuses %s', (_what, mutate, message) => {
    const broken = mutate(workflow);
    expect(broken, 'the mutation applies to the current workflow').not.toBe(workflow);
    const r = lintWorkflows(actionlint, new Map([['kyma-fleet.yml', broken]]));
    expect(r.code).toBe(1);
    expect(r.problems.map((p) => p.message).join('\n')).toMatch(message);
  });
});

