// The bench's diff-wide scenarios (issue 29: "At 10,000 runtimes, `diff --output markdown` with the
// consequence section stays within today's ratio to cold synth"): the fleet-wide change they diff,
// what its pull-request comment must say, and the build of an earlier revision (--before-ref) that
// runs the same diff in the same rounds, so "today's ratio" is measured next to the new one.
//
// The change (applyWideChange) edits only fleet.yaml of a generated fleet (bench/generate-fleet.ts):
//   - spec.defaults.modules gets `cap-operator`, a module no generated group or runtime names: the
//     Kyma CR of EVERY runtime changes (class module-installed, N of N runtimes);
//   - spec.defaults.extensions.registry-cache.caches[0] (docker.io) garbageCollection.ttl 168h -> 336h:
//     the Shoot entry, Runtime CR and RegistryCacheConfig of every runtime with registry-cache on
//     change (class shoot-reconcile; every runtime except the ~5% that turn registry-cache off).
// Both are valid (validate accepts the fleet) and neither is an immutable field (a cache's volume
// size would be refused, E_IMMUTABLE_FIELD). So every runtime is rendered and compared, and the
// consequence classifier reads the Kyma CR, the Shoot, the Runtime CR and the config objects of
// nearly every runtime: the expensive case for the new section, not a cheap one.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMap, isSeq, parse, parseDocument } from 'yaml';
import { filesUnder } from './generate-fleet';

/** A Kyma module no generated group or runtime names (bench/generate-fleet.ts CATALOG and groups). */
export const WIDE_MODULE = 'cap-operator';
export const WIDE_TTL = { from: '168h', to: '336h' } as const;

export interface WideChange {
  /** One line for the report. */
  describe: string;
  /** Runtime files of the fleet: every one of them changes (its Kyma CR). */
  runtimes: number;
  /** Runtimes with registry-cache on: their Shoot, Runtime CR and cache config change as well. */
  registryCacheOn: number;
}

/** What a pull-request comment must say for the wide change (see checkWideComment). */
export interface WideExpectation {
  changedRuntimes: number;
  /** Consequence class id -> runtimes; undefined: the build has no consequence section (before issue 29). */
  consequences?: Readonly<Record<string, number>>;
}

/** Applies the wide change to the fleet in `fleetDir` (a copy: it edits fleet.yaml in place). */
export function applyWideChange(fleetDir: string): WideChange {
  const fleetFile = path.join(fleetDir, 'fleet.yaml');
  const doc = parseDocument(fs.readFileSync(fleetFile, 'utf8'));
  const modules = doc.getIn(['spec', 'defaults', 'modules']);
  if (!isSeq(modules)) throw new Error(`${fleetFile}: spec.defaults.modules is not a list`);
  if (modules.items.some((m) => isMap(m) && m.get('name') === WIDE_MODULE)) throw new Error(`${fleetFile}: ${WIDE_MODULE} is a default module already`);
  const cachePath = ['spec', 'defaults', 'extensions', 'registry-cache', 'caches', 0];
  const upstream = doc.getIn([...cachePath, 'upstream']);
  const ttl = doc.getIn([...cachePath, 'garbageCollection', 'ttl']);
  if (upstream !== 'docker.io' || ttl !== WIDE_TTL.from) throw new Error(`${fleetFile}: expected the default docker.io cache with ttl ${WIDE_TTL.from}, found ${String(upstream)} with ${String(ttl)}`);

  // Every runtime must gain the module: none may name it (nor a group, which would add it to some).
  const mentions = (file: string): boolean => new RegExp(`\\bname: ${WIDE_MODULE}\\b`).test(fs.readFileSync(file, 'utf8'));
  const inFolder = (sub: string): string[] => {
    const dir = path.join(fleetDir, sub);
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => path.join(dir, f)) : [];
  };
  const runtimeFiles = inFolder('runtimes');
  const named = [...inFolder('groups'), ...runtimeFiles].filter(mentions);
  if (named.length > 0) throw new Error(`${WIDE_MODULE} is named in ${named.length} group or runtime file(s), e.g. ${named[0]}: the change would not reach every runtime`);
  let registryCacheOn = 0;
  for (const file of runtimeFiles) {
    const rt = parse(fs.readFileSync(file, 'utf8')) as { spec?: { extensions?: Record<string, { enabled?: boolean }> } };
    if (rt?.spec?.extensions?.['registry-cache']?.enabled !== false) registryCacheOn++;
  }

  modules.add(doc.createNode({ name: WIDE_MODULE }));
  doc.setIn([...cachePath, 'garbageCollection', 'ttl'], WIDE_TTL.to);
  fs.writeFileSync(fleetFile, doc.toString({ lineWidth: 0 }));
  return {
    describe:
      `fleet.yaml: module ${WIDE_MODULE} added to spec.defaults.modules (every runtime's Kyma CR: ${runtimeFiles.length} runtimes) and the default docker.io cache's ` +
      `garbageCollection.ttl ${WIDE_TTL.from} -> ${WIDE_TTL.to} (Shoot, Runtime CR and cache config of the ${registryCacheOn} runtimes with registry-cache on)`,
    runtimes: runtimeFiles.length,
    registryCacheOn,
  };
}

