// The console blocks of docs/*.md stay true (issue 26, item 7), as test/readme.test.ts keeps the
// README's: every `$` command of a ```console block runs as shown, in the file's order, in a copy of
// the example fleet (fleet/, its committed dist/ and status dump), and prints the lines shown under
// it (`...` any lines, a trailing `…` any rest of a line). `kyma-fleet` and `npx --no-install
// kyma-fleet` run this checkout's bin/kyma-fleet.js. A block that cannot run here (it needs a live
// cluster, or state the prose builds up) is marked on the line before its fence with
// `<!-- console: not run by test/docs-console.test.ts: REASON -->`; the reason is required, and the
// list of such blocks is printed by the last test.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, testProcessEnv } from './helpers/fleet-fixture';
import { outputMismatch } from './helpers/console-output';

const DOCS = path.join(REPO, 'docs');
const SKIP = /^<!-- console: not run by test\/docs-console\.test\.ts: (.+) -->$/;

interface Step {
  readonly where: string;
  readonly command: string;
  readonly expected: string[];
}

/** The console blocks of one Markdown file (fences may be indented, as inside a list), split into steps. */
function consoleBlocks(file: string): { run: Step[][]; skipped: Array<{ where: string; reason: string }> } {
  const lines = fs.readFileSync(path.join(DOCS, file), 'utf8').split('\n');
  const run: Step[][] = [];
  const skipped: Array<{ where: string; reason: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```console\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    if (end < 0) throw new Error(`docs/${file}:${i + 1}: a console block that is never closed`);
    const where = `docs/${file}:${i + 1}`;
    const skip = SKIP.exec((lines[i - 1] ?? '').trim());
    if (skip) skipped.push({ where, reason: skip[1]! });
    else {
      const steps: Step[] = [];
      for (let k = i + 1; k < end; k++) {
        const line = lines[k]!.slice(indent);
        if (line.startsWith('$ ')) {
          let command = line.slice(2).replace(/\s+#[^'"`]*$/, '');
          const at = `docs/${file}:${k + 1}`;
          while (command.endsWith('\\') && k + 1 < end) command = `${command}\n${lines[++k]!.slice(indent)}`;
          steps.push({ where: at, command, expected: [] });
        } else {
          if (steps.length === 0) throw new Error(`docs/${file}:${k + 1}: output before the first $ command`);
          steps.at(-1)!.expected.push(line);
        }
      }
      run.push(steps);
    }
    i = end;
  }
  return { run, skipped };
}

const files = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();
const byFile = files.map((f) => ({ file: f, ...consoleBlocks(f) }));

describe('console blocks of docs/*.md', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
  });

  for (const { file, run } of byFile.filter((f) => f.run.length > 0)) {
    describe(`docs/${file}`, () => {
      let dir: string | undefined;
      const workspace = (): string => {
        if (dir) return dir;
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-docs-'));
        roots.push(dir);
        for (const d of ['fleet', 'dist', 'fleet-status-sample']) fs.cpSync(path.join(REPO, d), path.join(dir, d), { recursive: true });
        // `kyma-fleet` and `npx --no-install kyma-fleet` as a fleet repository has them.
        const bin = path.join(dir, '.bin');
        fs.mkdirSync(bin);
        fs.mkdirSync(path.join(dir, '.home'));
        const cli = `"${process.execPath}" "${path.join(REPO, 'bin/kyma-fleet.js')}"`;
        fs.writeFileSync(path.join(bin, 'kyma-fleet'), `#!/bin/sh\nexec ${cli} "$@"\n`, { mode: 0o755 });
        fs.writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\nif [ "$1" = --no-install ] && [ "$2" = kyma-fleet ]; then shift 2; exec ${cli} "$@"; fi\necho "docs test: only npx --no-install kyma-fleet is available" >&2; exit 127\n`, { mode: 0o755 });
        return dir;
      };
      for (const step of run.flat()) {
        it(`${step.where}: $ ${step.command.split('\n')[0]}`, () => {
          const cwd = workspace();
          const env = testProcessEnv();
          const r = spawnSync('bash', ['-c', step.command], {
            cwd,
            encoding: 'utf8',
            timeout: 120_000,
            env: { ...env, PATH: `${path.join(cwd, '.bin')}:${env.PATH}`, HOME: path.join(cwd, '.home'), XDG_CACHE_HOME: path.join(cwd, '.home', 'cache') },
          });
          expect(r.stderr, step.where).toBe('');
          expect(r.status, `${step.where}: exit code`).toBe(0);
          expect(outputMismatch(r.stdout, step.expected), step.where).toBeUndefined();
        });
      }
    });
  }

  it('runs at least the Day 2 steps of applying.md, and every block it does not run says why', () => {
    const ran = byFile.flatMap((f) => f.run.flat().map((s) => s.where));
    expect(ran.some((w) => w.startsWith('docs/applying.md:'))).toBe(true);
    const skipped = byFile.flatMap((f) => f.skipped);
    for (const s of skipped) expect(s.reason.length, s.where).toBeGreaterThan(20);
    // The blocks not run, for the record (vitest prints it with --reporter verbose).
    console.log(`console blocks not run:\n${skipped.map((s) => `  ${s.where}: ${s.reason}`).join('\n')}`);
  });
});
