// The text after the top-level `kyma-fleet --help`: the exit codes, the environment variables the
// CLI reads and where the documentation is. Both lists are data: the exit codes are the ExitCode
// table of src/lib/diagnostics.ts with a meaning each (the compiler refuses a code without one),
// and a test checks the help and docs/cli.md against them and the variables against every
// environment read in src/ (test/cli/help.test.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode } from '../lib/diagnostics';
import { packageRoot } from '../lib/version';

/** What each exit code means, as the help and docs/cli.md print it. */
export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof ExitCode, string>> = {
  Ok: 'success (status, apply garden: the report was written, whatever the states in it)',
  InvalidInput: 'invalid input: the fleet has errors, or init/new would conflict with what exists; nothing written',
  Usage: 'usage: unknown command or option, a missing or malformed value',
  OutOfDate: 'out of date: synth --check found dist/ stale; apply garden refuses a dist/ that is not the fleet\'s render',
  IoOrLock: 'I/O or lock: an output or status folder cannot be written or another run holds its lock; left unchanged',
  StatusGlobalFailure: 'cluster access failed: kubeconfig unreadable or unusable, credentials refused, a cluster unreachable, a Shoot not written',
  RolloutGateClosed: 'rollout gate closed or outside a change window: nothing advanced or applied (the ring being left holds it, the rollout is paused, or a ring is outside its change window)',
  Internal: 'internal error: a bug, please report it with the message',
};

export interface ExitCodeRow {
  readonly code: number;
  readonly name: string;
  readonly meaning: string;
}

/** The exit codes in numeric order. */
export function exitCodeTable(): ExitCodeRow[] {
  return (Object.entries(ExitCode) as Array<[keyof typeof ExitCode, number]>)
    .map(([name, code]) => ({ code, name, meaning: EXIT_CODE_MEANINGS[name] }))
    .sort((a, b) => a.code - b.code);
}

export interface EnvironmentVariable {
  readonly name: string;
  readonly meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'KUBECONFIG', meaning: 'kubeconfig files of status, apply garden and rollout advance when --kubeconfig is not given: a list separated by \':\', as for kubectl' },
  { name: 'HOME', meaning: 'without --kubeconfig and KUBECONFIG, the kubeconfig is ~/.kube/config' },
  { name: 'SOURCE_DATE_EPOCH', meaning: 'evaluation time (seconds since 1970) when --now is not given (version expiry checks)' },
  { name: 'KYMA_FLEET_CACHE_DIR', meaning: 'cache folder; default node_modules/.cache/kyma-fleet when ./node_modules exists, else $XDG_CACHE_HOME/kyma-fleet' },
  { name: 'XDG_CACHE_HOME', meaning: 'base of the default cache folder outside an npm project (default ~/.cache)' },
  { name: 'KYMA_FLEET_NO_CACHE', meaning: '1: like --no-cache, check every fleet file again' },
  { name: 'KYMA_FLEET_NO_PROGRESS', meaning: 'non-empty: no progress bar (none either under CI, with TERM=dumb or off a terminal)' },
  { name: 'CI', meaning: 'set (and not false or 0): no progress bar' },
  { name: 'TERM', meaning: 'dumb: no progress bar' },
  { name: 'GITHUB_ACTIONS', meaning: 'true: diagnostics also as GitHub Actions annotations' },
  { name: 'KYMA_FLEET_WORKERS', meaning: 'worker threads of a large synth (default: CPUs, at most 4; 1: none)' },
  { name: 'KYMA_FLEET_PARALLEL_MIN', meaning: 'runtime files from which synth splits the fleet into parts (default 500)' },
  { name: 'KYMA_FLEET_WORKER_STALL_MS', meaning: 'a synth worker silent this long is taken for dead (default 120000)' },
];

/** Where to read on: the docs/ index in a clone, else the README shipped with the package. */
export function docsLocation(root: string | undefined = packageRoot()): string {
  if (root === undefined) return 'README.md of the kyma-fleet package';
  const docsIndex = path.join(root, 'docs', 'README.md');
  return fs.existsSync(docsIndex) ? docsIndex : path.join(root, 'README.md');
}

export function topLevelHelpText(): string {
  const width = Math.max(...ENVIRONMENT_VARIABLES.map((v) => v.name.length));
  const codes = exitCodeTable();
  const codeWidth = Math.max(...codes.map((c) => String(c.code).length));
  return (
    '\nExit codes:\n' +
    codes.map((c) => `  ${String(c.code).padEnd(codeWidth)}  ${c.meaning}\n`).join('') +
    '\nEnvironment variables:\n' +
    ENVIRONMENT_VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning}\n`).join('') +
    `\nDocumentation: ${docsLocation()}\n` +
    '  (commands, options, JSON output and exit codes: docs/cli.md; fleet format, applying with Flux and Argo CD,\n' +
    '   CI, status, troubleshooting by error code: the docs/ folder beside it)\n'
  );
}
