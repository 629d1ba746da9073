// `kyma-fleet synth --shard I/N`: the command-line side (the option lives on synth, see
// src/cli/commands/synth.ts; the work in render-shard.ts).

import { cacheDirFor, evaluationTime, UsageError } from './options';
import { plural, reportWrite, type Streams } from './report';
import { defaultShardOut, parseShardSpec } from '../run/shard/assign';
import { renderShard } from '../run/shard/render-shard';

export interface ShardFlags {
  readonly shard: string;
  readonly fleet: string;
  /** Undefined when --out was not given (the shard's own default applies). */
  readonly out?: string;
  readonly now?: string;
  readonly cache?: boolean;
  readonly check?: boolean;
  readonly allowEmpty?: boolean;
  readonly allowMassRemoval?: boolean;
  readonly output: 'text' | 'json';
}

/** Options of plain synth that have no meaning for one shard. */
const NOT_WITH_SHARD: ReadonlyArray<[keyof ShardFlags, string, string]> = [
  ['check', '--check', 'check the merged dist/ instead (kyma-fleet merge, then synth --check)'],
  ['allowEmpty', '--allow-empty', 'a shard may always be empty; merge refuses an empty fleet'],
  ['allowMassRemoval', '--allow-mass-removal', 'pass it to kyma-fleet merge, which writes dist/'],
];

export function synthShard(flags: ShardFlags, streams: Streams, setExit: (code: number) => void): void {
  const spec = parseShardSpec(flags.shard);
  if ('problem' in spec) throw new UsageError(spec.problem);
  for (const [flag, option, instead] of NOT_WITH_SHARD) {
    if (flags[flag]) throw new UsageError(`${option} cannot be combined with --shard: ${instead}`);
  }
  const out = flags.out ?? defaultShardOut(spec);
  const r = renderShard({
    fleetDir: flags.fleet,
    outDir: out,
    cwd: streams.cwd,
    now: evaluationTime(flags.now, streams.env),
    shard: spec,
    cacheDir: cacheDirFor(flags, streams.cwd, streams.env),
    // Immutable fields are checked against the full render, as plain synth checks its --out.
    previousDist: 'dist',
  });
  setExit(
    reportWrite(r, { who: flags.fleet, out, what: `shard ${spec.index} of ${spec.of}, ${plural(r.runtimes ?? 0, 'runtime')}` }, streams, flags.output, {
      shard: { index: spec.index, of: spec.of },
    }),
  );
}
