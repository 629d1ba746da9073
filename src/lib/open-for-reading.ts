// Opening a file only to read it, without updating its access time (O_NOATIME, Linux). On a fresh
// clone every file's atime equals its mtime, so under the usual relatime mount option the first read
// of each file also writes its inode: a check that reads the 130,000 files of a 10,000-runtime dist/
// on a fresh CI runner spends 0.2-0.4 s of kernel time on atimes alone (docs/performance.md). The
// kernel allows O_NOATIME only to the file's owner (EPERM otherwise, say a checkout owned by another
// user); from the first refusal on, files are opened as before. Elsewhere (macOS, Windows) the flag
// does not exist and nothing changes.

import * as fs from 'node:fs';

let noAtime: number = (fs.constants as { O_NOATIME?: number }).O_NOATIME ?? 0;

/** fs.openSync(file, O_RDONLY | flags), with O_NOATIME while the kernel allows it. */
export function openForReading(file: string, flags = 0): number {
  if (noAtime !== 0) {
    try {
      return fs.openSync(file, fs.constants.O_RDONLY | flags | noAtime);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
      noAtime = 0;
    }
  }
  return fs.openSync(file, fs.constants.O_RDONLY | flags);
}
