// The files `kyma-fleet status` writes into the fleet repo, as text: one `<name>.yaml` per runtime
// (kind RuntimeStatus) and SUMMARY.md. Pure: formatting, parsing the previous file, and the merge
// that keeps timestamps stable (a lastTransitionTime moves only when a state changes) and keeps
// the last known state when a read failed. The content depends only on the states, reasons,
// messages and transition times, so an unchanged fleet gives byte-identical files.

import { parseDocument } from 'yaml';
import { measureNestingDepth } from '../lib/yaml/parse-yaml';
import { cmp } from '../lib/diagnostics';
import { toYaml } from '../render/serialize';
import { markdownCell, sanitizeMessage } from '../observe/sanitize';
import { isReadFailureReason, type RuntimeStatus, SEVERITY_ORDER, STATUS_STATES, type StatusState, summaryState } from './states';

export const STATUS_API_VERSION = 'kyma-fleet.dev/v1alpha1';
export const STATUS_KIND = 'RuntimeStatus';
/** First line of every runtime status file; files without it are never removed. */
export const STATUS_HEADER = '# written by kyma-fleet status; do not edit\n';
export const SUMMARY_FILE = 'SUMMARY.md';
export const SUMMARY_HEADER = '<!-- written by kyma-fleet status; do not edit -->\n';
/** The status page (`--html`), beside SUMMARY.md. */
export const STATUS_PAGE_FILE = 'status.html';
/** First line of the status page: the same comment as SUMMARY.md's (a comment may precede the doctype). */
export const STATUS_PAGE_HEADER = SUMMARY_HEADER;
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
  if (fileName === SUMMARY_FILE) return text.startsWith(SUMMARY_HEADER);
  if (fileName === STATUS_PAGE_FILE) return text.startsWith(STATUS_PAGE_HEADER);
  return isWrittenByKymaFleet(text);
}

// --------------------------------------------------------------------------------------------- SUMMARY.md

/** What the summary knows about a runtime besides its status: from the fleet. */
export interface RuntimeFacts {
  readonly groups: readonly string[];
  readonly region: string;
  /**
   * Extensions the fleet enables for the runtime (adoption on the status page). Absent: not known,
   * and an extension counts as adopted when its state is anything but Disabled.
   */
  readonly enabled?: readonly string[];
}

/** Runtimes that share a group or a region, with their (worst) runtime states counted. */
export interface StatusBucket {
  readonly key: string;
  /** Sorted by name. */
  readonly records: readonly RuntimeStatusRecord[];
  readonly states: Readonly<Record<StatusState, number>>;
}

/** A runtime × extension that is not Ready or Disabled. */
export interface AttentionItem {
  readonly runtime: string;
  readonly extension: string;
  readonly status: ExtensionRecord;
}

/** The data model of SUMMARY.md and the status page: counts and lists, all sorted. */
export interface StatusSummary {
  /** Sorted by name. */
  readonly records: readonly RuntimeStatusRecord[];
  /** Every extension any runtime reports, sorted. */
  readonly extensions: readonly string[];
  /** The latest lastTransitionTime ('' without any): the summary's time, instead of a clock. */
  readonly latest: string;
  /** Runtimes by their (worst) state. */
  readonly runtimeStates: Readonly<Record<StatusState, number>>;
  /** Runtime × extension states counted per extension. */
  readonly byExtension: ReadonlyMap<string, Readonly<Record<StatusState, number>>>;
  /** A runtime without a group is in "(no group)"; sorted by key. */
  readonly byGroup: readonly StatusBucket[];
  /** A runtime without facts is in "(unknown)"; sorted by key. */
  readonly byRegion: readonly StatusBucket[];
  /** Worst first, then by runtime and extension. */
  readonly attention: readonly AttentionItem[];
}

export const NO_GROUP = '(no group)';
export const UNKNOWN_REGION = '(unknown)';

