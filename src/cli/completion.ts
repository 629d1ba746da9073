// Shell completion, computed by the CLI itself from the commander program: the scripts that
// `kyma-fleet completion bash|zsh|fish` prints are thin wrappers that call `kyma-fleet __complete
// WORD...` and show what it prints, so every command, option, choice and runtime name completes
// without a script to keep in step. Output of __complete: one candidate a line (`value<TAB>description`),
// or a single directive line `:files` / `:dirs` asking the shell to complete paths.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Argument, Command, Option } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The hidden first argument that asks for completions instead of running a command. */
export const COMPLETE_COMMAND = '__complete';

const HELP: Pick<Option, 'long' | 'short' | 'description' | 'required' | 'optional' | 'variadic' | 'argChoices' | 'flags'> = {
  long: '--help',
  short: '-h',
  description: 'display help for command',
  required: false,
  optional: false,
  variadic: false,
  argChoices: undefined,
  flags: '-h, --help',
};
type OptionLike = typeof HELP;

/** What the value of an option or argument is, by its name in the usage (<dir>, <file>, ...). */
type ValueKind = 'dir' | 'file' | 'runtime' | 'none';

/** Arguments that name a runtime of the fleet: completed from <fleet>/runtimes/*.yaml. */
const RUNTIME_ARGUMENTS: ReadonlyArray<readonly [string, string]> = [
  ['explain', 'name'],
  ['apply garden', 'runtime'],
];

function valueKindOf(valueName: string, commandPath: string, isArgument: boolean): ValueKind {
  if (isArgument && RUNTIME_ARGUMENTS.some(([c, a]) => c === commandPath && a === valueName)) return 'runtime';
  if (/(^|-)dir$/.test(valueName)) return 'dir';
  if (/(^|-)file$/.test(valueName)) return 'file';
  return 'none';
}

/** The value name of an option's flags, e.g. `dir` of `--fleet <dir>`. */
function optionValueName(o: OptionLike): string {
  return /[<[]([^>\]]+?)(\.\.\.)?[>\]]/.exec(o.flags)?.[1] ?? '';
}

const takesValue = (o: OptionLike): boolean => o.required || o.optional;

function visibleCommands(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
}

function optionsOf(cmd: Command, program: Command): OptionLike[] {
  const own = cmd.options.filter((o) => !o.hidden);
  const global = cmd === program ? [] : program.options.filter((o) => !o.hidden && o.long !== '--version');
  return [...own, ...global, HELP];
}

function findOption(options: readonly OptionLike[], word: string): OptionLike | undefined {
  return options.find((o) => o.long === word || o.short === word);
}

interface Walk {
  cmd: Command;
  commandPath: string;
  /** Options given so far (long names). */
  used: Set<string>;
  positionals: number;
  fleet: string;
  pendingValue?: OptionLike;
}

/**
 * Candidates for the last of `words` (the word under the cursor, maybe empty), given the words
 * before it (without the program name). `cwd` is where runtime names are looked up.
 */
