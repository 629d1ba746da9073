// Builds Go wrapper modules (real upstream programs pinned by a go.mod in this repo) into a tool cache
// outside the repo and reuses them while their sources are unchanged. Shared by every test tool that
// comes from Go (the test cluster here; other harnesses may build their own modules with it).
//
// Cache layout: ${KYMA_FLEET_TOOL_CACHE:-$HOME/.cache/kyma-fleet-tools}/<tool>-<hash>/<binary>, where
// <hash> covers the module's go.mod, go.sum and .go sources, the build flags and the Go version. Never
// derived from XDG_CACHE_HOME: the test run points that at a temporary folder. A build goes into a
// temporary folder beside its final place and is renamed into place when complete, under a lock folder
// (<tool>-<hash>.lock) so two processes never build the same tool at once; a lock whose holder died is
// taken over. Builds only use the Go module proxy (GOTOOLCHAIN=local: no toolchain download).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidAlive } from './processes';

export interface GoToolSpec {
  /** Name of the cache folder prefix, e.g. `kubernetes`. */
  name: string;
  /** Folder of the wrapper Go module (holds go.mod and go.sum). */
  moduleDir: string;
  /** Binaries to build: binary name -> package path relative to the module, e.g. `./kube-apiserver`. */
  binaries: Record<string, string>;
  /** Extra `-ldflags` (e.g. version stamps); part of the cache key. */
  ldflags?: string;
  /** Extra environment for `go build` (e.g. CGO_ENABLED); part of the cache key. */
  env?: Record<string, string>;
}

export interface BuiltGoTool {
  /** Folder holding the binaries. */
  dir: string;
  /** Binary name -> absolute path. */
  binaries: Record<string, string>;
  /** True when this call built it, false when it was reused from the cache. */
  built: boolean;
  /** Wall time of the build in seconds (0 when reused). */
  seconds: number;
}

/** The root of the tool cache (never under XDG_CACHE_HOME, see the header). */
export function toolCacheRoot(): string {
  const fromEnv = process.env.KYMA_FLEET_TOOL_CACHE;
  return fromEnv ? path.resolve(fromEnv) : path.join(os.homedir(), '.cache', 'kyma-fleet-tools');
}

/**
 * The `go` command to use: $KYMA_FLEET_GO when set (and then only that), else `go` on PATH, else the
 * toolchain at /usr/local/go; undefined without Go.
 */
export function findGo(): string | undefined {
  const candidates = process.env.KYMA_FLEET_GO ? [process.env.KYMA_FLEET_GO] : ['go', '/usr/local/go/bin/go'];
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['env', 'GOVERSION'], { encoding: 'utf8', env: goEnv() });
    if (probe.status === 0 && probe.stdout.trim().startsWith('go')) return candidate;
  }
  return undefined;
}

/** `go version`-style string of a go command, e.g. `go1.26.8`. */
function goVersion(go: string): string {
  const probe = spawnSync(go, ['env', 'GOVERSION'], { encoding: 'utf8', env: goEnv() });
  if (probe.status !== 0) throw new Error(`${go} env GOVERSION failed: ${probe.stderr.trim()}`);
  return probe.stdout.trim();
}

/**
 * The environment for go commands: the caller's, with the build cache pinned to the user's real one
 * (Go would otherwise follow XDG_CACHE_HOME into the test run's temporary cache home and lose it) and
 * no toolchain switching.
 */
export function goEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOCACHE: process.env.GOCACHE || path.join(os.homedir(), '.cache', 'go-build'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=readonly -buildvcs=false',
    ...extra,
  };
}

function listGoSources(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const relPath = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listGoSources(dir, relPath));
    else if (entry.name.endsWith('.go') || entry.name === 'go.mod' || entry.name === 'go.sum') out.push(relPath);
  }
  return out;
}

