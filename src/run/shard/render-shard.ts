// `kyma-fleet synth --shard I/N`: renders the runtime files of one shard into a shard folder, for a
// CI matrix that renders a large fleet on several machines (docs/sharding.md). The fleet-wide
// layers (fleet.yaml, groups, rules) are read and validated in every shard; runtime files of other
// shards are not even read. The folder holds runtimes/<name>/<target>/ exactly as synth renders
// them, plus shard.json (manifest.ts); the GitOps wiring lists every runtime, so `kyma-fleet merge`
// renders it once all shards are in.

import * as path from 'node:path';
import { checkFleet } from '../check';
import { cmp, type Diagnostic, ExitCode, normalizeDiagnostics } from '../../lib/diagnostics';
import { renderFleet } from '../../render/render-fleet';
import { type Problem, writeDist } from '../../write/dist-writer';
import { fleetInputDigest, runtimeInputDigest } from '../input-digest';
import { renderedRuntimeRecord } from '../record';
import { type ShardSpec, shardOf } from './assign';
import { epochAt, shardKey } from './common';
import { MANIFEST_FILE, MANIFEST_KIND, serializeManifest, type ShardRuntime } from './manifest';

export interface ShardOptions {
  readonly fleetDir: string;
  /** The shard folder (relative to cwd or absolute). */
  readonly outDir: string;
  readonly cwd: string;
  readonly now: Date;
  readonly shard: ShardSpec;
  /** Parse cache folder; undefined parses every file. */
  readonly cacheDir?: string;
  /** The full render (dist/) that immutable fields are checked against, as synth checks its --out. */
  readonly previousDist?: string;
}

export interface ShardResult {
  readonly exitCode: number;
  readonly diagnostics: readonly Diagnostic[];
  readonly problem?: Problem;
  /** Runtimes in this shard. */
  readonly runtimes?: number;
  readonly changed?: boolean;
  readonly written?: number;
  readonly removed?: number;
}

export function renderShard(options: ShardOptions): ShardResult {
  const { index, of } = options.shard;
  let key = '';
  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    // A shard may hold no runtime; merge refuses an empty fleet.
    allowEmpty: true,
    // Merge sees the whole fleet; a shard's own runtimes would make other groups look empty.
    partOfFleet: true,
    previousDist: options.previousDist,
    cacheDir: options.cacheDir,
    runtimes: {
      plan: (layers) => {
        key = shardKey(layers);
        return { select: (rel) => shardOf(rel, of) === index };
      },
      identities: () => [],
    },
  });
  if (!checked.ok || !checked.model) return { exitCode: ExitCode.InvalidInput, diagnostics: checked.diagnostics };
  const model = checked.model;
  const fleetDigest = fleetInputDigest(model);

  // Without the GitOps wiring, which depends on every runtime: merge renders it.
  const rendered = renderFleet(model, checked.runtimes, undefined, new Map(), false);
  const diagnostics = normalizeDiagnostics(checked.diagnostics);

  const files = new Map<string, string>();
  for (const [rel, content] of rendered.files) if (rel.startsWith('runtimes/')) files.set(rel, content);

  const entries: ShardRuntime[] = checked.runtimes.map((r) => {
    // As synth's run record keeps it: the runtime's own file as '' in its diagnostics (merge shows it as it sees it).
    const { relPath, digest, identity, diagnostics: own, targets } = renderedRuntimeRecord(checked, r, rendered.wiring.get(r.runtime.name)?.targets ?? []);
    return { relPath, digest, identity, runtimeID: r.runtime.runtimeID, targets, diagnostics: own, input: runtimeInputDigest(fleetDigest, r) };
  });
  entries.sort((a, b) => cmp(a.relPath, b.relPath));
  files.set(MANIFEST_FILE, serializeManifest({ kind: MANIFEST_KIND, version: 1, shard: index, of, key, epoch: epochAt(model, options.now), runtimes: entries }));

  const result = writeDist({ outDir: path.resolve(options.cwd, options.outDir), files: new Map([...files].sort(([a], [b]) => cmp(a, b))) });
  const base = { exitCode: ExitCode.Ok, diagnostics, runtimes: entries.length };
  if (!result.ok) return { ...base, exitCode: result.exitCode, problem: result.problem };
  return { ...base, changed: result.changed, written: result.written, removed: result.removed };
}
