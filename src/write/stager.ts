// Step 4 of a write (docs/architecture.md, "Writing dist/"): files of the new tree go into the
// staging tree as they are rendered, from this thread (the session) or from worker threads (a
// Stager each, over the staging area the session hands out), unless dist/ holds them already.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { type HashLookup, readIndexLookup, sha256 } from '../lib/dist-index';
import { onDiskBytesAre, writeNewFile } from './files';
import { checkPath } from './paths';

/** What a thread needs to write files into an open session's staging tree (structured-clone safe). */
export interface StagingArea {
  readonly treeDir: string;
  readonly outDir: string;
  readonly verify: boolean;
  /** sha256 of the text of dist/'s index as the session read it (undefined: no previous tree). */
  readonly indexDigest: string | undefined;
}

/** The index a staging area's session planned with, as a worker thread reads it; throws when dist/'s index changed since. */
export function stagingIndex(area: StagingArea): HashLookup | undefined {
  if (area.indexDigest === undefined) return undefined;
  const lookup = readIndexLookup(area.outDir, area.indexDigest);
  if (!lookup) throw new Error(`writeDist: the index of ${area.outDir} changed while this run wrote`);
  return lookup;
}

/** One file of the new tree as staged: its hash, and whether it was written (else dist/ holds it already). */
export type StagedFile = readonly [rel: string, hash: string, written: boolean];

/**
 * Writes files into a session's staging tree from any thread, deciding per file exactly as the
 * session's add() does. Throws on I/O errors (the caller abandons the session).
 */
export class Stager {
  private readonly made = new Set<string>();

  /**
   * `previous`: dist/'s index (undefined when there is none). A worker thread reads it with
   * stagingIndex(area), as bytes outside its heap: the index of a 100,000-runtime dist/ is over
   * 100 MB, more than a worker's heap holds as text.
   */
  constructor(
    private readonly area: StagingArea,
    private readonly previous: HashLookup | undefined,
  ) {}

  stage(rel: string, content: string): StagedFile {
    checkPath(rel);
    const hash = sha256(content);
    const old = this.previous?.hashOf(rel);
    if (old === hash && (!this.area.verify || onDiskBytesAre(path.join(this.area.outDir, rel), content))) return [rel, hash, false];
    const slash = rel.lastIndexOf('/');
    if (slash > 0) makeDirOnce(this.area.treeDir, rel.slice(0, slash), this.made);
    writeNewFile(path.join(this.area.treeDir, rel), content);
    return [rel, hash, true];
  }
}

/** Creates treeDir/dir (and its parents) unless `made` says it exists; records it and its ancestors. */
function makeDirOnce(treeDir: string, dir: string, made: Set<string>): void {
  if (made.has(dir)) return;
  fs.mkdirSync(path.join(treeDir, dir), { recursive: true });
  for (let d = dir; d !== ''; d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '') made.add(d);
}
