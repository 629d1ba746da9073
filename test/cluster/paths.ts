// Where the test cluster's files live in the repo. Found by walking up to the project's package.json,
// so the same code works from test/cluster/ (vitest) and from lib/test/cluster/ (the compiled CLI).

import * as fs from 'node:fs';
import * as path from 'node:path';

function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'kyma-fleet') return dir;
    } catch {
      // no package.json here
    }
    if (path.dirname(dir) === dir) throw new Error(`cannot find the kyma-fleet project root above ${start}`);
  }
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
/** The Go wrapper modules of the test cluster. */
export const CLUSTER_GO_DIR = path.join(PROJECT_ROOT, 'test', 'cluster', 'go');
/** The schema-only CRDs written by `npm run import`. */
export const IMPORTED_CRDS_DIR = path.join(PROJECT_ROOT, 'imports', 'crds');
