// How each runtime of a committed dist/ was rendered, kept in dist/'s index (its `inputs` section,
// after the files; issue 28): per runtime file the digest of its bytes, its identity, the input
// digest of its render and its targets, and for the whole fleet the digest of the fleet-wide inputs
// (the program and the libraries that render, fleet.yaml, groups, rules, catalog, snapshots, the
// rollout state), the time epoch and the GitOps options. A fresh CI runner has no run record
// (./run-record.ts) and new file times, so this is what lets `synth --check`, `diff` and `check`
// there render only what changed. It is never believed as written: it is sealed together with the
// index's files (an edited index or record voids it), the files of dist/ are read and hashed against
// the index (src/write/tree-scan.ts: a runtime with an edited, missing or replaced file is rendered
// and compared again; an edited file outside runtimes/ voids it), and it stands for a runtime only
// while the fleet-wide inputs, the epoch and the runtime's own file are those it names. Pure.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import { indexParts, INPUTS_END, INPUTS_START } from '../lib/index-text';
import type { LoadedLayers } from '../load/load';
import { TARGETS, type Target } from '../render/render-runtime';
import type { TreeScan } from '../write/tree-scan';
import { epochOf, type IdentityCells, identityCells, identityOfCells, layersKey, type RunRecord, type RuntimeRecord } from './run-record';
import type { RuntimeEntry } from './stages';

/** What the seal of the inputs section starts with (a new scheme gets a new text). */
const SEAL_CONTEXT = 'kyma-fleet inputs 1\0';

/** What the inputs section of a synth says about the fleet and its runtimes. */
export interface CommittedInputs {
  /** committedKey of the fleet-wide layers. */
  readonly key: string;
  readonly thresholds: readonly number[];
  readonly epoch: number;
  /** The GitOps options (JSON) that the runtimes' own GitOps files and the lists depend on. */
  readonly gitops: string;
  readonly entries: readonly RuntimeEntry[];
  /**
   * The index text the trusted record describes: the lines of runtimes whose records are that
   * record's own (RuntimeEntry.recorded) are taken from its inputs section, not serialized again
   * (25 ms at 10,000 runtimes).
   */
  readonly previous?: string;
}

/**
 * Digest of the fleet-wide inputs as the committed record names them: layersKey (the kyma-fleet
 * build, extensions included, and every fleet-wide file) without the options of one command, and the
 * versions of the libraries that turn objects into files.
 */
export function committedKey(layers: LoadedLayers): string {
  return sha256(`${layersKey(layers, {})}\0${libraryVersions()}`);
}

let libraries: string | undefined;
function libraryVersions(): string {
  if (libraries !== undefined) return libraries;
  const version = (name: string): string => {
    try {
      let dir = path.dirname(require.resolve(name));
      while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      return `${name}@${(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? '?'}`;
    } catch {
      return `${name}@?`;
    }
  };
  return (libraries = ['cdk8s', 'yaml', 'constructs'].map(version).join(' '));
}

/** The inputs section (IndexTextBuilder.finish), given the sha256 of the index text before it. */
export function inputsSection(c: CommittedInputs): (prefixDigest: string) => string {
  return (prefixDigest) => {
    const entries = sortedByFile(c.entries);
    const earlier = c.previous !== undefined && entries.some((e) => e.recorded) ? runtimeLines(c.previous) : undefined;
    const runtimes = entries.length === 0 ? '{}' : `{\n${lineRuns(entries, earlier).join(',\n')}\n    }`;
    const body =
      INPUTS_START +
      [`    "epoch": ${c.epoch}`, `    "expiries": ${JSON.stringify(c.thresholds)}`, `    "gitops": ${JSON.stringify(c.gitops)}`, `    "key": "${c.key}"`, `    "runtimes": ${runtimes}`].join(',\n') +
      ',\n';
    return `${body}    "seal": "${sealOf(prefixDigest, body)}"${INPUTS_END}`;
  };
}

const RUNTIMES_START = '    "runtimes": {\n';

/** The runtime lines of an index's inputs section (without their separators): each one's key and where it lies in `text`. */
interface RuntimeLines {
  readonly text: string;
  readonly keys: string[];
  readonly starts: number[];
  readonly ends: number[];
}

/** The runtime lines of an index's inputs section; none when it has none. */
function runtimeLines(index: string): RuntimeLines {
  const text = indexParts(index)?.inputs ?? '';
  const lines: RuntimeLines = { text, keys: [], starts: [], ends: [] };
  const start = text.indexOf(RUNTIMES_START);
  if (start < 0) return lines;
  for (let at = start + RUNTIMES_START.length; ; ) {
    const end = text.indexOf('\n', at);
    if (end < 0) return lines;
    // `      "<relPath>": [...]`; a path JSON escapes is not taken (its line is written anew).
    const keyEnd = text.indexOf('": [', at);
    if (!text.startsWith('      "', at) || keyEnd < 0 || keyEnd > end) return lines;
    const rel = text.slice(at + 7, keyEnd);
    // '' (no file's path) for a key JSON escapes: never taken, and a run of lines never spans it.
    lines.keys.push(rel.includes('\\') ? '' : rel);
    lines.starts.push(at);
    lines.ends.push(text[end - 1] === ',' ? end - 1 : end);
    at = end + 1;
  }
}

/**
 * The runtime lines of the inputs section, in file order: a recorded runtime's line is the earlier
 * section's, and a run of them that lies there side by side (their separators included) is one
 * piece of its text, so one changed runtime of 10,000 leaves a few pieces, not 10,000 lines.
 */
