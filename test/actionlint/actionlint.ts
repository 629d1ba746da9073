// rhysd/actionlint as a tool-cache entry: the wrapper module in this folder (go.mod pins v1.7.12 with
// a `tool` line) built once into ~/.cache/kyma-fleet-tools by test/cluster/go-tool-cache.ts, and a
// runner that lints workflow texts with it. Used by test/workflow/actionlint.test.ts.
//
// shellcheck and pyflakes are switched off (-shellcheck= -pyflakes=): actionlint runs them only when
// they are on PATH, and a verdict must not depend on what else the machine has installed; the
// `run:` scripts' behaviour is tested by running them (test/workflow/, test/package/ci-runner.test.ts).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { PROJECT_ROOT } from '../cluster/paths';

export const ACTIONLINT_VERSION = 'v1.7.12';
export const ACTIONLINT_SPEC: GoToolSpec = {
  name: `actionlint-${ACTIONLINT_VERSION}`,
  moduleDir: path.join(PROJECT_ROOT, 'test', 'actionlint'),
  binaries: { actionlint: 'github.com/rhysd/actionlint/cmd/actionlint' },
};

/** Why actionlint cannot be built here (no Go), or undefined. */
export function actionlintUnavailableReason(): string | undefined {
  return findGo() ? undefined : 'no Go toolchain (no `go` on PATH or /usr/local/go/bin/go): actionlint cannot be built (see docs/testing.md)';
}

/** The actionlint binary, built or reused. */
export async function ensureActionlint(log?: (line: string) => void): Promise<string> {
  const tool = await ensureGoTool(ACTIONLINT_SPEC, log ? { log } : {});
  return tool.binaries.actionlint!;
}

export interface LintProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly kind: string;
  readonly message: string;
}

export interface LintResult {
  readonly code: number;
  readonly problems: LintProblem[];
  readonly stderr: string;
}

/** Lints workflow files (name -> text) as .github/workflows/<name> of a scratch repository. */
export function lintWorkflows(binary: string, workflows: ReadonlyMap<string, string>): LintResult {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-actionlint-'));
  try {
    const dir = path.join(repo, '.github', 'workflows');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(path.join(repo, '.git'));
    const files = [...workflows].map(([name, text]) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join('.github', 'workflows', name);
    });
    const r = spawnSync(binary, ['-shellcheck=', '-pyflakes=', '-no-color', '-format', '{{json .}}', ...files], { cwd: repo, encoding: 'utf8' });
    if (r.error) throw r.error;
    const out = r.stdout.trim();
    const raw = out === '' ? [] : (JSON.parse(out) as Array<{ filepath: string; line: number; column: number; kind: string; message: string }>);
    return {
      code: r.status ?? -1,
      problems: raw.map((p) => ({ file: p.filepath, line: p.line, column: p.column, kind: p.kind, message: p.message })),
      stderr: r.stderr,
    };
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}
