// The top-level help names every environment variable the CLI reads and where the documentation
// is; `new` has a usage line that reads as the command is used. Through the real binary (issue 21).

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/cli/help-text';
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
