// A cache of parsed fleet files keyed by the SHA-256 of their bytes, so an unchanged file is not
// parsed again (parsing is most of the cost of loading a large fleet). Part of the load stage.
// The cache is best effort: a missing, damaged or foreign cache file is ignored, and the key
// includes the code of the YAML gate, so a changed parser never reads stale results.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Diagnostic } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import { packageVersion } from '../lib/version';
import type { ParsedYaml } from '../lib/yaml/parse-yaml';
import { PositionIndex, type SerializedPositions } from '../lib/yaml/positions';

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
  /** Keeps the entry of these bytes although this run did not need their parse (the file is unchanged). */
  keep(digest: string): void;
  /** Writes the entries used or kept in this run (atomically); other entries are dropped. */
  save(): void;
}

export const NO_CACHE: ParseCache = { parse: (_b, _f, parse) => parse(), keep() {}, save() {} };

/** The cache folder: KYMA_FLEET_CACHE_DIR, else node_modules/.cache of the working folder, else ~/.cache. */
export function defaultCacheDir(cwd: string, env: NodeJS.ProcessEnv): string {
  if (env.KYMA_FLEET_CACHE_DIR) return path.resolve(cwd, env.KYMA_FLEET_CACHE_DIR);
  if (fs.existsSync(path.join(cwd, 'node_modules'))) return path.join(cwd, 'node_modules', '.cache', 'kyma-fleet');
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'kyma-fleet');
}

/** The modules of the YAML gate (src/lib/yaml/, compiled or not): what a parse depends on. */
export function parserFiles(): string[] {
  const dir = path.join(__dirname, '..', 'lib', 'yaml');
  const files = fs.readdirSync(dir).filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts')).sort().map((f) => path.join(dir, f));
  // A gate that cannot be found would leave the key without the parser's code: stale parses.
  if (!files.some((f) => /parse-yaml\.(js|ts)$/.test(f))) throw new Error(`parse cache: the YAML gate is not in ${dir}`);
  return files;
}

/** Identifies the parser: package version plus the code of the YAML gate. */
function parserKey(): string {
  const h = createHash('sha256').update(packageVersion());
  for (const file of parserFiles()) h.update(path.basename(file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return h.digest('hex');
}

/** Entries are spread over this many files by the first hex digits of their digest, so a run that
 *  parses a few files reads and writes a few small files, not one entry per file of the fleet. */
const BUCKETS = 64;

export function openParseCache(cacheDir: string, fleetRoot: string): ParseCache {
  const dir = path.join(cacheDir, `parse-${createHash('sha256').update(fleetRoot).digest('hex').slice(0, 16)}`);
  const key = parserKey();
  const bucketOf = (digest: string): string => (parseInt(digest.slice(0, 4), 16) % BUCKETS).toString().padStart(2, '0');
  const previous = new Map<string, Record<string, Entry>>();
  const load = (bucket: string): Record<string, Entry> => {
    let entries = previous.get(bucket);
    if (entries) return entries;
    entries = {};
    try {
      const cached = JSON.parse(fs.readFileSync(path.join(dir, `${bucket}.json`), 'utf8')) as CacheFile;
      if (cached.key === key && cached.entries && typeof cached.entries === 'object') entries = cached.entries;
    } catch {
      // no cache yet, or unreadable: parse
    }
    previous.set(bucket, entries);
    return entries;
  };
  const used = new Map<string, Entry>();
  const kept = new Set<string>();
  const dirty = new Set<string>();
  return {
    parse(bytes, displayFile, parse, known) {
      const digest = known ?? sha256(bytes);
      const hit = used.get(digest) ?? (Object.hasOwn(load(bucketOf(digest)), digest) ? load(bucketOf(digest))[digest] : undefined);
      if (hit) {
        used.set(digest, hit);
        return {
          data: hit.data,
          positions: hit.positions instanceof PositionIndex ? hit.positions : PositionIndex.fromJSON(hit.positions),
          diagnostics: hit.diagnostics.map((d) => ({ ...d, file: displayFile })),
        };
      }
      dirty.add(bucketOf(digest));
      const parsed = parse();
      used.set(digest, {
        data: parsed.data,
        positions: parsed.positions,
        diagnostics: parsed.diagnostics.map(({ file: _file, ...rest }) => rest),
      });
      return parsed;
    },
    keep(digest) {
      kept.add(digest);
    },
    save() {
      // Only buckets with new entries are rewritten: with the entries used or kept in this run (the
      // ones of files that no longer exist are dropped then).
      if (dirty.size === 0) return;
      try {
        fs.mkdirSync(dir, { recursive: true });
        for (const bucket of [...dirty].sort()) {
          const entries: Record<string, Entry> = {};
          for (const [digest, entry] of Object.entries(load(bucket))) if (kept.has(digest) || used.has(digest)) entries[digest] = entry;
          for (const [digest, entry] of used) if (bucketOf(digest) === bucket) entries[digest] = entry;
          const file = path.join(dir, `${bucket}.json`);
          const tmp = `${file}.${process.pid}.tmp`;
          // PositionIndex.toJSON() serializes the fresh entries here.
          fs.writeFileSync(tmp, JSON.stringify({ key, entries }));
          fs.renameSync(tmp, file);
        }
      } catch {
        // best effort: a read-only cache folder only costs time
      }
    },
  };
}
