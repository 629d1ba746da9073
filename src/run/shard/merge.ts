// `kyma-fleet merge SHARD_DIR...`: puts the shard folders of `synth --shard I/N` together into one
// dist/, byte-identical to what a plain `kyma-fleet synth` of the same fleet writes. It re-reads
// the fleet-wide layers and digests (but does not parse) every runtime file, then refuses:
//   - a shard folder without a valid shard.json or index (E_SHARD_MANIFEST);
//   - a set of shards that is not exactly 1..N of one N, or a runtime in the wrong shard (E_SHARD_SET);
//   - a shard rendered from other inputs than the fleet holds now: other fleet-wide layers or
//     kyma-fleet version (key), the other side of a time threshold of an extension's rules (epoch), a runtime file
//     changed, added or removed since (E_SHARD_STALE);
//   - a shard whose files are not what its own index says it wrote (E_SHARD_TAMPERED);
// and runs the checks across runtime files (duplicate names, IDs and Shoots, the empty fleet) over
// the identities the shards recorded, with the same error lines as `kyma-fleet validate`. The GitOps
// wiring, which lists every runtime, is rendered here; dist/ is written atomically like synth's.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkFleet } from '../check';
import type { RuntimeIdentity } from '../../validate/model';
import { cmp, type Diagnostic, type DocPath, ExitCode, formatField, normalizeDiagnostics } from '../../lib/diagnostics';
import { renderFleet, type UnchangedRuntime, wiringByRuntime } from '../../render/render-fleet';
import { massRemovalProblem } from '../../write/mass-removal';
import { type Problem, writeDist } from '../../write/dist-writer';
import { inputsSection, committedKey } from '../committed-record';
import { epochOf, shownDiagnostics, timeThresholds } from '../run-record';
import { type DistIndex, INDEX_FILE, loadIndex, readDistIndex, sha256 } from '../../lib/dist-index';
import { shardOf } from './assign';
import { displayPath, epochAt, shardKey } from './common';
import { JsonPositions } from './json-position';
import { MANIFEST_FILE, readManifest, type ShardManifest, type ShardRuntime } from './manifest';

export interface MergeOptions {
  /** Shard folders (relative to cwd or absolute), in any order. */
  readonly shardDirs: readonly string[];
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly allowMassRemoval?: boolean;
}

export interface MergeResult {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly problem?: Problem;
  readonly runtimes?: number;
  readonly changed?: boolean;
  readonly written?: number;
  readonly removed?: number;
}

interface LoadedShard {
  readonly dir: string;
  /** The folder as shown to the user, without a trailing slash. */
  readonly display: string;
  /** `<display>/shard.json`. */
  readonly file: string;
  readonly manifest: ShardManifest;
  readonly positions: JsonPositions;
  readonly index: DistIndex;
}

/** Where a runtime file is covered: its shard and its entry there. */
interface Covered {
  readonly shard: LoadedShard;
  readonly at: number;
  readonly entry: ShardRuntime;
}

const error = (code: string, file: string, pos: { line: number; col: number }, field: DocPath | string, message: string): Diagnostic => ({
  severity: 'error',
  code,
  file,
  line: pos.line,
  col: pos.col,
  field: typeof field === 'string' ? field : formatField(field),
  message,
});

const at = (s: LoadedShard, p: DocPath, code: string, message: string): Diagnostic => error(code, s.file, s.positions.valueAt(p), p, message);

const shardName = (m: { shard: number; of: number }): string => `shard ${m.shard} of ${m.of}`;
const rerender = (m: { shard: number; of: number }): string => `render it again (kyma-fleet synth --shard ${m.shard}/${m.of})`;

