// Durability helpers shared by the writers of dist/ and of fleet/status/: fsync of a file or a
// folder, tolerant of platforms that cannot open folders.

import * as fs from 'node:fs';

function code(e: unknown): string | undefined {
  return e instanceof Error ? (e as NodeJS.ErrnoException).code : undefined;
}

export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (e) {
    if (code(e) === 'EISDIR' || code(e) === 'EPERM') return; // platforms that cannot open folders (Windows)
    throw e;
  }
  try {
    fs.fsyncSync(fd);
  } catch (e) {
    if (code(e) !== 'EINVAL' && code(e) !== 'ENOTSUP') throw Object.assign(e as Error, { path: dir });
  } finally {
    fs.closeSync(fd);
  }
}
