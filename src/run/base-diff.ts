// The comparison with the base branch's dist/ in `kyma-fleet check --base`, once the run has proven
// dist/ to be exactly what synth would write (every file hashed against its index, every runtime's
// inputs those its record names: ./plan.ts, ./committed-record.ts). The rendered fleet then is
// dist/, so what the pull request changes against the base is what the two indexes say: the files
// whose recorded sha256 differ, and those one index lists and the other does not. Only those files
// are read, from both trees, for their patches; only the runtimes they belong to are checked again,
// against the base's render (the transition rules: a runtime whose files are the same in both trees
// makes no transition). The base is neither rendered nor scanned: it is taken as its own index
// records it, which the base branch's own check proved (docs/ci.md, "What check reads of the base"),
// and its index is streamed, never held (../lib/index-stream.ts: 200 MB at 100,000 runtimes).
// Undefined where this does not apply: the base is not a folder with a kyma-fleet index, or a
// runtime that changed cannot be found by the record; the caller then compares as diff does.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp, ExitCode, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import { INDEX_FILE, type IndexView } from '../lib/dist-index';
import { indexRuns, NotCanonicalIndex } from '../lib/index-stream';
import type { FleetLayers } from '../load/load';
import { diffOfChanges } from '../render/tree-diff';
import { isSystemError } from '../write/result';
import { checkFleet } from './check';
import type { SynthOptions } from './plan';
import type { RunRecord } from './run-record';
import type { DiffResult } from './stages';

/** What a run proved of dist/: it is what synth writes, as this index lists it and this record describes it. */
export interface ProvenDist {
  /** Absolute. */
  readonly outDir: string;
  readonly view: IndexView;
  readonly record: RunRecord;
  /** The fleet-wide layers the run checked the fleet against. */
  readonly layers: FleetLayers;
}

