// `kyma-fleet synth`: render the fleet into dist/ (atomically), or with --check only verify that
// dist/ is what a synth would write (exit 3 when it is not). JSON: schemas/output/synth.schema.json.

import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { isEmptyDiff } from '../../render/tree-diff';
import { warmStart } from '../../run/warm-start';
import { printJson, problemJson } from '../json-output';
import { createProgress, NO_PROGRESS } from '../progress';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption, outputOption } from '../options';
import { countBySeverity, plural, printDiagnostics, printProblem, reportWrite, type Streams } from '../report';

// The checker and the renderer (run/synth, ../shard) are loaded in the action, once the workers
// that look at dist/ are started (src/run/warm-start.ts): they take the other core meanwhile.

interface SynthFlags {
  cache?: boolean;
  fleet: string;
  out: string;
  check?: boolean;
  now?: string;
  allowEmpty?: boolean;
  allowMassRemoval?: boolean;
  shard?: string;
  output: 'text' | 'json';
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
    .addOption(outputOption(['text', 'json']))
    .addHelpText('after', '\nExamples:\n  kyma-fleet synth\n  kyma-fleet synth --check            # in CI: fails when dist/ is stale\n  kyma-fleet synth -o json | jq .written\n')
    .action(async (flags: SynthFlags, cmd: Command) => {
      const json = flags.output === 'json';
      if (flags.shard !== undefined) {
        const out = cmd.getOptionValueSource('out') === 'default' ? undefined : flags.out;
        const { synthShard } = await import('../shard');
        return synthShard(
          { shard: flags.shard, fleet: flags.fleet, out, now: flags.now, cache: flags.cache, check: flags.check, allowEmpty: flags.allowEmpty, allowMassRemoval: flags.allowMassRemoval, output: flags.output },
          streams,
          setExit,
        );
      }
      const options = {
        fleetDir: flags.fleet,
        outDir: flags.out,
        cwd: streams.cwd,
        now: evaluationTime(flags.now, streams.env),
        allowEmpty: flags.allowEmpty,
        allowMassRemoval: flags.allowMassRemoval,
        cacheDir: cacheDirFor(flags, streams.cwd, streams.env),
      };
      // A plain synth lists the fleet's runtimes/ in the first worker too (a check reads no run record).
      if (options.cacheDir !== undefined) warmStart({ ...options, prelude: !flags.check });
      const { diffDist, synth } = await import('../../run/synth');
      if (flags.check) {
        const r = diffDist(options);
        const diff = r.diff;
        const upToDate = diff !== undefined && !r.problem && isEmptyDiff(diff);
        const exitCode = r.problem || !diff ? r.exitCode : upToDate ? ExitCode.Ok : ExitCode.OutOfDate;
        if (json) {
          printJson(streams, {
            ok: exitCode === ExitCode.Ok,
            exitCode,
            check: true,
            out: flags.out,
            runtimes: r.runtimes ?? 0,
            upToDate,
            files: { added: diff?.added ?? [], changed: diff?.changed ?? [], removed: diff?.removed ?? [] },
            diagnostics: r.diagnostics,
            ...(r.problem ? { problem: problemJson(r.problem) } : {}),
          });
          return setExit(exitCode);
        }
        printDiagnostics(r.diagnostics, streams);
        if (r.problem) {
          printProblem(flags.out, r.problem, streams);
          return setExit(r.exitCode);
        }
        if (!diff) {
          streams.err(`${flags.fleet}: ${plural(countBySeverity(r.diagnostics).errors, 'error')}\n`);
          return setExit(r.exitCode);
        }
        if (upToDate) {
          streams.out(`${flags.out}: up to date (${plural(r.runtimes ?? 0, 'runtime')})\n`);
          return setExit(ExitCode.Ok);
        }
        const files = [...diff.added.map((f) => `  added    ${f}`), ...diff.changed.map((f) => `  changed  ${f}`), ...diff.removed.map((f) => `  removed  ${f}`)];
        streams.err(`${flags.out}: out of date: ${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed; run kyma-fleet synth\n`);
        streams.err(files.slice(0, MAX_LISTED).join('\n') + (files.length > MAX_LISTED ? `\n  … ${files.length - MAX_LISTED} more` : '') + '\n');
        return setExit(ExitCode.OutOfDate);
      }
      const bar = streams.progressStream && !json ? createProgress({ stream: streams.progressStream, env: streams.env }) : NO_PROGRESS;
      let r: ReturnType<typeof synth>;
      try {
        r = synth({ ...options, progress: (phase, done, total) => bar.update(phase, done, total) });
      } finally {
        bar.end();
      }
      setExit(reportWrite(r, { who: flags.fleet, out: flags.out, what: plural(r.runtimes ?? 0, 'runtime') }, streams, flags.output));
    });
}
