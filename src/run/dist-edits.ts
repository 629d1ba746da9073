// Whether dist/ is still exactly what the last synth left (issue 26, "dist/ edited by hand"): a plain
// synth trusts its run record and dist/'s index instead of reading every file, and `synth --check`
// compares every byte; both must agree on whether dist/ is current. A file edited, replaced or
// removed since the run that wrote it has a newer mtime or ctime than the record's `settled` time
// (or is gone), so one lstat per listed file tells a synth to verify dist/ byte for byte, which
// restores what was edited. Files with a newer time but the same bytes (a `git stash pop`, `touch`)
// only cost that one verifying run.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IndexView } from '../lib/dist-index';

/** True when a file the index lists is missing, not a regular file, or changed after `settled` (ms). */
export function distTouchedSince(outDir: string, view: Pick<IndexView, 'size' | 'relAt'>, settled: number): boolean {
  for (let i = 0; i < view.size; i++) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(path.join(outDir, view.relAt(i)), { throwIfNoEntry: false });
    } catch {
      return true;
    }
    // Whole milliseconds: `settled` is Date.now(), truncated, while file times have nanoseconds,
    // so a file written in the very millisecond the record was taken is not newer than it.
    if (!st || !st.isFile() || Math.floor(st.mtimeMs) > settled || Math.floor(st.ctimeMs) > settled) return true;
  }
  return false;
}
