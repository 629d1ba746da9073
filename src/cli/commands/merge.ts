// `kyma-fleet merge SHARD_DIR...`: put the shard folders of `kyma-fleet synth --shard I/N` together
// into dist/ (atomically), byte-identical to a plain synth of the same fleet. See src/run/shard/merge.ts
// and docs/sharding.md. JSON: schemas/output/merge.schema.json.

import { Command, Option } from 'commander';
import { mergeShards } from '../../run/shard/merge';
import { evaluationTime, fleetOption, nowOption, outOption, outputOption } from '../options';
import { plural, reportWrite, type Streams } from '../report';

interface MergeFlags {
  fleet: string;
  out: string;
  now?: string;
  allowMassRemoval?: boolean;
  output: 'text' | 'json';
}

export function mergeCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('merge')
    .description('merge the shard folders of synth --shard I/N into dist/ (the same dist/ a plain synth writes)')
    .argument('<shard-dir...>', 'shard folders written by kyma-fleet synth --shard I/N, all N of them')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(new Option('--allow-mass-removal', 'allow removing more runtimes at once than Fleet spec.removalGuard.maxShare'))
    .addOption(nowOption())
    .addOption(outputOption(['text', 'json']))
    .addHelpText('after', '\nExamples:\n  kyma-fleet merge dist.shard-*-of-4\n  kyma-fleet merge shards/* --out dist\n')
    .action((shardDirs: string[], flags: MergeFlags) => {
      const r = mergeShards({
        shardDirs,
        fleetDir: flags.fleet,
        outDir: flags.out,
        cwd: streams.cwd,
        now: evaluationTime(flags.now, streams.env),
        allowMassRemoval: flags.allowMassRemoval,
      });
      setExit(reportWrite(r, { who: 'merge', out: flags.out, what: plural(r.runtimes ?? 0, 'runtime') }, streams, flags.output, { shards: shardDirs.length }));
    });
}
