// A cache of parsed fleet files keyed by the SHA-256 of their bytes, so an unchanged file is not
// parsed again (parsing is most of the cost of loading a large fleet). Part of the load stage.
// The cache is best effort: a missing, damaged or foreign cache file is ignored, and the key
// includes the code of the YAML gate, so a changed parser never reads stale results.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Diagnostic } from '../lib/diagnostics';
import { packageVersion } from '../lib/version';
import type { ParsedYaml } from './parse-yaml';
import { PositionIndex, type SerializedPositions } from './positions';

interface Entry {
  readonly data: unknown;
  /** Serialized lazily: a fresh parse keeps its PositionIndex until save() writes it. */
  readonly positions: SerializedPositions | PositionIndex;
  /** Diagnostics without their file (the same bytes can sit in another file). */
  readonly diagnostics: ReadonlyArray<Omit<Diagnostic, 'file'>>;
}

interface CacheFile {
  readonly key: string;
  readonly entries: Record<string, Entry>;
}

export interface ParseCache {
  /** The parse of `bytes` as `file`, from the cache or by calling `parse`. */
  parse(bytes: Uint8Array, file: string, parse: () => ParsedYaml, digest?: string): ParsedYaml;
  /** Writes the entries used in this run (atomically); unused entries are dropped. */
  save(): void;
}

export const NO_CACHE: ParseCache = { parse: (_b, _f, parse) => parse(), save() {} };

/** The cache folder: KYMA_FLEET_CACHE_DIR, else node_modules/.cache of the working folder, else ~/.cache. */
export function defaultCacheDir(cwd: string, env: NodeJS.ProcessEnv): string {
  if (env.KYMA_FLEET_CACHE_DIR) return path.resolve(cwd, env.KYMA_FLEET_CACHE_DIR);
  if (fs.existsSync(path.join(cwd, 'node_modules'))) return path.join(cwd, 'node_modules', '.cache', 'kyma-fleet');
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'kyma-fleet');
}

/** Identifies the parser: package version plus the compiled code of the YAML gate. */
function parserKey(): string {
  const h = createHash('sha256').update(packageVersion());
  for (const mod of ['./parse-yaml', './positions']) {
    try {
      h.update(fs.readFileSync(require.resolve(mod)));
    } catch {
      h.update(mod);
    }
  }
  return h.digest('hex');
}

export function openParseCache(cacheDir: string, fleetRoot: string): ParseCache {
  const file = path.join(cacheDir, `parse-${createHash('sha256').update(fleetRoot).digest('hex').slice(0, 16)}.json`);
  const key = parserKey();
  let previous: Record<string, Entry> = {};
  try {
    const cached = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheFile;
    if (cached.key === key && cached.entries && typeof cached.entries === 'object') previous = cached.entries;
  } catch {
    // no cache yet, or unreadable: parse everything
  }
  const used: Record<string, Entry> = {};
  let misses = 0;
  return {
    parse(bytes, displayFile, parse, known) {
      const digest = known ?? createHash('sha256').update(bytes).digest('hex');
      const hit = used[digest] ?? previous[digest];
      if (hit) {
        used[digest] = hit;
        return {
          data: hit.data,
          positions: hit.positions instanceof PositionIndex ? hit.positions : PositionIndex.fromJSON(hit.positions),
          diagnostics: hit.diagnostics.map((d) => ({ ...d, file: displayFile })),
        };
      }
      misses++;
      const parsed = parse();
      used[digest] = {
        data: parsed.data,
        positions: parsed.positions,
        diagnostics: parsed.diagnostics.map(({ file: _file, ...rest }) => rest),
      };
      return parsed;
    },
    save() {
      if (misses === 0 && Object.keys(used).length === Object.keys(previous).length) return;
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        // PositionIndex.toJSON() serializes the fresh entries here.
        fs.writeFileSync(tmp, JSON.stringify({ key, entries: used }));
        fs.renameSync(tmp, file);
      } catch {
        // best effort: a read-only cache folder only costs time
      }
    },
  };
}
