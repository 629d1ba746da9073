// `shard.json`, the manifest at the root of a shard folder (`kyma-fleet synth --shard I/N`): which
// shard of how many it is, the digest of the fleet-wide inputs it was rendered from, and per runtime
// file what `kyma-fleet merge` needs without parsing that file again: its digest, its identity (for
// the duplicate checks across shards), its targets (for the GitOps wiring) and its warnings.
// Deterministic: fixed key order, 2-space indent, trailing newline.

import type { RuntimeIdentity } from '../../validate/model';
import type { Diagnostic, DocPath } from '../../lib/diagnostics';
import { isDNS1123Label } from '../../lib/k8s-names';
import { type Target, TARGETS } from '../../render/render-runtime';
import { MAX_SHARDS } from './assign';

export const MANIFEST_FILE = 'shard.json';
export const MANIFEST_KIND = 'KymaFleetShard';

export interface ShardRuntime {
  /** Path of the runtime file in the fleet folder, e.g. `runtimes/acme-eu-dev-1.yaml`. */
  readonly relPath: string;
  /** sha256 of the runtime file's bytes when the shard was rendered. */
  readonly digest: string;
  readonly identity: Omit<RuntimeIdentity, 'file'>;
  readonly runtimeID: string;
  /** Target folders rendered under runtimes/<name>/, in TARGETS order. */
  readonly targets: readonly Target[];
  /** Warnings of the runtime; `file` is '' for the runtime's own file. */
  readonly diagnostics: readonly Diagnostic[];
  /** runtimeInputDigest of its render, for the record merge writes into dist/'s index (../committed-record.ts). */
  readonly input: string;
}

export interface ShardManifest {
  readonly kind: typeof MANIFEST_KIND;
  readonly version: 1;
  readonly shard: number;
  readonly of: number;
  /** layersKey of the fleet-wide inputs (fleet.yaml, groups, auxiliary files, kyma-fleet itself). */
  readonly key: string;
  /** How many time thresholds of the extensions (e.g. version expiries) had passed at the shard's --now. */
  readonly epoch: number;
  /** Sorted by relPath. */
  readonly runtimes: readonly ShardRuntime[];
}

/** Canonical text of a manifest (objects rebuilt so the key order never depends on who made them). */
export function serializeManifest(m: ShardManifest): string {
  const canonical = {
    kind: m.kind,
    version: m.version,
    shard: m.shard,
    of: m.of,
    key: m.key,
    epoch: m.epoch,
    runtimes: m.runtimes.map((r) => ({
      relPath: r.relPath,
      digest: r.digest,
      identity: {
        name: r.identity.name,
        runtimeID: r.identity.runtimeID,
        shoot: { name: r.identity.shoot.name, project: r.identity.shoot.project },
        at: {
          name: { line: r.identity.at.name.line, col: r.identity.at.name.col },
          runtimeID: { line: r.identity.at.runtimeID.line, col: r.identity.at.runtimeID.col },
          shootName: { line: r.identity.at.shootName.line, col: r.identity.at.shootName.col },
        },
        ...(r.identity.labels === undefined ? {} : { labels: r.identity.labels }),
      },
      runtimeID: r.runtimeID,
      targets: [...r.targets],
      diagnostics: r.diagnostics.map((d) => ({ severity: d.severity, code: d.code, file: d.file, line: d.line, col: d.col, field: d.field, message: d.message })),
      input: r.input,
    })),
  };
  return JSON.stringify(canonical, null, 2) + '\n';
}

/** Where a manifest is wrong: a path into it and what is wrong there. */
export interface ManifestProblem {
  readonly path: DocPath;
  readonly message: string;
}

type Rec = Record<string, unknown>;
const HEX64 = /^[0-9a-f]{64}$/;
const RUNTIME_FILE = /^runtimes\/[^/]+\.yaml$/;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPosInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;
const isStr = (v: unknown): v is string => typeof v === 'string';

