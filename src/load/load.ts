// Reads a fleet folder from disk: the only stage of validation that does I/O. It walks the
// layout of PRODUCT.md in a fixed order, refuses what must not be read (symlinks leaving the
// fleet, oversized files, `.yml` twins), and hands each declaration to the YAML gate.
// `status/` is never read: it is written by `kyma-fleet status`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXTENSIONS } from '../extensions';
import type { AuxFile, ExtensionPlugin } from '../extensions/types';
import { appendAll, type Diagnostic, cmp } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import { NO_CACHE, type ParseCache } from './parse-cache';
import { MAX_FILE_BYTES, parseFleetYaml } from '../lib/yaml/parse-yaml';
import type { PositionIndex } from '../lib/yaml/positions';
import type { FleetKind } from './kinds';
import { lexists } from '../lib/fs-exists';
import { openForReading } from '../lib/open-for-reading';
import { fileStamp } from '../lib/file-stamp';
import { isInside, isLitter, listedEntries, listFolder, namedEntries, specOf, type StampedListing, toSlash, walkAux } from './folder-walk';

export { isInside } from './folder-walk';

export interface LoadedDocument {
  /** Kind expected from the folder the file sits in. */
  readonly expectedKind: FleetKind;
  /** Path relative to the fleet folder with forward slashes, e.g. 'runtimes/acme.yaml'. */
  readonly relPath: string;
  /** Path as shown in diagnostics (relative to the current folder). */
  readonly file: string;
  readonly data: unknown;
  readonly positions: PositionIndex;
  /** sha256 (hex) of the file's bytes. */
  readonly digest: string;
  /** Its fileStamp when read, if it was settled then (see fileStamp). */
  readonly stamp?: string;
}

/** A runtime file that was read and digested but not parsed (see RuntimePlan.reuse). */
export interface ReusedRuntimeFile {
  readonly relPath: string;
  readonly file: string;
  readonly digest: string;
  /** Its fileStamp now, if settled: the record keeps it for the next run. */
  readonly stamp?: string;
}

export { fileStamp, STAMP_SETTLE_MS } from '../lib/file-stamp';

/**
 * Which runtime files a run needs, decided once fleet.yaml, the groups and the auxiliary files are
 * loaded: `select` false leaves a file unread (another shard renders it); `reuse` true reads and
 * digests it but does not parse it (the caller holds an earlier result for exactly these bytes).
 */
export interface RuntimePlan {
  /**
   * Only these names of runtimes/ are considered (a part of a large run that listed the folder
   * once): the folder is not listed again, each name is looked at on its own. `select` still applies.
   */
  readonly names?: readonly string[];
  readonly select?: (relPath: string) => boolean;
  readonly reuse?: (relPath: string, digest: string) => boolean;
  /**
   * The digest of a runtime file as an earlier run recorded it with this stamp (see fileStamp), or
   * undefined: with a digest the file is reused without being read at all.
   */
  readonly reuseStamp?: (relPath: string, stamp: string) => string | undefined;
  /**
   * runtimes/ listed and stamped by another thread since the run started (listStamped): taken
   * instead of listing the folder and looking at each file here, when it is this fleet's.
   */
  readonly listing?: () => StampedListing | undefined;
}

export interface LoadedFleet {
  /** Absolute, symlink-free path of the fleet folder. */
  readonly root: string;
  /** Fleet folder as shown to the user. */
  readonly displayRoot: string;
  readonly fleet?: LoadedDocument;
  readonly groups: LoadedDocument[];
  readonly runtimes: LoadedDocument[];
  /** Runtime files the plan chose not to parse, sorted by relPath. */
  readonly reusedRuntimes: ReusedRuntimeFile[];
  /** rules/** and files extensions asked for, by relPath. */
  readonly files: Map<string, AuxFile>;
  readonly diagnostics: Diagnostic[];
}

/** What is loaded before the runtime files: the input of a RuntimePlan. */
export type LoadedLayers = Pick<LoadedFleet, 'root' | 'fleet' | 'groups' | 'files'>;

