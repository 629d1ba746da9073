// The I/O edge of `kyma-fleet status`: reads the previous status files and writes the new ones
// into the status folder (fleet/status/ by default). Rules (hostile-inputs H69):
//   - only files whose bytes change are written, each atomically: a temporary file in the same
//     folder (created with O_EXCL, so never through a symlink), fsynced, then renamed over the
//     target, then the folder fsynced; a killed run leaves the old file or the new one, never half;
//   - `<name>.yaml` files of runtimes no longer in the fleet are removed only when they start with
//     the header kyma-fleet writes; every other file in the folder is left alone;
//   - the folder itself must not be a symlink (the status of a fleet is written into that fleet).
// The fleet loader never reads the status folder (src/load/load.ts reads only fleet.yaml,
// groups/, runtimes/ and rules/).

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { isOwnedStatusFile, isWrittenByKymaFleet, MAX_STATUS_FILE_BYTES, STATUS_HEADER, STATUS_PAGE_FILE, SUMMARY_FILE } from './status-file';
import { fsyncDir } from '../write/fsync';

export interface StatusProblem {
  readonly code: string;
  readonly message: string;
}

export type StatusWriteResult =
  | { readonly ok: true; readonly written: readonly string[]; readonly removed: readonly string[]; readonly unchanged: number }
  | { readonly ok: false; readonly problem: StatusProblem };

/** Temporary files of this writer: `.<file>.tmp-<pid>-<8 hex>`. */
const TMP_PATTERN = /^\..+\.tmp-[0-9]+-[0-9a-f]{8}$/;

export interface PreviousStatus {
  /** Text of `<name>.yaml` by runtime name, for the files that exist and could be read. */
  readonly texts: ReadonlyMap<string, string>;
  /** Files that exist but were not read (one line each, for warnings). */
  readonly problems: ReadonlyArray<{ readonly file: string; readonly message: string }>;
}

/**
 * Reads `<dir>/<name>.yaml` of each runtime; a missing folder or file is simply no previous status,
 * and so is a file without kyma-fleet's header line.
 */
export function readPreviousStatus(dir: string, names: readonly string[]): PreviousStatus {
  const texts = new Map<string, string>();
  const problems: Array<{ file: string; message: string }> = [];
  for (const name of names) {
    const file = `${name}.yaml`;
    const abs = path.join(dir, file);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch (e) {
      if (!isCode(e, 'ENOENT') && !isCode(e, 'ENOTDIR')) problems.push({ file, message: `cannot read (${errCode(e)})` });
      continue;
    }
    if (!st.isFile()) {
      problems.push({ file, message: st.isSymbolicLink() ? 'is a symlink; not read (it will be replaced by a file)' : 'is not a regular file; not read' });
      continue;
    }
    if (st.size > MAX_STATUS_FILE_BYTES) {
      problems.push({ file, message: `is ${st.size} bytes, more than ${MAX_STATUS_FILE_BYTES}; not read` });
      continue;
    }
    let text: string;
    try {
      text = fs.readFileSync(abs, 'utf8');
    } catch (e) {
      problems.push({ file, message: `cannot read (${errCode(e)})` });
      continue;
    }
    // Not kyma-fleet's file: not a previous status (the writer refuses to replace it and says so).
    if (isWrittenByKymaFleet(text)) texts.set(name, text);
  }
  return { texts, problems };
}

/**
 * Makes `dir` hold `files` (file name -> content; runtime files, SUMMARY.md and status.html, each
 * replaced only when it carries kyma-fleet's header or marker comment): writes the ones
 * that differ, removes kyma-fleet's `*.yaml` files that are not in `files`. `display` names the
 * folder in problems.
 */