export function completeWords(program: Command, words: readonly string[], cwd: string): string[] {
  const current = words.length > 0 ? words[words.length - 1]! : '';
  const w: Walk = { cmd: program, commandPath: '', used: new Set(), positionals: 0, fleet: 'fleet' };
  let afterDashDash = false;
  for (const word of words.slice(0, -1)) {
    if (w.pendingValue) {
      if (w.pendingValue.long === '--fleet') w.fleet = word;
      w.pendingValue = undefined;
      continue;
    }
    if (!afterDashDash && word === '--') {
      afterDashDash = true;
      continue;
    }
    if (!afterDashDash && word.startsWith('-') && word !== '-') {
      const eq = word.indexOf('=');
      const name = eq > 0 ? word.slice(0, eq) : word;
      const option = findOption(optionsOf(w.cmd, program), name);
      if (option?.long) w.used.add(option.long);
      if (option && takesValue(option)) {
        if (eq > 0) {
          if (option.long === '--fleet') w.fleet = word.slice(eq + 1);
        } else if (option.required) w.pendingValue = option;
      }
      continue;
    }
    const sub = w.positionals === 0 ? visibleCommands(w.cmd).find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
    if (sub) {
      w.cmd = sub;
      w.commandPath = w.commandPath ? `${w.commandPath} ${sub.name()}` : sub.name();
      w.used = new Set();
    } else w.positionals++;
  }

  if (w.pendingValue) return optionValues(w.pendingValue, '', current, w, cwd);
  if (!afterDashDash && current.startsWith('--') && current.includes('=')) {
    const eq = current.indexOf('=');
    const option = findOption(optionsOf(w.cmd, program), current.slice(0, eq));
    return option && takesValue(option) ? optionValues(option, current.slice(0, eq + 1), current.slice(eq + 1), w, cwd) : [];
  }
  if (!afterDashDash && current.startsWith('-')) {
    const out: string[] = [];
    for (const o of optionsOf(w.cmd, program)) {
      const repeatable = o.variadic || /--label\b/.test(o.flags);
      if (o.long && w.used.has(o.long) && !repeatable) continue;
      for (const flag of [o.long, current.startsWith('--') ? undefined : o.short]) {
        if (flag && flag.startsWith(current)) out.push(candidate(flag, o.description));
      }
    }
    return out;
  }
  const subs = w.positionals === 0 ? visibleCommands(w.cmd) : [];
  if (subs.length > 0) return subs.filter((c) => c.name().startsWith(current)).map((c) => candidate(c.name(), c.description()));
  const args = w.cmd.registeredArguments;
  const arg: Argument | undefined = args[Math.min(w.positionals, args.length - 1)];
  if (!arg || (w.positionals >= args.length && !arg.variadic)) return [];
  if (arg.argChoices) return arg.argChoices.filter((c) => c.startsWith(current)).map((c) => candidate(c, ''));
  return valuesOfKind(valueKindOf(arg.name(), w.commandPath, true), '', current, w, cwd);
}

function optionValues(option: OptionLike, prefix: string, current: string, w: Walk, cwd: string): string[] {
  if (option.argChoices) return option.argChoices.filter((c) => c.startsWith(current)).map((c) => candidate(prefix + c, ''));
  return valuesOfKind(valueKindOf(optionValueName(option), w.commandPath, false), prefix, current, w, cwd);
}

function valuesOfKind(kind: ValueKind, prefix: string, current: string, w: Walk, cwd: string): string[] {
  switch (kind) {
    case 'dir':
      return [':dirs'];
    case 'file':
      return [':files'];
    case 'runtime':
      return runtimeNames(path.resolve(cwd, w.fleet))
        .filter((n) => n.startsWith(current))
        .map((n) => candidate(prefix + n, 'runtime'));
    case 'none':
      return [];
  }
}

/** Names of the runtime files in <fleet>/runtimes/, without reading them (a completion must be quick). */
function runtimeNames(fleetDir: string): string[] {
  try {
    return fs
      .readdirSync(path.join(fleetDir, 'runtimes'))
      .filter((f) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\.ya?ml$/.test(f))
      .map((f) => f.replace(/\.ya?ml$/, ''))
      .sort();
  } catch {
    return [];
  }
}

function candidate(value: string, description: string): string {
  const d = description.replace(/\s+/g, ' ').trim();
  return d === '' ? value : `${value}\t${d}`;
}

// ---------------------------------------------------------------------------------------------
// The scripts

