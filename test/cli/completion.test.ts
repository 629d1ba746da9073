// Shell completion through the built binary: the script of `kyma-fleet completion bash` is sourced
// in a real bash, its function is called as bash's programmable completion calls it (COMP_WORDS,
// COMP_CWORD, COMP_LINE, COMP_POINT), and the candidates it leaves in COMPREPLY are checked: every
// command, every option of every command, option values (choices, folders), runtime names. fish's
// own engine (complete -C) and zsh (the function with the completion system's builtins stubbed)
// where those shells are installed.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { BIN, REPO, runBinary, testProcessEnv } from '../helpers/fleet-fixture';

let tmp: string;
let binDir: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-completion-'));
  // `kyma-fleet` on the PATH, as npm installs it.
  binDir = path.join(tmp, 'bin');
  fs.mkdirSync(binDir);
  fs.writeFileSync(path.join(binDir, 'kyma-fleet'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * The candidates bash would offer for `line` (the cursor at its end). `words` as bash splits them
 * (COMP_WORDBREAKS splits at "="); by default the line split at blanks.
 */
function complete(line: string, cwd = REPO, words?: string[], registeredFor = 'kyma-fleet'): string[] {
  const split = words ?? [...line.split(/[ \t]+/).filter((w) => w !== ''), ...(/[ \t]$/.test(line) ? [''] : [])];
  const script = [
    'set -u',
    'source <(kyma-fleet completion bash)',
    `COMP_LINE=${shq(line)}`,
    'COMP_POINT=${#COMP_LINE}',
    `COMP_WORDS=(${split.map(shq).join(' ')})`,
    'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
    `complete -p ${registeredFor} >/dev/null`,
    '_kyma_fleet',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { cwd, encoding: 'utf8', env: { ...testProcessEnv(), PATH: `${binDir}:${process.env.PATH}` } });
  expect(r.stderr, `bash stderr for ${JSON.stringify(line)}`).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function commandPaths(cmd: Command, prefix: string[] = []): Array<{ path: string[]; cmd: Command }> {
  return cmd.commands.flatMap((c) => [{ path: [...prefix, c.name()], cmd: c }, ...commandPaths(c, [...prefix, c.name()])]);
}

describe('completion bash, through npx (the documented use in a fleet repository)', () => {
  it('completes `npx kyma-fleet` and `npx --no-install kyma-fleet` with the installed kyma-fleet, and nothing else of npx', () => {
    // A fleet repository: kyma-fleet installed in node_modules/.bin, as npm install puts it there.
    const repo = fs.mkdtempSync(path.join(tmp, 'fleet-repo-'));
    fs.mkdirSync(path.join(repo, 'node_modules', '.bin'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'package.json'), '{"name":"acme-config","private":true}\n');
    fs.symlinkSync(path.join(binDir, 'kyma-fleet'), path.join(repo, 'node_modules', '.bin', 'kyma-fleet'));
    fs.cpSync(path.join(REPO, 'fleet', 'runtimes'), path.join(repo, 'fleet', 'runtimes'), { recursive: true });
    expect(complete('npx --no-install kyma-fleet va', repo, undefined, 'npx')).toEqual(['validate']);
    expect(complete('npx kyma-fleet validate --output ', repo, undefined, 'npx')).toEqual(['text', 'json']);
    expect(complete('npx --no-install kyma-fleet explain acme-eu-prod-', repo, undefined, 'npx')).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2']);
    // Another package, or the package name itself being typed: bash's default completion, no kyma-fleet.
    expect(complete('npx cowsay va', repo, undefined, 'npx')).toEqual([]);
    expect(complete('npx kyma-fl', repo, undefined, 'npx')).toEqual([]);
  });
});

const fullProgram = await buildProgram({ out: () => {}, err: () => {}, env: {}, cwd: REPO }, () => {});

describe('completion bash', () => {
  const program = fullProgram;

  it('completes every command at the top level, and by prefix', () => {
    expect(complete('kyma-fleet ').sort()).toEqual(program.commands.map((c) => c.name()).sort());
    expect(complete('kyma-fleet va')).toEqual(['validate']);
    expect(complete('kyma-fleet apply ')).toEqual(['garden']);
    expect(complete('kyma-fleet new ')).toEqual(['runtime']);
  });

  it('completes every long option of every command, the global ones too', { timeout: 240_000 }, () => {
    for (const { path: words, cmd } of commandPaths(program)) {
      if (cmd.commands.length > 0) continue;
      const got = complete(`kyma-fleet ${words.join(' ')} --`);
      const want = [...cmd.options, ...program.options.filter((o) => o.long !== '--version')].map((o) => o.long!).concat('--help');
      expect(got.sort(), words.join(' ')).toEqual([...new Set(want)].sort());
    }
  });

  it('completes option values: choices, short options, --opt=value, and offers an option only once', () => {
    expect(complete('kyma-fleet validate --output ')).toEqual(['text', 'json']);
    expect(complete('kyma-fleet diff -o m')).toEqual(['markdown']);
    expect(complete('kyma-fleet validate --output=j', REPO, ['kyma-fleet', 'validate', '--output', '=', 'j'])).toEqual(['json']);
    expect(complete('kyma-fleet validate --output=', REPO, ['kyma-fleet', 'validate', '--output', '='])).toEqual(['=text', '=json']);
    expect(complete('kyma-fleet completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete('kyma-fleet validate --fleet fleet --fl')).toEqual([]);
    expect(complete('kyma-fleet new runtime x --label a=b --la')).toEqual(['--label']);
  });

  it('completes folders for <dir> values and runtime names of the fleet for explain and apply garden', () => {
    const ws = fs.mkdtempSync(path.join(tmp, 'ws-'));
    fs.mkdirSync(path.join(ws, 'fleet-a/runtimes'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'fleet-b'));
    fs.writeFileSync(path.join(ws, 'fleet-file.txt'), '');
    for (const n of ['alpha-1', 'alpha-2', 'beta']) fs.writeFileSync(path.join(ws, `fleet-a/runtimes/${n}.yaml`), '');
    expect(complete('kyma-fleet synth --fleet fle', ws).sort()).toEqual(['fleet-a', 'fleet-b']);
    expect(complete('kyma-fleet explain --fleet fleet-a al', ws)).toEqual(['alpha-1', 'alpha-2']);
    expect(complete('kyma-fleet apply garden --fleet=fleet-a ', ws, ['kyma-fleet', 'apply', 'garden', '--fleet', '=', 'fleet-a', ''])).toEqual(['alpha-1', 'alpha-2', 'beta']);
    expect(complete('kyma-fleet explain acme-eu-prod-', REPO)).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2']);
  });
});

const installed = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const shellEnv = (): NodeJS.ProcessEnv => ({ ...testProcessEnv(), PATH: `${binDir}:${process.env.PATH}` });

// fish's own completion engine (complete -C) with the script loaded.
describe.skipIf(!installed('fish'))('completion fish (skipped when fish is not installed)', () => {
  const fish = (line: string, cwd = REPO): string[] => {
    const r = spawnSync('fish', ['--no-config', '-c', `kyma-fleet completion fish | source; complete -C ${shq(line)}`], { cwd, encoding: 'utf8', env: shellEnv() });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter((l) => l !== '');
  };

  it('completes commands with descriptions, options, choices and runtime names', () => {
    expect(fish('kyma-fleet va')).toEqual(['validate\tcheck the fleet: YAML, schema, admission rules of the extensions, layering']);
    expect(fish('kyma-fleet validate --output ').sort()).toEqual(['json', 'text']);
    expect(fish('kyma-fleet validate --output=j')).toEqual(['--output=json']);
    expect(fish('kyma-fleet explain acme-eu-prod-').map((l) => l.split('\t')[0])).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2']);
    expect(fish('kyma-fleet synth --fl').map((l) => l.split('\t')[0])).toEqual(['--fleet']);
  });
});

// zsh's completion system needs a terminal; the script's function runs here with words/CURRENT
// set as zsh sets them and _describe/_files replaced by stubs that print what they are given.
describe.skipIf(!installed('zsh'))('completion zsh (skipped when zsh is not installed)', () => {
  const zsh = (words: string[], cwd = REPO): string[] => {
    const script = [
      'compdef() { :; }',
      '_describe() { print -l -- ${(P)${@[-1]}}; }',
      '_files() { print -- "_files $*"; }',
      'source <(kyma-fleet completion zsh)',
      `words=(${words.map(shq).join(' ')}); CURRENT=${words.length}`,
      '_kyma_fleet',
    ].join('\n');
    const r = spawnSync('zsh', ['-f', '-c', script], { cwd, encoding: 'utf8', env: shellEnv() });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter((l) => l !== '');
  };

  it('hands commands with descriptions, choices, runtime names and folders to zsh', () => {
    expect(zsh(['kyma-fleet', 'va'])).toEqual(['validate:check the fleet: YAML, schema, admission rules of the extensions, layering']);
    expect(zsh(['kyma-fleet', 'validate', '--output', ''])).toEqual(['text', 'json']);
    expect(zsh(['kyma-fleet', 'explain', 'acme-eu-p'])).toEqual(['acme-eu-prod-1:runtime', 'acme-eu-prod-2:runtime']);
    expect(zsh(['kyma-fleet', 'synth', '--fleet', ''])).toEqual(['_files -/']);
  });
});

describe('completion scripts', () => {
  it.each(['bash', 'zsh', 'fish'])('%s: printed by the binary, calling __complete of the program it completes', (shell) => {
    const r = runBinary(['completion', shell], REPO);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kyma-fleet __complete');
    expect(r.stdout).toMatch(shell === 'fish' ? /^complete -c kyma-fleet /m : shell === 'zsh' ? /^#compdef kyma-fleet npx$/m : /^complete -F _kyma_fleet kyma-fleet$/m);
  });

  it('bash accepts the script (bash -n)', () => {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-n'], { input: runBinary(['completion', 'bash'], REPO).stdout, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('an unknown shell is a usage error', () => {
    const r = runBinary(['completion', 'tcsh'], REPO);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.");
  });
});
