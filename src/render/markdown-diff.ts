// The pull request comment of `kyma-fleet diff --output markdown`, for fleets of any size. Runtimes
// whose changes are the same form one group with one patch shown ("the same change in 2,000
// runtimes"), runtime lists are capped, and the whole stays under a comment size limit whatever the
// change: what does not fit is counted and named, never dropped silently. The complete diff goes
// to a file (`diff --output-file`) that the CI job attaches. Pure.

import { createHash } from 'node:crypto';
import { cmp } from '../lib/diagnostics';
import { diffSummary, isEmptyDiff, ownerNames, type TreeDiff } from './tree-diff';

/** GitHub's limit of a pull request comment body, in characters. */
export const COMMENT_LIMIT = 65_536;
/** The default budget: below COMMENT_LIMIT, with room for a line a CI job puts in front (GitLab's marker). */
export const DEFAULT_MAX_CHARS = 60_000;
/** Runtime names listed per list before "… and N more". */
export const MAX_LISTED = 20;
/** The share of the budget one patch may take, so that one large file leaves room for the others. */
const MAX_PATCH_CHARS = 12_000;
/** Kept free for the closing note. */
const NOTE_RESERVE = 700;

export interface MarkdownDiffOptions {
  /** Upper bound of the result's length in UTF-16 code units (never fewer than characters). */
  readonly maxChars?: number;
  /** A Markdown section the comment opens with, right after the one-line summary (what the change does), counted in maxChars. */
  readonly lead?: string;
  /** Markdown sections shown after the summary (another view of the same change), counted in maxChars. */
  readonly sections?: readonly string[];
  /** The file holding the complete diff (diff --output-file), named where something is left out. */
  readonly fullDiffFile?: string;
}

type Kind = 'added' | 'changed' | 'removed';

interface FileChange {
  readonly file: string;
  readonly kind: Kind;
  readonly patch: string;
}

/** Runtimes with the same change: the first one's patches stand for all. */
interface Group {
  readonly runtimes: string[];
  readonly changes: readonly FileChange[];
}

const thousands = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`): string => `${thousands(n)} ${n === 1 ? one : many}`;

/** A name as inline code: no backticks or line breaks inside, at most 80 characters. */
function code(name: string): string {
  const clean = name.replace(/[`\r\n]/g, '?');
  return `\`${clean.length > 80 ? `${clean.slice(0, 79)}…` : clean}\``;
}

function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Up to MAX_LISTED names as inline code, then how many more. */
export function cappedList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).map(code).join(', ');
  return names.length > MAX_LISTED ? `${shown} and ${thousands(names.length - MAX_LISTED)} more` : shown;
}

// UUIDv5s are names kyma-fleet derives from a runtime's identity (uids of Runtime CR entries).
const DERIVED_UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b/gi;

/** Hides a runtime's own identifiers, so that the same change in two runtimes reads the same. */
function masker(identifiers: readonly string[]): (text: string) => string {
  const tokens = [...new Set(identifiers.filter((t) => t.length >= 3))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    tokens.forEach((t, i) => void (out = out.split(t).join(`\u0000${i}\u0000`)));
    return out.replace(DERIVED_UUID, '\u0000uid\u0000');
  };
}

/** The lines a patch adds or removes (no headers, hunk ranges or context). */
function changedLines(patch: string): string {
  const lines = patch.split('\n');
  return lines
    .slice(2)
    .filter((l) => l.startsWith('+') || l.startsWith('-') || l.startsWith('\\'))
    .join('\n');
}

/**
 * The runtime a file belongs to: its folder runtimes/<name>/, or for the GitOps files of one
 * runtime (gitops/flux/shards/<id>/<name>-<target>.yaml, gitops/argocd/shards/<id>/<name>.json) the longest
 * runtime name the file name starts with; undefined for fleet-wide files.
 */
