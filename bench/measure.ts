// Whole-process measurement for the benchmark: wall time (ns clock around the spawn), CPU time and
// peak RSS from /usr/bin/time -v when present, else from the rss-probe preload (BENCH_NO_TIME=1
// forces the probe), plus the noise handling of perf-baseline.md: load average, `sync` and a short
// sleep between groups, never between the runs of a group.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface ProcessRun {
  wallMs: number;
  maxRssKB: number;
  userS: number;
  sysS: number;
  /** 1-minute load average just before the run. */
  load1: number;
  stdout: string;
  stderr: string;
}

export function spread(xs: readonly number[]): Spread {
  if (xs.length === 0) return { median: NaN, min: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]!, max: s[s.length - 1]! };
}

export const useTimeV = (): boolean => fs.existsSync('/usr/bin/time') && !process.env.BENCH_NO_TIME;
export const rssSource = (): string => (useTimeV() ? '/usr/bin/time -v' : 'rss-probe (process.resourceUsage)');

export interface MeasureOptions {
  cwd: string;
  /** Where /usr/bin/time -o writes (overwritten every run). */
  timeFile: string;
  /** The rss-probe preload (compiled). */
  probe: string;
  /** Exit codes that count as success (default [0]). */
  okCodes?: readonly number[];
  /** Added to (undefined: removed from) the environment of the run. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Runs `node <args>` as its own process and measures it. Throws when it exits with an unexpected code. */
export function measureNode(args: readonly string[], opts: MeasureOptions): ProcessRun {
  const time = useTimeV();
  const [cmd, argv] = time
    ? ['/usr/bin/time', ['-v', '-o', opts.timeFile, process.execPath, ...args]]
    : [process.execPath, ['-r', opts.probe, ...args]];
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const load1 = os.loadavg()[0]!;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd: opts.cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  if (!(opts.okCodes ?? [0]).includes(r.status ?? -1)) {
    throw new Error(`\`node ${args.join(' ')}\` exited with ${r.status ?? r.signal}:\n${(r.stderr ?? '').slice(0, 4000)}${(r.stdout ?? '').slice(0, 2000)}`);
  }
  const base = { wallMs, load1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  if (!time) {
    const m = /@@bench-rss (.*)/.exec(base.stderr);
    if (!m) throw new Error(`rss-probe reported nothing for \`node ${args.join(' ')}\``);
    return { ...base, ...(JSON.parse(m[1]!) as { maxRssKB: number; userS: number; sysS: number }), stderr: base.stderr.replace(/\n?@@bench-rss .*\n?/, '') };
  }
  const text = fs.readFileSync(opts.timeFile, 'utf8');
  const num = (re: RegExp): number => {
    const m = re.exec(text);
    if (!m) throw new Error(`/usr/bin/time -v output without ${re}:\n${text}`);
    return Number(m[1]);
  };
  return {
    ...base,
    maxRssKB: num(/Maximum resident set size \(kbytes\): (\d+)/),
    userS: num(/User time \(seconds\): ([\d.]+)/),
    sysS: num(/System time \(seconds\): ([\d.]+)/),
  };
}

export function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Lets the machine settle after outputs were deleted: flush, then drop the page cache when allowed
 * (root). ext4 without a journal (this VM's root filesystem) does not reuse a recently deleted inode
 * while its inode-table block is cached (recently_deleted() in fs/ext4/ialloc.c; a minute or more)
 * and scans past every such inode, so creating files right after deleting a big tree is far slower:
 * 50,000 files 0.9 s → 9 s, and 110,000 empty files 1.5 s → 27 s right after deleting a tree of that
 * size (Linux 6.18, 2026-11-22). Waiting is a poor substitute: 65 s after the delete it still took
 * 47 s, while dropping the cache brought it back to 1.8 s. Without the right to drop caches, the
 * bench waits 35 s and says that its file-writing runs may be slow.
 */
let warnedNoDrop = false;

export function settle(seconds = 3): void {
  spawnSync('sync');
  let dropped = false;
  try {
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3\n');
    dropped = true;
  } catch {
    // not root, or not Linux
    if (!warnedNoDrop) console.error('note: cannot drop the page cache (not root): runs that write files right after outputs were deleted may be slower (see settle() in bench/measure.ts)');
    warnedNoDrop = true;
  }
  sleepMs((dropped ? seconds : Math.max(seconds, 35)) * 1000);
}

export function removeTree(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Regular files under dir → inode number (relative paths), dot files included. */
export function fileInodes(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string, rel: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(abs, r);
      else if (e.isFile()) out.set(r, fs.statSync(abs).ino);
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return out;
}

/** Files of `after` that are new or were replaced (another inode) since `before`: what a run really wrote. */
export function newFiles(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const [rel, ino] of after) if (before.get(rel) !== ino) n++;
  return n;
}

/** Regular files under dir (recursively), dot files included. */
export function countFiles(dir: string): number {
  let n = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.isFile()) n++;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return n;
}

export const load1 = (): number => os.loadavg()[0]!;
