// `kyma-fleet diff`: what a synth would change in dist/, as a unified diff (text), JSON, or
// Markdown for a pull request comment. Writes nothing; exit 0 whether or not there are changes.

import { Command } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { formatDiffJson, formatDiffMarkdown, formatDiffText } from '../../render/tree-diff';
import { diffDist } from '../../run/synth';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption, outputOption } from '../options';
import { printDiagnostics, printProblem, type Streams } from '../report';

interface DiffFlags {
  cache?: boolean;
  fleet: string;
  out: string;
  output: 'text' | 'json' | 'markdown';
  now?: string;
}

export function diffCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('diff')
    .description('show what synth would change in dist/ (text, json, or markdown for a PR comment)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(outputOption(['text', 'json', 'markdown']))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addHelpText('after', '\nExamples:\n  kyma-fleet diff\n  kyma-fleet diff --output markdown > comment.md\n')
    .action((flags: DiffFlags) => {
      const r = diffDist({ fleetDir: flags.fleet, outDir: flags.out, cwd: streams.cwd, now: evaluationTime(flags.now, streams.env), allowEmpty: true, cacheDir: cacheDirFor(flags, streams.cwd, streams.env) });
      printDiagnostics(r.diagnostics, streams);
      if (r.problem) printProblem(flags.out, r.problem, streams);
      if (!r.diff) return setExit(r.exitCode);
      const format = { text: () => formatDiffText(r.diff!, flags.out), json: () => formatDiffJson(r.diff!), markdown: () => formatDiffMarkdown(r.diff!) }[flags.output];
      streams.out(format());
      setExit(ExitCode.Ok);
    });
}
