// The README stays true for a newcomer: every command it shows in a `console` block runs as shown,
// in README order, in a copy of the example fleet (with its dist/ and status dump) laid out as the
// clone is (`node bin/kyma-fleet.js`), and prints the lines shown under it. Commands in `sh` blocks
// are the set-up commands; each is checked against what runs them (.ci/run; the install block is
// run line by line by test/package/ci-runner.test.ts). No command is a bare `npx kyma-fleet`, which
// would ask the public registry where kyma-fleet is not installed (issue 26). The `$schema` paths it
// names are the ones init writes. And the README stays short.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderFleetSchemas } from '../scripts/write-fleet-schemas';
import { scaffoldFleetRepo } from '../src/scaffold/templates';
import { REPO, testProcessEnv } from './helpers/fleet-fixture';
import { outputMismatch } from './helpers/console-output';

const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');

interface Block {
  readonly lang: string;
  /** 1-based line of the first line inside the fence. */
  readonly line: number;
  readonly lines: readonly string[];
}

/** The fenced code blocks of a Markdown text. */
export function fencedBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(open[1]!) && l.trim() === open[1]);
    if (end < 0) throw new Error(`README.md:${i + 1}: a code block that is never closed`);
    out.push({ lang: open[2]!, line: i + 2, lines: lines.slice(i + 1, end) });
    i = end;
  }
  return out;
}

interface Step {
  /** README.md:<line> of the `$` line. */
  readonly where: string;
  readonly command: string;
  /** Lines it prints: `...` stands for any lines, a line ending in `…` for any rest of that line. */
  readonly expected: readonly string[];
}

/** `$ command` lines (continued by a trailing backslash) and the output shown under each. */
export function consoleSteps(block: Block): Step[] {
  const steps: Array<{ where: string; command: string; expected: string[] }> = [];
  for (let i = 0; i < block.lines.length; i++) {
    const line = block.lines[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      const where = `README.md:${block.line + i}`;
      while (command.endsWith('\\') && i + 1 < block.lines.length) command = `${command}\n${block.lines[++i]!}`;
      steps.push({ where, command, expected: [] });
    } else {
      if (steps.length === 0) throw new Error(`README.md:${block.line + i}: output before the first $ command`);
      steps.at(-1)!.expected.push(line);
    }
  }
  return steps;
}


