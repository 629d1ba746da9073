// The kyma-fleet command line: parses arguments with commander and maps every outcome to the
// exit codes of the product contract (the table in ../lib/diagnostics.ts, explained by the help and
// docs/cli.md). Commands live in ./commands, one per file. `kyma-fleet __complete WORD...` is the
// hidden entry point of the shell completion scripts (./completion.ts). A run of one command loads
// only that command's module (`kyma-fleet synth` does not load status's Kubernetes client).

import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError, Option } from 'commander';
import { ExitCode } from '../lib/diagnostics';
import { packageVersion } from '../lib/version';
import { COMPLETE_COMMAND, completeWords } from './completion';
import { topLevelHelpText } from './help-text';
import { UsageError } from './options';
import { gatedStreams, type OutputMode } from './quiet';
import { processStreams, quietOnClosedStdout, type Streams } from './report';

type CommandFactory = (streams: Streams, setExit: (code: number) => void) => Command;

/** The commands in the order help lists them, each loaded when it is registered. */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<CommandFactory>]> = [
  ['validate', async () => (await import('./commands/validate')).validateCommand],
  ['synth', async () => (await import('./commands/synth')).synthCommand],
  ['merge', async () => (await import('./commands/merge')).mergeCommand],
  ['diff', async () => (await import('./commands/diff')).diffCommand],
  ['check', async () => (await import('./commands/check')).checkCommand],
  ['explain', async () => (await import('./commands/explain')).explainCommand],
  ['status', async () => (await import('./commands/status')).statusCommand],
  ['rollout', async () => (await import('./commands/rollout')).rolloutCommand],
  ['apply', async () => (await import('./commands/apply')).applyCommand],
  ['register', async () => (await import('./commands/register')).registerCommand],
  ['init', async () => (await import('./commands/init')).initCommand],
  ['new', async () => (await import('./commands/new')).newCommand],
  ['version', async () => (await import('./commands/version')).versionCommand],
  ['import', async () => (await import('./commands/import')).importCommand],
  ['catalog', async () => (await import('./commands/catalog')).catalogCommand],
  ['profile', async () => (await import('./commands/profile')).profileCommand],
  ['completion', async () => (await import('./commands/completion')).completionCommand],
];

/**
 * The command that `argv` (process.argv: node, script, words) runs, when its first word that is not
 * an option names one; undefined for help, version, completion and unknown commands (all of them
 * registered, as they list or suggest commands).
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const word = argv.slice(2).find((w) => !w.startsWith('-'));
  return word !== undefined && COMMANDS.some(([name]) => name === word) ? word : undefined;
}

/** The program with every command, or with `only` that one (a run of it: the others are not loaded). */
export async function buildProgram(streams: Streams, setExit: (code: number) => void, setMode: (mode: OutputMode) => void = () => {}, only?: string): Promise<Command> {
  const factories = await Promise.all(COMMANDS.filter(([name]) => only === undefined || name === only).map(([, load]) => load()));
  const program = new Command('kyma-fleet')
    // The extensions (and with them the renderer) are loaded for the help that shows this line, not for a run of one command.
    .description(only === undefined ? await programDescription() : '')
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
  for (const factory of factories) program.addCommand(factory(streams, setExit));
  const configure = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err }).configureHelp({ showGlobalOptions: true });
    c.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

async function programDescription(): Promise<string> {
  const { EXTENSIONS } = await import('../extensions');
  return `GitOps renderer for Gardener extensions (${EXTENSIONS.map((e) => e.name).join(', ')}) on Kyma runtimes`;
}

/**
 * The heap grows by half of what survives a full collection before the next one, where V8 lets it
 * grow up to four times: a check at 100,000 runtimes keeps 450 MB alive (dist/'s index among it)
 * and made 400 MB of garbage before V8 first collected it, 1.05 GB of RSS in all; with this 0.93-0.95
 * GB, in the same time (docs/performance.md, "Memory at 100,000"). Worker threads share the flag.
 */
function boundHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}

export async function main(argv: readonly string[], base: Streams = processStreams): Promise<number> {
  let code: number = ExitCode.Ok;
  if (base === processStreams) {
    quietOnClosedStdout();
    boundHeapGrowth();
  }
  const gate = gatedStreams(base);
  const program = await buildProgram(
    gate.streams,
    (c) => {
      code = c;
    },
    gate.setMode,
    argv[2] === COMPLETE_COMMAND ? undefined : commandOf(argv),
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
