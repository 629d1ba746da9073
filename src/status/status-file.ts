// The files `kyma-fleet status` writes into the fleet repo, as text: one `<name>.yaml` per runtime
// (kind RuntimeStatus) and SUMMARY.md. Pure: formatting, parsing the previous file, and the merge
// that keeps timestamps stable (a lastTransitionTime moves only when a state changes) and keeps
// the last known state when a read failed. The content depends only on the states, reasons,
// messages and transition times, so an unchanged fleet gives byte-identical files.

import { parseDocument } from 'yaml';
import { measureNestingDepth } from '../fleet/parse-yaml';
import { cmp } from '../lib/diagnostics';
import { toYaml } from '../render/serialize';
import { markdownCell, sanitizeMessage } from './sanitize';
import { isReadFailureReason, type RuntimeStatus, SEVERITY_ORDER, STATUS_STATES, type StatusState, summaryState } from './states';

export const STATUS_API_VERSION = 'kyma-fleet.dev/v1alpha1';
export const STATUS_KIND = 'RuntimeStatus';
/** First line of every runtime status file; files without it are never removed. */
export const STATUS_HEADER = '# written by kyma-fleet status; do not edit\n';
export const SUMMARY_FILE = 'SUMMARY.md';
export const SUMMARY_HEADER = '<!-- written by kyma-fleet status; do not edit -->\n';
/** Previous files above this size are not read (a status file is a few KB). */
export const MAX_STATUS_FILE_BYTES = 1024 * 1024;