/** Checks the shape of parsed shard.json data; the manifest, or the first problem found. */
export function readManifest(data: unknown): { manifest: ShardManifest } | { problem: ManifestProblem } {
  const fail = (path: DocPath, message: string) => ({ problem: { path, message } });
  if (!isRec(data)) return fail([], 'must be a JSON object');
  if (data.kind !== MANIFEST_KIND) return fail(['kind'], `must be ${JSON.stringify(MANIFEST_KIND)}`);
  if (data.version !== 1) return fail(['version'], 'must be 1 (written by another kyma-fleet version?)');
  if (!isPosInt(data.of) || data.of > MAX_SHARDS) return fail(['of'], `must be a whole number from 1 to ${MAX_SHARDS}`);
  if (!isPosInt(data.shard) || data.shard > data.of) return fail(['shard'], `must be a whole number from 1 to ${data.of}`);
  if (!isStr(data.key) || !HEX64.test(data.key)) return fail(['key'], 'must be a sha256 in hex');
  if (typeof data.epoch !== 'number' || !Number.isInteger(data.epoch) || data.epoch < 0) return fail(['epoch'], 'must be a whole number ≥ 0');
  if (!Array.isArray(data.runtimes)) return fail(['runtimes'], 'must be a list');
  const runtimes: ShardRuntime[] = [];
  let previous: string | undefined;
  for (const [i, r] of data.runtimes.entries()) {
    const at = ['runtimes', i];
    const problem = runtimeProblem(r);
    if (problem) return fail([...at, ...problem.path], problem.message);
    const entry = r as ShardRuntime;
    if (previous !== undefined && !(previous < entry.relPath)) return fail([...at, 'relPath'], 'runtimes must be sorted by relPath, each once');
    previous = entry.relPath;
    runtimes.push(entry);
  }
  return { manifest: { kind: MANIFEST_KIND, version: 1, shard: data.shard, of: data.of, key: data.key, epoch: data.epoch, runtimes } };
}

function runtimeProblem(r: unknown): ManifestProblem | undefined {
  const p = (path: DocPath, message: string): ManifestProblem => ({ path, message });
  if (!isRec(r)) return p([], 'must be an object');
  if (!isStr(r.relPath) || !RUNTIME_FILE.test(r.relPath)) return p(['relPath'], 'must be runtimes/<name>.yaml');
  if (!isStr(r.digest) || !HEX64.test(r.digest)) return p(['digest'], 'must be a sha256 in hex');
  const id = r.identity;
  if (!isRec(id)) return p(['identity'], 'must be an object');
  if (!isStr(id.name) || !isDNS1123Label(id.name) || `runtimes/${id.name}.yaml` !== r.relPath) return p(['identity', 'name'], 'must be the name of the runtime file (relPath)');
  if (!isStr(id.runtimeID)) return p(['identity', 'runtimeID'], 'must be a string');
  if (!isRec(id.shoot) || !isStr(id.shoot.name) || !isStr(id.shoot.project)) return p(['identity', 'shoot'], 'must be {name, project}');
  const at = id.at;
  const pos = (v: unknown): boolean => isRec(v) && isPosInt(v.line) && isPosInt(v.col);
  if (!isRec(at) || !pos(at.name) || !pos(at.runtimeID) || !pos(at.shootName)) return p(['identity', 'at'], 'must be {name, runtimeID, shootName} positions');
  if (id.labels !== undefined && !(isRec(id.labels) && Object.values(id.labels).every(isStr))) return p(['identity', 'labels'], 'must map label names to strings');
  if (r.runtimeID !== id.runtimeID) return p(['runtimeID'], 'must be identity.runtimeID');
  if (!isStr(r.input) || !HEX64.test(r.input)) return p(['input'], 'must be a sha256 in hex');
  const targets = r.targets;
  if (!Array.isArray(targets) || JSON.stringify(targets) !== JSON.stringify(TARGETS.filter((t) => targets.includes(t)))) {
    return p(['targets'], `must list targets among ${TARGETS.join(', ')}, in that order, each once`);
  }
  if (!Array.isArray(r.diagnostics)) return p(['diagnostics'], 'must be a list');
  for (const [i, d] of r.diagnostics.entries()) {
    const ok = isRec(d) && d.severity === 'warning' && isStr(d.code) && isStr(d.file) && isPosInt(d.line) && isPosInt(d.col) && isStr(d.field) && isStr(d.message);
    if (!ok) return p(['diagnostics', i], 'must be a warning {severity, code, file, line, col, field, message} (a shard with errors is never written)');
  }
  return undefined;
}
