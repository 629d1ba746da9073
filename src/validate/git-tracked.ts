// Which fleet files git already has (issue 26: a copied runtime file with a duplicate runtime ID is
// reported on the copy, the file that is new in the working tree). Asked only when two runtime
// files collide, so a valid fleet never runs git. Best effort: without git, outside a repository,
// or on any failure the answer is "cannot tell" (undefined), and both files are reported.

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { TrackedFiles } from './documents';

/** `files` are displayed as `<displayRoot>/<relPath>`; git is asked in the fleet folder `root`. */
export function gitTrackedFiles(root: string, displayRoot: string): TrackedFiles {
  return (files) => {
    const prefix = `${displayRoot}/`;
    const rels = files.map((f) => (f.startsWith(prefix) ? f.slice(prefix.length) : undefined));
    if (rels.some((r) => r === undefined)) return undefined;
    try {
      const r = spawnSync('git', ['-C', root, 'ls-files', '-z', '--full-name', '--', ...(rels as string[])], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
      if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
      const prefixOut = spawnSync('git', ['-C', root, 'rev-parse', '--show-prefix'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
      if (prefixOut.status !== 0) return undefined;
      const inRepo = prefixOut.stdout.trim();
      const listed = new Set(r.stdout.split('\0').filter((x) => x !== ''));
      return new Set(files.filter((_, i) => listed.has(path.posix.join(inRepo, rels[i]!))));
    } catch {
      return undefined;
    }
  };
}