/**
 * The fleet-wide layers as loadLayers returns them, with what loading them reported: what runtime
 * files are checked against (the check stage takes them as an input, src/run/check.ts).
 */
export type FleetLayers = LoadedLayers & Pick<LoadedFleet, 'displayRoot' | 'diagnostics'> & {
  /** False when the fleet folder itself could not be opened (its diagnostic says why). */
  readonly opened: boolean;
};

export interface LoadOptions {
  readonly fleetDir: string;
  /** Folder that diagnostics are relative to; defaults to process.cwd(). */
  readonly cwd?: string;
  readonly extensions?: readonly ExtensionPlugin<any>[];
  /** Parsed files by content digest (see parse-cache.ts); none by default. */
  readonly cache?: ParseCache;
  /** Decides which runtime files are read and parsed (all by default). */
  readonly runtimePlan?: (layers: LoadedLayers) => RuntimePlan;
  /** The fleet-wide layers, loaded before (loadLayers): taken as they are, not read again. */
  readonly layers?: FleetLayers;
  /** When this run started, in ms (Date.now() by default): file stamps are settled relative to it. */
  readonly runStart?: number;
}


/** Loads the fleet-wide layers only (fleet.yaml, groups, auxiliary files); no runtime file is read. */
export function loadLayers(options: Omit<LoadOptions, 'runtimePlan' | 'layers'>): FleetLayers {
  let opened = false;
  const loaded = loadFleet({
    ...options,
    runtimePlan: () => {
      opened = true;
      return { names: [] };
    },
  });
  return { root: loaded.root, displayRoot: loaded.displayRoot, fleet: loaded.fleet, groups: loaded.groups, files: loaded.files, diagnostics: loaded.diagnostics, opened };
}

