// Shards of dist/gitops/: what keeps every object a user bootstraps, and every object a controller
// keeps an inventory in, bounded at any fleet size. A runtime's shard is a pure function of its name
// (the first hex digits of SHA-256), so it never moves while `gitops.shards` stays the same: adding or
// removing runtimes changes only their own shard's lists. Flux gets one Kustomization per shard
// between the root and the runtime Kustomizations, Argo CD one ApplicationSet per shard and target.
// The sizes this bounds, and the measurements behind the default: docs/architecture.md, "Shards".

import { cmp } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';

/** The shard counts `gitops.shards` accepts: one hex digit more each step. */
export const SHARD_COUNTS = [1, 16, 256, 4096] as const;
export type ShardCount = (typeof SHARD_COUNTS)[number];
export const DEFAULT_SHARDS: ShardCount = 256;

/**
 * The most runtimes one shard may hold: 3 Kustomizations each, so a shard Kustomization's
 * inventory stays near 200 KiB (about 70 bytes an entry) and its kustomize build near a second
 * (docs/performance.md, "Delivery"); and one ExternalArtifact each beside the shard's own list in the
 * shard's ArtifactGenerator, whose CRD allows 1000 artifacts. Validation refuses a fleet with a fuller
 * shard and names the `gitops.shards` value that fits.
 */
export const MAX_RUNTIMES_PER_SHARD = 999;

/** The id of the shard a runtime belongs to: `all` with one shard, else 1-3 lowercase hex digits. */
export function shardOf(runtimeName: string, shards: ShardCount): string {
  if (shards === 1) return 'all';
  const digits = shards === 16 ? 1 : shards === 256 ? 2 : 3;
  let hex = shardDigits.get(runtimeName);
  if (hex === undefined) {
    hex = sha256(runtimeName).slice(0, 3);
    shardDigits.set(runtimeName, hex);
  }
  return hex.slice(0, digits);
}

/**
 * The first three hex digits of each name's SHA-256, once per name and process: validation, the
 * wiring and synth's keep stage each ask for every runtime's shard (a hash each was 50 ms a pass
 * at 10,000 runtimes).
 */
const shardDigits = new Map<string, string>();

/** Runtime names by shard id, shards and names in code-point order. */
export function groupByShard<T extends { readonly name: string }>(runtimes: readonly T[], shards: ShardCount): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of runtimes) {
    const id = shardOf(r.name, shards);
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  for (const list of out.values()) list.sort((a, b) => cmp(a.name, b.name));
  return new Map([...out.entries()].sort(([a], [b]) => cmp(a, b)));
}

/** The smallest shard count under which no shard holds more than MAX_RUNTIMES_PER_SHARD of these names, or undefined. */
export function shardCountThatFits(runtimeNames: readonly string[]): ShardCount | undefined {
  return SHARD_COUNTS.find((count) => overfullShard(runtimeNames, count) === undefined);
}

/** The fullest shard when it holds more than MAX_RUNTIMES_PER_SHARD runtimes, else undefined. */
export function overfullShard(runtimeNames: readonly string[], shards: ShardCount): { shard: string; runtimes: number } | undefined {
  const sizes = new Map<string, number>();
  let worst: { shard: string; runtimes: number } | undefined;
  for (const name of runtimeNames) {
    const shard = shardOf(name, shards);
    const n = (sizes.get(shard) ?? 0) + 1;
    sizes.set(shard, n);
    if (n > MAX_RUNTIMES_PER_SHARD && (worst === undefined || n > worst.runtimes)) worst = { shard, runtimes: n };
  }
  return worst;
}
