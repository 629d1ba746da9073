// The --output json side of the commands. The rule (docs/cli.md): once the command line is parsed,
// stdout holds exactly one JSON document, whatever the exit code, except for usage errors (2) and
// internal errors (70), which print a message on stderr only. Each command's document is described
// by schemas/output/<command>.schema.json; failures that stop a command before its report share one
// shape (FailureDocument, schemas/output/common.schema.json#/definitions/failure).

import type { Diagnostic } from '../lib/diagnostics';

/** A folder problem as JSON: the write was refused as a whole and the folder left unchanged. */
export interface ProblemJson {
  readonly code: string;
  readonly message: string;
  readonly paths: readonly string[];
}

export interface FailureDocument {
  readonly ok: false;
  readonly exitCode: number;
  /** Every finding of the run (errors and warnings); empty when the failure is not about the input. */
  readonly diagnostics: readonly Diagnostic[];
  /** An output or status folder that could not be written or was locked (exit 4). */
  readonly problem?: ProblemJson;
  /** Cluster access that failed as a whole (exit 5): the reason (UnreadableKubeconfig, Unauthorized, ...) and message. */
  readonly failure?: { readonly reason: string; readonly message: string };
  /** One line saying what went wrong, as the text output says it. */
  readonly message: string;
}

export function printJson(streams: { readonly out: (text: string) => void }, doc: unknown): void {
  streams.out(JSON.stringify(doc, null, 2) + '\n');
}

export function problemJson(p: { readonly code: string; readonly message: string; readonly paths?: readonly string[] }): ProblemJson {
  return { code: p.code, message: p.message, paths: [...(p.paths ?? [])] };
}

export function failureDocument(exitCode: number, message: string, parts: Omit<FailureDocument, 'ok' | 'exitCode' | 'message' | 'diagnostics'> & { diagnostics?: readonly Diagnostic[] } = {}): FailureDocument {
  return {
    ok: false,
    exitCode,
    diagnostics: parts.diagnostics ?? [],
    ...(parts.problem ? { problem: parts.problem } : {}),
    ...(parts.failure ? { failure: parts.failure } : {}),
    message,
  };
}
