// fleet/rollout/state.yaml: which revision of the fleet-wide layers each ring is on, since when,
// and whether the rollout is paused. Written only by `kyma-fleet rollout` (a fixed format: the same
// state gives the same bytes); read back strictly, so that a hand edit that does not fit is refused
// with file:line:col and the field instead of being half understood.

import { type Diagnostic, type DocPath, formatField, quote } from '../lib/diagnostics';
import { isDNS1123Label } from '../lib/k8s-names';
import { parseFleetYaml } from '../lib/yaml/parse-yaml';
import type { PositionIndex } from '../lib/yaml/positions';

export const STATE_API_VERSION = 'kyma-fleet.dev/v1alpha1';
export const STATE_KIND = 'RolloutState';
export const STATE_HEADER = '# written by kyma-fleet rollout; do not edit (docs/rollout.md)\n';
/** A revision id: the first hex digits of the sha256 of the revision's file list (./revision.ts). */
export const REVISION_ID = /^[0-9a-f]{16}$/;
/** Times as the status files write them: RFC 3339, UTC, whole seconds. */
const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;

export interface RingState {
  readonly name: string;
  readonly revision: string;
  /** When the ring got onto this revision (RFC 3339, UTC, seconds). */
  readonly since: string;
  /** Why it got onto it outside its change window (`--override-window REASON`); absent when it moved inside one. */
  readonly windowOverride?: string;
}

export interface RolloutState {
  readonly paused: boolean;
  /** In rollout order, the implicit last ring `rest` last. */
  readonly rings: readonly RingState[];
}

/** A state and where each of its values sits in state.yaml (for messages about it). */
export interface ReadState {
  readonly state: RolloutState;
  readonly positions: PositionIndex;
}

/** RFC 3339 in UTC with whole seconds. */
export function formatTime(t: Date): string {
  return t.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

export function formatState(state: RolloutState): string {
  let out = `${STATE_HEADER}apiVersion: ${STATE_API_VERSION}\nkind: ${STATE_KIND}\npaused: ${state.paused}\nrings:\n`;
  for (const r of state.rings) {
    out += `  - name: ${r.name}\n    revision: "${r.revision}"\n    since: "${r.since}"\n`;
    if (r.windowOverride !== undefined) out += `    windowOverride: ${JSON.stringify(r.windowOverride)}\n`;
  }
  return out;
}

/** Reads state.yaml; `file` is its display path. Every problem is one diagnostic with its position. */
export function parseState(bytes: Uint8Array, file: string): { readonly read?: ReadState; readonly diagnostics: Diagnostic[] } {
  const parsed = parseFleetYaml(bytes, file);
  if (parsed.data === undefined) return { diagnostics: parsed.diagnostics.map(edited) };
  const positions = parsed.positions;
  const diagnostics: Diagnostic[] = [];
  const report = (path: DocPath, message: string, at: 'key' | 'value' = 'value'): void => {
    const pos = at === 'key' ? positions.keyAt(path) : positions.valueAt(path);
    diagnostics.push(edited({ severity: 'error', code: 'E_ROLLOUT_STATE', file, line: pos.line, col: pos.col, field: formatField(path), message }));
  };
  const data = parsed.data;
  if (!isRec(data)) {
    report([], 'must be a map with apiVersion, kind, paused and rings');
    return { diagnostics };
  }
  unknownKeys(data, ['apiVersion', 'kind', 'paused', 'rings'], [], report);
  if (data.apiVersion !== STATE_API_VERSION) report(['apiVersion'], `must be ${quote(STATE_API_VERSION)} (got ${quote(data.apiVersion)})`);
  if (data.kind !== STATE_KIND) report(['kind'], `must be ${quote(STATE_KIND)} (got ${quote(data.kind)})`);
  if (typeof data.paused !== 'boolean') report(['paused'], `must be true or false (got ${quote(data.paused)})`);
  const rings: RingState[] = [];
  if (!Array.isArray(data.rings) || data.rings.length === 0) report(['rings'], 'must be a non-empty list of rings');
  else {
    const seen = new Set<string>();
    data.rings.forEach((ring, i) => {
      const at = ['rings', i];
      if (!isRec(ring)) return report(at, 'must be a map with name, revision and since');
      unknownKeys(ring, ['name', 'revision', 'since', 'windowOverride'], at, report);
      const { name, revision, since, windowOverride } = ring;
      if (typeof name !== 'string' || !isDNS1123Label(name)) report([...at, 'name'], `must be a ring name (got ${quote(name)})`);
      else if (seen.has(name)) report([...at, 'name'], `Duplicate value: ${quote(name)}`);
      else seen.add(name);
      if (typeof revision !== 'string' || !REVISION_ID.test(revision)) report([...at, 'revision'], `must be a revision id of 16 hex digits (got ${quote(revision)})`);
      if (typeof since !== 'string' || !TIME.test(since) || Number.isNaN(Date.parse(since))) report([...at, 'since'], `must be a time such as 2026-11-25T10:00:00Z (got ${quote(since)})`);
      if (windowOverride !== undefined && overrideReasonProblem(windowOverride) !== undefined) report([...at, 'windowOverride'], overrideReasonProblem(windowOverride)!);
      rings.push({ name: String(name), revision: String(revision), since: String(since), ...(windowOverride === undefined ? {} : { windowOverride: String(windowOverride) }) });
    });
  }
  if (diagnostics.length > 0) return { diagnostics };
  return { read: { state: { paused: data.paused as boolean, rings }, positions }, diagnostics };
}

/** Why a `--override-window` reason cannot be recorded, or undefined: one line of printable text, at most 200 characters. */
export function overrideReasonProblem(reason: unknown): string | undefined {
  if (typeof reason !== 'string' || reason.trim() === '') return `must be a reason: a non-empty line of text (got ${quote(reason)})`;
  if (reason.length > 200) return `must be at most 200 characters (got ${reason.length})`;
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(reason) || /[\ud800-\udfff]/.test(reason.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'must be one line of printable text';
  return undefined;
}

/** Every state problem says how to recover. */
function edited(d: Diagnostic): Diagnostic {
  return { ...d, code: /^E_ROLLOUT_/.test(d.code) ? d.code : 'E_ROLLOUT_STATE', message: `${d.message} (fleet/rollout/ is written only by kyma-fleet rollout: restore it from git)` };
}

function unknownKeys(rec: Record<string, unknown>, known: readonly string[], at: DocPath, report: (path: DocPath, message: string, at?: 'key' | 'value') => void): void {
  for (const k of Object.keys(rec)) if (!known.includes(k)) report([...at, k], `unknown field ${quote(k)}`, 'key');
}

function isRec(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
