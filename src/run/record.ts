// One rendered runtime as a run remembers it: the digest and stamp of its runtime file, its identity
// (for the checks across files), its diagnostics as a record keeps them, and the target folders its
// render produced. One assembly for every way a runtime is rendered: synth in this thread
// (./synth.ts), a part in a worker thread (./parallel/part.ts), a shard (./shard/render-shard.ts).
// The targets are what the render returned (RenderedFleet.wiring), never read back from file paths.
// sameWiring tells whether a run's runtimes and their targets are those a record lists.

import { type Target, TARGETS } from '../render/render-runtime';
import type { ResolvedRuntime } from '../resolve/resolve';
import { identityOf, type RuntimeIdentity } from '../validate/model';
import type { CheckedFleet } from './check';
import { recordedDiagnostics, type RunRecord, type RuntimeRecord } from './run-record';
import type { RuntimeEntry } from './stages';

export interface RenderedRuntimeRecord {
  /** Its runtime file in the fleet folder (runtimes/<name>.yaml) and as this run displays it. */
  readonly relPath: string;
  readonly file: string;
  /** sha256 of the runtime file's bytes. */
  readonly digest: string;
  /** The file's stamp when it was read (load/load.ts fileStamp), if it was settled then. */
  readonly stamp?: string;
  /** Identity without the file (display paths depend on the working folder). */
  readonly identity: Omit<RuntimeIdentity, 'file'>;
  /** Its diagnostics, its own file as '' (recordedDiagnostics). */
  readonly diagnostics: ReturnType<typeof recordedDiagnostics>;
  readonly targets: readonly Target[];
}

/** The record of a checked runtime with the targets of its render (or, when it was kept, of its last one). */
export function renderedRuntimeRecord(checked: Pick<CheckedFleet, 'runtimeFiles' | 'runtimeDiagnostics'>, r: ResolvedRuntime, targets: readonly Target[]): RenderedRuntimeRecord {
  const loaded = checked.runtimeFiles.get(r.runtime.file);
  if (!loaded) throw new Error(`renderedRuntimeRecord: no loaded file for runtime ${r.runtime.name}`);
  const { file, ...identity } = identityOf(r.runtime);
  return {
    relPath: loaded.relPath,
    file,
    digest: loaded.digest,
    ...(loaded.stamp === undefined ? {} : { stamp: loaded.stamp }),
    identity,
    diagnostics: recordedDiagnostics(checked.runtimeDiagnostics.get(r.runtime.file) ?? [], r.runtime.file),
    targets,
  };
}

/** True when the runtimes (by name) and their sets of targets are exactly those the record lists. */
export function sameWiring(entries: readonly RuntimeEntry[], record: RunRecord): boolean {
  // A set of targets as bits (one per target of TARGETS), a mismatch for anything else.
  const unknown = 1 << TARGETS.length;
  const bits = (targets: readonly string[]): number => {
    let b = 0;
    for (const t of targets) {
      const i = TARGETS.indexOf(t as Target);
      b |= i < 0 ? unknown : 1 << i;
    }
    return b;
  };
  const same = (r: RuntimeRecord | undefined, e: RuntimeEntry): boolean => {
    if (r === undefined || r.identity.name !== e.record.identity.name) return false;
    const b = bits(r.targets);
    return b < unknown && b === bits(e.record.targets);
  };
  if (Object.keys(record.runtimes).length !== entries.length) return false;
  // Matched by name, each entry to at most one of the record's runtimes (names are unique on both
  // sides), as many as there are: the same runtimes. Most are the record's own (a runtime file not
  // read again) or its runtime file's; by name only the others (a runtime file renamed).
  let byName: Map<string, RuntimeRecord> | undefined;
  return entries.every((e) => {
    if (same(record.runtimes[e.relPath], e)) return true;
    byName ??= new Map(Object.values(record.runtimes).map((x) => [x.identity.name, x]));
    return same(byName.get(e.record.identity.name), e);
  });
}
