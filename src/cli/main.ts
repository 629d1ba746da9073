// The kyma-fleet command line: parses arguments with commander and maps every outcome to the
// exit codes of the product contract (0 ok, 1 invalid input, 2 usage, 3 out of date, 4 I/O,
// 70 internal). Commands live in ./commands, one per file.

import { Command, CommanderError } from 'commander';
import { EXTENSIONS } from '../extensions';
import { ExitCode } from '../lib/diagnostics';
import { packageVersion } from '../lib/version';
import { applyCommand } from './commands/apply';
import { diffCommand } from './commands/diff';
import { explainCommand } from './commands/explain';
import { initCommand } from './commands/init';
import { mergeCommand } from './commands/merge';
import { newCommand } from './commands/new';
import { statusCommand } from './commands/status';
import { synthCommand } from './commands/synth';
import { validateCommand } from './commands/validate';
import { versionCommand } from './commands/version';
import { topLevelHelpText } from './help-text';
import { UsageError } from './options';
import { processStreams, type Streams } from './report';

export function buildProgram(streams: Streams, setExit: (code: number) => void): Command {
  const program = new Command('kyma-fleet')
    .description(`GitOps renderer for Gardener extensions (${EXTENSIONS.map((e) => e.name).join(', ')}) on Kyma runtimes`)
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', () => topLevelHelpText())
    .exitOverride()
    .configureOutput({ writeOut: streams.out, writeErr: streams.err });
  program.addCommand(validateCommand(streams, setExit));
  program.addCommand(synthCommand(streams, setExit));
  program.addCommand(mergeCommand(streams, setExit));
  program.addCommand(diffCommand(streams, setExit));
  program.addCommand(explainCommand(streams, setExit));
  program.addCommand(statusCommand(streams, setExit));
  program.addCommand(applyCommand(streams, setExit));
  program.addCommand(initCommand(streams, setExit));
  program.addCommand(newCommand(streams, setExit));
  program.addCommand(versionCommand(streams, setExit));
  for (const c of program.commands) c.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err });
  return program;
}

export async function main(argv: readonly string[], streams: Streams = processStreams): Promise<number> {
  let code: number = ExitCode.Ok;
  const program = buildProgram(streams, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.Ok;
      return ExitCode.Usage;
    }
    if (err instanceof UsageError) {
      streams.err(`error: ${err.message}\n`);
      return ExitCode.Usage;
    }
    streams.err(`internal error (please report it): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return ExitCode.Internal;
  }
  return code;
}