/** The files two indexes disagree on, in code-point order. */
export interface IndexChanges {
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

/** One merge of two sorted lists of entries: what `after` adds, changes (another sha256) and removes against `before`. */
export function compareIndexes(before: Iterable<readonly [string, string]>, after: IndexView): IndexChanges {
  return mergeIndexes(() => before, after).changes;
}

/**
 * compareIndexes over runs (src/lib/index-stream.ts indexRuns): `before` is offered `same`, which
 * answers for a block of its lines whether they are `after`'s next lines, and yields the entries
 * it reads and the counts of entries it skipped. Also the sha256 `before` has for the files it
 * changes or removes.
 */
function mergeIndexes(before: (same: (lines: string) => number) => Iterable<readonly [string, string] | number>, after: IndexView): { changes: IndexChanges; beforeHashes: Map<string, string> } {
  const changes: IndexChanges = { added: [], changed: [], removed: [] };
  const beforeHashes = new Map<string, string>();
  let j = 0;
  const addUpTo = (rel: string | undefined): void => {
    while (j < after.size && (rel === undefined || cmp(after.relAt(j), rel) < 0)) changes.added.push(after.relAt(j++));
  };
  for (const entry of before((lines) => after.sameLines(j, lines))) {
    if (typeof entry === 'number') {
      j += entry;
      continue;
    }
    const [rel, hash] = entry;
    addUpTo(rel);
    if (j < after.size && after.relAt(j) === rel) {
      if (after.hashAt(j) !== hash) {
        changes.changed.push(rel);
        beforeHashes.set(rel, hash);
      }
      j++;
    } else {
      changes.removed.push(rel);
      beforeHashes.set(rel, hash);
    }
  }
  addUpTo(undefined);
  return { changes, beforeHashes };
}

/**
 * The entries `before` has in the runtime folders (runtimes/<name>/) where something changes, in
 * order: `after`'s there but the added ones (with `before`'s sha256 where it differs), and the removed.
 */
function changedFolders(changes: IndexChanges, beforeHashes: ReadonlyMap<string, string>, after: IndexView): Array<readonly [string, string]> {
  const names = new Set<string>();
  for (const rel of [...changes.added, ...changes.changed, ...changes.removed]) {
    const name = RUNTIME_FOLDER.exec(rel)?.[1];
    if (name !== undefined) names.add(name);
  }
  const added = new Set(changes.added);
  const out: Array<readonly [string, string]> = [];
  for (const name of names) {
    const [from, to] = after.folder(`runtimes/${name}`);
    for (let i = from; i < to; i++) {
      const rel = after.relAt(i);
      if (!added.has(rel)) out.push([rel, beforeHashes.get(rel) ?? after.hashAt(i)]);
    }
  }
  for (const rel of changes.removed) if (RUNTIME_FOLDER.test(rel)) out.push([rel, beforeHashes.get(rel)!]);
  return out.sort(([a], [b]) => cmp(a, b));
}

const RUNTIME_FOLDER = /^runtimes\/([^/]+)\//;

/**
 * The base comparison from the indexes (see the header); `baseDir` as the user gave it (relative
 * to options.cwd). Undefined: compare by rendering and reading the base instead (diffDist).
 */
export function diffBaseFromIndexes(options: Pick<SynthOptions, 'fleetDir' | 'cwd' | 'now' | 'allowEmpty'>, baseDir: string, proven: ProvenDist): DiffResult | undefined {
  const baseRoot = path.resolve(options.cwd, baseDir);
  const indexFile = path.join(baseRoot, INDEX_FILE);
  try {
    // Not a folder, a symlink, no index or not a file: diff words what is wrong with it.
    if (!fs.lstatSync(baseRoot).isDirectory() || !fs.lstatSync(indexFile).isFile()) return undefined;
    return compareWithBase(options, baseDir, baseRoot, indexFile, proven);
  } catch (e) {
    // An index that is not canonical kyma-fleet text, or that cannot be read: the careful way.
    if (e instanceof NotCanonicalIndex || isSystemError(e)) return undefined;
    throw e;
  }
}

function compareWithBase(options: Pick<SynthOptions, 'fleetDir' | 'cwd' | 'now' | 'allowEmpty'>, baseDir: string, baseRoot: string, indexFile: string, proven: ProvenDist): DiffResult | undefined {
  // The base's index is streamed, never held (200 MB at 100,000 runtimes), and compared with
  // dist/'s a block of lines at a time where they are the same: one merge gives the changes; the
  // base's entries of the runtime folders they touch (for the transition rules and the runtimes'
  // identifiers) are dist/'s there with the base's sha256 where it differs, and the removed ones.
  const { changes, beforeHashes } = mergeIndexes((same) => indexRuns(indexFile, same), proven.view);
  const baseFolders = changedFolders(changes, beforeHashes, proven.view);
  // The runtimes still in the fleet whose files change (one that is removed makes no transition).
  const touched = new Set<string>();
  for (const rel of [...changes.added, ...changes.changed]) {
    const name = RUNTIME_FOLDER.exec(rel)?.[1];
    if (name !== undefined) touched.add(name);
  }
  const fileOf = new Map<string, string>();
  for (const [rel, r] of Object.entries(proven.record.runtimes)) fileOf.set(r.identity.name, rel);
  const files = new Set<string>();
  for (const name of touched) {
    const rel = fileOf.get(name);
    if (rel === undefined) return undefined;
    files.add(rel);
  }
  let diagnostics: DiffResult['diagnostics'] = [];
  if (files.size > 0) {
    // The base's sha256 of the files the transition rules read (a runtime's skr-config/ and skr/).
    const config = new Map<string, string>();
    for (const [rel, hash] of baseFolders) if (CONFIG_FILE.test(rel)) config.set(rel, hash);
    const checked = checkFleet({
      fleetDir: options.fleetDir,
      cwd: options.cwd,
      now: options.now,
      allowEmpty: true,
      layers: proven.layers,
      partOfFleet: true,
      previousDist: baseDir,
      previousIndex: () => ({ hashOf: (rel: string) => config.get(rel) }),
      runtimes: {
        plan: () => ({ names: [...files].sort(cmp).map((rel) => rel.slice('runtimes/'.length)), select: (rel) => files.has(rel) }),
        identities: () => [],
      },
    });
    // The record named the runtime's file; the file must still hold that runtime.
    const found = new Set(checked.runtimes.map((r) => r.runtime.name));
    if ([...touched].some((name) => !found.has(name))) return undefined;
    diagnostics = checked.diagnostics;
    if (hasErrors(diagnostics) || !checked.model) return { exitCode: ExitCode.InvalidInput, diagnostics: normalizeDiagnostics(diagnostics) };
  }
  const read = (root: string) => (rel: string): string => {
    try {
      return fs.readFileSync(path.join(root, ...rel.split('/')), 'utf8');
    } catch {
      return '';
    }
  };
  const before = baseFolders.map(([rel]) => rel);
  const diff = diffOfChanges({ ...changes, before, after: entries(proven.view) }, read(baseRoot), read(proven.outDir));
  return { exitCode: ExitCode.Ok, diagnostics, runtimes: Object.keys(proven.record.runtimes).length, rendered: 0, diff };
}

/** A runtime's files that the transition rules read (src/load/load-previous.ts). */
const CONFIG_FILE = /^runtimes\/([^/]+)\/(?:skr-config|skr)\//;

function* entries(view: IndexView): Generator<string> {
  for (let i = 0; i < view.size; i++) yield view.relAt(i);
}