export function completionScript(shell: Shell, program: string): string {
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  switch (shell) {
    case 'bash':
      return `# bash completion for ${program}; written by \`${program} completion bash\`
# Load it in this shell:  source <(${program} completion bash)
# Load it in every shell: ${program} completion bash > ~/.local/share/bash-completion/completions/${program}
# The candidates come from \`${program} ${COMPLETE_COMMAND} WORD...\`: commands, options, their values, runtime names.
# It also completes \`npx [--no-install] ${program} WORD...\` (the documented use in a fleet repository),
# asking the installed ${program} through \`npx --no-install\`, which never downloads; any other npx
# command line gets bash's default completion.
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" line prefix
  # Whole words up to the cursor (COMP_WORDS splits --output=json at the "=").
  local -a words
  read -r -a words <<< "\${COMP_LINE:0:COMP_POINT}"
  [[ "\${COMP_LINE:0:COMP_POINT}" == *[[:space:]] || \${#words[@]} -eq 0 ]] && words+=("")
  local -a run=("\${words[0]}")
  if [[ "\${words[0]##*/}" == npx ]]; then
    local i=1
    while [[ "\${words[i]:-}" == --no-install || "\${words[i]:-}" == --no ]]; do i=$((i + 1)); done
    if [[ "\${words[i]:-}" != ${program} ]] || (( \${#words[@]} <= i + 1 )); then
      compopt -o default 2>/dev/null; COMPREPLY=(); return 0
    fi
    run=(npx --no-install ${program}); words=("${program}" "\${words[@]:i+1}")
  fi
  local word="\${words[\${#words[@]}-1]}"
  prefix="\${word%"\$cur"}"
  COMPREPLY=()
  local out
  out="$("\${run[@]}" ${COMPLETE_COMMAND} "\${words[@]:1}" 2>/dev/null)" || return 0
  while IFS= read -r line; do
    case "$line" in
      '') ;;
      :files) compopt -o filenames 2>/dev/null; while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur") ;;
      :dirs) compopt -o filenames 2>/dev/null; while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur") ;;
      *) line="\${line%%$'\\t'*}"; COMPREPLY+=("\${line#"$prefix"}") ;;
    esac
  done <<< "$out"
}
complete -F ${fn} ${program}
complete -F ${fn} npx
`;
    case 'zsh':
      return `#compdef ${program} npx
# zsh completion for ${program}; written by \`${program} completion zsh\`
# Load it in this shell:  source <(${program} completion zsh)
# Load it in every shell: ${program} completion zsh > "\${fpath[1]}/_${program}"
# The candidates come from \`${program} ${COMPLETE_COMMAND} WORD...\`: commands, options, their values, runtime names.
${fn}() {
  local line
  local -a candidates run
  local out first=2
  run=(\${words[1]})
  if [[ \${words[1]:t} == npx ]]; then
    # npx [--no-install] ${program} WORD...: the installed ${program}, through npx --no-install (never a download).
    local i=2
    while [[ \${words[i]} == --no-install || \${words[i]} == --no ]]; do (( i++ )); done
    if [[ \${words[i]} != ${program} ]] || (( CURRENT <= i )); then _default; return; fi
    run=(npx --no-install ${program}); first=$(( i + 1 ))
  fi
  out="$(\${run} ${COMPLETE_COMMAND} "\${(@)words[first,CURRENT]}" 2>/dev/null)" || return 1
  for line in "\${(@f)out}"; do
    case "$line" in
      '') ;;
      :files) _files; return ;;
      :dirs) _files -/; return ;;
      *$'\\t'*) candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}") ;;
      *) candidates+=("\${line//:/\\\\:}") ;;
    esac
  done
  (( \${#candidates} )) && _describe -t values '${program}' candidates
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${program} npx
fi
`;
    case 'fish':
      return `# fish completion for ${program}; written by \`${program} completion fish\`
# Load it in this shell:  ${program} completion fish | source
# Load it in every shell: ${program} completion fish > ~/.config/fish/completions/${program}.fish
# The candidates come from \`${program} ${COMPLETE_COMMAND} WORD...\`: commands, options, their values, runtime names.
function __${fn.slice(1)}_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l run $words[1]
    set -e words[1]
    if test (basename -- $run) = npx
        # npx [--no-install] ${program} WORD...: the installed ${program}, through npx --no-install (never a download).
        while contains -- "$words[1]" --no-install --no
            set -e words[1]
        end
        set -e words[1]
        set run npx --no-install ${program}
    end
    for line in ($run ${COMPLETE_COMMAND} $words $current 2>/dev/null)
        switch $line
            case ':files'
                __fish_complete_path $current
            case ':dirs'
                __fish_complete_directories $current
            case '*'
                echo $line
        end
    end
end
complete -c ${program} -f -a '(__${fn.slice(1)}_complete)'
complete -c npx -n '__fish_seen_subcommand_from ${program}' -f -a '(__${fn.slice(1)}_complete)'
`;
  }
}
