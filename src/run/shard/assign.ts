// Which shard renders which runtime file (`kyma-fleet synth --shard I/N`): a pure function of the
// file's path inside the fleet folder and N, so every machine of a CI matrix agrees without talking
// to the others, whatever order it lists the files in.

import { createHash } from 'node:crypto';

/** Largest N of `--shard I/N`. */
export const MAX_SHARDS = 1024;

export interface ShardSpec {
  /** 1-based. */
  readonly index: number;
  readonly of: number;
}

/**
 * The shard (1..of) of a runtime file: the first 8 hex digits of sha256(relPath) as an unsigned
 * integer, modulo `of`, plus 1. `relPath` is relative to the fleet folder with forward slashes,
 * e.g. `runtimes/acme-eu-dev-1.yaml`.
 */
export function shardOf(relPath: string, of: number): number {
  const head = createHash('sha256').update(relPath, 'utf8').digest('hex').slice(0, 8);
  return (parseInt(head, 16) % of) + 1;
}

/** Parses the value of `--shard` (`I/N`, 1 ≤ I ≤ N ≤ 1024); a message when it is malformed. */
export function parseShardSpec(value: string): ShardSpec | { readonly problem: string } {
  const m = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,5})$/.exec(value);
  const shown = JSON.stringify(value);
  if (!m) return { problem: `--shard must be I/N with whole numbers 1 ≤ I ≤ N ≤ ${MAX_SHARDS}, e.g. --shard 2/8 (got ${shown})` };
  const index = Number(m[1]);
  const of = Number(m[2]);
  if (of > MAX_SHARDS) return { problem: `--shard: N must be at most ${MAX_SHARDS} (got ${shown})` };
  if (index > of) return { problem: `--shard: I must be between 1 and N (got ${shown})` };
  return { index, of };
}

/** Default output folder of a shard, relative to the current folder. */
export function defaultShardOut(spec: ShardSpec): string {
  return `dist.shard-${spec.index}-of-${spec.of}`;
}
