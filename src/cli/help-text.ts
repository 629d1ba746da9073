// The text after the top-level `kyma-fleet --help`: the environment variables the CLI reads and
// where the documentation is. The list is data so a test can check it against every environment
// read in src/ (test/cli/help.test.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../lib/version';

export interface EnvironmentVariable {
  readonly name: string;
  readonly meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'KUBECONFIG', meaning: 'kubeconfig file when --kubeconfig is not given (apply garden)' },
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
  return (
    '\nEnvironment variables:\n' +
    ENVIRONMENT_VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning}\n`).join('') +
    `\nDocumentation: ${docsLocation()}\n` +
    '  (fleet format, applying with Flux and Argo CD, CI, status, troubleshooting by error code: docs/ of the kyma-fleet repository)\n'
  );
}
