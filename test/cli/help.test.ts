// The top-level help names every exit code (from the one table, ExitCode), every environment
// variable the CLI reads and where the documentation is; every command has a usage line of one
// shape, `new` one that reads as it is used. Through the real binary (issue 21).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { ENVIRONMENT_VARIABLES, exitCodeTable } from '../../src/cli/help-text';
import { buildProgram, commandOf } from '../../src/cli/main';
import { ExitCode } from '../../src/lib/diagnostics';
import { BIN, REPO } from '../helpers/fleet-fixture';

/** Environment reads in src/ that the help leaves out on purpose, and why. */
const NOT_LISTED: Readonly<Record<string, string>> = {
  KYMA_FLEET_FAIL_PART: 'test-only fault injection (src/run/parallel/part.ts)',
  KYMA_FLEET_CRASH_AFTER_WRITES: 'test-only fault injection (src/write/dist-writer.ts)',
  KYMA_FLEET_DIR: 'read by the cdk8s app (src/main.ts, `npx cdk8s synth`), not the CLI',
  CDK8S_OUTDIR: 'set by the cdk8s CLI for the cdk8s app (src/main.ts), not the CLI',
  GARDEN_KUBECONFIG: 'a GitHub Actions expression in the workflow init writes (src/scaffold/templates.ts), not a read',
};

/** Names of the environment variables the sources read: process.env.X, env.X, env['X']. */
function environmentReads(): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(REPO, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.ts')) {
        const text = fs.readFileSync(path.join(REPO, child), 'utf8');
        for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) {
          const name = (m[1] ?? m[2])!;
          reads.set(name, [...(reads.get(name) ?? []), child]);
        }
      }
    }
  };
  for (const root of ['src', 'charts']) walk(root);
  return reads;
}

const cli = (args: string[]): string => execFileSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: 'utf8' });

