// The kyma-fleet command line: parses arguments with commander and maps every outcome to the
// exit codes of the product contract (the table in ../lib/diagnostics.ts, explained by the help and
// docs/cli.md). Commands live in ./commands, one per file. `kyma-fleet __complete WORD...` is the
// hidden entry point of the shell completion scripts (./completion.ts).

import { Command, CommanderError, Option } from 'commander';
import { EXTENSIONS } from '../extensions';
import { ExitCode } from '../lib/diagnostics';
import { packageVersion } from '../lib/version';
import { registerCommand } from './commands/register';
import { applyCommand } from './commands/apply';
import { completionCommand } from './commands/completion';
import { checkCommand } from './commands/check';
import { diffCommand } from './commands/diff';
import { explainCommand } from './commands/explain';
import { initCommand } from './commands/init';
import { mergeCommand } from './commands/merge';
import { newCommand } from './commands/new';
import { rolloutCommand } from './commands/rollout';
import { statusCommand } from './commands/status';
import { synthCommand } from './commands/synth';
import { validateCommand } from './commands/validate';
import { versionCommand } from './commands/version';
import { catalogCommand } from './commands/catalog';
import { importCommand } from './commands/import';
import { profileCommand } from './commands/profile';
import { COMPLETE_COMMAND, completeWords } from './completion';
import { topLevelHelpText } from './help-text';
import { UsageError } from './options';
import { gatedStreams, type OutputMode } from './quiet';
import { processStreams, quietOnClosedStdout, type Streams } from './report';

export function buildProgram(streams: Streams, setExit: (code: number) => void, setMode: (mode: OutputMode) => void = () => {}): Command {
  const program = new Command('kyma-fleet')
    .description(`GitOps renderer for Gardener extensions (${EXTENSIONS.map((e) => e.name).join(', ')}) on Kyma runtimes`)
    .usage('<command> [options]')
    .version(packageVersion())
    .addOption(new Option('-q, --quiet', 'print errors only: no summaries, warnings or progress (an --output json document is still printed)'))
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', () => topLevelHelpText())
    .exitOverride()
    .configureOutput({ writeOut: streams.out, writeErr: streams.err });
  // Reads the two values it needs (not all options: test/cli/options-read.test.ts watches which are read).
  program.hook('preAction', (_root, action) => setMode({ quiet: program.getOptionValue('quiet') === true, json: action.getOptionValue('output') === 'json' }));
  program.addCommand(validateCommand(streams, setExit));
  program.addCommand(synthCommand(streams, setExit));
  program.addCommand(mergeCommand(streams, setExit));
  program.addCommand(diffCommand(streams, setExit));
  program.addCommand(checkCommand(streams, setExit));
  program.addCommand(explainCommand(streams, setExit));
  program.addCommand(statusCommand(streams, setExit));
  program.addCommand(rolloutCommand(streams, setExit));
  program.addCommand(applyCommand(streams, setExit));
  program.addCommand(registerCommand(streams, setExit));
  program.addCommand(initCommand(streams, setExit));
  program.addCommand(newCommand(streams, setExit));
  program.addCommand(versionCommand(streams, setExit));
  program.addCommand(importCommand(streams, setExit));
  program.addCommand(catalogCommand(streams, setExit));
  program.addCommand(profileCommand(streams, setExit));
  program.addCommand(completionCommand(streams, setExit));
  const configure = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err }).configureHelp({ showGlobalOptions: true });
    c.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

export async function main(argv: readonly string[], base: Streams = processStreams): Promise<number> {
  let code: number = ExitCode.Ok;
  if (base === processStreams) quietOnClosedStdout();
  const gate = gatedStreams(base);
  const program = buildProgram(
    gate.streams,
    (c) => {
      code = c;
    },
    gate.setMode,
  );
  if (argv[2] === COMPLETE_COMMAND) {
    for (const line of completeWords(program, argv.slice(3), base.cwd)) base.out(`${line}\n`);
    return ExitCode.Ok;
  }
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.Ok;
      return ExitCode.Usage;
    }
    if (err instanceof UsageError) {
      base.err(`error: ${err.message}\n`);
      return ExitCode.Usage;
    }
    base.err(`internal error (please report it): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return ExitCode.Internal;
  }
  return code;
}