/** The cache key of a tool: its module's files, build flags and the Go version. */
export function goToolHash(spec: GoToolSpec, version: string): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ version, binaries: spec.binaries, ldflags: spec.ldflags ?? '', env: spec.env ?? {} }));
  for (const rel of listGoSources(spec.moduleDir).sort()) {
    hash.update(`\0${rel}\0`);
    hash.update(fs.readFileSync(path.join(spec.moduleDir, rel)));
  }
  return hash.digest('hex').slice(0, 16);
}

function isComplete(dir: string, spec: GoToolSpec): boolean {
  return Object.keys(spec.binaries).every((bin) => {
    try {
      return fs.statSync(path.join(dir, bin)).isFile();
    } catch {
      return false;
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lock folder, waiting while a live process holds it; takes over a dead holder's lock. */
async function acquireLock(lockDir: string, timeoutMs: number): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      // just created by another process, its pid not written yet: wait
    }
    if (Number.isInteger(holder) && holder > 0 && !pidAlive(holder)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lockDir} (held by pid ${holder})`);
    await sleep(500);
  }
}

function runGoBuild(go: string, spec: GoToolSpec, outDir: string, logFile: string): Promise<void> {
  const args = ['build', '-trimpath', '-ldflags', `-s -w ${spec.ldflags ?? ''}`.trim(), '-o', `${outDir}${path.sep}`,
    ...Object.values(spec.binaries)];
  return new Promise((resolve, reject) => {
    const log = fs.openSync(logFile, 'w');
    const child = spawn(go, args, { cwd: spec.moduleDir, env: goEnv(spec.env), stdio: ['ignore', log, log] });
    const onSignal = () => child.kill('SIGKILL');
    process.once('exit', onSignal);
    child.on('error', (err) => {
      fs.closeSync(log);
      reject(err);
    });
    child.on('close', (code, signal) => {
      process.removeListener('exit', onSignal);
      fs.closeSync(log);
      if (code === 0) return resolve();
      const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
      return reject(new Error(`go ${args.join(' ')} (in ${spec.moduleDir}) failed with ${code ?? signal}:\n${tail}`));
    });
  });
}

/**
 * Returns the tool's binaries from the cache, building them first when missing. Throws when Go is
 * missing or the build fails (the error carries the end of the build log).
 */
export async function ensureGoTool(spec: GoToolSpec, opts: { go?: string; log?: (line: string) => void; lockTimeoutMs?: number } = {}): Promise<BuiltGoTool> {
  const go = opts.go ?? findGo();
  if (!go) throw new Error('Go is not installed (no `go` on PATH and no /usr/local/go/bin/go)');
  const root = toolCacheRoot();
  const key = `${spec.name}-${goToolHash(spec, goVersion(go))}`;
  const dir = path.join(root, key);
  const result = (built: boolean, seconds: number): BuiltGoTool => ({
    dir,
    binaries: Object.fromEntries(Object.keys(spec.binaries).map((b) => [b, path.join(dir, b)])),
    built,
    seconds,
  });
  if (isComplete(dir, spec)) return result(false, 0);

  fs.mkdirSync(root, { recursive: true });
  const release = await acquireLock(path.join(root, `${key}.lock`), opts.lockTimeoutMs ?? 60 * 60_000);
  try {
    if (isComplete(dir, spec)) return result(false, 0); // another process built it while we waited
    const tmp = fs.mkdtempSync(path.join(root, `.tmp-${key}-`));
    try {
      opts.log?.(`building ${Object.keys(spec.binaries).join(', ')} (${key}) with ${go}; log: ${path.join(tmp, 'build.log')}`);
      const started = Date.now();
      await runGoBuild(go, spec, tmp, path.join(tmp, 'build.log'));
      const seconds = (Date.now() - started) / 1000;
      fs.writeFileSync(path.join(tmp, 'build-info.json'), `${JSON.stringify({ key, go: goVersion(go), seconds, builtAt: new Date().toISOString() }, null, 2)}\n`);
      fs.rmSync(dir, { recursive: true, force: true }); // an incomplete leftover
      fs.renameSync(tmp, dir);
      opts.log?.(`built ${key} in ${seconds.toFixed(0)} s`);
      return result(true, seconds);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    release();
  }
}
