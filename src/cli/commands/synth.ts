// `kyma-fleet synth`: render the fleet into dist/ (atomically), or with --check only verify that
// dist/ is what a synth would write (exit 3 when it is not).

import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { isEmptyDiff } from '../../render/tree-diff';
import { synthShard } from '../shard';
import { diffDist, synth } from '../../run/synth';
import { createProgress, NO_PROGRESS } from '../progress';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption } from '../options';
import { countBySeverity, plural, printDiagnostics, printProblem, reportWrite, type Streams } from '../report';

interface SynthFlags {
  cache?: boolean;
  fleet: string;
  out: string;
  check?: boolean;
  now?: string;
  allowEmpty?: boolean;
  allowMassRemoval?: boolean;
  shard?: string;
}

const MAX_LISTED = 50;

export function synthCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('synth')
    .description('render the fleet into dist/ (Kyma CRs, extension config CRs, Runtime and Shoot fragments, GitOps wiring)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(new Option('--check', 'write nothing; exit 3 when dist/ is not what synth would write'))
    .addOption(new Option('--allow-mass-removal', 'allow removing more runtimes at once than Fleet spec.removalGuard.maxShare'))
    .addOption(new Option('--allow-empty', 'accept a fleet without runtimes'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addOption(new Option('--shard <I/N>', 'render only shard I of N into dist.shard-I-of-N (then kyma-fleet merge; docs/sharding.md)'))
    .addHelpText('after', '\nExamples:\n  kyma-fleet synth\n  kyma-fleet synth --check            # in CI: fails when dist/ is stale\n')
    .action((flags: SynthFlags, cmd: Command) => {
      if (flags.shard !== undefined) return synthShard({ ...flags, shard: flags.shard, out: cmd.getOptionValueSource('out') === 'default' ? undefined : flags.out }, streams, setExit);
      const options = {
        fleetDir: flags.fleet,
        outDir: flags.out,
        cwd: streams.cwd,
        now: evaluationTime(flags.now, streams.env),
        allowEmpty: flags.allowEmpty,
        allowMassRemoval: flags.allowMassRemoval,
        cacheDir: cacheDirFor(flags, streams.cwd, streams.env),
      };
      if (flags.check) {
        const r = diffDist(options);
        printDiagnostics(r.diagnostics, streams);
        if (r.problem) {
          printProblem(flags.out, r.problem, streams);
          return setExit(r.exitCode);
        }
        if (!r.diff) {
          streams.err(`${flags.fleet}: ${plural(countBySeverity(r.diagnostics).errors, 'error')}\n`);
          return setExit(r.exitCode);
        }
        if (isEmptyDiff(r.diff)) {
          streams.out(`${flags.out}: up to date (${plural(r.runtimes ?? 0, 'runtime')})\n`);
          return setExit(ExitCode.Ok);
        }
        const files = [...r.diff.added.map((f) => `  added    ${f}`), ...r.diff.changed.map((f) => `  changed  ${f}`), ...r.diff.removed.map((f) => `  removed  ${f}`)];
        streams.err(`${flags.out}: out of date: ${r.diff.added.length} added, ${r.diff.changed.length} changed, ${r.diff.removed.length} removed; run kyma-fleet synth\n`);
        streams.err(files.slice(0, MAX_LISTED).join('\n') + (files.length > MAX_LISTED ? `\n  … ${files.length - MAX_LISTED} more` : '') + '\n');
        return setExit(ExitCode.OutOfDate);
      }
      const bar = streams.progressStream ? createProgress({ stream: streams.progressStream, env: streams.env }) : NO_PROGRESS;
      let r: ReturnType<typeof synth>;
      try {
        r = synth({ ...options, progress: (phase, done, total) => bar.update(phase, done, total) });
      } finally {
        bar.end();
      }
      setExit(reportWrite(r, { who: flags.fleet, out: flags.out, what: plural(r.runtimes ?? 0, 'runtime') }, streams));
    });
}