/** What a build with consequence classes must report for the wide change. */
export function wideExpectation(w: WideChange, withConsequences: boolean): WideExpectation {
  return {
    changedRuntimes: w.runtimes,
    ...(withConsequences ? { consequences: { 'module-installed': w.runtimes, 'shoot-reconcile': w.registryCacheOn } } : {}),
  };
}

export interface DiffComment {
  /** From the summary line "…; runtimes: A new, C changed, R removed". */
  runtimes?: { added: number; changed: number; removed: number };
  /** The rows of "What the change does on the clusters": class id -> runtimes. */
  consequences: Record<string, number>;
  hasConsequenceSection: boolean;
}

/** Reads the summary and the consequence counts of `kyma-fleet diff --output markdown`. */
export function parseDiffComment(md: string): DiffComment {
  const s = /runtimes: (\d+) new, (\d+) changed, (\d+) removed/.exec(md);
  const section = /^#### What the change does on the clusters\n\n\| consequence \|[^\n]*\n\|[-|: ]+\|\n((?:\|[^\n]*\n)*)/m.exec(md);
  const consequences: Record<string, number> = {};
  for (const row of section?.[1]?.split('\n').filter(Boolean) ?? []) {
    const m = /^\| .*? `([a-z0-9-]+)` \| \w+ \| ([\d,]+) \|/.exec(row);
    if (m) consequences[m[1]!] = Number(m[2]!.replace(/,/g, ''));
  }
  return {
    ...(s ? { runtimes: { added: Number(s[1]), changed: Number(s[2]), removed: Number(s[3]) } } : {}),
    consequences,
    hasConsequenceSection: section !== null,
  };
}

/** The comment limit of issue 29 and of `kyma-fleet diff --help` (a pull-request comment may have 65,536). */
export const COMMENT_MAX_CHARS = 60000;

/** Throws unless the comment reports exactly the expected change, within the size limit. */
export function checkWideComment(md: string, want: WideExpectation): void {
  const got = parseDiffComment(md);
  const problems: string[] = [];
  if (!got.runtimes) problems.push('no "runtimes: A new, C changed, R removed" summary');
  else if (got.runtimes.changed !== want.changedRuntimes || got.runtimes.added !== 0 || got.runtimes.removed !== 0) {
    problems.push(`runtimes ${got.runtimes.added} new, ${got.runtimes.changed} changed, ${got.runtimes.removed} removed; expected 0 new, ${want.changedRuntimes} changed, 0 removed`);
  }
  if (want.consequences) {
    if (!got.hasConsequenceSection) problems.push('no consequence section ("#### What the change does on the clusters")');
    const ids = new Set([...Object.keys(want.consequences), ...Object.keys(got.consequences)]);
    for (const id of ids) if (got.consequences[id] !== want.consequences[id]) problems.push(`consequence ${id}: ${got.consequences[id] ?? 'absent'}, expected ${want.consequences[id] ?? 'absent'}`);
  }
  if (md.length >= COMMENT_MAX_CHARS) problems.push(`${md.length} characters, not under ${COMMENT_MAX_CHARS}`);
  if (problems.length > 0) throw new Error(`the diff comment is not what the wide change gives: ${problems.join('; ')}`);
}

// ---------------------------------------------------------------------------------------------
// --before-ref: an earlier revision of kyma-fleet, built once (untimed) beside the repository

export interface BeforeBuild {
  ref: string;
  /** The full commit the ref names. */
  commit: string;
  root: string;
  /** bin/kyma-fleet.js of that build (absolute). */
  cli: string;
  buildS: number;
}

/**
 * Extracts `ref` with `git archive` into `root` (nothing of the repository's work tree, index or
 * lib/ is touched), links the repository's node_modules, and runs that revision's own `npm run build`.
 */
export function buildBefore(repoRoot: string, ref: string, root: string): BeforeBuild {
  const t0 = Date.now();
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    throw new Error(`--before-ref ${ref}: not a commit of ${repoRoot}`);
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const tar = execFileSync('git', ['archive', '--format=tar', commit], { cwd: repoRoot, maxBuffer: 1 << 30 });
  const x = spawnSync('tar', ['-x', '-C', root], { input: tar });
  if (x.status !== 0) throw new Error(`--before-ref ${ref}: tar -x failed: ${x.stderr}`);
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  if (!pkg.scripts?.build) throw new Error(`--before-ref ${ref}: its package.json has no build script`);
  const b = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (b.status !== 0) throw new Error(`--before-ref ${ref}: npm run build failed (${b.status ?? b.signal}):\n${(b.stdout ?? '').slice(-3000)}${(b.stderr ?? '').slice(-3000)}`);
  const cli = path.join(root, 'bin', 'kyma-fleet.js');
  if (!fs.existsSync(cli)) throw new Error(`--before-ref ${ref}: no bin/kyma-fleet.js after its build`);
  return { ref, commit, root, cli, buildS: (Date.now() - t0) / 1000 };
}

/**
 * sha256 over every file's relative path, inode, size and mtime under `dir`: it changes when a file
 * is added, removed, replaced (a rename over it) or rewritten later than the file-time granularity
 * (a few ms; the bench's dist/ is minutes old). Cheap enough for a 10,000-runtime dist/, unlike hashing it.
 */
export function statFingerprint(dir: string): string {
  const h = createHash('sha256');
  for (const rel of filesUnder(dir)) {
    const st = fs.lstatSync(path.join(dir, rel));
    h.update(`${rel}\0${st.ino}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return h.digest('hex');
}
