// The comparison with the base branch's dist/ in `kyma-fleet check --base`, once the run has proven
// dist/ to be exactly what synth would write (every file hashed against its index, every runtime's
// inputs those its record names: ./plan.ts, ./committed-record.ts). The rendered fleet then is
// dist/, so what the pull request changes against the base is what the two indexes say: the files
// whose recorded sha256 differ, and those one index lists and the other does not. Only those files
// are read, from both trees, for their patches; only the runtimes they belong to are checked again,
// against the base's render (the transition rules: a runtime whose files are the same in both trees
// makes no transition). The base is neither rendered nor scanned: it is taken as its own index
// records it, which the base branch's own check proved (docs/ci.md, "What check reads of the base").
// Undefined where this does not apply: the base is not a folder with a kyma-fleet index, or a
// runtime that changed cannot be found by the record; the caller then compares as diff does.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp, ExitCode, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import { type IndexView, loadIndex } from '../lib/dist-index';
import type { FleetLayers } from '../load/load';
import { diffOfChanges } from '../render/tree-diff';
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

/** One merge of two sorted indexes: what `after` adds, changes (another sha256) and removes against `before`. */
export function compareIndexes(before: IndexView, after: IndexView): IndexChanges {
  const out: IndexChanges = { added: [], changed: [], removed: [] };
  let i = 0;
  let j = 0;
  while (i < before.size || j < after.size) {
    const order = i === before.size ? 1 : j === after.size ? -1 : cmp(before.relAt(i), after.relAt(j));
    if (order < 0) out.removed.push(before.relAt(i++));
    else if (order > 0) out.added.push(after.relAt(j++));
    else {
      if (before.hashAt(i) !== after.hashAt(j)) out.changed.push(after.relAt(j));
      i++;
      j++;
    }
  }
  return out;
}

const RUNTIME_FOLDER = /^runtimes\/([^/]+)\//;

/**
 * The base comparison from the indexes (see the header); `baseDir` as the user gave it (relative
 * to options.cwd). Undefined: compare by rendering and reading the base instead (diffDist).
 */
export function diffBaseFromIndexes(options: Pick<SynthOptions, 'fleetDir' | 'cwd' | 'now' | 'allowEmpty'>, baseDir: string, proven: ProvenDist): DiffResult | undefined {
  const baseRoot = path.resolve(options.cwd, baseDir);
  let base: IndexView;
  try {
    // Not a folder, a symlink, no or a foreign index: diff words what is wrong with it.
    if (!fs.lstatSync(baseRoot).isDirectory()) return undefined;
    const read = loadIndex(baseRoot);
    if (read.kind !== 'ok') return undefined;
    base = read.index.view;
  } catch {
    return undefined;
  }
  const changes = compareIndexes(base, proven.view);
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
    const checked = checkFleet({
      fleetDir: options.fleetDir,
      cwd: options.cwd,
      now: options.now,
      allowEmpty: true,
      layers: proven.layers,
      partOfFleet: true,
      previousDist: baseDir,
      previousIndex: () => base,
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
  const diff = diffOfChanges({ ...changes, before: entries(base), after: entries(proven.view) }, read(baseRoot), read(proven.outDir));
  return { exitCode: ExitCode.Ok, diagnostics, runtimes: Object.keys(proven.record.runtimes).length, rendered: 0, diff };
}

function* entries(view: IndexView): Iterable<string> {
  for (let i = 0; i < view.size; i++) yield view.relAt(i);
}
