// `kyma-fleet import runtimes` without the command line: plans the import (./import-plan.ts) against
// the fleet on disk, checks every new file with the validator itself before anything is written
// (the new documents join the loaded fleet in memory: schema, names, identities, duplicates,
// layering and policies, with the validator's messages; a file that fails is not imported, with the
// reason), writes the rest together or not at all (./fleet-files.ts), and checks the fleet on disk
// once more, removing the new files again if it no longer validates. Existing files are never touched.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXTENSIONS } from '../extensions';
import { appendAll, cmp, type Diagnostic, formatDiagnostic, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import { lexists } from '../lib/fs-exists';
import { parseFleetYaml } from '../lib/yaml/parse-yaml';
import { type LoadedDocument, type LoadedFleet, loadFleet } from '../load/load';
import type { ReadObject } from '../observe/object-reader';
import { resolveFleet } from '../resolve/resolve';
import { checkResolved } from '../resolve/resolved-rules';
import { SCHEMAS_FOLDER, schemaFileName } from '../scaffold/templates';
import { kymaRuntimeSchema } from '../validate/schema';
import { groupsMissedBy } from '../validate/empty-selectors';
import type { GroupDeclaration } from '../validate/model';
import { validateFleet } from '../validate/validate';
import { createFilesTogether, removeCreated } from './fleet-files';
import { type FleetRuntime, type ImportPlan, type PlannedRuntime, planImport } from './import-plan';
import type { LabelRule, Refusal } from './runtime-cr';

export interface ImportOptions {
  readonly fleetDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly project: string;
  readonly labelRules: readonly LabelRule[];
  readonly nameTemplate: string;
  readonly dryRun: boolean;
  readonly strict: boolean;
  /** False when the KCP read was incomplete (unreadable dump files): fleet runtimes are then not reported missing. */
  readonly complete: boolean;
}

export type ImportOutcome =
  /** The fleet itself does not validate: nothing planned, nothing written. */
  | { readonly kind: 'invalid-fleet'; readonly diagnostics: readonly Diagnostic[] }
  | {
      readonly kind: 'done';
      /** What was written (or, with dryRun or a strict refusal, what would be). */
      readonly plan: ImportPlan;
      readonly written: readonly PlannedRuntime[];
      /** True when nothing was written because of --strict. */
      readonly strictRefused: boolean;
      /** Fleet runtimes the KCP lacks; empty when the read was incomplete. */
      readonly missingFromKcp: readonly FleetRuntime[];
      readonly refused: readonly Refusal[];
      /** Groups whose selector matches none of the runtimes imported (or that would be): warnings at the selector. */
      readonly groupsMissed: readonly Diagnostic[];
    }
  /** Writing failed (nothing of this run is left on disk). */
  | { readonly kind: 'write-failed'; readonly message: string }
  /** The fleet no longer validated with the new files on disk; they were removed again. */
  | { readonly kind: 'rolled-back'; readonly diagnostics: readonly Diagnostic[] };

export function importRuntimes(objects: readonly ReadObject[], options: ImportOptions): ImportOutcome {
  const loaded = loadFleet({ fleetDir: options.fleetDir, cwd: options.cwd });
  const existing = checkLoaded(loaded, options.now);
  if (hasErrors(existing.diagnostics) || !existing.fleet) return { kind: 'invalid-fleet', diagnostics: existing.diagnostics.filter((d) => d.severity === 'error') };

  const runtimesDir = path.join(loaded.root, 'runtimes');
  const plan = planImport(objects, existing.fleet, takenNames(runtimesDir), {
    project: options.project,
    labelRules: options.labelRules,
    nameTemplate: options.nameTemplate,
    schemaRef: schemaRefFrom(runtimesDir, loaded.root),
  });

  // Check the new files as the validator sees them; drop the ones it refuses, then check again
  // (a refused file may have been the first of a duplicate pair).
  let accepted = [...plan.toWrite];
  const refused: Refusal[] = [...plan.refused];
  for (let round = 0; round < 3 && accepted.length > 0; round++) {
    const verdict = checkCandidates(loaded, accepted, options.now);
    if (verdict.elsewhere.length > 0) return { kind: 'invalid-fleet', diagnostics: verdict.elsewhere };
    if (verdict.byFile.size === 0) break;
    accepted = accepted.filter((p) => {
      const found = verdict.byFile.get(p.relPath);
      if (!found) return true;
      refused.push({ where: p.candidate.where, object: p.candidate.object, runtimeID: p.candidate.runtimeID, reason: `${p.relPath} would not validate: ${found.map((d) => `${d.field ? `${d.field}: ` : ''}${d.message} [${d.code}]`).join('; ')}` });
      return false;
    });
  }
  refused.sort((a, b) => cmp(a.where, b.where) || cmp(a.reason, b.reason));
  const missingFromKcp = options.complete ? plan.missingFromKcp : [];
  const strictRefused = options.strict && (refused.length > 0 || missingFromKcp.length > 0 || !options.complete);
  const groupsMissed = groupsMissedBy(existing.groups ?? [], accepted.map((p) => ({ name: p.name, labels: Object.fromEntries(p.candidate.labels) })));
  const done = (written: readonly PlannedRuntime[]): ImportOutcome => ({ kind: 'done', plan: { ...plan, toWrite: accepted }, written, strictRefused, missingFromKcp, refused, groupsMissed });
  if (options.dryRun || strictRefused || accepted.length === 0) return done([]);

  const display = (abs: string): string => `${loaded.displayRoot}/${path.relative(loaded.root, abs).split(path.sep).join('/')}`;
  const files = new Map(accepted.map((p) => [path.join(loaded.root, p.relPath), p.text]));
  try {
    createFilesTogether(files, display);
  } catch (err) {
    const e = err as { exists?: boolean; file?: string; code?: string; message?: string };
    const message = e.exists ? `${e.file} appeared while importing (another writer?); nothing written` : `${e.message ?? String(err)}; nothing written`;
    return { kind: 'write-failed', message };
  }
  // The fleet on disk, new files included, must validate as a whole.
  const after = checkLoaded(loadFleet({ fleetDir: options.fleetDir, cwd: options.cwd }), options.now);
  if (hasErrors(after.diagnostics)) {
    removeCreated(files.keys());
    return { kind: 'rolled-back', diagnostics: after.diagnostics.filter((d) => d.severity === 'error') };
  }
  return done(accepted);
}

/** Validation, resolution and the resolved rules of a loaded fleet; its runtimes when it has a model. */
function checkLoaded(loaded: LoadedFleet, now: Date): { diagnostics: Diagnostic[]; fleet?: FleetRuntime[]; groups?: readonly GroupDeclaration[] } {
  const validated = validateFleet(loaded, { now, allowEmpty: true });
  const diagnostics: Diagnostic[] = [...validated.diagnostics];
  if (!validated.model) return { diagnostics: normalizeDiagnostics(diagnostics) };
  const resolved = resolveFleet(validated.model, EXTENSIONS);
  appendAll(diagnostics, resolved.diagnostics);
  if (validated.model.complete) appendAll(diagnostics, checkResolved(validated.model, resolved.runtimes, EXTENSIONS));
  return {
    diagnostics: normalizeDiagnostics(diagnostics),
    fleet: validated.model.runtimes.map((r) => ({ name: r.name, runtimeID: r.runtimeID, file: r.file })),
    groups: validated.model.groups,
  };
}

/**
 * The validator's findings on the new documents, by relPath (each new runtime's resolved rules
 * are its own, wherever they point), and findings on existing files (which refuse the import).
 */
function checkCandidates(loaded: LoadedFleet, planned: readonly PlannedRuntime[], now: Date): { byFile: Map<string, Diagnostic[]>; elsewhere: Diagnostic[] } {
  const docs: LoadedDocument[] = [];
  const byFile = new Map<string, Diagnostic[]>();
  const relOfFile = new Map<string, string>();
  const add = (rel: string, d: Diagnostic): void => {
    if (byFile.has(rel)) byFile.get(rel)!.push(d);
    else byFile.set(rel, [d]);
  };
  for (const p of planned) {
    const file = `${loaded.displayRoot}/${p.relPath}`;
    relOfFile.set(file, p.relPath);
    const parsed = parseFleetYaml(Buffer.from(p.text, 'utf8'), file);
    for (const d of parsed.diagnostics) if (d.severity === 'error') add(p.relPath, d);
    if (parsed.data !== undefined) docs.push({ expectedKind: 'KymaRuntime', relPath: p.relPath, file, data: parsed.data, positions: parsed.positions, digest: sha256(p.text) });
  }
  // A duplicate is reported on the new file ("already declared in <existing>"): the fleet's own
  // files count as the ones git already has, the planned ones as new.
  const tracked = (files: readonly string[]): ReadonlySet<string> => new Set(files.filter((f) => !relOfFile.has(f)));
  const validated = validateFleet({ ...loaded, runtimes: [...loaded.runtimes, ...docs] }, { now, allowEmpty: true, tracked });
  const elsewhere: Diagnostic[] = [];
  for (const d of validated.diagnostics) {
    if (d.severity !== 'error') continue;
    const rel = relOfFile.get(d.file);
    if (rel !== undefined) add(rel, d);
    else elsewhere.push(d);
  }
  if (validated.model && validated.model.complete) {
    const resolved = resolveFleet(validated.model, EXTENSIONS);
    for (const r of resolved.runtimes) {
      const rel = relOfFile.get(r.runtime.file);
      if (rel === undefined) continue;
      for (const d of checkResolved(validated.model, [r], EXTENSIONS)) if (d.severity === 'error') add(rel, d);
    }
  }
  return { byFile, elsewhere: normalizeDiagnostics(elsewhere) };
}

/** Every name runtimes/ already uses (file names without .yaml or .yml), lowercase. */
function takenNames(runtimesDir: string): Set<string> {
  const out = new Set<string>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(runtimesDir);
  } catch {
    return out; // no folder yet: created on write
  }
  for (const e of entries) {
    const m = /^(.*)\.ya?ml$/i.exec(e);
    if (m) out.add(m[1]!.toLowerCase());
  }
  return out;
}

/** The nearest schemas/kymaruntime.json above the fleet (up to the repository root), relative to `fromDir`; else its $id URL. */
function schemaRefFrom(fromDir: string, fleetRoot: string): string {
  const fileName = schemaFileName('KymaRuntime');
  for (let dir = fleetRoot; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, SCHEMAS_FOLDER, fileName);
    if (lexists(candidate, true)) return path.relative(fromDir, candidate).split(path.sep).join('/');
    if (lexists(path.join(dir, '.git'), true) || path.dirname(dir) === dir) break;
  }
  return String(kymaRuntimeSchema().$id);
}

/** One line per diagnostic, for refusals. */
export function diagnosticLines(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map(formatDiagnostic);
}