describe('help', () => {
  it('the top-level help lists every environment variable the CLI reads, and only those', () => {
    const reads = environmentReads();
    expect(reads.size, 'the scan finds the reads').toBeGreaterThan(5);
    const listed = ENVIRONMENT_VARIABLES.map((v) => v.name);
    const unlisted = [...reads.keys()].filter((n) => !listed.includes(n) && !(n in NOT_LISTED)).map((n) => `${n} (read in ${reads.get(n)!.join(', ')})`);
    expect(unlisted, 'read in src/ but not in the help (src/cli/help-text.ts)').toEqual([]);
    expect(listed.filter((n) => !reads.has(n)), 'in the help but read nowhere').toEqual([]);
    expect(Object.keys(NOT_LISTED).filter((n) => !reads.has(n)), 'stale NOT_LISTED entries').toEqual([]);

    const help = cli(['--help']);
    const section = /\nEnvironment variables:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? '';
    for (const v of ENVIRONMENT_VARIABLES) expect(section, v.name).toMatch(new RegExp(`^  ${v.name} +${v.meaning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(section.split('\n')).toHaveLength(ENVIRONMENT_VARIABLES.length);
  });

  it('the top-level help points at documentation that exists; subcommand help does not repeat the block', () => {
    const help = cli(['--help']);
    const docs = /^Documentation: (\S+)$/m.exec(help)?.[1];
    expect(docs).toBe(path.join(REPO, 'docs', 'README.md'));
    expect(fs.existsSync(docs!)).toBe(true);
    expect(cli(['validate', '--help'])).not.toContain('Environment variables:');
  });

  it('new reads as it is used: kyma-fleet new <kind> [options] <name>', () => {
    const usage = (args: string[]): string => cli([...args, '--help']).split('\n')[0]!;
    expect(usage(['new'])).toBe('Usage: kyma-fleet new <kind> [options] <name>');
    expect(usage(['new', 'runtime'])).toBe('Usage: kyma-fleet new runtime [options] <name>');
    expect(cli(['help', 'new']).split('\n')[0]).toBe('Usage: kyma-fleet new <kind> [options] <name>');
  });
});

const fullProgram = await buildProgram({ out: () => {}, err: () => {}, env: {}, cwd: REPO }, () => {});

describe('exit codes and usage lines', () => {
  const program = fullProgram;

  it('the top-level help lists every exit code of the one table (ExitCode) with its meaning, in order; docs/cli.md the same', () => {
    const table = exitCodeTable();
    expect(table.map((r) => r.code)).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
    const section = /\nExit codes:\n([\s\S]*?)\n\n/.exec(cli(['--help']))?.[1] ?? '';
    expect(section.split('\n')).toEqual(table.map((r) => expect.stringMatching(new RegExp(`^  ${r.code} +${escape(r.meaning)}$`))));
    const docs = fs.readFileSync(path.join(REPO, 'docs/cli.md'), 'utf8');
    const rows = [...docs.matchAll(/^\| (\d+) \| `(\w+)` \| (.*) \|$/gm)].map((m) => ({ code: Number(m[1]), name: m[2], meaning: m[3] }));
    expect(rows).toEqual(table);
  });

  it('every command has a usage line of one shape: kyma-fleet <command path> [options] <arguments>', () => {
    const walk = (cmd: Command, words: string[]): string[][] => cmd.commands.flatMap((c) => [[...words, c.name()], ...walk(c, [...words, c.name()])]);
    const shape = /^Usage: kyma-fleet( [a-z]+(-[a-z]+)*| <[a-z]+>)* \[options\]( <[a-z]+(-[a-z]+)*(\.\.\.)?>| \[[a-z]+(-[a-z]+)*(\.\.\.)?\])*$/;
    expect(cli(['--help']).split('\n')[0]).toBe('Usage: kyma-fleet <command> [options]');
    for (const words of walk(program, [])) {
      const usage = cli([...words, '--help']).split('\n')[0]!;
      expect(usage, words.join(' ')).toMatch(shape);
      expect(usage.startsWith(`Usage: kyma-fleet ${words.join(' ')} `), usage).toBe(true);
      // A command with subcommands names them where they go, as a placeholder (`apply <target> [options]`)
      // or, when it has one, by its name; never commander's `[command]` at the end.
      const cmd = words.reduce<Command>((c, w) => c.commands.find((x) => x.name() === w)!, program);
      const sub = cmd.commands.length === 1 ? `|${cmd.commands[0]!.name()}` : '';
      if (cmd.commands.length > 0) expect(usage, words.join(' ')).toMatch(new RegExp(`^Usage: kyma-fleet ${words.join(' ')} (<[a-z]+>${sub}) \\[options\\]`));
    }
  });
});

describe('docs/cli.md', () => {
  const program = fullProgram;
  const docs = fs.readFileSync(path.join(REPO, 'docs/cli.md'), 'utf8');
  const leaves = (cmd: Command, words: string[]): string[][] =>
    cmd.commands.flatMap((c) => (c.commands.length > 0 ? leaves(c, [...words, c.name()]) : [[...words, c.name()]]));

  it('has a section per command with its usage line and every one of its options', () => {
    for (const words of leaves(program, [])) {
      const title = `## \`kyma-fleet ${words.join(' ')}\``;
      const at = docs.indexOf(`\n${title}\n`);
      expect(at, title).toBeGreaterThan(0);
      const section = docs.slice(at + 1).split(/\n## /)[0]!;
      const usage = cli([...words, '--help']).split('\n')[0]!.replace(/^Usage: /, '');
      expect(section, `${title}: usage line`).toContain(`\`${usage}\``);
      const cmd = words.reduce<Command>((c, w) => c.commands.find((x) => x.name() === w)!, program);
      for (const o of cmd.options) expect(section, `${title}: ${o.flags}`).toContain(`| \`${o.flags.replace(/ <[^>]+>$/, '')}`);
    }
    for (const o of program.options.filter((x) => x.long !== '--version')) expect(docs, o.flags).toContain(`**\`${o.flags}\`**`);
  });
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a run of one command loads only that command', () => {
  const streams = { out: () => {}, err: () => {}, env: {}, cwd: REPO };
  const full = fullProgram;

  it.each([
    [['synth'], 'synth'],
    [['-q', 'synth', '--fleet', 'validate'], 'synth'],
    [['--quiet', 'import', 'runtimes'], 'import'],
    [['help', 'synth'], undefined],
    [['--help'], undefined],
    [['--version'], undefined],
    [['synht'], undefined],
    [[], undefined],
  ])('%j runs %s', (words, command) => {
    expect(commandOf(['node', 'kyma-fleet', ...words])).toBe(command);
  });

  it('every command, registered alone, is the one the full program has (usage, options, subcommands)', async () => {
    const describe = (c: Command): string => [c.helpInformation(), ...c.commands.map(describe)].join('\n');
    expect(full.commands.length).toBeGreaterThan(10);
    for (const c of full.commands) {
      const alone = await buildProgram(streams, () => {}, () => {}, c.name());
      expect(alone.commands.map((x) => x.name())).toEqual([c.name()]);
      expect(describe(alone.commands[0]!)).toBe(describe(c));
      expect(commandOf(['node', 'kyma-fleet', c.name()])).toBe(c.name());
    }
  });
});