/** GitHub's anchors of a Markdown file's headings: lowercase, punctuation dropped, spaces to "-", repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const blocks = fencedBlocks(README);
const steps = blocks.filter((b) => b.lang === 'console').flatMap(consoleSteps);
const setupCommands = blocks
  .filter((b) => b.lang === 'sh')
  .flatMap((b) => b.lines.map((l, i) => ({ where: `README.md:${b.line + i}`, command: l.replace(/\s+#.*$/, '').trim() })))
  .filter((c) => c.command !== '' && !c.command.startsWith('#'));

describe('README.md', () => {
  it('reads as a page, not a log: at most about 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(260);
  });

  it('links only to files in the repository and headings that exist', () => {
    const text = README.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    const links = [...text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
    expect(links.length).toBeGreaterThan(10);
    const broken = links.filter((l) => {
      const [target, anchor] = l.split('#') as [string, string | undefined];
      const abs = target === '' ? path.join(REPO, 'README.md') : path.resolve(REPO, target);
      if (path.relative(REPO, abs).startsWith('..') || !fs.existsSync(abs)) return true;
      return anchor !== undefined && abs.endsWith('.md') && !headingAnchors(fs.readFileSync(abs, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it('shows the tour (validate, explain, synth, diff, status) as commands this test runs', () => {
    const shown = steps.map((s) => s.command.split(/\s+/).slice(0, 3).join(' '));
    for (const c of ['validate', 'explain', 'synth', 'diff', 'status']) expect(shown).toContain(`node bin/kyma-fleet.js ${c}`);
    expect(shown.indexOf('node bin/kyma-fleet.js validate')).toBeLessThan(shown.indexOf('node bin/kyma-fleet.js status'));
  });

  it('never runs a bare `npx kyma-fleet` (it asks the public registry where kyma-fleet is not installed), and says why', () => {
    const commands = [...steps.map((s) => s.command), ...setupCommands.map((c) => c.command)];
    expect(commands.filter((c) => /(^|[;&|(]\s*)npx (?!--no-install )[^|;&]*kyma-fleet/.test(c))).toEqual([]);
    expect(README).toMatch(/not registered there: a bare `npx kyma-fleet`\nwhere it is not installed asks the public registry, and whoever claims the name runs code/);
  });

  it('names the $schema paths init writes, for each folder of the fleet', () => {
    const said = /`# yaml-language-server: \$schema=<path>`, relative to the file \(as `init` writes it:\n`([^`]+)` in `fleet\.yaml`, `([^`]+)` in `groups\/` and `runtimes\/`\)/.exec(README);
    expect(said, 'README.md says which $schema path each fleet file gets').not.toBeNull();
    const files = scaffoldFleetRepo({ name: 'acme', kymaFleetVersion: '0.0.0', schemas: renderFleetSchemas(), newId: () => '00000000-0000-4000-8000-000000000001' });
    const fleetFiles = [...files].filter(([rel]) => rel.startsWith('fleet/'));
    expect(fleetFiles.length).toBeGreaterThan(2);
    for (const [rel, text] of fleetFiles) {
      const ref = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text.split('\n')[0]!)![1]!;
      const kind = (/^kind: (\w+)$/m.exec(text)![1]!).toLowerCase();
      const expected = rel === 'fleet/fleet.yaml' ? said![1]! : said![2]!.replace('<kind>', kind);
      expect(ref, rel).toBe(expected);
    }
  });

  it('the set-up commands are the ones CI and the package tests run', () => {
    const ciRun = fs.readFileSync(path.join(REPO, '.ci/run'), 'utf8').split('\n');
    const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    const packageTest = fs.readFileSync(path.join(REPO, 'test/package/install-tarball.test.ts'), 'utf8');
    const checks: Record<string, () => void> = {
      // .ci/run: `npm ci --no-audit --no-fund`, then `npm test` under CI=true.
      'npm ci': () => expect(ciRun.some((l) => /^npm ci\b/.test(l))).toBe(true),
      'npm test': () => expect(ciRun).toContain('npm test'),
      // `npm run pack` is scripts/pack.mjs after the build; the package tests run that script.
      'npm ci && npm run pack': () => {
        expect((JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.pack).toBe('npm run build && node scripts/pack.mjs');
        expect(packageTest).toContain("'scripts/pack.mjs'");
      },
    };
    // The rest of the install block: test/package/ci-runner.test.ts runs these lines as written.
    const ciRunner = fs.readFileSync(path.join(REPO, 'test/package/ci-runner.test.ts'), 'utf8');
    for (const line of [
      `node bin/kyma-fleet.js init ../my-fleet --kyma-fleet-from kyma-fleet-${version}.tgz`,
      'cd ../my-fleet && npm install',
      'npx --no-install kyma-fleet synth',
      'git init -b main && git add . && git commit -m "kyma-fleet init"',
    ]) {
      checks[line] = () => expect(ciRunner).toContain('README_INSTALL_BLOCK');
    }
    expect(setupCommands.length).toBeGreaterThan(0);
    for (const c of setupCommands) {
      expect(Object.keys(checks), `${c.where}: a command this test neither runs nor checks (put tour commands in a console block)`).toContain(c.command);
      checks[c.command]!();
    }
  });

  describe('every console command runs as shown, in order, in a copy of the example fleet', () => {
    let dir: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-readme-'));
      for (const d of ['fleet', 'dist', 'fleet-status-sample']) fs.cpSync(path.join(REPO, d), path.join(dir, d), { recursive: true });
      // Laid out as the clone: bin/kyma-fleet.js (which loads the clone's lib/).
      fs.symlinkSync(path.join(REPO, 'bin'), path.join(dir, 'bin'));
      fs.mkdirSync(path.join(dir, '.home'));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('has commands', () => expect(steps.length).toBeGreaterThan(5));

    it.each(steps.map((s) => [`${s.where}: $ ${s.command.split('\n')[0]}`, s] as const))('%s', (_name, step) => {
      const r = spawnSync('bash', ['-c', step.command], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        // npm's own files in the workspace, and never the network.
        env: { ...testProcessEnv(), HOME: path.join(dir, '.home'), npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_cache: path.join(dir, '.home', 'npm') },
      });
      expect(r.stderr, step.where).toBe('');
      expect(r.status, `${step.where}: exit code`).toBe(0);
      expect(outputMismatch(r.stdout, step.expected), step.where).toBeUndefined();
    });
  });
});

describe('the README command checker', () => {
  it('matches shown lines exactly, `...` as any lines and a trailing `…` as any rest of a line', () => {
    expect(outputMismatch('a\nb\n', ['a', 'b'])).toBeUndefined();
    expect(outputMismatch('a\nb\n', ['a'])).toMatch(/more output than shown/);
    expect(outputMismatch('a\nb\n', ['b'])).toMatch(/expected "b" as line 1/);
    expect(outputMismatch('a\nx\ny\nb\n', ['a', '...', 'b'])).toBeUndefined();
    expect(outputMismatch('a\nb\nc\n', ['...', 'b', '...'])).toBeUndefined();
    expect(outputMismatch('dist: written (8 runtimes, 3 files)\n', ['dist: written (8 runtimes, …'])).toBeUndefined();
    expect(outputMismatch('dist: written (9 runtimes, 3 files)\n', ['dist: written (8 runtimes, …'])).toMatch(/expected/);
    expect(outputMismatch('', [])).toBeUndefined();
  });

  it('reads `$` lines with their continuations and the output under them', () => {
    const [block] = fencedBlocks('x\n```console\n$ a \\\n  --b\nout\n$ c\n```\n');
    expect(consoleSteps(block!)).toEqual([
      { where: 'README.md:3', command: 'a \\\n  --b', expected: ['out'] },
      { where: 'README.md:6', command: 'c', expected: [] },
    ]);
  });
});
