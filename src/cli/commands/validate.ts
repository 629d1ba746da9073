// `kyma-fleet validate`: every check of the input side, all errors of the run, nothing written.

import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { validateFleetDir } from '../../run/synth';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outputOption } from '../options';
import { countBySeverity, plural, printDiagnostics, type Streams } from '../report';

interface ValidateFlags {
  cache?: boolean;
  fleet: string;
  output: 'text' | 'json';
  out: string;
  now?: string;
  allowEmpty?: boolean;
}

export function validateCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('validate')
    .description('check the fleet: YAML, schema, admission rules of the extensions, layering')
    .addOption(fleetOption())
    .addOption(outputOption(['text', 'json']))
    .addOption(new Option('--out <dir>', 'previous render; immutable fields are checked against it').default('dist'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addOption(new Option('--allow-empty', 'accept a fleet without runtimes'))
    .addHelpText('after', '\nExamples:\n  kyma-fleet validate\n  kyma-fleet validate --fleet ../landscape/fleet --output json\n')
    .action((flags: ValidateFlags) => {
      const result = validateFleetDir({
        fleetDir: flags.fleet,
        outDir: flags.out,
        cwd: streams.cwd,
        cacheDir: cacheDirFor(flags, streams.cwd, streams.env),
        now: evaluationTime(flags.now, streams.env),
        allowEmpty: flags.allowEmpty,
      });
      const { errors, warnings } = countBySeverity(result.diagnostics);
      const { runtimes, groups } = result;
      if (flags.output === 'json') {
        streams.out(JSON.stringify({ ok: result.ok, errors, warnings, runtimes, groups, diagnostics: result.diagnostics }, null, 2) + '\n');
      } else {
        printDiagnostics(result.diagnostics, streams);
        const what = `${plural(runtimes, 'runtime')}, ${plural(groups, 'group')}`;
        if (result.ok) streams.out(`${flags.fleet}: valid (${what}${warnings ? `, ${plural(warnings, 'warning')}` : ''})\n`);
        else streams.err(`${flags.fleet}: ${plural(errors, 'error')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}\n`);
      }
      setExit(result.ok ? ExitCode.Ok : ExitCode.InvalidInput);
    });
}
