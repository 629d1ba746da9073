// A file's stamp: what the file system says about it (device, inode, size, mtime, ctime), as git's
// index keeps it. A later run that finds the same stamp may take the bytes as unchanged without
// reading them: runtime files of the fleet (src/load/load.ts) and dist/'s index (src/run/plan.ts).

import type * as fs from 'node:fs';

/** How long before a run's start a file must last have changed for its stamp to be trusted later. */
export const STAMP_SETTLE_MS = 2000;

/** The stamp of a regular file as it is now (nothing said about whether it may change within the same clock tick). */
export function statStamp(st: fs.Stats): string | undefined {
  return st.isFile() ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : undefined;
}

/**
 * The stamp of a file read in a run that started at `runStart`, when it can be trusted later. Only
 * a file whose ctime lies STAMP_SETTLE_MS before `runStart` gets one: the kernel stamps ctime from a
 * coarse clock, so a file changed again within the same tick after it was read could keep its
 * ctime; a settled ctime can only change forward, and any write changes it.
 */
export function fileStamp(st: fs.Stats, runStart: number): string | undefined {
  if (!(st.ctimeMs < runStart - STAMP_SETTLE_MS)) return undefined;
  return statStamp(st);
}
