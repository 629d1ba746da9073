// Diagnostics: the one error currency of every stage. Stages return them, never throw them;
// only the CLI turns them into text, JSON and an exit code.

import { type DocPath, type FieldNaming, formatSegments, namedSegments } from './field-path';
import { plainMessage } from './plain-messages';

export type { DocPath, FieldNaming } from './field-path';

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  readonly severity: Severity;
  /** Stable machine code, e.g. E_REGCACHE_UPSTREAM. Documented in the troubleshooting guide. */
  readonly code: string;
  /** File as shown to the user: relative to the current folder. */
  readonly file: string;
  /** 1-based line and column of the offending node (or of its nearest existing parent). */
  readonly line: number;
  readonly col: number;
  /** Field path as `explain` writes it, e.g. modules[name=istio].channel ('' for the whole file; ./field-path.ts). */
  readonly field: string;
  readonly message: string;
  /** What only --output json shows: the regular expression a value failed (src/lib/plain-messages.ts). */
  readonly details?: { readonly pattern: string };
}

/** Exit codes of the CLI, as fixed by the product contract. */
export const ExitCode = {
  Ok: 0,
  InvalidInput: 1,
  Usage: 2,
  OutOfDate: 3,
  IoOrLock: 4,
  StatusGlobalFailure: 5,
  /** `rollout advance`: the gate of the ring being left is closed (or the rollout is paused); nothing advanced. */
  RolloutGateClosed: 6,
  Internal: 70,
} as const;

/**
 * Renders a document path the way the product contract shows it. Paths of fleet documents drop
 * the leading `spec` (settings live directly under it), so a runtime file reports
 * `modules[name=istio].channel`, a group `settings.channel`. With `naming` (the document's data and
 * keyed lists: src/validate/field-naming.ts) an entry of a keyed list is named by its key, as
 * `explain` names it; without, or where the key cannot name it, by its position (./field-path.ts).
 */
export function formatField(path: DocPath, naming?: FieldNaming): string {
  const segments = namedSegments(path, naming);
  return formatSegments(segments[0] === 'spec' ? segments.slice(1) : segments);
}

/** Deterministic order: file, line, column, code, message (code-point compare, locale-free). */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    cmp(a.file, b.file) ||
    a.line - b.line ||
    a.col - b.col ||
    cmp(a.code, b.code) ||
    cmp(a.field, b.field) ||
    cmp(a.message, b.message)
  );
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The message in plain words; a regular expression it named goes to details (./plain-messages.ts). */
export function plainDiagnostic(d: Diagnostic): Diagnostic {
  if (d.details) return d;
  const plain = plainMessage(d.message);
  if (plain.pattern === undefined) return plain.message === d.message ? d : { ...d, message: plain.message };
  return { ...d, message: plain.message, details: { pattern: plain.pattern } };
}

/** Sorts and removes exact duplicates (two rules may find the same fault); messages in plain words. */
export function normalizeDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  const sorted = diags.map(plainDiagnostic).sort(compareDiagnostics);
  const out: Diagnostic[] = [];
  for (const d of sorted) {
    const prev = out[out.length - 1];
    if (prev && compareDiagnostics(prev, d) === 0 && prev.severity === d.severity) continue;
    out.push(d);
  }
  return out;
}

/** The one-line text form: `<file>:<line>:<col>: <severity> at <field>: <message> [<code>]`. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const d = plainDiagnostic(diagnostic);
  const at = d.field === '' ? '' : ` at ${d.field}`;
  return `${d.file}:${d.line}:${d.col}: ${d.severity}${at}: ${d.message} [${d.code}]`;
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

/** Quotes a user value for a message: JSON style, shortened, control characters escaped. */
export function quote(value: unknown, max = 80): string {
  let s: string;
  if (typeof value === 'string') s = JSON.stringify(value);
  else if (value === undefined) s = 'nothing';
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  return s.length > max ? `${s.slice(0, max - 4)}…${s.slice(-3)}` : s;
}

/** Appends without spreading: `push(...items)` overflows the stack past ~120,000 items. */
export function appendAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}
