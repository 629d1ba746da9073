// `kyma-fleet completion bash|zsh|fish`: prints the shell script that makes the shell complete
// kyma-fleet's commands, options, option values and runtime names (../completion.ts computes them).

import { Argument, Command } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { completionScript, SHELLS, type Shell } from '../completion';
import { printJson } from '../json-output';
import { outputOption } from '../options';
import type { Streams } from '../report';

export function completionCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .addOption(outputOption(['text', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  source <(kyma-fleet completion bash)                                   # this bash session\n' +
        '  kyma-fleet completion bash > ~/.local/share/bash-completion/completions/kyma-fleet\n' +
        '  kyma-fleet completion zsh > "${fpath[1]}/_kyma-fleet"                  # then start a new zsh\n' +
        '  kyma-fleet completion fish > ~/.config/fish/completions/kyma-fleet.fish\n',
    )
    .action((shell: Shell, flags: { output: 'text' | 'json' }) => {
      const script = completionScript(shell, 'kyma-fleet');
      if (flags.output === 'json') printJson(streams, { ok: true, shell, script });
      else streams.out(script);
      setExit(ExitCode.Ok);
    });
}
