// The package version, found from both the TypeScript sources (tests) and the compiled lib/.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function packageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) return (JSON.parse(fs.readFileSync(candidate, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}