function ownerOf(file: string, runtimes: ReadonlyMap<string, unknown>): string | undefined {
  const folder = /^runtimes\/([^/]+)\//.exec(file)?.[1];
  if (folder !== undefined) return folder;
  return ownerNames(file).find((name) => runtimes.has(name));
}

/** Groups the runtimes by their change (identifiers masked); the files of no runtime stay apart. */
function groupChanges(d: TreeDiff): { groups: Group[]; shared: FileChange[] } {
  const kindOf = new Map<string, Kind>();
  for (const f of d.added) kindOf.set(f, 'added');
  for (const f of d.changed) kindOf.set(f, 'changed');
  for (const f of d.removed) kindOf.set(f, 'removed');
  const perRuntime = new Map<string, FileChange[]>();
  const shared: FileChange[] = [];
  for (const [file, patch] of d.patches) {
    const change = { file, kind: kindOf.get(file) ?? 'changed', patch };
    const owner = ownerOf(file, d.identifiers);
    if (owner === undefined) shared.push(change);
    else {
      const list = perRuntime.get(owner);
      if (list) list.push(change);
      else perRuntime.set(owner, [change]);
    }
  }
  const groups = new Map<string, Group>();
  // The runtime's own folder first, then its GitOps files.
  const folderFirst = (a: FileChange, b: FileChange): number => Number(!a.file.startsWith('runtimes/')) - Number(!b.file.startsWith('runtimes/')) || cmp(a.file, b.file);
  for (const [runtime, unsorted] of [...perRuntime].sort(([a], [b]) => cmp(a, b))) {
    const changes = unsorted.sort(folderFirst);
    const mask = masker([runtime, ...(d.identifiers.get(runtime) ?? [])]);
    const parts = changes.map((c) => `${c.kind} ${mask(c.file)}\n${mask(changedLines(c.patch))}`).sort(cmp);
    const key = createHash('sha256').update(parts.join('\n\u0001\n')).digest('hex');
    const group = groups.get(key);
    if (group) group.runtimes.push(runtime);
    else groups.set(key, { runtimes: [runtime], changes });
  }
  const ordered = [...groups.values()].sort((a, b) => b.runtimes.length - a.runtimes.length || cmp(a.runtimes[0]!, b.runtimes[0]!));
  return { groups: ordered, shared };
}

