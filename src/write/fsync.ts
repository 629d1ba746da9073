// Durability helpers shared by the writers of dist/ and of fleet/status/: fsync of a file or a
// folder, tolerant of platforms that cannot open folders, and one file replaced atomically.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

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

/**
 * Replaces `file` with `data` atomically and durably: a new temporary file beside it (never an
 * existing one), fsync, rename, fsync of the folder. Readers see the old content or the new, never a
 * part. Throws the I/O error; the temporary file is removed.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    fsyncDir(dir);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
