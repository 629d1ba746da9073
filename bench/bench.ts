// Benchmark of `kyma-fleet validate` on synthetic fleets, so regressions and non-linear hot spots
// show up as numbers: whole-process wall time, CPU and peak RSS (the figures users see), plus an
// in-process breakdown by phase (load / validate / resolve / resolved rules) to see where time goes.
//
//   npm run bench -- [--sizes 1000,10000] [--runs 3] [--keep] [--seed 42]
//
// Per size: generate .bench/fleet-<n>/, run the CLI once as warm-up and `runs` times measured
// (/usr/bin/time -v when present, else the rss-probe preload; BENCH_NO_TIME=1 forces the probe),
// then a child process times the phases (first pass cold and reported apart, then `runs` passes).
// Prints a markdown table and writes .bench/results.json. Fleets are deleted unless --keep.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadFleet } from '../src/fleet/load';
import { resolveFleet } from '../src/fleet/resolve';
import { checkResolved } from '../src/fleet/resolved-rules';
import { validateFleet } from '../src/fleet/validate';
import { formatDiagnostic, hasErrors, normalizeDiagnostics } from '../src/lib/diagnostics';
import { type FleetStats, generateFleet, NOW, REPO_ROOT, selfCheck } from './generate-fleet';

const BENCH_DIR = path.join(REPO_ROOT, '.bench');
const PHASES = ['load', 'validate', 'resolve', 'resolvedRules', 'normalize'] as const;
type Phase = (typeof PHASES)[number];
type PhaseTimes = Record<Phase | 'total', number>;

interface Spread {
  median: number;
  min: number;
  max: number;
}

interface ProcessRun {
  wallMs: number;
  maxRssKB: number;
  userS: number;
  sysS: number;
}

function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]!, max: s[s.length - 1]! };
}

/** One whole-process `kyma-fleet validate` run: wall time by the ns clock around the spawn, RSS and CPU from time -v or the probe. */
function runValidate(fleetDir: string): ProcessRun {
  const cli = ['bin/kyma-fleet.js', 'validate', '--fleet', path.relative(REPO_ROOT, fleetDir), '--now', NOW];
  const useTime = fs.existsSync('/usr/bin/time') && !process.env.BENCH_NO_TIME;
  const timeFile = path.join(BENCH_DIR, 'time-v.txt');
  const [cmd, args] = useTime
    ? ['/usr/bin/time', ['-v', '-o', timeFile, process.execPath, ...cli]]
    : [process.execPath, ['-r', path.join(__dirname, 'rss-probe.js'), ...cli]];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`validate exited with ${r.status}:\n${(r.stderr ?? '').slice(0, 4000)}`);
  if (!useTime) return { wallMs, ...JSON.parse(/@@bench-rss (.*)/.exec(r.stderr)![1]!) };
  const text = fs.readFileSync(timeFile, 'utf8');
  const num = (re: RegExp): number => Number(re.exec(text)![1]);
  return {
    wallMs,
    maxRssKB: num(/Maximum resident set size \(kbytes\): (\d+)/),
    userS: num(/User time \(seconds\): ([\d.]+)/),
    sysS: num(/System time \(seconds\): ([\d.]+)/),
  };
}

/** In the phases child: the steps of checkFleet (src/fleet/check.ts), timed one by one. */
function timePhases(fleetDir: string): PhaseTimes & { runtimes: number } {
  const now = new Date(NOW);
  const t: number[] = [performance.now()];
  const loaded = loadFleet({ fleetDir, cwd: REPO_ROOT });
  t.push(performance.now());
  const validated = validateFleet(loaded, { now });
  t.push(performance.now());
  const model = validated.model;
  if (!model) throw new Error('fleet did not validate: no model');
  const resolved = resolveFleet(model);
  t.push(performance.now());
  const crossLayer = checkResolved(model, resolved.runtimes);
  t.push(performance.now());
  const diagnostics = normalizeDiagnostics([...validated.diagnostics, ...resolved.diagnostics, ...crossLayer]);
  t.push(performance.now());
  if (hasErrors(diagnostics)) throw new Error(`fleet has errors:\n${diagnostics.slice(0, 20).map(formatDiagnostic).join('\n')}`);
  const out = { total: t[t.length - 1]! - t[0]!, runtimes: model.runtimes.length } as PhaseTimes & { runtimes: number };
  PHASES.forEach((p, i) => (out[p] = t[i + 1]! - t[i]!));
  return out;
}

function phasesChild(fleetDir: string, runs: number): void {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const passes = [];
  for (let i = 0; i <= runs; i++) {
    gc();
    passes.push(timePhases(fleetDir));
  }
  process.stdout.write(JSON.stringify({ passes, maxRssKB: process.resourceUsage().maxRSS }));
}

interface SizeResult {
  n: number;
  fleet: FleetStats & { generateMs: number };
  process: { runs: ProcessRun[]; wallMs: Spread; maxRssMB: Spread; cpuS: Spread };
  phases: { cold: PhaseTimes; warmMedianMs: PhaseTimes; warmRuns: number };
  perRuntimeUs: { wall: number; inProcess: number } & Record<Phase, number>;
}

