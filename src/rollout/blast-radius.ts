// The blast radius of a change under rollout rings, for `diff --output markdown` (the pull request
// comment): which rings the change reaches now and with how many runtimes, how many runtimes wait
// behind a gate on an older revision, and whether the fleet-wide part of the change is started yet.
// Read from the fleet folder on its own (the rings, fleet/rollout/ and every runtime's labels), so
// it does not depend on how the diff rendered the fleet (in one thread or in parts).

import { cmp } from '../lib/diagnostics';
import { loadFleet, loadLayers } from '../load/load';
import { REST_RING, readRolloutOptions, type RolloutConfig } from '../validate/rollout-options';
import { ringNames, ringOf } from './rings';
import { changedPaths, type Revision, revisionOfLayers } from './revision';
import type { RolloutState } from './state-file';
import { readRollout } from './store';
import { alignState } from './transitions';

export interface RolloutOverview {
  readonly config: RolloutConfig;
  /** Undefined before the first `rollout start`. */
  readonly state?: RolloutState;
  readonly working: Revision;
  /** The fleet-wide files that differ between the first ring's revision and the working layers. */
  readonly pendingFiles: readonly string[];
  /** Ring of every runtime file's runtime, by name. */
  readonly ringOf: ReadonlyMap<string, string>;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The rollout of a fleet folder, or undefined without rings (or when fleet/rollout/ is broken: the diff said so). */
export function rolloutOverview(fleetDir: string, cwd: string): RolloutOverview | undefined {
  // fleet.yaml first: without rings no runtime file is read (10,000 of them cost a second).
  const layers = loadLayers({ fleetDir, cwd });
  const spec = isRec(layers.fleet?.data) && isRec((layers.fleet!.data as Rec).spec) ? ((layers.fleet!.data as Rec).spec as Rec) : undefined;
  const config = spec ? readRolloutOptions(spec, { report() {} }) : undefined;
  if (!config) return undefined;
  const loaded = loadFleet({ fleetDir, cwd, layers });
  const stored = readRollout(loaded.root, loaded.displayRoot);
  const working = revisionOfLayers(loaded);
  if (stored.diagnostics.length > 0 || !working) return undefined;
  const members = new Map<string, string>();
  for (const doc of loaded.runtimes) {
    const meta = isRec(doc.data) && isRec((doc.data as Rec).metadata) ? ((doc.data as Rec).metadata as Rec) : {};
    if (typeof meta.name !== 'string') continue;
    const labels: Record<string, string> = {};
    if (isRec(meta.labels)) for (const [k, v] of Object.entries(meta.labels)) if (typeof v === 'string') labels[k] = v;
    members.set(meta.name, ringOf(labels, config));
  }
  const state = stored.state ? alignState(stored.state, config) : undefined;
  const first = state ? stored.revisions.get(state.rings[0]!.revision)?.revision : undefined;
  const pendingFiles = state && state.rings[0]!.revision !== working.id ? (first ? changedPaths(first, working) : ['fleet.yaml']) : [];
  return { config, ...(state ? { state } : {}), working, pendingFiles, ringOf: members };
}

/** The Markdown section; `touched` are the runtimes whose dist/ folder the diff adds, removes or changes. */
export function blastRadiusMarkdown(o: RolloutOverview, touched: ReadonlySet<string>): string {
  const names = ringNames(o.config);
  const members = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const [runtime, ring] of o.ringOf) members.get(ring)!.push(runtime);
  const revisionOf = new Map((o.state?.rings ?? []).map((r) => [r.name, r.revision]));
  const first = names[0]!;
  const firstRevision = revisionOf.get(first) ?? o.working.id;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

  let out = '#### Rollout rings\n\n| ring | revision | runtimes | changed by this diff |\n|---|---|---:|---:|\n';
  const reached: string[] = [];
  let reachedRuntimes = 0;
  const waiting: string[] = [];
  let waitingRuntimes = 0;
  for (const ring of names) {
    const runtimes = members.get(ring)!.sort(cmp);
    const changed = runtimes.filter((r) => touched.has(r)).length;
    const revision = revisionOf.get(ring) ?? o.working.id;
    out += `| ${ring}${ring === REST_RING ? ' (no ring matches)' : ''} | \`${revision}\` | ${runtimes.length} | ${changed} |\n`;
    if (changed > 0) {
      reached.push(`${ring} (${changed})`);
      reachedRuntimes += changed;
    }
    if (revision !== firstRevision && runtimes.length > 0) {
      waiting.push(ring);
      waitingRuntimes += runtimes.length;
    }
  }
  out += '\n';
  out += reachedRuntimes > 0 ? `**Reaches now:** ${plural(reachedRuntimes, 'runtime')}, in ring${reached.length === 1 ? '' : 's'} ${reached.join(', ')}.\n\n` : '**Reaches now:** no runtime.\n\n';
  if (waitingRuntimes > 0) {
    out += `**Waiting behind a gate:** ${plural(waitingRuntimes, 'runtime')} in ring${waiting.length === 1 ? '' : 's'} ${waiting.join(', ')}, on an older revision than ring ${first} (\`${firstRevision}\`); \`kyma-fleet rollout advance\` brings it to them ring by ring.\n\n`;
  }
  if (!o.state) out += `**Not started:** no rollout was started yet; every ring follows the working layers until the first \`kyma-fleet rollout start\`.\n\n`;
  else if (o.pendingFiles.length > 0) {
    const files = o.pendingFiles.slice(0, 10).map((f) => `\`${f}\``).join(', ') + (o.pendingFiles.length > 10 ? `, … (${o.pendingFiles.length - 10} more)` : '');
    out += `**Not started:** the fleet-wide layers differ from ring ${first}'s revision (${files}): that part of the change reaches no runtime until \`kyma-fleet rollout start\`, then ring ${first} first (${plural(members.get(first)!.length, 'runtime')}).\n\n`;
  }
  return out;
}
