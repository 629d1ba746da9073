// What `synth --shard` and `merge` must agree on.

import * as path from 'node:path';
import type { LoadedLayers } from '../../load/load';
import type { FleetModel } from '../../validate/model';
import { epochOf, layersKey, timeThresholds } from '../run-record';

/**
 * The key of the fleet-wide inputs that every shard records and merge compares. Always computed as
 * for a fleet that must not be empty: a shard may be empty, the merged fleet may not.
 */
export function shardKey(layers: LoadedLayers): string {
  return layersKey(layers, { allowEmpty: false });
}

/** How many time thresholds of the extensions (e.g. a version expiry of a profile) lie before `now`. */
export function epochAt(model: FleetModel, now: Date): number {
  return epochOf(timeThresholds(model), now);
}

/** A path as shown to the user: relative to the current folder, forward slashes. */
export function displayPath(cwd: string, abs: string): string {
  return path.relative(cwd, abs).split(path.sep).join('/') || '.';
}