function benchSize(n: number, runs: number, seed: number, keep: boolean): SizeResult {
  const dir = path.join(BENCH_DIR, `fleet-${n}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const g0 = performance.now();
  const stats = generateFleet(dir, n, seed);
  const generateMs = performance.now() - g0;
  spawnSync('sync');
  console.error(`N=${n}: generated ${stats.files} files (${(stats.bytes / 1e6).toFixed(1)} MB) in ${(generateMs / 1000).toFixed(1)} s; measuring...`);

  runValidate(dir); // warm-up: page cache, code cache
  const procRuns = Array.from({ length: runs }, () => runValidate(dir));

  const child = spawnSync(process.execPath, ['--expose-gc', __filename, '--phases', dir, '--runs', String(runs)], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (child.status !== 0) throw new Error(`phases child failed:\n${child.stderr}`);
  const { passes } = JSON.parse(child.stdout) as { passes: (PhaseTimes & { runtimes: number })[] };
  if (passes[0]!.runtimes !== n) throw new Error(`expected ${n} runtimes, the model has ${passes[0]!.runtimes}`);
  const warm = passes.slice(1);
  const keys = [...PHASES, 'total'] as const;
  const warmMedianMs = Object.fromEntries(keys.map((k) => [k, spread(warm.map((w) => w[k])).median])) as PhaseTimes;

  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  const wallMs = spread(procRuns.map((r) => r.wallMs));
  const perPhase = Object.fromEntries(PHASES.map((p) => [p, (warmMedianMs[p] * 1000) / n])) as Record<Phase, number>;
  return {
    n,
    fleet: { ...stats, generateMs },
    process: {
      runs: procRuns,
      wallMs,
      maxRssMB: spread(procRuns.map((r) => r.maxRssKB / 1024)),
      cpuS: spread(procRuns.map((r) => r.userS + r.sysS)),
    },
    phases: { cold: passes[0]!, warmMedianMs, warmRuns: warm.length },
    perRuntimeUs: { wall: (wallMs.median * 1000) / n, inProcess: (warmMedianMs.total * 1000) / n, ...perPhase },
  };
}

function table(results: readonly SizeResult[], runs: number): string {
  const f = (x: number, d = 0): string => x.toFixed(d);
  const lines = [
    `| N | runtimes/s | wall s, median (min..max), ${runs} runs | cpu s | peak RSS MB | load ms | validate ms | resolve ms | resolved-rules ms | in-process ms (cold) | µs/runtime wall | µs/runtime in-process |`,
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const w = r.process.wallMs;
    const p = r.phases.warmMedianMs;
    lines.push(
      `| ${r.n} | ${f(r.n / (w.median / 1000))} | ${f(w.median / 1000, 2)} (${f(w.min / 1000, 2)}..${f(w.max / 1000, 2)}) | ` +
        `${f(r.process.cpuS.median, 2)} | ${f(r.process.maxRssMB.median)} | ${f(p.load)} | ${f(p.validate)} | ${f(p.resolve)} | ` +
        `${f(p.resolvedRules)} | ${f(p.total)} (${f(r.phases.cold.total)}) | ${f(r.perRuntimeUs.wall)} | ${f(r.perRuntimeUs.inProcess)} |`,
    );
  }
  const first = results[0];
  for (const r of results.slice(1)) {
    const ratio = (k: keyof SizeResult['perRuntimeUs']): string => (r.perRuntimeUs[k] / first!.perRuntimeUs[k]).toFixed(2);
    lines.push(
      '',
      `Per-runtime cost N=${r.n} / N=${first!.n} (1.00 = linear): wall ${ratio('wall')}, in-process ${ratio('inProcess')} ` +
        `(load ${ratio('load')}, validate ${ratio('validate')}, resolve ${ratio('resolve')}, resolved-rules ${ratio('resolvedRules')}).`,
    );
  }
  lines.push('', 'Phase columns: in-process medians of warm passes (ajv compiled, JIT warm); "cold" is the first pass of a fresh process.');
  return lines.join('\n');
}

function main(): void {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000' },
      runs: { type: 'string', default: '3' },
      seed: { type: 'string', default: '42' },
      keep: { type: 'boolean', default: false },
      phases: { type: 'string' }, // internal: the phases child
    },
  });
  const runs = Number(values.runs);
  const seed = Number(values.seed);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer (got ${values.runs})`);
  if (values.phases) return phasesChild(values.phases, runs);

  const sizes = values.sizes!.split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers (got ${values.sizes})`);
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const loadBefore = os.loadavg()[0]!;
  selfCheck(seed);
  const results = sizes.map((n) => benchSize(n, runs, seed, values.keep!));
  const meta = {
    node: process.version,
    cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    rssSource: fs.existsSync('/usr/bin/time') && !process.env.BENCH_NO_TIME ? '/usr/bin/time -v' : 'rss-probe (process.resourceUsage)',
    command: `node bin/kyma-fleet.js validate --fleet .bench/fleet-<n> --now ${NOW}`,
    seed,
    runs,
    loadAverage1m: { before: loadBefore, after: os.loadavg()[0]! },
  };
  fs.writeFileSync(path.join(BENCH_DIR, 'results.json'), JSON.stringify({ meta, results }, null, 2) + '\n');
  console.log(`kyma-fleet validate, ${meta.node}, ${meta.cpus}, RSS via ${meta.rssSource}\n`);
  console.log(table(results, runs));
  const { before, after } = meta.loadAverage1m;
  const busy = Math.max(before, after) > 0.5 ? ': other processes were busy, treat wall times as noisy (cpu s is steadier)' : '';
  console.log(`\n1-min load average before/after: ${before.toFixed(2)} / ${after.toFixed(2)}${busy}`);
  console.log(`\nwritten: ${path.relative(process.cwd(), path.join(BENCH_DIR, 'results.json'))}`);
}

if (require.main === module) main();