export function loadFleet(options: LoadOptions): LoadedFleet {
  const cwd = options.cwd ?? process.cwd();
  const extensions = options.extensions ?? EXTENSIONS;
  const cache = options.cache ?? NO_CACHE;
  const requested = path.resolve(cwd, options.fleetDir);
  const runStart = options.runStart ?? Date.now();
  const display = (abs: string): string => toSlash(path.relative(cwd, abs) || '.');
  const diagnostics: Diagnostic[] = [];
  const problem = (code: string, abs: string, message: string, severity: 'error' | 'warning' = 'error', line = 1, col = 1): void => {
    diagnostics.push({ severity, code, file: display(abs), line, col, field: '', message });
  };
  const result: { fleet?: LoadedDocument; groups: LoadedDocument[]; runtimes: LoadedDocument[]; reusedRuntimes: ReusedRuntimeFile[]; files: Map<string, AuxFile> } = {
    groups: [],
    runtimes: [],
    reusedRuntimes: [],
    files: new Map(),
  };

  const given = options.layers;
  let root: string;
  if (given) {
    diagnostics.push(...given.diagnostics);
    if (!given.opened) return { root: given.root, displayRoot: given.displayRoot, ...result, diagnostics };
    root = given.root;
  } else {
    try {
      root = fs.realpathSync(requested);
      if (!fs.statSync(root).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    } catch (err) {
      problem('E_FLEET_NOT_FOUND', requested, `fleet folder not found or not a folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return { root: requested, displayRoot: display(requested), ...result, diagnostics };
    }
  }

  /** Reads a file the fleet may contain: inside the root after resolving symlinks, regular, not too big. */
  const readInside = (abs: string, limit: number): Uint8Array | undefined => {
    let real: string;
    try {
      real = fs.realpathSync(abs);
    } catch {
      problem('E_SYMLINK_OUT_OF_BOUNDS', abs, 'symbolic link points to nothing');
      return undefined;
    }
    if (!isInside(root, real)) {
      problem('E_SYMLINK_OUT_OF_BOUNDS', abs, 'symbolic link points outside the fleet folder; refusing to read it');
      return undefined;
    }
    let stat: fs.Stats;
    try {
      stat = fs.statSync(real);
    } catch (err) {
      problem('E_READ', abs, `cannot read file (${(err as NodeJS.ErrnoException).code})`);
      return undefined;
    }
    if (!stat.isFile()) {
      problem('E_READ', abs, 'not a regular file');
      return undefined;
    }
    if (stat.size > limit) {
      problem('E_FILE_TOO_LARGE', abs, `file is ${stat.size} bytes; the limit is ${limit} bytes`);
      return undefined;
    }
    try {
      return fs.readFileSync(real);
    } catch (err) {
      problem('E_READ', abs, `cannot read file (${(err as NodeJS.ErrnoException).code})`);
      return undefined;
    }
  };

  /**
   * A regular file (as listed) in a folder known to lie inside the root: opened without following
   * links and checked on the open descriptor, which spares the realpath of every file of a large
   * fleet. Anything unusual goes the careful way (readInside), which also words the errors.
   */
  const readListed = (abs: string, limit: number, stamped?: (stamp: string | undefined) => void): Uint8Array | undefined => {
    let fd: number | undefined;
    try {
      fd = openForReading(abs, fs.constants.O_NOFOLLOW);
      const st = fs.fstatSync(fd);
      stamped?.(fileStamp(st, runStart));
      if (st.isFile() && st.size <= limit) {
        const bytes = Buffer.allocUnsafe(st.size);
        let off = 0;
        while (off < st.size) {
          const n = fs.readSync(fd, bytes, off, st.size - off, off);
          if (n === 0) break;
          off += n;
        }
        if (off === st.size) return bytes;
      }
    } catch {
      // the careful way below
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    return readInside(abs, limit);
  };

  /** `named`: its display path and relPath when the caller has them (a listed folder's files). */
  const loadDocument = (abs: string, expectedKind: FleetKind, reuse?: RuntimePlan['reuse'], listedRegular = false, named?: { file: string; relPath: string }): LoadedDocument | undefined => {
    let stamp: string | undefined;
    const bytes = listedRegular ? readListed(abs, MAX_FILE_BYTES, (s) => (stamp = s)) : readInside(abs, MAX_FILE_BYTES);
    if (!bytes) return undefined;
    const file = named?.file ?? display(abs);
    const relPath = named?.relPath ?? toSlash(path.relative(root, abs));
    const digest = sha256(bytes);
    if (reuse?.(relPath, digest)) {
      result.reusedRuntimes.push({ relPath, file, digest, ...(stamp === undefined ? {} : { stamp }) });
      cache.keep(digest);
      return undefined;
    }
    const parsed = cache.parse(bytes, file, () => parseFleetYaml(bytes, file), digest);
    appendAll(diagnostics, parsed.diagnostics);
    if (parsed.data === undefined) return undefined;
    return { expectedKind, relPath, file, data: parsed.data, positions: parsed.positions, digest, ...(stamp === undefined ? {} : { stamp }) };
  };

  // fleet.yaml
  const fleetPath = path.join(root, 'fleet.yaml');
  if (given) {
    result.fleet = given.fleet;
  } else {
    if (fs.existsSync(path.join(root, 'fleet.yml'))) {
      problem('E_FILE_EXTENSION', path.join(root, 'fleet.yml'), 'fleet files end in .yaml; rename fleet.yml to fleet.yaml');
    }
    if (lexists(fleetPath, true)) result.fleet = loadDocument(fleetPath, 'Fleet');
    else problem('E_MISSING_FLEET_FILE', fleetPath, 'the fleet folder needs a fleet.yaml (kind: Fleet)');
  }

  // groups/*.yaml, then (after the auxiliary files below) runtimes/*.yaml
  const loadFolder = (folder: 'groups' | 'runtimes', kind: FleetKind, bucket: LoadedDocument[], plan: RuntimePlan = {}): void => {
    const dir = path.join(root, folder);
    let dirInside = false;
    try {
      dirInside = isInside(root, fs.realpathSync(dir));
    } catch {
      // missing: listFolder reports what matters
    }
    // Display paths of the folder's files: its own, then the name (path.relative once, not per file).
    const dirDisplay = display(dir);
    const given = folder === 'runtimes' && !plan.names && plan.reuseStamp ? plan.listing?.() : undefined;
    const listed = given?.dir === dir ? given : undefined;
    const entries = listed ? listedEntries(listed) : plan.names ? namedEntries(dir, plan.names) : listFolder(dir, problem);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (isLitter(entry.name)) continue;
      if (plan.select && !plan.select(`${folder}/${entry.name}`)) continue;
      const abs = `${dir}${path.sep}${entry.name}`;
      if (entry.isDirectory()) {
        problem('W_IGNORED_FILE', abs, `subfolders of ${folder}/ are not read`, 'warning');
        continue;
      }
      if (entry.name.endsWith('.yml')) {
        problem('E_FILE_EXTENSION', abs, `fleet files end in .yaml; rename ${entry.name} to ${entry.name.slice(0, -4)}.yaml`);
        continue;
      }
      if (!entry.name.endsWith('.yaml')) {
        problem('W_IGNORED_FILE', abs, `only *.yaml files are read in ${folder}/; this file is ignored`, 'warning');
        continue;
      }
      if (plan.reuseStamp && dirInside && entry.isFile()) {
        // Stamped as an earlier run read it: its recorded digest stands, the file is not read.
        const st = listed ? undefined : fs.lstatSync(abs, { throwIfNoEntry: false });
        const stamp = listed ? listed.stamps[i] || undefined : st && fileStamp(st, runStart);
        const digest = stamp === undefined ? undefined : plan.reuseStamp(`${folder}/${entry.name}`, stamp);
        if (digest !== undefined) {
          result.reusedRuntimes.push({ relPath: `${folder}/${entry.name}`, file: dirDisplay === '.' ? entry.name : `${dirDisplay}/${entry.name}`, digest, stamp });
          cache.keep(digest);
          continue;
        }
      }
      const named = dirInside ? { file: dirDisplay === '.' ? entry.name : `${dirDisplay}/${entry.name}`, relPath: `${folder}/${entry.name}` } : undefined;
      const doc = loadDocument(abs, kind, plan.reuse, dirInside && entry.isFile(), named);
      if (doc) bucket.push(doc);
    }
  };
  if (given) {
    result.groups.push(...given.groups);
    for (const [rel, f] of given.files) result.files.set(rel, f);
    // Their parses stay in the cache although this call did not need them.
    for (const d of [given.fleet, ...given.groups]) if (d) cache.keep(d.digest);
  } else {
    loadFolder('groups', 'RuntimeGroup', result.groups);

    // rules/** and files named by extensions (e.g. a profile snapshot)
    const addAux = (abs: string): void => {
      const bytes = readInside(abs, MAX_FILE_BYTES);
      if (!bytes) return;
      const relPath = toSlash(path.relative(root, abs));
      result.files.set(relPath, { relPath, file: display(abs), bytes });
    };
    walkAux(path.join(root, 'rules'), 0, addAux, problem);
    // The module catalog `kyma-fleet catalog refresh` writes (src/validate/module-catalog.ts).
    const catalogFile = path.join(root, 'catalog', 'modules.yaml');
    if (lexists(catalogFile, true)) addAux(catalogFile);
    const fleetSpec = specOf(result.fleet?.data);
    for (const ext of extensions) {
      for (const rel of ext.filesToLoad?.(fleetSpec) ?? []) {
        if (typeof rel !== 'string' || result.files.has(toSlash(path.normalize(rel)))) continue;
        const abs = path.resolve(root, rel);
        // Paths outside the fleet are reported by the extension's rules (with file:line of the reference).
        if (!isInside(root, abs) || !lexists(abs, true)) continue;
        addAux(abs);
      }
    }
  }

  const byRel = (a: { relPath: string }, b: { relPath: string }): number => cmp(a.relPath, b.relPath);
  result.groups.sort(byRel);
  const plan = options.runtimePlan?.({ root, fleet: result.fleet, groups: result.groups, files: result.files }) ?? {};
  loadFolder('runtimes', 'KymaRuntime', result.runtimes, plan);
  cache.save();
  result.runtimes.sort(byRel);
  result.reusedRuntimes.sort(byRel);
  return { root, displayRoot: display(root), ...result, diagnostics };
}