/** Counts, groups and the attention list of a set of records (deterministic: input order does not matter). */
export function summarizeStatus(records: readonly RuntimeStatusRecord[], facts: ReadonlyMap<string, RuntimeFacts>): StatusSummary {
  const sorted = [...records].sort((a, b) => cmp(a.name, b.name));
  const extensions = [...new Set(sorted.flatMap((r) => Object.keys(r.extensions)))].sort(cmp);
  let latest = '';
  for (const r of sorted) for (const e of Object.values(r.extensions)) if (e.lastTransitionTime > latest) latest = e.lastTransitionTime;

  const byExtension = new Map(extensions.map((ext) => [ext, extensionStates(sorted, ext)]));

  const byGroup = new Map<string, RuntimeStatusRecord[]>();
  const byRegion = new Map<string, RuntimeStatusRecord[]>();
  for (const r of sorted) {
    const f = facts.get(r.name);
    const groups = f && f.groups.length > 0 ? f.groups : [NO_GROUP];
    for (const g of groups) push(byGroup, g, r);
    push(byRegion, f?.region ?? UNKNOWN_REGION, r);
  }
  const buckets = (map: Map<string, RuntimeStatusRecord[]>): StatusBucket[] =>
    [...map.keys()].sort(cmp).map((key) => ({ key, records: map.get(key)!, states: countStates(map.get(key)!.map((r) => r.state)) }));

  const attention: AttentionItem[] = [];
  for (const r of sorted) {
    for (const ext of Object.keys(r.extensions).sort(cmp)) {
      const e = r.extensions[ext]!;
      if (e.state !== 'Ready' && e.state !== 'Disabled') attention.push({ runtime: r.name, extension: ext, status: e });
    }
  }
  attention.sort(
    (a, b) => SEVERITY_ORDER.indexOf(a.status.state) - SEVERITY_ORDER.indexOf(b.status.state) || cmp(a.runtime, b.runtime) || cmp(a.extension, b.extension),
  );

  return {
    records: sorted,
    extensions,
    latest,
    runtimeStates: countStates(sorted.map((r) => r.state)),
    byExtension,
    byGroup: buckets(byGroup),
    byRegion: buckets(byRegion),
    attention,
  };
}

/** The state of an extension as reports show it: a stale Unknown names the last known state. */
export function stateLabel(e: ExtensionRecord): string {
  return e.stale && e.lastKnown ? `${e.state} (stale; last known ${e.lastKnown.state} since ${e.lastKnown.lastTransitionTime})` : e.state;
}

/** "2 Ready, 1 Failed" in STATUS_STATES order, states without runtimes left out ('' for none). */
export function stateCountsText(counts: Readonly<Record<StatusState, number>>): string {
  return STATUS_STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`).join(', ');
}

/**
 * SUMMARY.md: counts per extension and state, runtime counts per group and per region, then every
 * runtime × extension that is not Ready or Disabled, worst first. Deterministic; instead of a
 * "generated at" time it names the latest state change.
 */
export function formatSummary(records: readonly RuntimeStatusRecord[], facts: ReadonlyMap<string, RuntimeFacts>): string {
  const summary = summarizeStatus(records, facts);
  const { latest } = summary;

  const lines: string[] = [];
  lines.push(SUMMARY_HEADER.trimEnd(), '# Fleet status', '');
  lines.push(
    `${summary.records.length} runtime${summary.records.length === 1 ? '' : 's'}: ${stateCountsText(summary.runtimeStates) || 'none'}` +
      (latest ? `. Last state change: ${latest}.` : '.'),
    '',
  );
  lines.push('A runtime counts as its worst extension state (Failed, Drifted, Unknown, Progressing, Ready, Disabled).', '');

  lines.push('## Extensions', '');
  lines.push(tableHeader('Extension'));
  for (const [ext, counts] of summary.byExtension) lines.push(tableRow(ext, counts));
  lines.push('');

  for (const [title, first, buckets] of [
    ['Runtimes by group', 'Group', summary.byGroup],
    ['Runtimes by region', 'Region', summary.byRegion],
  ] as const) {
    lines.push(`## ${title}`, '');
    lines.push(tableHeader(first, true));
    for (const b of buckets) lines.push(tableRow(b.key, b.states, b.records.length));
    lines.push('');
  }

  lines.push('## Needs attention', '');
  if (summary.attention.length === 0) {
    lines.push('Every extension of every runtime is Ready or Disabled.', '');
  } else {
    lines.push('| Runtime | Extension | State | Reason | Since | Message |', '| --- | --- | --- | --- | --- | --- |');
    for (const { runtime, extension, status: e } of summary.attention) {
      lines.push(`| ${markdownCell(runtime)} | ${markdownCell(extension)} | ${markdownCell(stateLabel(e))} | ${markdownCell(e.reason)} | ${e.lastTransitionTime} | ${markdownCell(e.message)} |`);
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

function tableRow(first: string, counts: Readonly<Record<StatusState, number>>, total?: number): string {
  const cells = [markdownCell(first), ...(total !== undefined ? [String(total)] : []), ...STATUS_STATES.map((s) => String(counts[s]))];
  return `| ${cells.join(' | ')} |`;
}

/** How many of `states` are in each state (every state present, 0 when none). */
export function countStates(states: readonly StatusState[]): Record<StatusState, number> {
  const out = Object.fromEntries(STATUS_STATES.map((s) => [s, 0])) as Record<StatusState, number>;
  for (const s of states) out[s]++;
  return out;
}

/** The states of one extension across `records` counted (runtimes without the extension are not counted). */
export function extensionStates(records: readonly RuntimeStatusRecord[], extension: string): Record<StatusState, number> {
  return countStates(records.map((r) => r.extensions[extension]?.state).filter((s): s is StatusState => s !== undefined));
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
