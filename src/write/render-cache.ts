// Remembers, per runtime, the input digest of its last render and the files (with hashes) that
// render produced, in the cache folder next to the parse cache. Incremental synth reuses a
// runtime's files when its digest is unchanged and dist/'s index still lists exactly those files.
// Best effort: a missing or damaged cache only means rendering everything.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RenderCacheEntry {
  readonly digest: string;
  /** dist-relative path -> sha256 of every file under runtimes/<name>/. */
  readonly files: Readonly<Record<string, string>>;
}

export type RenderCache = Readonly<Record<string, RenderCacheEntry>>;

function cacheFile(cacheDir: string, outDir: string): string {
  return path.join(cacheDir, `render-${createHash('sha256').update(outDir).digest('hex').slice(0, 16)}.json`);
}

export function loadRenderCache(cacheDir: string, outDir: string): RenderCache {
  try {
    const parsed = JSON.parse(fs.readFileSync(cacheFile(cacheDir, outDir), 'utf8')) as { runtimes?: RenderCache };
    return parsed.runtimes && typeof parsed.runtimes === 'object' ? parsed.runtimes : {};
  } catch {
    return {};
  }
}

export function saveRenderCache(cacheDir: string, outDir: string, runtimes: RenderCache): void {
  const file = cacheFile(cacheDir, outDir);
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ runtimes }));
    fs.renameSync(tmp, file);
  } catch {
    // best effort
  }
}