function lineRuns(entries: readonly RuntimeEntry[], earlier: RuntimeLines | undefined): string[] {
  const pieces: string[] = [];
  let from = -1;
  let last = -1;
  const flush = (): void => {
    if (from >= 0) pieces.push(earlier!.text.slice(earlier!.starts[from], earlier!.ends[last]));
    from = -1;
  };
  let p = 0;
  for (const e of entries) {
    if (e.recorded && earlier) {
      // Both in file order: the earlier lines of files no longer recorded are passed over.
      while (p < earlier.keys.length && earlier.keys[p]! < e.relPath) p++;
      if (p < earlier.keys.length && earlier.keys[p] === e.relPath) {
        if (from < 0 || last !== p - 1) {
          flush();
          from = p;
        }
        last = p++;
        continue;
      }
    }
    flush();
    pieces.push(`      ${JSON.stringify(e.relPath)}: ${JSON.stringify(entryOf(e.record))}`);
  }
  flush();
  return pieces;
}

/** Entries in file order (cmp), sorted only when they are not. */
function sortedByFile(entries: readonly RuntimeEntry[]): readonly RuntimeEntry[] {
  for (let i = 1; i < entries.length; i++) if (cmp(entries[i - 1]!.relPath, entries[i]!.relPath) > 0) return [...entries].sort((a, b) => cmp(a.relPath, b.relPath));
  return entries;
}

function sealOf(prefixDigest: string, body: string): string {
  return createHash('sha256').update(SEAL_CONTEXT).update(prefixDigest).update('\0').update(body).digest('hex');
}

/**
 * A runtime's line: its file's digest ('' when it had diagnostics: such a file is always checked
 * again, so its warnings are reported as a check without record reports them), input digest,
 * targets, and its identity for the checks across files.
 */
type Entry = [digest: string, input: string, targets: string[], ...identity: IdentityCells];

function entryOf(r: RuntimeRecord): Entry {
  return [r.diagnostics.length === 0 ? r.digest : '', r.input, [...r.targets], ...identityCells(r.identity)];
}

/** The record of a committed dist/ when it is sealed and well formed (nothing checked against dist/'s files yet). */
export function readCommitted(text: string): Omit<CommittedInputs, 'entries'> & { readonly runtimes: Record<string, RuntimeRecord> } | undefined {
  const parts = indexParts(text);
  if (!parts || parts.inputs === '') return undefined;
  const inputs = parts.inputs;
  const sealAt = inputs.length - INPUTS_END.length - `    "seal": "${'0'.repeat(64)}"`.length;
  const body = inputs.slice(0, sealAt);
  const seal = /^ {4}"seal": "([0-9a-f]{64})"$/.exec(inputs.slice(sealAt, inputs.length - INPUTS_END.length))?.[1];
  if (!body.endsWith(',\n') || seal !== sealOf(sha256(text.slice(0, parts.prefixEnd)), body)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(inputs.slice(inputs.indexOf('{'), inputs.lastIndexOf('}') + 1));
  } catch {
    return undefined;
  }
  const d = data as { epoch?: unknown; expiries?: unknown; gitops?: unknown; key?: unknown; runtimes?: unknown };
  if (typeof d.epoch !== 'number' || !Array.isArray(d.expiries) || !d.expiries.every((x) => typeof x === 'number')) return undefined;
  if (typeof d.gitops !== 'string' || typeof d.key !== 'string' || typeof d.runtimes !== 'object' || d.runtimes === null) return undefined;
  const runtimes: Record<string, RuntimeRecord> = Object.create(null) as Record<string, RuntimeRecord>;
  for (const [relPath, value] of Object.entries(d.runtimes as Record<string, unknown>)) {
    const r = recordOf(value);
    if (!r) return undefined;
    runtimes[relPath] = r;
  }
  return { key: d.key, thresholds: d.expiries as number[], epoch: d.epoch, gitops: d.gitops, runtimes };
}

function recordOf(value: unknown): RuntimeRecord | undefined {
  if (!Array.isArray(value) || value.length !== 9) return undefined;
  const [digest, input, targets] = value as unknown[];
  const identity = identityOfCells(value.slice(3));
  if (!identity || typeof digest !== 'string' || typeof input !== 'string') return undefined;
  if (!Array.isArray(targets) || !targets.every((t) => TARGETS.includes(t as Target))) return undefined;
  return { digest, input, targets: targets as Target[], diagnostics: [], identity };
}

/**
 * The committed record of dist/ (readCommitted) as a run record, given a scan of dist/ against its
 * index (src/write/tree-scan.ts: every listed file read and hashed). A runtime whose folder holds a
 * file that is missing or has other bytes is marked changed (rendered and compared again); such a
 * file outside the runtime folders voids the record. `key` is the run's layersKey: the record gets
 * it (so its unchanged runtime files are not parsed) when the fleet-wide inputs and the time epoch
 * are those it names.
 */
export function trustCommitted(committed: NonNullable<ReturnType<typeof readCommitted>>, scan: Pick<TreeScan, 'editedRuntimes' | 'editedOutside'>, digest: string, layers: LoadedLayers, key: string, now: Date): RunRecord | undefined {
  if (scan.editedOutside) return undefined;
  const edited = scan.editedRuntimes;
  const runtimes: Record<string, RuntimeRecord> = Object.create(null) as Record<string, RuntimeRecord>;
  for (const [rel, r] of Object.entries(committed.runtimes)) runtimes[rel] = edited.has(r.identity.name) ? { ...r, digest: '', input: '' } : r;
  const same = committed.key === committedKey(layers) && epochOf(committed.thresholds, now) === committed.epoch;
  return { version: 4, key: same ? key : `committed ${committed.key}`, thresholds: committed.thresholds, epoch: committed.epoch, index: digest, settled: 0, gitops: committed.gitops, runtimes };
}