export function mergeShards(options: MergeOptions): MergeResult {
  const fail = (diagnostics: Diagnostic[]): MergeResult => ({ exitCode: ExitCode.InvalidInput, diagnostics: normalizeDiagnostics(diagnostics) });

  // 1. Every shard folder: shard.json and the index its writer left.
  const shards: LoadedShard[] = [];
  const problems: Diagnostic[] = [];
  for (const dir of options.shardDirs) {
    const loaded = loadShard(path.resolve(options.cwd, dir), options.cwd);
    if ('code' in loaded) problems.push(loaded);
    else shards.push(loaded);
  }
  if (problems.length > 0) return fail(problems);

  // 2. Exactly the shards 1..N of one N, each runtime in the shard shardOf assigns it.
  problems.push(...setProblems(shards));
  if (problems.length > 0) return fail(problems);
  const of = shards[0]!.manifest.of;

  // 3. The fleet as it is now: layers validated, every runtime file digested, not parsed.
  const covered = new Map<string, Covered>();
  for (const shard of shards) shard.manifest.runtimes.forEach((entry, i) => covered.set(entry.relPath, { shard, at: i, entry }));
  let key: string | undefined;
  let inputsKey = '';
  const recordedIdentity = (relPath: string): Omit<RuntimeIdentity, 'file'> | undefined => covered.get(relPath)?.entry.identity;
  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    runtimes: {
      plan: (layers) => {
        key = shardKey(layers);
        inputsKey = committedKey(layers);
        return { reuse: () => true };
      },
      // Files no shard covers are reported below (stale); they cannot take part in the checks.
      identities: (reused) => reused.flatMap((f) => {
        const identity = recordedIdentity(f.relPath);
        return identity ? [{ ...identity, file: f.file }] : [];
      }),
    },
  });

  const stale: Diagnostic[] = [];
  if (key !== undefined) {
    const fleetShown = displayPath(options.cwd, path.resolve(options.cwd, options.fleetDir));
    for (const s of shards) {
      if (s.manifest.key !== key) {
        stale.push(at(s, ['key'], 'E_SHARD_STALE', `${shardName(s.manifest)} was rendered from other fleet-wide inputs than ${fleetShown}/ holds now (fleet.yaml, groups/, rules/, the files they name, or another kyma-fleet version); ${rerender(s.manifest)}`));
      } else if (checked.model) {
        const epoch = epochAt(checked.model, options.now);
        if (s.manifest.epoch !== epoch) {
          stale.push(at(s, ['epoch'], 'E_SHARD_STALE', `${shardName(s.manifest)} was rendered at a time (--now) on the other side of a time threshold of an extension's rules (such as a version expiry) than this merge; render every shard and merge with the same --now or SOURCE_DATE_EPOCH`));
        }
      }
    }
  }
  const present = new Set<string>();
  for (const f of checked.reusedRuntimes) {
    present.add(f.relPath);
    const c = covered.get(f.relPath);
    const owner = { shard: shardOf(f.relPath, of), of };
    if (!c) {
      stale.push(error('E_SHARD_STALE', f.file, { line: 1, col: 1 }, '', `this runtime file is in no shard (added after the shards were rendered?); it belongs to ${shardName(owner)}: ${rerender(owner)}`));
    } else if (c.entry.digest !== f.digest) {
      stale.push(error('E_SHARD_STALE', f.file, { line: 1, col: 1 }, '', `this runtime file changed after ${c.shard.display}/ was rendered; ${rerender(c.shard.manifest)}`));
    }
  }
  for (const [relPath, c] of covered) {
    if (present.has(relPath)) continue;
    // Only a complete walk of runtimes/ may call a file gone (a fleet folder that was not found has none).
    if (key === undefined) break;
    stale.push(at(c.shard, ['runtimes', c.at, 'relPath'], 'E_SHARD_STALE', `${relPath} is no longer a runtime file of the fleet (removed or unreadable); ${rerender(c.shard.manifest)}`));
  }

  // Warnings the shards recorded for their runtimes, shown as this run sees their files.
  const recorded: Diagnostic[] = [];
  for (const f of checked.reusedRuntimes) {
    recorded.push(...shownDiagnostics(covered.get(f.relPath)?.entry.diagnostics ?? [], f.file));
  }
  const failing = !checked.ok || !checked.model || stale.length > 0;

  // 4. The rendered files of every shard, each checked against its shard's index (also when the
  // run already failed: every problem of a run is reported). A file that the out folder already
  // holds with the same bytes is kept there (moved, not rewritten, not held in memory), as synth
  // keeps the files of unchanged runtimes.
  const outDir = path.resolve(options.cwd, options.outDir);
  const current = failing ? undefined : readDistIndex(outDir);
  const keep = (rel: string, hash: string): boolean => failing || (current?.files[rel] === hash && onDiskHash(path.join(outDir, ...rel.split('/'))) === hash);
  const files = new Map<string, string>();
  const reuse = new Map<string, string>();
  const tampered: Diagnostic[] = [];
  for (const s of shards) tampered.push(...collectFiles(s, files, reuse, keep));
  const diagnostics = normalizeDiagnostics([...checked.diagnostics, ...recorded, ...stale, ...tampered]);
  if (failing || tampered.length > 0) return { exitCode: ExitCode.InvalidInput, diagnostics };
  const model = checked.model!;

  // 5. The GitOps wiring of all runtimes (renderFleet renders only that for runtimes it keeps).
  const unchanged = new Map<string, UnchangedRuntime>();
  const wired = wiringByRuntime(shards.flatMap((s) => Object.keys(s.index.files)));
  for (const c of [...covered.values()].sort((a, b) => cmp(a.entry.identity.name, b.entry.identity.name))) {
    const name = c.entry.identity.name;
    unchanged.set(name, { runtimeID: c.entry.runtimeID, targets: c.entry.targets, waitFor: wired.get(name)?.waitFor ?? [] });
  }
  const rendered = renderFleet(model, [], undefined, unchanged);
  for (const [rel, content] of rendered.files) {
    if (files.has(rel) || reuse.has(rel)) throw new Error(`mergeShards: ${rel} rendered twice`);
    files.set(rel, content);
  }
  const sorted = new Map([...files].sort(([a], [b]) => cmp(a, b)));

  // The record of how each runtime was rendered, as synth writes it into the index (../committed-record.ts).
  const thresholds = timeThresholds(model);
  const entries = [...covered.values()].map(({ entry: e }) => ({ relPath: e.relPath, kept: false, record: { digest: e.digest, identity: e.identity, diagnostics: e.diagnostics, input: e.input, targets: e.targets } }));
  const result = writeDist({
    outDir,
    files: sorted,
    reuse,
    guard: options.allowMassRemoval ? undefined : (previous) => massRemovalProblem(previous, new Set(unchanged.keys()), model.options.maxRemovalShare),
    inputs: inputsSection({ key: inputsKey, thresholds, epoch: epochOf(thresholds, options.now), gitops: JSON.stringify(model.options.gitops), entries }),
  });
  const base = { exitCode: ExitCode.Ok, diagnostics, runtimes: unchanged.size };
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };
  return { ...base, changed: result.changed, written: result.written, removed: result.removed };
}

