// Printing diagnostics at the edge: one line per problem in the contract's
// `<file>:<line>:<col>:` form, plus GitHub Actions annotations when running there.

import { type Diagnostic, ExitCode, formatDiagnostic } from '../lib/diagnostics';
import type { Problem } from '../write/dist-writer';
import { printJson, problemJson } from './json-output';

export interface Streams {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Folder that relative paths and diagnostics are relative to. */
  readonly cwd: string;
  /** Where a progress bar may be drawn (stderr of an interactive terminal); absent in tests. */
  readonly progressStream?: { isTTY?: boolean; columns?: number; write(s: string): unknown };
}

export const processStreams: Streams = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  env: process.env,
  progressStream: process.stderr,
  get cwd() {
    return process.cwd();
  },
};

/**
 * `kyma-fleet ... | head`: when the reader of stdout goes away, stop quietly with the exit code
 * so far, as command-line tools do, instead of an unhandled EPIPE with a stack trace.
 */
export function quietOnClosedStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

function escapeAnnotation(s: string, property = false): string {
  let out = s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

/** Writes every diagnostic to stderr; under GitHub Actions also as an ::error/::warning annotation. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], streams: Streams): void {
  const github = streams.env.GITHUB_ACTIONS === 'true';
  for (const d of diagnostics) {
    streams.err(formatDiagnostic(d) + '\n');
    if (github) {
      const title = d.field ? `${d.code} at ${d.field}` : d.code;
      streams.out(
        `::${d.severity} file=${escapeAnnotation(d.file, true)},line=${d.line},col=${d.col},title=${escapeAnnotation(title, true)}::${escapeAnnotation(d.message)}\n`,
      );
    }
  }
}

export function countBySeverity(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) d.severity === 'error' ? errors++ : warnings++;
  return { errors, warnings };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A problem of the output folder as a whole (lock, foreign files, mass removal). */
export function printProblem(outDir: string, problem: Problem, streams: Streams): void {
  streams.err(`${outDir}: error: ${problem.message} [${problem.code}]\n`);
  for (const p of (problem.paths ?? []).slice(0, 20)) streams.err(`  ${p}\n`);
  if (streams.env.GITHUB_ACTIONS === 'true') streams.out(`::error title=${problem.code}::${escapeAnnotation(problem.message)}\n`);
}

/** The outcome of a command that writes an out folder (synth, synth --shard, merge). */
export interface WriteOutcome {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly problem?: Problem;
  readonly changed?: boolean;
  readonly written?: number;
  readonly removed?: number;
  readonly runtimes?: number;
}

/**
 * Prints what such a command did: its diagnostics, then the write problem, the error count (`who`
 * had errors, `out` left unchanged) or the summary line `<out>: written (<what>, N files…)`; with
 * `format` json the document of schemas/output/synth.schema.json (`extra` adds fields such as the
 * shard). Returns the exit code.
 */
export function reportWrite(
  r: WriteOutcome,
  labels: { readonly who: string; readonly out: string; readonly what: string },
  streams: Streams,
  format: 'text' | 'json' = 'text',
  extra: Readonly<Record<string, unknown>> = {},
): number {
  if (format === 'json') {
    printJson(streams, {
      ok: r.exitCode === ExitCode.Ok,
      exitCode: r.exitCode,
      check: false,
      out: labels.out,
      ...extra,
      runtimes: r.runtimes ?? 0,
      upToDate: r.exitCode === ExitCode.Ok && r.changed !== true,
      files: r.exitCode === ExitCode.Ok ? { written: r.written ?? 0, removed: r.removed ?? 0 } : { written: 0, removed: 0 },
      diagnostics: r.diagnostics,
      ...(r.problem ? { problem: problemJson(r.problem) } : {}),
    });
    return r.exitCode;
  }
  printDiagnostics(r.diagnostics, streams);
  if (r.problem) {
    printProblem(labels.out, r.problem, streams);
    return r.exitCode;
  }
  if (r.exitCode !== ExitCode.Ok) {
    streams.err(`${labels.who}: ${plural(countBySeverity(r.diagnostics).errors, 'error')}; ${labels.out}/ left unchanged\n`);
    return r.exitCode;
  }
  streams.out(
    r.changed
      ? `${labels.out}: written (${labels.what}, ${plural(r.written ?? 0, 'file')}${r.removed ? `, ${plural(r.removed, 'file')} removed` : ''})\n`
      : `${labels.out}: up to date, nothing written (${labels.what})\n`,
  );
  return ExitCode.Ok;
}
