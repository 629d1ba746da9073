// The package version, found from both the TypeScript sources (tests) and the compiled lib/.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function packageVersion(): string {
  const root = packageRoot();
  return root === undefined ? '0.0.0' : (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The folder of kyma-fleet's package.json: the clone, or node_modules/kyma-fleet. */
export function packageRoot(): string | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
