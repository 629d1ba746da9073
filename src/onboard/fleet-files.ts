// Writing into the fleet folder without ever leaving a half-written file: new files are created
// together or not at all (each written to a hidden temporary file, made durable, then linked into
// place, which fails instead of replacing an existing file; on any failure the files of this run are
// removed again), and a file that is replaced (the catalog, a profile snapshot) is written to a
// temporary file and renamed over the old one. Temporary files start with '.', which the fleet
// loader skips, and never survive the call.

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lexists } from '../lib/fs-exists';
import { fsyncDir, fsyncFile } from '../write/fsync';

/** A file that could not be written, with the OS error code. */
export class FleetWriteError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    readonly exists = false,
  ) {
    super(exists ? `${file} already exists` : `cannot write ${file} (${code})`);
  }
}

function tempBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/**
 * Creates every file of `files` (absolute path -> text; all in existing or creatable folders) or
 * none: throws FleetWriteError after removing what it created. An existing file is never replaced.
 * `display` turns an absolute path into the name shown in errors.
 */
export function createFilesTogether(files: ReadonlyMap<string, string>, display: (abs: string) => string): void {
  const temps = new Map<string, string>();
  const created: string[] = [];
  const dirs = new Set<string>();
  try {
    for (const [target, text] of files) {
      const dir = path.dirname(target);
      if (!dirs.has(dir)) {
        try {
          fs.mkdirSync(dir, { recursive: true });
        } catch (err) {
          throw new FleetWriteError(display(dir), codeOf(err));
        }
        dirs.add(dir);
      }
      const tmp = tempBeside(target);
      temps.set(target, tmp);
      try {
        fs.writeFileSync(tmp, text, { flag: 'wx' });
        fsyncFile(tmp);
      } catch (err) {
        throw new FleetWriteError(display(target), codeOf(err));
      }
    }
    for (const [target, tmp] of temps) {
      try {
        linkNew(tmp, target);
      } catch (err) {
        if (err instanceof FleetWriteError) throw err;
        const code = codeOf(err);
        throw new FleetWriteError(display(target), code, code === 'EEXIST');
      }
      created.push(target);
    }
    for (const dir of dirs) fsyncDir(dir);
  } catch (err) {
    for (const f of created) fs.rmSync(f, { force: true });
    for (const dir of dirs) {
      try {
        fsyncDir(dir);
      } catch {
        // best effort: the removal itself has happened
      }
    }
    throw err;
  } finally {
    for (const tmp of temps.values()) fs.rmSync(tmp, { force: true });
  }
}

/** Removes files this process created (a rollback after a later check failed). */
export function removeCreated(files: Iterable<string>): void {
  const dirs = new Set<string>();
  for (const f of files) {
    fs.rmSync(f, { force: true });
    dirs.add(path.dirname(f));
  }
  for (const dir of dirs) fsyncDir(dir);
}

/** Hard link `tmp` to `target`, failing with EEXIST instead of replacing; a rename where links are not supported. */
function linkNew(tmp: string, target: string): void {
  try {
    fs.linkSync(tmp, target);
  } catch (err) {
    const code = codeOf(err);
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(code)) throw err;
    if (lexists(target, true)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
    fs.renameSync(tmp, target);
  }
}

/**
 * Writes `text` to `target` atomically (temporary file, fsync, rename over the old file, fsync of
 * the folder). Refuses a target that is a symbolic link or not a regular file. Returns false when
 * the file already holds exactly `text` (nothing written).
 */
export function replaceFile(target: string, text: string, display: string): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(target);
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') throw new FleetWriteError(display, codeOf(err));
  }
  if (st && !st.isFile()) throw new FleetWriteError(display, st.isSymbolicLink() ? 'a symbolic link; kyma-fleet never writes through one' : 'not a regular file');
  if (st && fs.readFileSync(target, 'utf8') === text) return false;
  const dir = path.dirname(target);
  const tmp = tempBeside(target);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fsyncFile(tmp);
    fs.renameSync(tmp, target);
    fsyncDir(dir);
  } catch (err) {
    throw new FleetWriteError(display, codeOf(err));
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return true;
}
