// Writing one file of the new tree: created with 'wx' (never through a symlink, never over an
// existing file), compared with dist/'s copy byte for byte, flushed early in the background.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { withPath } from './result';

/** Creates a file that must not exist yet ('wx' never follows a symlink) and writes it (UTF-8; a large one as chunks). */
export function writeNewFile(file: string, content: string | readonly string[]): void {
  const fd = withPath(file, () => fs.openSync(file, 'wx'));
  try {
    withPath(file, () => {
      for (const chunk of typeof content === 'string' ? [content] : content) {
        const bytes = Buffer.from(chunk, 'utf8');
        for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off);
      }
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** True when `file` (not followed through a symlink) holds exactly `content` as UTF-8. */
export function onDiskBytesAre(file: string, content: string): boolean {
  try {
    if (!fs.lstatSync(file).isFile()) return false;
    const actual = fs.readFileSync(file);
    return actual.length === Buffer.byteLength(content, 'utf8') && actual.toString('utf8') === content;
  } catch {
    return false;
  }
}

/** Files written between two early flushes of a large staging tree. */
export const EARLY_FLUSH_FILES = 20_000;

/**
 * Starts writing a large staging tree back to disk while the run goes on rendering (`sync -f` in
 * the background, not waited for): the flush that makes the tree durable before the swap then
 * has little left to do, and the disk works while the CPU renders. Best effort: nothing depends
 * on it, and makeDurable still flushes everything.
 */
export function startEarlyFlush(treeDir: string): void {
  if (process.platform !== 'linux') return;
  try {
    const child = spawn('sync', ['-f', treeDir], { stdio: 'ignore', detached: false });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no sync binary: makeDurable falls back to fsync
  }
}