export interface KnownState {
  readonly state: StatusState;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface ExtensionRecord extends KnownState {
  /** Set when the state is Unknown because a read failed and an earlier state was known. */
  readonly stale?: true;
  /** The last state that was known before the reads started failing. */
  readonly lastKnown?: KnownState;
}

export interface RuntimeStatusRecord {
  readonly name: string;
  readonly runtimeID: string;
  readonly state: StatusState;
  /** By extension name. */
  readonly extensions: Readonly<Record<string, ExtensionRecord>>;
}

/** RFC 3339 in UTC with second precision: 2026-11-22T00:00:00Z. */
export function formatTime(now: Date): string {
  return now.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

/**
 * The record to write: the current states, with each lastTransitionTime kept from the previous
 * record while the state stays the same. An Unknown that comes from a failed read (not NotFound)
 * keeps the previous known state as `lastKnown` and is marked `stale`.
 */
export function mergeWithPrevious(previous: RuntimeStatusRecord | undefined, current: RuntimeStatus, now: Date): RuntimeStatusRecord {
  const time = formatTime(now);
  const extensions: Record<string, ExtensionRecord> = {};
  for (const name of Object.keys(current.extensions).sort(cmp)) {
    const cur = current.extensions[name]!;
    const prev = previous?.runtimeID === current.runtimeID ? previous.extensions[name] : undefined;
    const since = prev && prev.state === cur.state ? prev.lastTransitionTime : time;
    const base = { state: cur.state, reason: cur.reason, message: cur.message, lastTransitionTime: since };
    if (cur.state === 'Unknown' && isReadFailureReason(cur.reason) && prev) {
      const lastKnown: KnownState | undefined =
        prev.state !== 'Unknown'
          ? { state: prev.state, reason: prev.reason, message: prev.message, lastTransitionTime: prev.lastTransitionTime }
          : prev.lastKnown;
      if (lastKnown) {
        extensions[name] = { ...base, stale: true, lastKnown };
        continue;
      }
    }
    extensions[name] = base;
  }
  return { name: current.name, runtimeID: current.runtimeID, state: summaryState(Object.values(extensions).map((e) => e.state)), extensions };
}

/** The YAML of a runtime status file: the header line, then a fixed key order, no anchors. */
export function formatStatusFile(record: RuntimeStatusRecord): string {
  const known = (k: KnownState) => ({ state: k.state, reason: k.reason, message: k.message, lastTransitionTime: k.lastTransitionTime });
  const extensions: Record<string, unknown> = {};
  for (const name of Object.keys(record.extensions).sort(cmp)) {
    const e = record.extensions[name]!;
    extensions[name] = { ...known(e), ...(e.stale ? { stale: true } : {}), ...(e.lastKnown ? { lastKnown: known(e.lastKnown) } : {}) };
  }
  return (
    STATUS_HEADER +
    toYaml({
      apiVersion: STATUS_API_VERSION,
      kind: STATUS_KIND,
      metadata: { name: record.name },
      runtimeID: record.runtimeID,
      state: record.state,
      extensions,
    })
  );
}

export type ParsedStatusFile = { readonly record: RuntimeStatusRecord } | { readonly problem: string };

/**
 * Reads a previous status file back. Tolerant: anything that is not a well-formed RuntimeStatus
 * (wrong kind, broken YAML, a state that does not exist, a bad timestamp) gives a problem, and the
 * caller treats the runtime as having no previous status.
 */
export function parseStatusFile(text: string, expectedName: string): ParsedStatusFile {
  if (text.length > MAX_STATUS_FILE_BYTES) return { problem: `larger than ${MAX_STATUS_FILE_BYTES} bytes` };
  if (measureNestingDepth(text, 64).depth > 64) return { problem: 'nested too deeply' };
  let data: unknown;
  try {
    const doc = parseDocument(text, {
      version: '1.2',
      schema: 'core',
      merge: false,
      uniqueKeys: true,
      strict: true,
      prettyErrors: false,
      logLevel: 'silent',
    });
    if (doc.errors.length > 0) return { problem: `not valid YAML (${firstLine(doc.errors[0]!.message)})` };
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (e) {
    return { problem: `not valid YAML (${firstLine(e instanceof Error ? e.message : String(e))})` };
  }
  if (!isRec(data)) return { problem: 'not a mapping' };
  if (data.apiVersion !== STATUS_API_VERSION || data.kind !== STATUS_KIND) return { problem: `not a ${STATUS_API_VERSION} ${STATUS_KIND}` };
  const name = isRec(data.metadata) ? data.metadata.name : undefined;
  if (name !== expectedName) return { problem: `metadata.name is ${JSON.stringify(name)}, expected ${JSON.stringify(expectedName)}` };
  if (typeof data.runtimeID !== 'string') return { problem: 'runtimeID is missing' };
  if (!isRec(data.extensions)) return { problem: 'extensions is not a mapping' };
  const extensions: Record<string, ExtensionRecord> = {};
  for (const [ext, raw] of Object.entries(data.extensions)) {
    const known = parseKnown(raw);
    if (typeof known === 'string') return { problem: `extensions.${ext}: ${known}` };
    const r = raw as Record<string, unknown>;
    let lastKnown: KnownState | undefined;
    if (r.lastKnown !== undefined) {
      const lk = parseKnown(r.lastKnown);
      if (typeof lk === 'string') return { problem: `extensions.${ext}.lastKnown: ${lk}` };
      lastKnown = lk;
    }
    extensions[ext] = { ...known, ...(r.stale === true ? { stale: true as const } : {}), ...(lastKnown ? { lastKnown } : {}) };
  }
  return {
    record: { name: expectedName, runtimeID: data.runtimeID, state: summaryState(Object.values(extensions).map((e) => e.state)), extensions },
  };
}

function parseKnown(raw: unknown): KnownState | string {
  if (!isRec(raw)) return 'not a mapping';
  if (typeof raw.state !== 'string' || !(STATUS_STATES as readonly string[]).includes(raw.state)) return `state ${JSON.stringify(raw.state)} is not a status state`;
  if (typeof raw.lastTransitionTime !== 'string' || !isTime(raw.lastTransitionTime)) return 'lastTransitionTime is not an RFC 3339 time';
  return {
    state: raw.state as StatusState,
    reason: typeof raw.reason === 'string' ? sanitizeMessage(raw.reason, 128) : '',
    message: sanitizeMessage(raw.message),
    lastTransitionTime: raw.lastTransitionTime,
  };
}

function isTime(s: string): boolean {
  return /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$/.test(s) && !Number.isNaN(Date.parse(s));
}

/** True when a runtime status file's text starts with the header kyma-fleet writes. */
export function isWrittenByKymaFleet(text: string): boolean {
  return text.startsWith(STATUS_HEADER);
}

/** True when an existing file of the status folder may be replaced: it carries kyma-fleet's header. */
export function isOwnedStatusFile(fileName: string, text: string): boolean {
  return fileName === SUMMARY_FILE ? text.startsWith(SUMMARY_HEADER) : isWrittenByKymaFleet(text);
}

// --------------------------------------------------------------------------------------------- SUMMARY.md

/** What the summary knows about a runtime besides its status: from the fleet. */
export interface RuntimeFacts {
  readonly groups: readonly string[];
  readonly region: string;
}

/**
 * SUMMARY.md: counts per extension and state, runtime counts per group and per region, then every
 * runtime × extension that is not Ready or Disabled, worst first. Deterministic; instead of a
 * "generated at" time it names the latest state change.
 */
export function formatSummary(records: readonly RuntimeStatusRecord[], facts: ReadonlyMap<string, RuntimeFacts>): string {
  const sorted = [...records].sort((a, b) => cmp(a.name, b.name));
  const extensions = [...new Set(sorted.flatMap((r) => Object.keys(r.extensions)))].sort(cmp);
  let latest = '';
  for (const r of sorted) for (const e of Object.values(r.extensions)) if (e.lastTransitionTime > latest) latest = e.lastTransitionTime;

  const lines: string[] = [];
  lines.push(SUMMARY_HEADER.trimEnd(), '# Fleet status', '');
  const runtimeStates = countStates(sorted.map((r) => r.state));
  lines.push(
    `${sorted.length} runtime${sorted.length === 1 ? '' : 's'}: ${STATUS_STATES.filter((s) => runtimeStates[s] > 0).map((s) => `${runtimeStates[s]} ${s}`).join(', ') || 'none'}` +
      (latest ? `. Last state change: ${latest}.` : '.'),
    '',
  );
  lines.push('A runtime counts as its worst extension state (Failed, Drifted, Unknown, Progressing, Ready, Disabled).', '');

  lines.push('## Extensions', '');
  lines.push(tableHeader('Extension'));
  for (const ext of extensions) {
    const counts = countStates(sorted.map((r) => r.extensions[ext]?.state).filter((s): s is StatusState => s !== undefined));
    lines.push(tableRow(ext, counts));
  }
  lines.push('');

  const byGroup = new Map<string, StatusState[]>();
  const byRegion = new Map<string, StatusState[]>();
  for (const r of sorted) {
    const f = facts.get(r.name);
    const groups = f && f.groups.length > 0 ? f.groups : ['(no group)'];
    for (const g of groups) push(byGroup, g, r.state);
    push(byRegion, f?.region ?? '(unknown)', r.state);
  }
  for (const [title, map] of [
    ['Runtimes by group', byGroup],
    ['Runtimes by region', byRegion],
  ] as const) {
    lines.push(`## ${title}`, '');
    lines.push(tableHeader(title === 'Runtimes by group' ? 'Group' : 'Region', true));
    for (const key of [...map.keys()].sort(cmp)) lines.push(tableRow(key, countStates(map.get(key)!), map.get(key)!.length));
    lines.push('');
  }

  lines.push('## Needs attention', '');
  const attention: Array<{ runtime: string; ext: string; e: ExtensionRecord }> = [];
  for (const r of sorted) {
    for (const ext of Object.keys(r.extensions).sort(cmp)) {
      const e = r.extensions[ext]!;
      if (e.state !== 'Ready' && e.state !== 'Disabled') attention.push({ runtime: r.name, ext, e });
    }
  }
  attention.sort((a, b) => SEVERITY_ORDER.indexOf(a.e.state) - SEVERITY_ORDER.indexOf(b.e.state) || cmp(a.runtime, b.runtime) || cmp(a.ext, b.ext));
  if (attention.length === 0) {
    lines.push('Every extension of every runtime is Ready or Disabled.', '');
  } else {
    lines.push('| Runtime | Extension | State | Reason | Since | Message |', '| --- | --- | --- | --- | --- | --- |');
    for (const { runtime, ext, e } of attention) {
      const state = e.stale && e.lastKnown ? `${e.state} (stale; last known ${e.lastKnown.state} since ${e.lastKnown.lastTransitionTime})` : e.state;
      lines.push(`| ${markdownCell(runtime)} | ${markdownCell(ext)} | ${markdownCell(state)} | ${markdownCell(e.reason)} | ${e.lastTransitionTime} | ${markdownCell(e.message)} |`);
    }
    lines.push('');
  }
  lines.push('Per-runtime details: `<runtime>.yaml` in this folder. States and reasons: see the README section "Status".', '');
  return lines.join('\n');
}

function tableHeader(first: string, withTotal = false): string {
  const cols = [first, ...(withTotal ? ['Runtimes'] : []), ...STATUS_STATES];
  return `| ${cols.join(' | ')} |\n| --- |${' ---: |'.repeat(cols.length - 1)}`;
}

function tableRow(first: string, counts: Record<StatusState, number>, total?: number): string {
  const cells = [markdownCell(first), ...(total !== undefined ? [String(total)] : []), ...STATUS_STATES.map((s) => String(counts[s]))];
  return `| ${cells.join(' | ')} |`;
}

function countStates(states: readonly StatusState[]): Record<StatusState, number> {
  const out = Object.fromEntries(STATUS_STATES.map((s) => [s, 0])) as Record<StatusState, number>;
  for (const s of states) out[s]++;
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function isRec(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function firstLine(s: string): string {
  return sanitizeMessage(s.split('\n')[0], 200);
}