/** Reads `<dir>/shard.json` and `<dir>/.kyma-fleet-index.json`; a diagnostic when either is unusable. */
function loadShard(dir: string, cwd: string): LoadedShard | Diagnostic {
  const display = displayPath(cwd, dir);
  const file = `${display}/${MANIFEST_FILE}`;
  const start = { line: 1, col: 1 };
  const manifestError = (pos: { line: number; col: number }, field: DocPath | string, message: string): Diagnostic => error('E_SHARD_MANIFEST', file, pos, field, message);
  let text: string;
  try {
    const st = fs.lstatSync(path.join(dir, MANIFEST_FILE));
    if (!st.isFile()) return manifestError(start, '', 'not a regular file');
    text = fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const what = fs.existsSync(dir) ? `${display}/ is not a shard folder` : `${display}/ does not exist`;
      return manifestError(start, '', `missing: ${what}; pass the folders that kyma-fleet synth --shard I/N wrote (dist.shard-I-of-N)`);
    }
    return manifestError(start, '', `cannot read file (${code ?? 'error'})`);
  }
  const positions = new JsonPositions(text);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    return manifestError(m ? positions.at(Number(m[1])) : start, '', `not valid JSON (${(e as Error).message})`);
  }
  const read = readManifest(data);
  if ('problem' in read) return manifestError(positions.valueAt(read.problem.path), read.problem.path, read.problem.message);

  const indexFile = `${display}/${INDEX_FILE}`;
  let index: DistIndex;
  try {
    const loaded = loadIndex(dir);
    if (loaded.kind !== 'ok') {
      const why = loaded.kind === 'missing' ? 'missing' : loaded.reason;
      return error('E_SHARD_MANIFEST', indexFile, start, '', `${why}: ${display}/ was not written by kyma-fleet synth --shard`);
    }
    index = loaded.index;
  } catch (e) {
    return error('E_SHARD_MANIFEST', indexFile, start, '', `cannot read file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (index.files[MANIFEST_FILE] !== sha256(text)) {
    return error('E_SHARD_TAMPERED', file, start, '', `does not match the hash that ${INDEX_FILE} records for it (edited after kyma-fleet synth --shard wrote it?); render the shard again`);
  }
  return { dir, display, file, manifest: read.manifest, positions, index };
}

/** One N everywhere, each shard once, none missing, every runtime in its own shard. */
function setProblems(shards: readonly LoadedShard[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const first = shards[0]!;
  const of = first.manifest.of;
  for (const s of shards) {
    if (s.manifest.of !== of) {
      out.push(at(s, ['of'], 'E_SHARD_SET', `${shardName(s.manifest)}, but ${first.file} is ${shardName(first.manifest)}: all shards must come from one run of kyma-fleet synth --shard I/N with the same N`));
    }
  }
  if (out.length > 0) return out;
  const byIndex = new Map<number, LoadedShard>();
  for (const s of shards) {
    const seen = byIndex.get(s.manifest.shard);
    if (seen) out.push(at(s, ['shard'], 'E_SHARD_SET', `${shardName(s.manifest)} is passed twice (also ${seen.display}/); pass each shard folder once`));
    else byIndex.set(s.manifest.shard, s);
  }
  const missing: number[] = [];
  for (let i = 1; i <= of; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length > 0) {
    const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? `, … (${missing.length - 20} more)` : '');
    const anchor = [...byIndex.values()].sort((a, b) => a.manifest.shard - b.manifest.shard)[0]!;
    out.push(at(anchor, ['of'], 'E_SHARD_SET', `${missing.length === 1 ? 'shard' : 'shards'} ${shown} of ${of} ${missing.length === 1 ? 'is' : 'are'} missing: merge needs the folders of all shards 1 to ${of} (kyma-fleet synth --shard ${missing[0]}/${of} writes dist.shard-${missing[0]}-of-${of})`));
  }
  for (const s of shards) {
    s.manifest.runtimes.forEach((entry, i) => {
      const owner = shardOf(entry.relPath, of);
      if (owner !== s.manifest.shard) out.push(at(s, ['runtimes', i, 'relPath'], 'E_SHARD_SET', `${entry.relPath} belongs to shard ${owner} of ${of}, not to ${shardName(s.manifest)}`));
    });
  }
  return out;
}

const SEGMENT = /^(?!\.{1,2}$)[^/\\\0]+$/;

/**
 * Adds the shard's rendered files to `files` (or, where `keep` says the out folder already holds
 * them, to `reuse`): exactly the files its index lists under runtimes/<name>/<target>/ for the
 * runtimes and targets shard.json names, each with the bytes the index records. Diagnostics for
 * anything else.
 */
function collectFiles(s: LoadedShard, files: Map<string, string>, reuse: Map<string, string>, keep: (rel: string, hash: string) => boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  const indexFile = `${s.display}/${INDEX_FILE}`;
  const tampered = (file: string, message: string): void => void out.push(error('E_SHARD_TAMPERED', file, { line: 1, col: 1 }, '', message));
  const targetsOf = new Map(s.manifest.runtimes.map((r) => [r.identity.name, new Set<string>(r.targets)]));
  const seenTargets = new Set<string>();
  let root: string;
  try {
    root = fs.realpathSync(s.dir);
  } catch {
    tampered(s.file, `cannot resolve ${s.display}/`);
    return out;
  }
  const realDirs = new Map<string, boolean>();
  /** The target folder resolves to where it should be (no symlink leads out of the shard). */
  const dirOk = (rel: string): boolean => {
    let ok = realDirs.get(rel);
    if (ok === undefined) {
      try {
        ok = fs.realpathSync(path.join(s.dir, ...rel.split('/'))) === path.join(root, ...rel.split('/'));
      } catch {
        ok = false;
      }
      realDirs.set(rel, ok);
    }
    return ok;
  };
  for (const [rel, hash] of Object.entries(s.index.files)) {
    if (rel === MANIFEST_FILE) continue;
    const parts = rel.split('/');
    if (parts.length < 4 || parts[0] !== 'runtimes' || !parts.every((p) => SEGMENT.test(p)) || !targetsOf.get(parts[1]!)?.has(parts[2]!)) {
      tampered(indexFile, `lists ${rel}, which is not a file of a runtime target that ${MANIFEST_FILE} names; render the shard again`);
      continue;
    }
    seenTargets.add(`${parts[1]}/${parts[2]}`);
    const shown = `${s.display}/${rel}`;
    const abs = path.join(s.dir, ...parts);
    let bytes: Buffer;
    try {
      if (!dirOk(parts.slice(0, -1).join('/')) || !fs.lstatSync(abs).isFile()) {
        tampered(shown, 'not a regular file inside the shard folder (a symlink?)');
        continue;
      }
      bytes = fs.readFileSync(abs);
    } catch (e) {
      tampered(shown, `cannot read file (${(e as NodeJS.ErrnoException).code ?? 'error'}); the shard folder is incomplete: render it again`);
      continue;
    }
    if (sha256(bytes) !== hash) {
      tampered(shown, `does not match the hash that ${INDEX_FILE} records for it (edited after kyma-fleet synth --shard wrote it?); render the shard again`);
      continue;
    }
    if (keep(rel, hash)) reuse.set(rel, hash);
    else files.set(rel, bytes.toString('utf8'));
  }
  for (const r of s.manifest.runtimes) {
    for (const t of r.targets) {
      if (!seenTargets.has(`${r.identity.name}/${t}`)) tampered(indexFile, `lists no file of runtimes/${r.identity.name}/${t}/, which ${MANIFEST_FILE} names; render the shard again`);
    }
  }
  return out;
}

/** sha256 of a regular file (not followed through a symlink), or undefined. */
function onDiskHash(file: string): string | undefined {
  try {
    return fs.lstatSync(file).isFile() ? sha256(fs.readFileSync(file)) : undefined;
  } catch {
    return undefined;
  }
}
