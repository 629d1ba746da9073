// What the stages of a synth (./synth.ts) hand on to each other: plan → check → render → write →
// save. Types only, so that the stage modules need not import one another.

import type { Diagnostic } from '../lib/diagnostics';
import type { TreeDiff } from '../render/tree-diff';
import type { FleetModel } from '../validate/model';
import type { Problem } from '../write/dist-writer';
import type { RunRecord, RuntimeRecord } from './run-record';

export interface Rendering {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly runtimes?: number;
}

export type SynthResult = Rendering & {
  readonly problem?: Problem;
  readonly changed?: boolean;
  readonly written?: number;
  readonly removed?: number;
  readonly rendered?: number;
  /** How many parts (worker threads, when more than one) rendered the runtimes; absent when this thread did it all. */
  readonly parts?: number;
};

export type DiffResult = SynthResult & { readonly diff?: TreeDiff };

/** One runtime of the fleet as the write and save stages see it, however it was obtained. */
export interface RuntimeEntry {
  readonly relPath: string;
  readonly record: RuntimeRecord;
  /** Its files stay as dist/ has them (record.targets says which folders); else the render produced them. */
  readonly kept: boolean;
  /** Its record is the trusted record's own (its file was not parsed): the index's inputs section has its line. */
  readonly recorded?: boolean;
  /** Rendered in a part, which also wrote its own GitOps files into the staging tree. */
  readonly gitopsStaged?: boolean;
  /** Rendered in this thread: the CRDs its skr-config/ needs, for its own GitOps files (RuntimeWiring). */
  readonly waitFor?: readonly string[];
}

/** The render stage's result: a valid model, the diagnostics and every runtime of the fleet. */
export interface Rendered {
  readonly model: FleetModel;
  readonly diagnostics: Diagnostic[];
  readonly entries: RuntimeEntry[];
  /** runtimes/** files of the runtimes rendered in this thread (a part puts its own into the write session). */
  readonly files: Map<string, string>;
}

/** `upToDate`: nothing to write; `restamped`, the run record with the stamps its files have now (run-record.ts restamped). */
export type RenderOutcome = { rendered: Rendered } | { failed: SynthResult } | { upToDate: SynthResult; restamped?: RunRecord };