export function writeStatusFiles(dir: string, files: ReadonlyMap<string, string>, display: string): StatusWriteResult {
  for (const name of files.keys()) {
    if (name.includes('/') || name.includes('\\') || name.startsWith('.') || name.includes('\0')) {
      throw new Error(`writeStatusFiles: invalid file name ${JSON.stringify(name)}`);
    }
  }
  const written: string[] = [];
  const removed: string[] = [];
  let unchanged = 0;
  let current = display;
  try {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(dir);
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
    }
    if (st?.isSymbolicLink()) {
      return { ok: false, problem: { code: 'E_STATUS_SYMLINK', message: `${display} is a symlink; kyma-fleet never writes status through a symlink: replace it with a folder` } };
    }
    if (st && !st.isDirectory()) return { ok: false, problem: { code: 'E_STATUS_NOT_DIR', message: `${display} exists but is not a folder` } };
    if (!st) fs.mkdirSync(dir, { recursive: true });

    // Temporary files a killed run left behind.
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isFile() && TMP_PATTERN.test(entry.name)) fs.rmSync(path.join(dir, entry.name), { force: true });
    }

    // Runtime files first, then status.html, SUMMARY.md last: the summaries never describe files that are not there yet.
    const rank = (name: string) => (name === SUMMARY_FILE ? 2 : name === STATUS_PAGE_FILE ? 1 : 0);
    const order = [...files.keys()].sort((a, b) => rank(a) - rank(b) || cmp(a, b));
    // Nothing is replaced unless every existing target is kyma-fleet's own (a wrong --write such as
    // fleet/runtimes must not overwrite declarations): checked before the first write.
    const changed: Array<{ name: string; content: Buffer }> = [];
    for (const name of order) {
      current = `${display}${name}`;
      const content = Buffer.from(files.get(name)!, 'utf8');
      const existing = readRegular(path.join(dir, name));
      if (existing === 'directory') return { ok: false, problem: { code: 'E_STATUS_NOT_FILE', message: `${current} is a folder; move it away` } };
      if (existing !== undefined && existing.equals(content)) {
        unchanged++;
        continue;
      }
      if (existing !== undefined && !isOwnedStatusFile(name, existing.toString('utf8'))) {
        return {
          ok: false,
          problem: { code: 'E_STATUS_NOT_OWNED', message: `${current} was not written by kyma-fleet status (no header line); refusing to replace it: move it away or check --write` },
        };
      }
      changed.push({ name, content });
    }
    for (const { name, content } of changed) {
      current = `${display}${name}`;
      replaceAtomically(dir, name, content);
      written.push(name);
    }

    // Status files of runtimes that left the fleet (only those kyma-fleet wrote).
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => cmp(a.name, b.name))) {
      if (!entry.isFile() || !entry.name.endsWith('.yaml') || entry.name.startsWith('.') || files.has(entry.name)) continue;
      current = `${display}${entry.name}`;
      const abs = path.join(dir, entry.name);
      if (!startsWithHeader(abs)) continue;
      fs.rmSync(abs);
      removed.push(entry.name);
    }
    if (written.length > 0 || removed.length > 0) fsyncDir(dir);
  } catch (e) {
    if (isErrno(e)) return { ok: false, problem: { code: 'E_STATUS_WRITE', message: `cannot write ${current} (${errCode(e)})` } };
    throw e;
  }
  return { ok: true, written, removed, unchanged };
}

function replaceAtomically(dir: string, name: string, content: Buffer): void {
  const tmp = path.join(dir, `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    try {
      for (let off = 0; off < content.length; ) off += fs.writeSync(fd, content, off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path.join(dir, name));
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** The bytes of a regular file; undefined when missing or not a regular file (a symlink is replaced, not followed). */
function readRegular(file: string): Buffer | 'directory' | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return undefined;
    throw e;
  }
  if (st.isDirectory()) return 'directory';
  if (!st.isFile()) return undefined;
  return fs.readFileSync(file);
}

function startsWithHeader(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(STATUS_HEADER.length);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return isWrittenByKymaFleet(buf.subarray(0, n).toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}


function isErrno(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}

function isCode(e: unknown, code: string): boolean {
  return isErrno(e) && e.code === code;
}

function errCode(e: unknown): string {
  return isErrno(e) ? (e.code ?? 'error') : 'error';
}
