// Whether a path exists without following a symlink at it: the writer and the loaders ask this
// before creating or reading, and a symlink must count as "there" (never as its target).

import * as fs from 'node:fs';

/**
 * True when a file, folder, symlink or anything else is at `p` (a symlink is not followed). False
 * when nothing is there (ENOENT, or a parent that is a file: ENOTDIR). Any other error (EACCES,
 * EIO...) is thrown, unless `lenient` (the caller then finds the problem when it reads or writes).
 */
export function lexists(p: string, lenient = false): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (lenient || code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw e;
  }
}
