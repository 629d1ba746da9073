// Test fixture: a throw-away workspace holding a fleet folder (by default a copy of the example
// fleet) that a test mutates, plus ways to run the CLI on it in-process or as the real binary.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main';
import { PROJECT_ROOT } from '../cluster/paths';

/** The project root (also when this file runs compiled, from lib/: the bench). */
export const REPO = PROJECT_ROOT;
export const EXAMPLE_FLEET = path.join(REPO, 'fleet');
export const BIN = path.join(REPO, 'bin/kyma-fleet.js');
/** Fixed evaluation time so Falco version expiry is reproducible. */
export const NOW = '2026-11-22T00:00:00Z';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Non-empty stderr lines. */
  readonly errLines: string[];
}

export class FleetFixture {
  private constructor(readonly dir: string) {}

  /** A workspace with a copy of the example fleet at <dir>/fleet. */
  static example(): FleetFixture {
    const f = new FleetFixture(fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-')));
    fs.cpSync(EXAMPLE_FLEET, path.join(f.dir, 'fleet'), { recursive: true });
    return f;
  }

  get fleetDir(): string {
    return path.join(this.dir, 'fleet');
  }

  path(rel: string): string {
    return path.join(this.fleetDir, rel);
  }

  read(rel: string): string {
    return fs.readFileSync(this.path(rel), 'utf8');
  }

  write(rel: string, content: string | Uint8Array): this {
    fs.mkdirSync(path.dirname(this.path(rel)), { recursive: true });
    fs.writeFileSync(this.path(rel), content);
    return this;
  }

  /** Replaces `from` (must occur) with `to` in a fleet file. */
  replace(rel: string, from: string, to: string): this {
    const text = this.read(rel);
    if (!text.includes(from)) throw new Error(`fixture: ${JSON.stringify(from)} not found in ${rel}`);
    return this.write(rel, text.replace(from, to));
  }

  append(rel: string, text: string): this {
    return this.write(rel, this.read(rel) + text);
  }

  remove(rel: string): this {
    fs.rmSync(this.path(rel), { recursive: true, force: true });
    return this;
  }

  symlink(rel: string, target: string): this {
    fs.mkdirSync(path.dirname(this.path(rel)), { recursive: true });
    fs.symlinkSync(target, this.path(rel));
    return this;
  }

  /** Runs the CLI in-process with this workspace as the current folder. */
  async run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
    let stdout = '';
    let stderr = '';
    const code = await main(['node', 'kyma-fleet', ...args], {
      out: (t) => void (stdout += t),
      err: (t) => void (stderr += t),
      // The run's cache home, as a spawned binary gets it (testProcessEnv), unless the test sets one.
      env: { ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}), ...env },
      cwd: this.dir,
    });
    return { code, stdout, stderr, errLines: stderr.split('\n').filter((l) => l !== '') };
  }

  validate(...extra: string[]): Promise<RunResult> {
    return this.run(['validate', '--now', NOW, ...extra]);
  }

  /** Runs the real binary (a child process) in this workspace. */
  runBinary(args: string[], env: NodeJS.ProcessEnv = {}): RunResult {
    return runBinary(args, this.dir, env);
  }

  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * `fleet/<rel>:<line>:<col>` of the value after `key:` on the n-th line (1-based) containing `key:`
 * in an example fleet file, so tests about provenance do not hard-code line numbers.
 */
export function exampleLocation(rel: string, key: string, occurrence = 1): string {
  const lines = fs.readFileSync(path.join(EXAMPLE_FLEET, rel), 'utf8').split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i]!.indexOf(`${key}:`);
    if (at >= 0 && ++seen === occurrence) {
      const after = lines[i]!.slice(at + key.length + 1);
      return `fleet/${rel}:${i + 1}:${at + key.length + 2 + (after.length - after.trimStart().length)}`;
    }
  }
  throw new Error(`${key}: not found ${occurrence} times in ${rel}`);
}

/**
 * The environment a spawned binary starts from: PATH, and the run's own cache home (see
 * global-setup.ts), nothing else of the developer's environment.
 */
export function testProcessEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}) };
}

export function runBinary(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...testProcessEnv(), ...env },
    timeout: 60_000,
  });
  const stderr = r.stderr ?? '';
  return { code: r.status ?? (r.signal ? 128 : -1), stdout: r.stdout ?? '', stderr, errLines: stderr.split('\n').filter((l) => l !== '') };
}