/** One file's patch, folded, at most `max` characters (cut at a line, with a note), or undefined. */
function patchBlock(c: FileChange, max: number, fullDiff: string): string | undefined {
  // A fence longer than any run of backticks in the patch, so that nothing in it closes the block.
  let longestTicks = 0;
  for (const run of c.patch.matchAll(/`+/g)) longestTicks = Math.max(longestTicks, run[0].length);
  const fence = '`'.repeat(Math.max(3, longestTicks + 1));
  const open = `<details><summary><code>${html(c.file)}</code> (${c.kind})</summary>\n\n${fence}diff\n`;
  const close = `${fence}\n</details>\n`;
  const whole = open + c.patch + (c.patch.endsWith('\n') ? '' : '\n') + close;
  if (whole.length <= max) return whole;
  const lines = c.patch.split('\n');
  let body = '';
  let kept = 0;
  const room = (left: number): string => `… ${plural(left, 'more line')} of this patch in ${fullDiff}\n`;
  for (const line of lines) {
    if (open.length + body.length + line.length + 1 + room(lines.length).length + close.length > max) break;
    body += `${line}\n`;
    kept++;
  }
  if (kept < 3) return undefined;
  return open + body + room(lines.length - kept) + close;
}

/** A section and a blank line, or a note that it is left out when it does not fit after `body`. */
function fitting(body: string, section: string, maxChars: number): string {
  const text = section.endsWith('\n') ? section : `${section}\n`;
  return body.length + text.length + NOTE_RESERVE <= maxChars ? `${text}\n` : `_A section of ${thousands(text.length)} characters is left out: it does not fit into the comment._\n\n`;
}

/** Markdown for a pull request comment, at most `maxChars` long. */
export function formatDiffMarkdown(d: TreeDiff, options: MarkdownDiffOptions = {}): string {
  if (isEmptyDiff(d)) return '### kyma-fleet: no changes to `dist/`\n';
  const maxChars = Math.max(8_000, Math.min(options.maxChars ?? DEFAULT_MAX_CHARS, COMMENT_LIMIT));
  const fullDiff = options.fullDiffFile ? `the full diff (${code(options.fullDiffFile)})` : 'the full diff (`kyma-fleet diff`)';
  const r = d.runtimes;
  const added = new Set(r.added);
  const removed = new Set(r.removed);
  const touched = r.added.length + r.removed.length + r.changed.length;
  let body = ['### kyma-fleet: changes to `dist/`', '', diffSummary(d), '', ''].join('\n');
  if (options.lead) body += fitting(body, options.lead, maxChars);
  const list = (title: string, items: readonly string[]): void => {
    if (items.length > 0) body += `**${title}:** ${cappedList(items)}\n\n`;
  };
  list('New runtimes', r.added);
  list('Removed runtimes', r.removed);
  list('Changed runtimes', r.changed);
  for (const section of options.sections ?? []) body += fitting(body, section, maxChars);
  const { groups, shared } = groupChanges(d);
  const budget = (): number => maxChars - NOTE_RESERVE - body.length;
  let omittedGroups = 0;
  let omittedRuntimes = 0;
  let omittedFiles = 0;
  let cutPatches = 0;
  let shownBlocks = 0;
  /** Adds a heading and its patches; false (nothing added) when not even one patch fits after the first block. */
  const addBlock = (heading: string, changes: readonly FileChange[]): boolean => {
    if (heading.length + 200 > budget()) return false;
    let block = heading;
    let cut = 0;
    for (const c of changes) {
      const p = patchBlock(c, Math.min(MAX_PATCH_CHARS, budget() - block.length - 1), fullDiff);
      if (p === undefined) {
        block += `_${code(c.file)} (${c.kind}): its patch does not fit here; see ${fullDiff}._\n`;
        cut++;
      } else block += p;
    }
    if (block.length + 1 > budget() || (cut === changes.length && shownBlocks > 0)) return false;
    body += `${block}\n`;
    cutPatches += cut;
    shownBlocks++;
    return true;
  };
  for (const g of groups) {
    const n = g.runtimes.length;
    const status = added.has(g.runtimes[0]!) ? ' (new)' : removed.has(g.runtimes[0]!) ? ' (removed)' : '';
    const heading =
      n === 1
        ? `#### ${code(g.runtimes[0]!)}${status}\n\n`
        : `#### The same change in ${thousands(n)} runtimes${status}\n\n${n === touched ? 'Every runtime listed above' : cappedList(g.runtimes)}. The patch of ${code(g.runtimes[0]!)} stands for all of them (their own names, runtime IDs, Shoot names and derived UIDs aside):\n\n`;
    if (!addBlock(heading, g.changes)) {
      omittedGroups++;
      omittedRuntimes += n;
    }
  }
  if (shared.length > 0 && !addBlock(`#### Fleet-wide files\n\n`, shared)) omittedFiles += shared.length;
  const notes: string[] = [];
  if (omittedGroups > 0) notes.push(`${plural(omittedGroups, 'more change')} in ${plural(omittedRuntimes, 'runtime')}`);
  if (omittedFiles > 0) notes.push(`${plural(omittedFiles, 'fleet-wide file')}`);
  if (notes.length > 0 || cutPatches > 0) {
    const what = notes.length > 0 ? `Not shown here: ${notes.join(' and ')}. ` : '';
    body += `_${what}Every patch is in ${fullDiff}._\n`;
  }
  return body.length <= maxChars ? body : `${body.slice(0, maxChars - 120)}\n\n_(cut at ${thousands(maxChars)} characters; every patch is in ${fullDiff})_\n`;
}
