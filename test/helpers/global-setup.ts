// Runs once before all test files: gives the whole run its own cache home, so the CLI tests (which
// run the real binary in temporary folders without node_modules, where kyma-fleet caches under
// $XDG_CACHE_HOME) never fill the developer's ~/.cache with a parse cache per temporary fleet.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export default function setup(): () => void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-test-cache-'));
  const saved = process.env.XDG_CACHE_HOME;
  // Test processes (pool: forks) and the binaries they start inherit it.
  process.env.XDG_CACHE_HOME = home;
  return () => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    fs.rmSync(home, { recursive: true, force: true });
  };
}
