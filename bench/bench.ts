// Benchmark of kyma-fleet on seeded synthetic fleets (issues 3 and 5): every scenario is timed as a
// WHOLE PROCESS (wall by the ns clock around the spawn; CPU and peak RSS from /usr/bin/time -v, else
// the rss-probe preload; BENCH_NO_TIME=1 forces the probe), 1 uncounted warm-up + `runs` runs, and
// compared with a plain-cdk8s baseline of the same objects measured in the same run.
//
//   npm run bench -- [--sizes 1000,10000[,100000]] [--runs 3]
//                    [--scenarios validate,cold,noop,one-changed,committed-dist,pr-check,diff-wide,baseline,baseline-naive,delivery,delivery-argocd]
//                    [--seed 42] [--keep] [--quiet-wait SECONDS] [--delivery-runtimes 100[,1000]]
//                    [--pr-check-at 100000]   (the pull-request check measured at that size: prCheckAtScale)
//                    [--delivery-artifacts per-runtime,whole-source] [--before-ref REF]
//
// Scenarios (per fleet size N):
//   validate        `kyma-fleet validate` without a previous render, empty parse cache (+ an
//                   in-process breakdown by phase, uncached, from a child process)
//   cold            `kyma-fleet synth` into an empty out dir (a fresh one per run; validation included)
//   noop            `kyma-fleet synth` again, nothing changed (dist/ exists and is current)
//   one-changed     runtime #7's file changed (a registry-cache garbageCollection.ttl, alternating
//                   701h/702h/703h so every run is a real change; for seed 42 that adds a docker.io
//                   cache override; a volume size change would be refused as immutable, E_IMMUTABLE_FIELD),
//                   then `kyma-fleet synth`
//   committed-dist  `kyma-fleet synth` over that same, current dist/ with an empty cache folder (a
//                   fresh CI runner with dist/ committed): everything is parsed, rendered and
//                   compared, nothing is written
//   pr-check        the pull-request job on a fresh runner (issue 28): `kyma-fleet check --base BASE
//                   --markdown --output-file` (validate, synth --check and diff in one process) in a
//                   fresh copy (new inodes and file times) of a fleet whose runtime #7 changed, its
//                   re-synthesized dist/ and the base branch's dist/ (round 0's cold one), with an
//                   empty cache folder; exit 0, one runtime changed against the base
//   diff-wide       the pull-request comment of a fleet-wide change (issue 29): `kyma-fleet diff --output
//                   markdown --output-file FULL` of a copy of the fleet whose fleet.yaml adds the module
//                   cap-operator to spec.defaults.modules (every runtime's Kyma CR: N of N runtimes,
//                   class module-installed) and sets the default docker.io cache's garbageCollection.ttl
//                   168h -> 336h (Shoot, Runtime CR and cache config of every runtime with registry-cache
//                   on, ~95%: class shoot-reconcile; bench/diff-wide.ts applyWideChange, applied once,
//                   untimed), against a copy of round 0's cold dist/ of the unchanged fleet; an empty
//                   cache folder and a fresh output folder per run; exit 0, and the comment must name
//                   0 new, N changed, 0 removed runtimes and exactly those two consequence counts, in
//                   under 60,000 characters (its size is reported); diff must leave dist/ unchanged
//   diff-wide-before  with --before-ref REF only: the same diff by REF's build (extracted with `git
//                   archive` into .bench/before/, node_modules linked, its own `npm run build`, untimed,
//                   once per bench run), against a dist/ that build synthesized (untimed, round 0) from
//                   the same unchanged fleet: a dist/ records the code that wrote it, so each build
//                   diffs against its own cold output. Both run in cold's rounds: diff-wide / cold and
//                   diff-wide-before / cold are paired per round ("today's ratio" of issue 29 is the
//                   second, with REF = the commit before the consequence work); --before-ref needs
//                   --scenarios to include cold and diff-wide
//   baseline        plain cdk8s (bench/plain-cdk8s.ts --mode folder): one App, one Chart per runtime,
//                   ApiObjects, app.synth() with FOLDER_PER_CHART_FILE_PER_RESOURCE, over the objects
//                   kyma-fleet renders (exported once, untimed, by bench/export-objects.ts)
//   baseline-naive  the same with the default FILE_PER_CHART; quadratic, so only for N <= 1000
//   floor-write     the floor of a cold synth's writing (bench/floor.ts): the bytes of the dist/ that
//                   round 0's synth wrote (packed once, untimed), written into a new folder in the
//                   same layout on as many threads as the synth uses, with nothing else done
//   floor-tojson    the floor of its cdk8s part: the baseline's objects, one small App and Chart per
//                   runtime and target, `chart.toJson()` on the same threads, no YAML, no files
//                   (both timed in-process; the table adds up their wall times, and their CPU over
//                   the threads, a lower bound of a cold synth's wall time)
//   delivery        after the sizes, once per --delivery-runtimes: the real kustomize-controller
//                   delivering a generated fleet (bench/flux-delivery.ts, needs Go), with
//                   gitops.flux.artifacts per-runtime and whole-source side by side: time to all
//                   Ready, a one-runtime change, bytes fetched and Kustomizations woken per revision
//   delivery-argocd once per --delivery-runtimes: argo-cd v3.2.12's generators make the Applications
//                   of a generated fleet and its repo-server code answers a cold start and two
//                   one-runtime commits (bench/argocd-revision.ts, needs Go): manifest generations,
//                   seconds, bytes, with manifest-generate-paths honoured and ignored
// cold, pr-check, diff-wide(-before), baseline, the floors, noop and one-changed run in rounds (cold, pr-check, diff-wide, ...; again; ...),
// so cold / baseline, noop / cold and one-changed / cold are medians of per-round ratios (paired
// A/B, as perf-baseline.md recommends). noop and one-changed work on the dist/ of round 0's cold
// run with that run's cache (KYMA_FLEET_CACHE_DIR); every cold run gets an empty cache folder.
//
// Noise handling (perf-baseline.md): the 1-min load average is recorded per group and a busy machine
// is flagged (--quiet-wait S waits up to S seconds before each group for it to drop); outputs are
// deleted only between groups, followed by `sync` and a 3 s sleep; every run that writes gets a
// fresh output folder (deleting a big tree right before a run slows it 2-3x).
// The compiled program is copied to .bench/build/ first, so a rebuild of lib/ during a long run
// cannot mix two versions into one table.
//
// Writes .bench/results.json and .bench/results.md (the printed table; with diff-wide also a table of
// its rounds: cold, diff-wide and diff-wide-before seconds, both ratios and the comment sizes). Fleets,
// outputs and .bench/before/ are deleted at the end unless --keep.

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { parseDocument, isSeq } from 'yaml';
import { loadFleet } from '../src/load/load';
import { resolveFleet } from '../src/resolve/resolve';
import { checkResolved } from '../src/resolve/resolved-rules';
import { validateFleet } from '../src/validate/validate';
import { formatDiagnostic, hasErrors, normalizeDiagnostics } from '../src/lib/diagnostics';
import { INDEX_FILE } from '../src/lib/dist-index';
import { type FleetStats, generateFleet, hashTree, NOW, REPO_ROOT, selfCheck } from './generate-fleet';
import { packTree } from './floor';
import { applyWideChange, type BeforeBuild, buildBefore, checkWideComment, COMMENT_MAX_CHARS, parseDiffComment, statFingerprint, type WideChange, wideExpectation } from './diff-wide';
import { countFiles, fileInodes, load1, measureNode, newFiles, type ProcessRun, removeTree, rssSource, settle, sleepMs, type Spread, spread } from './measure';

const BENCH_DIR = path.join(REPO_ROOT, '.bench');
const SCENARIOS = ['validate', 'cold', 'noop', 'one-changed', 'committed-dist', 'pr-check', 'diff-wide', 'diff-wide-before', 'baseline', 'baseline-naive', 'floor-write', 'floor-tojson', 'delivery', 'delivery-argocd'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** What --scenarios may name: diff-wide-before is added by --before-ref (it needs that build). */
const SELECTABLE: readonly Scenario[] = SCENARIOS.filter((s) => s !== 'diff-wide-before');
const PRODUCT: readonly Scenario[] = ['validate', 'cold', 'noop', 'one-changed'];
/** FILE_PER_CHART is O(N²): 3.5 s at 1,000 runtimes, 340 s at 10,000 (perf-baseline.md). */
const NAIVE_MAX_N = 1000;
/** Above this 1-min load average (2 cores) other processes compete with the bench. */
const BUSY_LOAD = 0.5;
const ONE_CHANGED_INDEX = 7;
const TTL_VALUES = ['701h', '702h', '703h'];

// Issue-5 targets ("Done means").
const TARGET = { coldOverBaseline: 0.25, incrementalOverCold: 0.1, rssMB10k: 512, scale100kOver10k: 12, prCheckOverCold: 0.2, prCheckRssMB100k: 1024 } as const;

const LABEL: Record<Scenario, string> = {
  validate: 'validate',
  cold: 'cold synth',
  noop: 'no-op synth',
  'one-changed': 'one-changed synth',
  'committed-dist': 'synth over a committed dist/, empty cache',
  'pr-check': 'pull-request check, fresh runner',
  'diff-wide': 'diff --output markdown, fleet-wide change',
  'diff-wide-before': 'the same diff, build of --before-ref',
  baseline: 'baseline: plain cdk8s, folder per chart',
  'baseline-naive': 'baseline-naive: plain cdk8s, FILE_PER_CHART',
  'floor-write': 'floor: write the same dist/ bytes, nothing else',
  'floor-tojson': 'floor: cdk8s chart.toJson() of the same objects',
  delivery: 'delivery by the real kustomize-controller',
  'delivery-argocd': 'what a revision costs argo-cd\'s repo-server',
};
/** Threads of the floors: as many as a cold synth's parts (workerCount in src/run/parallel/pool.ts). */
const FLOOR_THREADS = Math.min(os.availableParallelism(), 4);

// ---------------------------------------------------------------------------------------------
// The validate phase breakdown (in a child process, as before)

const PHASES = ['load', 'validate', 'resolve', 'resolvedRules', 'normalize'] as const;
type Phase = (typeof PHASES)[number];
type PhaseTimes = Record<Phase | 'total', number>;

/** In the phases child: the steps of checkFleet (src/run/check.ts), timed one by one. */
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

interface PhaseResult {
  cold: PhaseTimes;
  warmMedianMs: PhaseTimes;
  warmRuns: number;
}

function measurePhases(build: Build, fleetDir: string, n: number, runs: number): PhaseResult {
  const child = spawnSync(process.execPath, ['--expose-gc', build.benchJs, '--phases', fleetDir, '--runs', String(runs)], {
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
  return { cold: passes[0]!, warmMedianMs, warmRuns: warm.length };
}

// ---------------------------------------------------------------------------------------------
// The program under test, frozen for the whole bench run

interface Build {
  root: string;
  cli: string;
  benchJs: string;
  plainCdk8s: string;
  floor: string;
  exportObjects: string;
  probe: string;
  /** sha256 of the copied lib/ (first 12 hex). */
  libHash: string;
  git: { head: string; dirty: string[] };
}

function snapshotBuild(): Build {
  const root = path.join(BENCH_DIR, 'build');
  removeTree(root);
  fs.mkdirSync(root, { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'lib'), path.join(root, 'lib'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const git = (args: string[]): string => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const rel = (p: string): string => path.relative(REPO_ROOT, p);
  return {
    root,
    cli: rel(path.join(root, 'bin', 'kyma-fleet.js')),
    benchJs: path.join(root, 'lib', 'bench', 'bench.js'),
    plainCdk8s: rel(path.join(root, 'lib', 'bench', 'plain-cdk8s.js')),
    floor: rel(path.join(root, 'lib', 'bench', 'floor.js')),
    exportObjects: path.join(root, 'lib', 'bench', 'export-objects.js'),
    probe: path.join(root, 'lib', 'bench', 'rss-probe.js'),
    libHash: hashTree(path.join(root, 'lib')).slice(0, 12),
    git: { head: git(['rev-parse', '--short', 'HEAD']), dirty: git(['status', '--porcelain', '--', 'src', 'charts', 'imports', 'bin']).split('\n').filter(Boolean) },
  };
}

// ---------------------------------------------------------------------------------------------
// Groups of runs

interface RunRecord {
  wallMs: number;
  cpuS: number;
  maxRssKB: number;
  userS: number;
  sysS: number;
  load1: number;
  /** Files the run really wrote (new inodes in dist/ for noop and one-changed; else the CLI summary). */
  filesWritten: number | null;
  /** "M files" of the CLI summary (files with new or changed content; kept and moved files are not counted). */
  cliFilesWritten: number | null;
  /** First line of the command's stdout (the CLI's summary, or plain-cdk8s's JSON). */
  output: string;
  /** The job's own measures of the run (diff-wide: markdownChars, fullDiffBytes, consequenceSection). */
  metrics?: Record<string, number>;
}

interface GroupResult {
  scenario: Scenario;
  n: number;
  /** Groups with the same round ran interleaved, run i of one next to run i of the others (paired). */
  round: string;
  command: string;
  warmup?: RunRecord;
  runs: RunRecord[];
  /** Why the job stopped early (its runs so far are kept). */
  failed?: string;
  wallMs: Spread;
  cpuS: Spread;
  maxRssMB: Spread;
  /** As the CLI reports it (median over runs); for the baselines, files in the output folder. */
  filesWritten: number | null;
  /** Files in the output folder of the last run (dist/ index included), when the scenario writes one. */
  filesInOutput?: number;
  load1: { before: number; after: number };
  busy: boolean;
  /** plain-cdk8s's own phase timings (median ms). */
  inProcessMs?: Record<string, number>;
  notes: string[];
}

interface Job {
  scenario: Scenario;
  /** i = 0 is the warm-up. */
  args: (i: number) => string[];
  before?: (i: number) => void;
  check?: (run: ProcessRun, i: number) => void;
  /** Output folder of run i, for counting files once at the end. */
  outDir?: (i: number) => string;
  /** Environment changes for run i. */
  env?: (i: number) => Readonly<Record<string, string | undefined>>;
  /** Files the run really wrote (after it, untimed); default: the CLI summary. */
  filesWritten?: (run: ProcessRun, i: number) => number | null;
  okCodes?: readonly number[];
  /** The job's own measures of run i (after it, untimed). */
  metrics?: (run: ProcessRun, i: number) => Record<string, number>;
}

/** CLI summary → files written: "…: written (N runtimes, M files…)" or "…: up to date, nothing written …". */
export function parseFilesWritten(stdout: string): number | null {
  if (/nothing written/.test(stdout)) return 0;
  const m = /written \([^)]*?\b(\d+) files?\b/.exec(stdout);
  return m ? Number(m[1]) : null;
}

/** --quiet-wait: before a group, wait up to this many seconds for the load average to drop. */
let quietWaitS = 0;

function waitQuiet(): void {
  if (quietWaitS <= 0 || load1() <= BUSY_LOAD) return;
  const until = Date.now() + quietWaitS * 1000;
  console.error(`  load ${load1().toFixed(2)} > ${BUSY_LOAD}: waiting up to ${quietWaitS} s for a quieter machine...`);
  while (Date.now() < until && load1() > BUSY_LOAD) sleepMs(5000);
}

/** Runs the jobs interleaved (A B A B …): warm-up round 0 uncounted, then rounds 1..runs. */
function runInterleaved(build: Build, n: number, runs: number, jobs: readonly Job[]): GroupResult[] {
  waitQuiet();
  const before = load1();
  const records: RunRecord[][] = jobs.map(() => []);
  const stdouts: string[][] = jobs.map(() => []);
  // A failing run (say, out of memory at 100,000 runtimes) is recorded and ends that job; the others go on.
  const failed: Array<string | undefined> = jobs.map(() => undefined);
  for (let i = 0; i <= runs; i++) {
    jobs.forEach((job, j) => {
      if (failed[j]) return;
      let r: ProcessRun;
      try {
        job.before?.(i);
        spawnSync('sync'); // dirty pages of the previous run are not this run's cost
        r = measureNode(job.args(i), { cwd: REPO_ROOT, timeFile: path.join(BENCH_DIR, 'time-v.txt'), probe: build.probe, okCodes: job.okCodes, env: job.env?.(i) });
        job.check?.(r, i);
      } catch (e) {
        const text = e instanceof Error ? e.message : String(e);
        failed[j] = /heap out of memory|Allocation failed/.test(text)
          ? `out of memory (V8 heap) in ${i === 0 ? 'the warm-up' : `run ${i}`}`
          : `${i === 0 ? 'warm-up' : `run ${i}`}: ${text.split('\n').slice(0, 3).join(' ').slice(0, 300)}`;
        console.error(`  N=${n} ${job.scenario} FAILED: ${failed[j]}\n${text.slice(0, 2000)}`);
        return;
      }
      const notKymaFleet = job.scenario.startsWith('baseline') || job.scenario.startsWith('floor');
      records[j]!.push({
        wallMs: r.wallMs,
        cpuS: r.userS + r.sysS,
        maxRssKB: r.maxRssKB,
        userS: r.userS,
        sysS: r.sysS,
        load1: r.load1,
        filesWritten: notKymaFleet ? null : job.filesWritten ? job.filesWritten(r, i) : parseFilesWritten(r.stdout),
        cliFilesWritten: notKymaFleet ? null : parseFilesWritten(r.stdout),
        output: r.stdout.split('\n')[0] ?? '',
        ...(job.metrics ? { metrics: job.metrics(r, i) } : {}),
      });
      stdouts[j]!.push(r.stdout);
      console.error(
        `  N=${n} ${job.scenario}${i === 0 ? ' (warm-up)' : ` run ${i}/${runs}`}: ${(r.wallMs / 1000).toFixed(2)} s, ` +
          `cpu ${(r.userS + r.sysS).toFixed(2)} s, ${(r.maxRssKB / 1024).toFixed(0)} MB, load ${r.load1.toFixed(2)}`,
      );
    });
  }
  const after = load1();
  return jobs.map((job, j) => {
    const [warmup, ...measured] = records[j]!;
    const notes: string[] = [];
    let filesInOutput: number | undefined;
    if (job.outDir && !failed[j]) filesInOutput = countFiles(job.outDir(runs));
    let filesWritten: number | null = null;
    if (job.scenario.startsWith('baseline') || job.scenario === 'floor-write') filesWritten = filesInOutput ?? null;
    else if (job.scenario === 'floor-tojson') filesWritten = 0;
    else {
      const fw = measured.map((r) => r.filesWritten).filter((x): x is number => x !== null);
      filesWritten = fw.length === measured.length ? spread(fw).median : null;
      if (filesWritten === null && job.scenario === 'cold' && filesInOutput !== undefined) {
        filesWritten = filesInOutput;
        notes.push('files written counted in the output folder (the CLI summary did not say)');
      }
    }
    let inProcessMs: Record<string, number> | undefined;
    const inProcessKeys = job.scenario.startsWith('baseline') ? ['readMs', 'buildMs', 'synthMs'] : job.scenario.startsWith('floor') ? ['ms', 'cpuMs'] : [];
    if (inProcessKeys.length > 0 && measured.length > 0) {
      const reports = stdouts[j]!.slice(1).map((s) => JSON.parse(s.split('\n')[0]!) as Record<string, number>);
      inProcessMs = Object.fromEntries(inProcessKeys.map((k) => [k, spread(reports.map((r) => r[k]!)).median]));
    }
    const busy = Math.max(before, after, ...measured.map((r) => r.load1)) > BUSY_LOAD;
    return {
      scenario: job.scenario,
      n,
      round: jobs.map((x) => x.scenario).join('+'),
      command: `${Object.entries(job.env?.(1) ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v} `).join('')}node ${job.args(1).join(' ')}`,
      warmup,
      runs: measured,
      failed: failed[j],
      wallMs: spread(measured.map((r) => r.wallMs)),
      cpuS: spread(measured.map((r) => r.cpuS)),
      maxRssMB: spread(measured.map((r) => r.maxRssKB / 1024)),
      filesWritten,
      filesInOutput,
      load1: { before, after },
      busy,
      inProcessMs,
      notes,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// one-changed: a deterministic, valid, real change of one runtime file

interface Change {
  file: string;
  describe: string;
  apply: (i: number) => void;
  restore: () => void;
}

function prepareChange(fleetDir: string): Change {
  const dir = path.join(fleetDir, 'runtimes');
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const suffix = `-${String(ONE_CHANGED_INDEX).padStart(6, '0')}.yaml`;
  const name = names.find((f) => f.endsWith(suffix)) ?? names[Math.min(ONE_CHANGED_INDEX, names.length - 1)]!;
  const file = path.join(dir, name);
  const original = fs.readFileSync(file, 'utf8');
  const probe = parseDocument(original);
  if (probe.getIn(['spec', 'extensions', 'registry-cache', 'enabled']) === false) {
    throw new Error(`one-changed: ${name} disables registry-cache; the ttl change would not be a change of the output`);
  }
  const caches = probe.getIn(['spec', 'extensions', 'registry-cache', 'caches']);
  const hasCache = isSeq(caches) && caches.items.length > 0;
  let current = hasCache ? String(probe.getIn(['spec', 'extensions', 'registry-cache', 'caches', 0, 'garbageCollection', 'ttl']) ?? '') : '';
  return {
    file,
    describe: hasCache
      ? `${path.relative(REPO_ROOT, file)}: spec.extensions.registry-cache.caches[0].garbageCollection.ttl alternating ${TTL_VALUES.join('/')}`
      : `${path.relative(REPO_ROOT, file)}: a docker.io entry in spec.extensions.registry-cache.caches (merged by upstream) with garbageCollection.ttl alternating ${TTL_VALUES.join('/')}`,
    apply: () => {
      const value = TTL_VALUES.find((v) => v !== current)!;
      const doc = parseDocument(original);
      if (hasCache) doc.setIn(['spec', 'extensions', 'registry-cache', 'caches', 0, 'garbageCollection', 'ttl'], value);
      else doc.setIn(['spec', 'extensions', 'registry-cache', 'caches'], doc.createNode([{ upstream: 'docker.io', garbageCollection: { ttl: value } }]));
      fs.writeFileSync(file, doc.toString({ lineWidth: 0 }));
      current = value;
    },
    restore: () => fs.writeFileSync(file, original),
  };
}

// ---------------------------------------------------------------------------------------------
// One fleet size

/** noop and one-changed need the dist/ of round 0's cold run; without it they would measure a cold run. */
function requireDist(dist: string): void {
  if (!fs.existsSync(path.join(dist, INDEX_FILE))) throw new Error(`no dist/ to synth again at ${dist} (the run that writes it failed)`);
}

/**
 * The pull-request check on a fresh runner (issue 28): prepared in the warm-up round from round 0's
 * cold dist/ (the base branch) and a copy of the fleet with runtime #7 changed, re-synthesized into
 * a dist/ of its own (untimed); every run gets fresh copies of the three (new inodes and file times,
 * as a clone and `git archive` give) and an empty cache folder.
 */
function prCheckJob(build: Build, fleetDir: string, outRoot: string, baseDist: string): Job {
  const rel = (p: string): string => path.relative(REPO_ROOT, p);
  const template = path.join(outRoot, 'pr-template');
  const run = (i: number): string => path.join(outRoot, `pr-${i}`);
  return {
    scenario: 'pr-check',
    before: (i) => {
      // Prepared once (the marker says it is complete); a half-made template from a failed run is made anew.
      if (!fs.existsSync(path.join(template, 'ready'))) {
        removeTree(template);
        requireDist(baseDist);
        fs.cpSync(fleetDir, path.join(template, 'fleet'), { recursive: true });
        prepareChange(path.join(template, 'fleet')).apply(0);
        fs.cpSync(baseDist, path.join(template, 'base'), { recursive: true });
        fs.cpSync(baseDist, path.join(template, 'dist'), { recursive: true });
        const synth = spawnSync(process.execPath, [build.cli, 'synth', '--fleet', rel(path.join(template, 'fleet')), '--out', rel(path.join(template, 'dist')), '--now', NOW], {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          env: { ...process.env, KYMA_FLEET_CACHE_DIR: path.join(outRoot, 'cache-pr-template') },
        });
        if (synth.status !== 0) throw new Error(`pr-check: synth of the pull request's fleet failed:\n${synth.stderr}`);
        if (!fs.existsSync(path.join(template, 'dist'))) throw new Error(`pr-check: synth of the pull request's fleet left no dist/: ${synth.stdout}${synth.stderr}`);
        fs.writeFileSync(path.join(template, 'ready'), '');
      }
      for (const part of ['fleet', 'dist', 'base']) fs.cpSync(path.join(template, part), path.join(run(i), part), { recursive: true });
    },
    args: (i) => [build.cli, 'check', '--fleet', rel(path.join(run(i), 'fleet')), '--out', rel(path.join(run(i), 'dist')), '--base', rel(path.join(run(i), 'base')), '--markdown', rel(path.join(run(i), 'diff.md')), '--output-file', rel(path.join(run(i), 'full.diff')), '--now', NOW],
    env: (i) => ({ KYMA_FLEET_CACHE_DIR: path.join(outRoot, `cache-pr-${i}`), KYMA_FLEET_NO_CACHE: undefined }),
    filesWritten: () => 0,
    check: (r) => {
      if (!/up to date/.test(r.stdout) || !/against \S+: \d+ added, [1-9]\d* changed/.test(r.stdout)) throw new Error(`pr-check: unexpected report: ${r.stdout}`);
    },
  };
}

/**
 * diff-wide, and diff-wide-before with --before-ref (issue 29): `kyma-fleet diff --output markdown
 * --output-file` of a fleet-wide change (bench/diff-wide.ts applyWideChange) against a dist/ of the
 * unchanged fleet. Prepared in the warm-up round, untimed: a copy of the fleet with the change; for
 * diff-wide a copy of round 0's cold dist/ (noop and one-changed write into that one later); for
 * diff-wide-before a dist/ synthesized by the --before-ref build from the same, still unchanged
 * fleet (a dist/ records the code that wrote it: each build diffs against its own cold output, so
 * both do the same work). Must come before one-changed in the round (it edits the fleet in round 0).
 * Every run gets its own folder (the complete diff, the comment) and an empty cache folder, as a
 * fresh runner has. The fleet and dist/ are shared by the runs: diff writes nothing there, and with
 * an empty cache folder it hashes all of dist/ against its index whatever the file times
 * (src/run/plan.ts planCheck), so fresh copies would measure the same; the last run checks that
 * dist/ is unchanged.
 */
function diffWideJobs(build: Build, before: BeforeBuild | undefined, fleetDir: string, outRoot: string, baseDist: string, runs: number, onChange: (w: WideChange) => void): Job[] {
  const rel = (p: string): string => path.relative(REPO_ROOT, p);
  const wideDir = path.join(outRoot, 'wide');
  const fleet = path.join(wideDir, 'fleet');
  let wide: WideChange | undefined;
  const prepareFleet = (): WideChange => {
    if (wide) return wide;
    removeTree(fleet);
    fs.cpSync(fleetDir, fleet, { recursive: true });
    wide = applyWideChange(fleet);
    onChange(wide);
    return wide;
  };
  const make = (scenario: 'diff-wide' | 'diff-wide-before', cli: string, prepareDist: (dist: string) => void, withConsequences: boolean): Job => {
    const dist = path.join(wideDir, `dist-${scenario}`);
    const runDir = (i: number): string => path.join(outRoot, `${scenario}-${i}`);
    let fingerprint: string | undefined;
    return {
      scenario,
      before: (i) => {
        prepareFleet();
        if (fingerprint === undefined) {
          removeTree(dist);
          prepareDist(dist);
          if (!fs.existsSync(path.join(dist, INDEX_FILE))) throw new Error(`${scenario}: no dist/ index at ${dist}`);
          fingerprint = statFingerprint(dist);
        }
        removeTree(runDir(i));
        fs.mkdirSync(runDir(i), { recursive: true });
      },
      args: (i) => [cli, 'diff', '--fleet', rel(fleet), '--out', rel(dist), '--output', 'markdown', '--output-file', rel(path.join(runDir(i), 'full.diff')), '--now', NOW],
      env: (i) => ({ KYMA_FLEET_CACHE_DIR: path.join(runDir(i), 'cache'), KYMA_FLEET_NO_CACHE: undefined }),
      filesWritten: () => 0,
      check: (r, i) => {
        fs.writeFileSync(path.join(runDir(i), 'comment.md'), r.stdout);
        checkWideComment(r.stdout, wideExpectation(wide!, withConsequences));
        const full = path.join(runDir(i), 'full.diff');
        if (!fs.existsSync(full) || fs.statSync(full).size === 0) throw new Error(`${scenario}: --output-file ${rel(full)} is missing or empty`);
        if (i === runs && statFingerprint(dist) !== fingerprint) throw new Error(`${scenario}: diff changed files of ${rel(dist)}`);
      },
      metrics: (r, i) => ({
        markdownChars: r.stdout.length,
        fullDiffBytes: fs.statSync(path.join(runDir(i), 'full.diff')).size,
        consequenceSection: parseDiffComment(r.stdout).hasConsequenceSection ? 1 : 0,
      }),
    };
  };
  const jobs = [make('diff-wide', build.cli, (dist) => {
    requireDist(baseDist);
    fs.cpSync(baseDist, dist, { recursive: true });
  }, true)];
  if (before) {
    jobs.push(make('diff-wide-before', rel(before.cli), (dist) => {
      const synth = spawnSync(process.execPath, [before.cli, 'synth', '--fleet', rel(fleetDir), '--out', rel(dist), '--now', NOW], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        maxBuffer: 1 << 28,
        env: { ...process.env, KYMA_FLEET_CACHE_DIR: path.join(wideDir, 'cache-before-synth'), KYMA_FLEET_NO_CACHE: undefined },
      });
      if (synth.status !== 0) throw new Error(`diff-wide-before: the cold synth of the unchanged fleet by ${before.ref} failed (${synth.status ?? synth.signal}):\n${synth.stderr}${synth.stdout}`);
    }, false));
  }
  return jobs;
}

interface SizeResult {
  n: number;
  fleet: FleetStats & { generateMs: number };
  objects?: { charts: number; objects: number; bytes: number; exportMs: number };
  oneChanged?: string;
  /** diff-wide's change (bench/diff-wide.ts applyWideChange). */
  wideChange?: WideChange;
  groups: GroupResult[];
  phases?: PhaseResult;
}

/** --pr-check-at N: the pull-request check measured at one large size (prCheckAtScale). */
export interface AtScaleResult {
  n: number;
  /** The cold synth of the fleet into base/: one run, the denominator of the check's ratio. */
  cold: { wallMs: number; cpuS: number; maxRssKB: number };
  warmup: { wallMs: number; cpuS: number; maxRssKB: number };
  checks: Array<{ wallMs: number; cpuS: number; maxRssKB: number }>;
  wallMs: Spread;
  maxRssMB: Spread;
}

/**
 * --pr-check-at N (issue 28): the pull-request check measured at a size where the pr-check scenario's
 * copies take too long (at 100,000 runtimes a tree holds 1.3 million files, and the scenario copies
 * three trees per run). The generated fleet is synthesized cold into base/ (timed once: the ratio's
 * denominator); the pull request's dist/ is a hard-linked copy of base/ (`cp -al`: a synth never
 * writes into a file it keeps, it writes new files and renames them), with one-changed's change,
 * synthesized with an empty cache over the record committed in it (untimed). Then the check runs a
 * warm-up and `runs` times over the same trees, each with an empty cache folder and its own output
 * folder: with an empty cache the committed record has no file stamps (file times do not matter),
 * and the check writes nothing into the trees.
 */
function prCheckAtScale(build: Build, n: number, runs: number, seed: number): AtScaleResult {
  const root = path.join(BENCH_DIR, `pr-at-${n}`);
  const rel = (p: string): string => path.relative(REPO_ROOT, p);
  const [fleet, base, dist] = ['fleet', 'base', 'dist'].map((d) => path.join(root, d)) as [string, string, string];
  removeTree(root);
  fs.mkdirSync(root, { recursive: true });
  generateFleet(fleet, n, seed);
  const timeFile = path.join(BENCH_DIR, 'time-v.txt');
  const run = (args: string[], cache: string): ProcessRun => measureNode(args, { cwd: REPO_ROOT, timeFile, probe: build.probe, env: { KYMA_FLEET_CACHE_DIR: cache, KYMA_FLEET_NO_CACHE: undefined } });
  const record = (r: ProcessRun) => ({ wallMs: r.wallMs, cpuS: r.userS + r.sysS, maxRssKB: r.maxRssKB });
  console.error(`N=${n} pr-check-at: cold synth into ${rel(base)}...`);
  spawnSync('sync');
  const cold = record(run([build.cli, 'synth', '--fleet', rel(fleet), '--out', rel(base), '--now', NOW], path.join(root, 'cache-base')));
  console.error(`N=${n} pr-check-at: cold synth ${(cold.wallMs / 1000).toFixed(1)} s, ${(cold.maxRssKB / 1024).toFixed(0)} MB`);
  const linked = spawnSync('cp', ['-al', base, dist]);
  if (linked.status !== 0) fs.cpSync(base, dist, { recursive: true });
  prepareChange(fleet).apply(0);
  const synth = spawnSync(process.execPath, [build.cli, 'synth', '--fleet', rel(fleet), '--out', rel(dist), '--now', NOW], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, KYMA_FLEET_CACHE_DIR: path.join(root, 'cache-dist') } });
  if (synth.status !== 0) throw new Error(`pr-check-at: synth of the pull request's fleet failed:\n${synth.stderr.slice(0, 2000)}`);
  const checks: AtScaleResult['checks'] = [];
  let warmup: AtScaleResult['warmup'] | undefined;
  for (let i = 0; i <= runs; i++) {
    const out = path.join(root, `check-${i}`);
    fs.mkdirSync(out, { recursive: true });
    spawnSync('sync');
    const r = run([build.cli, 'check', '--fleet', rel(fleet), '--out', rel(dist), '--base', rel(base), '--markdown', rel(path.join(out, 'diff.md')), '--output-file', rel(path.join(out, 'full.diff')), '--now', NOW], path.join(out, 'cache'));
    if (!/up to date/.test(r.stdout) || !/against \S+: \d+ added, [1-9]\d* changed/.test(r.stdout)) throw new Error(`pr-check-at: unexpected report: ${r.stdout}`);
    console.error(`  N=${n} pr-check-at${i === 0 ? ' (warm-up)' : ` run ${i}/${runs}`}: ${(r.wallMs / 1000).toFixed(2)} s, cpu ${(r.userS + r.sysS).toFixed(2)} s, ${(r.maxRssKB / 1024).toFixed(0)} MB`);
    if (i === 0) warmup = record(r);
    else checks.push(record(r));
  }
  removeTree(root);
  return { n, cold, warmup: warmup!, checks, wallMs: spread(checks.map((c) => c.wallMs)), maxRssMB: spread(checks.map((c) => c.maxRssKB / 1024)) };
}

/** The rows of --pr-check-at: the check's peak RSS there (the issue-28 criterion at 100,000) and its time against the cold synth. */
export function atScaleRatios(a: AtScaleResult): Ratio[] {
  const crit = a.n === 100000;
  const over = spread(a.checks.map((c) => c.wallMs / a.cold.wallMs));
  return [
    { name: 'pull-request check, fresh runner: wall s (measured)', n: String(a.n), value: a.wallMs.median / 1000, min: a.wallMs.min / 1000, max: a.wallMs.max / 1000, how: `median of ${a.checks.length} runs`, target: '–', ok: null, criterion: false, unit: 's' },
    { name: 'pull-request check, fresh runner / cold (wall, measured)', n: String(a.n), value: over.median, min: over.min, max: over.max, how: `each run / one cold synth (${(a.cold.wallMs / 1000).toFixed(0)} s)`, target: `≤ ${TARGET.prCheckOverCold}`, ok: over.median <= TARGET.prCheckOverCold, criterion: false },
    { name: 'pull-request check, fresh runner: peak RSS (measured)', n: String(a.n), value: a.maxRssMB.median, min: a.maxRssMB.min, max: a.maxRssMB.max, how: `median of ${a.checks.length} runs`, target: `< ${TARGET.prCheckRssMB100k} MB`, ok: a.maxRssMB.median < TARGET.prCheckRssMB100k, criterion: crit, unit: 'MB' },
  ];
}

function benchSize(n: number, runs: number, seed: number, scenarios: ReadonlySet<Scenario>, keep: boolean, build: Build, before?: BeforeBuild): SizeResult {
  const fleetDir = path.join(BENCH_DIR, `fleet-${n}`);
  const outRoot = path.join(BENCH_DIR, `out-${n}`);
  const rel = (p: string): string => path.relative(REPO_ROOT, p);
  removeTree(fleetDir);
  removeTree(outRoot);
  fs.mkdirSync(outRoot, { recursive: true });
  const g0 = performance.now();
  const stats = generateFleet(fleetDir, n, seed);
  const generateMs = performance.now() - g0;
  console.error(`N=${n}: generated ${stats.files} files (${(stats.bytes / 1e6).toFixed(1)} MB) in ${(generateMs / 1000).toFixed(1)} s`);
  const result: SizeResult = { n, fleet: { ...stats, generateMs }, groups: [] };
  const want = (s: Scenario): boolean => scenarios.has(s) && (s !== 'baseline-naive' || n <= NAIVE_MAX_N);
  const cli = (cmd: string, out?: string): string[] => [build.cli, cmd, '--fleet', rel(fleetDir), ...(out ? ['--out', rel(out)] : []), '--now', NOW];

  // Untimed preparation of the baselines: the objects kyma-fleet renders, as JSON Lines.
  const objectsFile = path.join(outRoot, 'objects.jsonl');
  if (want('baseline') || want('baseline-naive') || want('floor-tojson')) {
    console.error(`N=${n}: exporting the rendered objects for the baseline (untimed)...`);
    // Untimed, so it may use most of the memory: at 100,000 runtimes the default V8 heap is too small.
    const heapMB = Math.max(4096, Math.floor((os.totalmem() / 2 ** 20) * 0.75));
    const child = spawnSync(process.execPath, [`--max-old-space-size=${heapMB}`, build.exportObjects, '--fleet', fleetDir, '--out', objectsFile, '--now', NOW], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (child.status !== 0) throw new Error(`export-objects failed:\n${child.stderr}`);
    const s = JSON.parse(child.stdout) as { charts: number; objects: number; bytes: number; ms: number };
    result.objects = { charts: s.charts, objects: s.objects, bytes: s.bytes, exportMs: s.ms };
  }
  settle();

  if (want('validate')) {
    console.error(`N=${n}: validate`);
    result.groups.push(...runInterleaved(build, n, runs, [
        {
          scenario: 'validate',
          args: () => cli('validate', path.join(outRoot, 'no-previous-render')),
          env: (i) => ({ KYMA_FLEET_CACHE_DIR: path.join(outRoot, `cache-validate-${i}`), KYMA_FLEET_NO_CACHE: undefined }),
        },
      ]));
    result.phases = measurePhases(build, fleetDir, n, runs);
    for (let i = 0; i <= runs; i++) removeTree(path.join(outRoot, `cache-validate-${i}`));
    settle();
  }

  // cold, baseline, the floors, noop and one-changed run in rounds (A B C D, A B C D, ...), so every ratio
  // between them is paired: round 0 is the warm-up, rounds 1..runs are measured.
  // Caches: kyma-fleet keeps a parse and render cache (KYMA_FLEET_CACHE_DIR, else
  // node_modules/.cache). Each cold run gets a fresh empty cache folder, so it is cold; noop and
  // one-changed use the cache of the run that wrote their dist/, as a developer or a CI job with a
  // restored cache would. The bench never lets a run use the repository's node_modules/.cache.
  const coldDir = (i: number): string => path.join(outRoot, `cold-${i}`);
  const coldCache = (i: number): string => path.join(outRoot, `cache-cold-${i}`);
  const baseDir = (i: number): string => path.join(outRoot, `baseline-${i}`);
  const cacheEnv = (dir: string) => ({ KYMA_FLEET_CACHE_DIR: dir, KYMA_FLEET_NO_CACHE: undefined });
  const round: Job[] = [];
  let distDir: string | undefined;
  let distCache: string | undefined;
  if (want('cold')) {
    round.push({
      scenario: 'cold',
      args: (i) => cli('synth', coldDir(i)),
      env: (i) => cacheEnv(coldCache(i)),
      outDir: coldDir,
      check: (r) => {
        if (!/written/.test(r.stdout) || /nothing written/.test(r.stdout)) throw new Error(`cold synth wrote nothing: ${r.stdout}`);
      },
    });
    distDir = coldDir(0);
    distCache = coldCache(0);
  }
  if (want('pr-check') && want('cold')) round.push(prCheckJob(build, fleetDir, outRoot, coldDir(0)));
  // Before one-changed, which edits the fleet in round 0 after these jobs took their copies.
  if (want('diff-wide') && want('cold')) {
    round.push(...diffWideJobs(build, want('diff-wide-before') ? before : undefined, fleetDir, outRoot, coldDir(0), runs, (w) => (result.wideChange = w)));
  } else if (want('diff-wide')) {
    console.error(`N=${n}: diff-wide skipped: it needs the cold scenario (its base dist/ and its ratio)`);
  }
  if (want('baseline')) {
    round.push({ scenario: 'baseline', args: (i) => [build.plainCdk8s, '--objects', rel(objectsFile), '--out', rel(baseDir(i)), '--mode', 'folder'], outDir: baseDir });
  }
  // The scenarios that work on an existing dist/ take round 0's cold one, else one made here.
  if (!distDir && (want('noop') || want('one-changed') || want('committed-dist') || want('floor-write'))) {
    distDir = path.join(outRoot, 'dist');
    distCache = path.join(outRoot, 'cache-dist');
    console.error(`N=${n}: synth into ${rel(distDir)} (setup, untimed)`);
    measureNode(cli('synth', distDir), { cwd: REPO_ROOT, timeFile: path.join(BENCH_DIR, 'time-v.txt'), probe: build.probe, env: cacheEnv(distCache) });
    settle();
  }
  if (want('floor-write')) {
    // Packed in the warm-up round, right after round 0's cold synth wrote it and before noop and
    // one-changed touch it; untimed (the sync before every run flushes what packing dirtied).
    const pack = path.join(outRoot, 'dist.pack');
    const from = distDir!;
    const floorDir = (i: number): string => path.join(outRoot, `floor-${i}`);
    round.push({
      scenario: 'floor-write',
      before: () => {
        requireDist(from);
        if (!fs.existsSync(pack)) packTree(from, pack);
      },
      args: (i) => [build.floor, '--phase', 'write', '--pack', rel(pack), '--out', rel(floorDir(i)), '--threads', String(FLOOR_THREADS)],
      outDir: floorDir,
    });
  }
  if (want('floor-tojson')) {
    round.push({ scenario: 'floor-tojson', args: () => [build.floor, '--phase', 'tojson', '--objects', rel(objectsFile), '--threads', String(FLOOR_THREADS)] });
  }
  let change: Change | undefined;
  if (want('noop') || want('one-changed') || want('committed-dist')) {
    const dist = distDir!;
    const env = cacheEnv(distCache!);
    // What a run really wrote: files of dist/ with a new inode (moved, unchanged files keep theirs).
    let inodes = new Map<string, number>();
    const written = (): number => {
      const now = fileInodes(dist);
      const count = newFiles(inodes, now);
      inodes = now;
      return count;
    };
    if (round.length === 0) inodes = fileInodes(dist);
    if (want('noop')) {
      round.push({
        scenario: 'noop',
        before: (i) => {
          requireDist(dist);
          if (i === 0) inodes = fileInodes(dist);
        },
        args: () => cli('synth', dist),
        env: () => env,
        filesWritten: written,
        check: (r) => {
          if (parseFilesWritten(r.stdout) !== 0) console.error(`  warning: the no-op synth wrote something: ${r.stdout.trim()}`);
        },
      });
    }
    if (want('one-changed')) {
      const c = prepareChange(fleetDir);
      change = c;
      result.oneChanged = c.describe;
      round.push({
        scenario: 'one-changed',
        before: (i) => {
          requireDist(dist);
          if (i === 0 && !want('noop')) inodes = fileInodes(dist);
          c.apply(i);
        },
        args: () => cli('synth', dist),
        env: () => env,
        filesWritten: written,
        check: (r) => {
          if (!/written/.test(r.stdout) || /nothing written/.test(r.stdout)) throw new Error(`one-changed synth did not write: ${r.stdout}`);
        },
      });
    }
    if (want('committed-dist')) {
      // A fresh CI runner: dist/ is committed and current, the cache folder is empty (a new one
      // per run), so every runtime is parsed and rendered and compared with dist/.
      round.push({
        scenario: 'committed-dist',
        before: (i) => {
          requireDist(dist);
          removeTree(path.join(outRoot, `cache-committed-${i}`));
          if (i === 0 && !want('noop') && !want('one-changed')) inodes = fileInodes(dist);
        },
        args: () => cli('synth', dist),
        env: (i) => cacheEnv(path.join(outRoot, `cache-committed-${i}`)),
        filesWritten: written,
        check: (r) => {
          if (parseFilesWritten(r.stdout) !== 0) console.error(`  warning: the synth over a current dist/ wrote something: ${r.stdout.trim()}`);
        },
      });
    }
  }
  if (round.length > 0) {
    console.error(`N=${n}: ${round.map((j) => j.scenario).join(' + ')}${round.length > 1 ? ' (paired rounds)' : ''}${change ? `; change: ${change.describe}` : ''}`);
    try {
      result.groups.push(...runInterleaved(build, n, runs, round));
    } finally {
      change?.restore();
    }
    for (const f of fs.readdirSync(outRoot)) if (f !== 'objects.jsonl') removeTree(path.join(outRoot, f));
    settle();
  }

  if (want('baseline-naive')) {
    const naiveDir = (i: number): string => path.join(outRoot, `naive-${i}`);
    console.error(`N=${n}: baseline-naive`);
    result.groups.push(
      ...runInterleaved(build, n, runs, [
        { scenario: 'baseline-naive', args: (i) => [build.plainCdk8s, '--objects', rel(objectsFile), '--out', rel(naiveDir(i)), '--mode', 'naive'], outDir: naiveDir },
      ]),
    );
    for (let i = 0; i <= runs; i++) removeTree(naiveDir(i));
    settle();
  } else if (scenarios.has('baseline-naive')) {
    console.error(`N=${n}: baseline-naive skipped (quadratic; only for N <= ${NAIVE_MAX_N})`);
  }

  if (!keep) {
    removeTree(fleetDir);
    removeTree(outRoot);
    settle(1);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Ratios against the issue-5 targets

interface Ratio {
  name: string;
  n: string;
  value: number;
  min?: number;
  max?: number;
  how: string;
  target: string;
  /** true/false against the target; null when informational. */
  ok: boolean | null;
  /** The figure issue 5's "Done means" names (N=10,000, and 100k/10k). */
  criterion: boolean;
  unit?: string;
}

/** The group of a scenario, when it has measured runs. */
function group(r: SizeResult, s: Scenario): GroupResult | undefined {
  return r.groups.find((g) => g.scenario === s && g.runs.length > 0);
}

/** a / b per metric: the median (min..max) of per-run ratios when a and b ran in the same rounds, else the ratio of medians. */
function ratioOf(a: GroupResult, b: GroupResult, key: 'wallMs' | 'cpuS'): { value: number; min?: number; max?: number; how: string } {
  if (a.round === b.round && a.runs.length === b.runs.length) {
    const s = spread(a.runs.map((r, i) => r[key] / b.runs[i]![key]));
    return { value: s.median, min: s.min, max: s.max, how: `paired, n=${a.runs.length}` };
  }
  return { value: a[key].median / b[key].median, how: 'ratio of medians (unpaired)' };
}

/** A floor run's own report (bench/floor.ts prints it as its first line). */
function floorReport(run: RunRecord): { ms: number; cpuMs: number; threads: number } {
  return JSON.parse(run.output) as { ms: number; cpuMs: number; threads: number };
}

/**
 * The floors against the baseline: (write + toJson) in wall time, and their CPU divided by the
 * threads (a bound even for a synth that overlapped the two perfectly), per round when all three
 * ran in the same rounds. Compared with the cold target: a floor above it means the target cannot
 * be met with this layout and cdk8s on this machine, whatever else a synth does.
 */
export function floorRatios(n: number, fw: GroupResult, ft: GroupResult, base: GroupResult): Ratio[] {
  const paired = fw.round === base.round && ft.round === base.round && fw.runs.length === base.runs.length && ft.runs.length === base.runs.length;
  const make = (name: string, of: (w: RunRecord, t: RunRecord) => number): Ratio => {
    let x: { value: number; min?: number; max?: number; how: string };
    if (paired) {
      const sp = spread(base.runs.map((b, i) => of(fw.runs[i]!, ft.runs[i]!) / b.wallMs));
      x = { value: sp.median, min: sp.min, max: sp.max, how: `paired, n=${base.runs.length}` };
    } else {
      const v = spread(fw.runs.map((w, i) => of(w, ft.runs[Math.min(i, ft.runs.length - 1)]!))).median;
      x = { value: v / base.wallMs.median, how: 'ratio of medians (unpaired)' };
    }
    const limit = TARGET.coldOverBaseline;
    return { name, n: String(n), ...x, target: `cold's ≤ ${limit}`, ok: x.value <= limit, criterion: false };
  };
  return [
    make('floor: write + toJson, in-process wall / baseline', (w, t) => floorReport(w).ms + floorReport(t).ms),
    make('floor: (cpu of write + toJson) / threads / baseline', (w, t) => (floorReport(w).cpuMs + floorReport(t).cpuMs) / floorReport(w).threads),
  ];
}

export function ratios(results: readonly SizeResult[], atScale?: AtScaleResult): Ratio[] {
  const out: Ratio[] = [];
  for (const r of results) {
    const crit = r.n === 10000;
    const cold = group(r, 'cold');
    const base = group(r, 'baseline');
    const push = (name: string, a: GroupResult, b: GroupResult, key: 'wallMs' | 'cpuS', limit: number | undefined): void => {
      const x = ratioOf(a, b, key);
      out.push({
        name,
        n: String(r.n),
        ...x,
        target: limit === undefined ? '–' : `≤ ${limit}`,
        ok: limit === undefined ? null : x.value <= limit,
        criterion: crit && limit !== undefined,
      });
    };
    if (cold && base) {
      push('cold / baseline (wall)', cold, base, 'wallMs', TARGET.coldOverBaseline);
      push('cold / baseline (cpu)', cold, base, 'cpuS', undefined);
    }
    for (const s of ['noop', 'one-changed'] as const) {
      const g = group(r, s);
      if (!g || !cold) continue;
      push(`${s} / cold (wall)`, g, cold, 'wallMs', TARGET.incrementalOverCold);
      push(`${s} / cold (cpu)`, g, cold, 'cpuS', undefined);
    }
    const fw = group(r, 'floor-write');
    const ft = group(r, 'floor-tojson');
    if (fw && ft && base) out.push(...floorRatios(r.n, fw, ft, base));
    const committed = group(r, 'committed-dist');
    if (committed && cold) push('committed-dist / cold (wall; no target)', committed, cold, 'wallMs', undefined);
    const pr = group(r, 'pr-check');
    if (pr && cold) push('pull-request check, fresh runner / cold (wall)', pr, cold, 'wallMs', TARGET.prCheckOverCold);
    // Issue 29: the diff with consequences within "today's ratio", the same diff by the --before-ref build.
    const dw = group(r, 'diff-wide');
    const dwb = group(r, 'diff-wide-before');
    if (dw && cold) {
      const now = ratioOf(dw, cold, 'wallMs');
      const was = dwb ? ratioOf(dwb, cold, 'wallMs') : undefined;
      out.push({
        name: 'diff-wide / cold (wall)',
        n: String(r.n),
        ...now,
        target: was ? `≤ ${f(was.value)} (diff-wide-before / cold)` : '–',
        ok: was ? now.value <= was.value : null,
        criterion: crit && was !== undefined,
      });
      if (dwb) out.push({ name: 'diff-wide-before / cold (wall)', n: String(r.n), ...was!, target: '–', ok: null, criterion: false });
      push('diff-wide / cold (cpu)', dw, cold, 'cpuS', undefined);
      if (dwb) push('diff-wide-before / cold (cpu)', dwb, cold, 'cpuS', undefined);
      if (dwb) push('diff-wide / diff-wide-before (wall)', dw, dwb, 'wallMs', undefined);
    }
    for (const g of [dw, dwb]) {
      const chars = g?.runs.map((x) => x.metrics?.markdownChars).filter((x): x is number => x !== undefined) ?? [];
      if (!g || chars.length === 0) continue;
      const s = spread(chars);
      out.push({ name: `${g.scenario}: comment size`, n: String(r.n), value: s.median, min: s.min, max: s.max, how: 'median of runs', target: `< ${COMMENT_MAX_CHARS} chars`, ok: s.max < COMMENT_MAX_CHARS, criterion: crit && g.scenario === 'diff-wide', unit: 'chars' });
    }
    const product = r.groups.filter((g) => PRODUCT.includes(g.scenario) && g.runs.length > 0);
    if (product.length > 0) {
      const worst = product.reduce((a, b) => (b.maxRssMB.median > a.maxRssMB.median ? b : a));
      out.push({
        name: `peak RSS, max over ${product.map((g) => g.scenario).join('/')} (${worst.scenario})`,
        n: String(r.n),
        value: worst.maxRssMB.median,
        min: worst.maxRssMB.min,
        max: worst.maxRssMB.max,
        how: 'median of runs',
        target: `< ${TARGET.rssMB10k} MB`,
        ok: worst.maxRssMB.median < TARGET.rssMB10k,
        criterion: crit,
        unit: 'MB',
      });
    }
  }
  // The pull-request check at 100,000 runtimes when it was not measured there (issue 28): computed,
  // not measured, by a straight line through the two largest measured sizes (its work is per file).
  const prSizes = results.filter((r) => group(r, 'pr-check')?.runs.length).sort((a, b) => a.n - b.n);
  if (prSizes.length >= 2 && !prSizes.some((r) => r.n === 100000) && atScale?.n !== 100000) {
    const [a, b] = prSizes.slice(-2).map((r) => group(r, 'pr-check')!);
    const [na, nb] = prSizes.slice(-2).map((r) => r.n);
    const at = (ya: number, yb: number): number => ya + ((yb - ya) / (nb! - na!)) * (100000 - na!);
    const rss = at(a!.maxRssMB.median, b!.maxRssMB.median);
    out.push({ name: 'pull-request check, fresh runner: wall s (computed)', n: '100000', value: at(a!.wallMs.median, b!.wallMs.median) / 1000, how: `computed: line through N=${na} and N=${nb}`, target: '–', ok: null, criterion: false, unit: 's' });
    out.push({ name: 'pull-request check, fresh runner: peak RSS (computed)', n: '100000', value: rss, how: `computed: line through N=${na} and N=${nb}`, target: `< ${TARGET.prCheckRssMB100k} MB`, ok: rss < TARGET.prCheckRssMB100k, criterion: false, unit: 'MB' });
  }
  // Scaling of the cold synth between consecutive sizes; issue 5 names 100k / 10k <= 12x.
  const sized = results.filter((r) => group(r, 'cold')).sort((a, b) => a.n - b.n);
  for (let i = 1; i < sized.length; i++) {
    const [a, b] = [sized[i - 1]!, sized[i]!];
    const v = group(b, 'cold')!.wallMs.median / group(a, 'cold')!.wallMs.median;
    const official = a.n === 10000 && b.n === 100000;
    out.push({
      name: `cold(${b.n}) / cold(${a.n}) (wall)`,
      n: `${a.n}→${b.n}`,
      value: v,
      how: `ratio of medians; linear = ${+(b.n / a.n).toFixed(2)}`,
      target: official ? `≤ ${TARGET.scale100kOver10k}` : '–',
      ok: official ? v <= TARGET.scale100kOver10k : null,
      criterion: official,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reporting

const f = (x: number | undefined, d = 2): string => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));

function markdown(meta: Meta, results: readonly SizeResult[], rs: readonly Ratio[]): string {
  const L: string[] = [];
  L.push(`### kyma-fleet benchmark (${meta.startedAt})`, '');
  L.push(
    `${meta.node}, ${meta.cpus}, ${meta.memoryGiB} GiB; RSS and CPU via ${meta.rssSource}; seed ${meta.seed}; ${meta.runs} runs + 1 warm-up per scenario; ` +
      `build ${meta.build.gitHead}${meta.build.dirty.length ? ` + ${meta.build.dirty.length} uncommitted file(s) in src/charts/imports/bin` : ''} (lib ${meta.build.libHash})` +
      `${meta.before ? `; diff-wide-before: build of ${meta.before.ref} (${meta.before.commit.slice(0, 12)}, built untimed in ${f(meta.before.buildS, 0)} s)` : ''}.`,
    '',
  );
  L.push(
    '| scenario | N | runtimes/s | wall s, median (min..max) | cpu s | peak RSS MB | files written |',
    '|---|---:|---:|---|---:|---:|---:|',
  );
  for (const r of results) {
    for (const g of r.groups) {
      const w = g.wallMs;
      if (g.runs.length === 0) {
        L.push(`| ${LABEL[g.scenario]}${g.busy ? ' ⚠' : ''} | ${r.n} | – | failed: ${g.failed ?? 'no runs'} | – | – | – |`);
        continue;
      }
      L.push(
        `| ${LABEL[g.scenario]}${g.busy ? ' ⚠' : ''} | ${r.n} | ${f(r.n / (w.median / 1000), 0)} | ${f(w.median / 1000)} (${f(w.min / 1000)}..${f(w.max / 1000)}) | ` +
          `${f(g.cpuS.median)} | ${f(g.maxRssMB.median, 0)} | ${g.scenario === 'validate' ? '–' : (g.filesWritten ?? '?')} |`,
      );
    }
  }
  L.push('');
  L.push("Ratios against the issue-5 targets (the done criteria are the **bold** rows: N=10,000, and 100,000 / 10,000; diff-wide's are issue 29's):", '');
  L.push('| ratio | N | value (min..max) | how | target | |', '|---|---:|---|---|---|:-:|');
  for (const x of rs) {
    const v = `${f(x.value, x.unit ? 0 : 2)}${x.unit ? ` ${x.unit}` : '×'}${x.min !== undefined ? ` (${f(x.min, x.unit ? 0 : 2)}..${f(x.max, x.unit ? 0 : 2)})` : ''}`;
    const mark = x.ok === null ? '' : x.ok ? '✓' : '✗';
    const name = x.criterion ? `**${x.name}**` : x.name;
    L.push(`| ${name} | ${x.n} | ${v} | ${x.how} | ${x.target} | ${mark} |`);
  }

  // Linearity: per-runtime cost between consecutive sizes, every scenario.
  const sizes = [...results].sort((a, b) => a.n - b.n);
  if (sizes.length > 1) {
    L.push('', 'Per-runtime cost between sizes (1.00 = linear; above 1 grows faster than N):', '');
    L.push('| scenario | N1 → N2 | wall per runtime | cpu per runtime | peak RSS |', '|---|---|---:|---:|---:|');
    for (let i = 1; i < sizes.length; i++) {
      const [a, b] = [sizes[i - 1]!, sizes[i]!];
      for (const ga of a.groups) {
        const gb = group(b, ga.scenario);
        if (!gb || ga.runs.length === 0) continue;
        const k = b.n / a.n;
        L.push(
          `| ${LABEL[ga.scenario]} | ${a.n} → ${b.n} | ${f(gb.wallMs.median / ga.wallMs.median / k)} | ${f(gb.cpuS.median / ga.cpuS.median / k)} | ` +
            `${f(gb.maxRssMB.median / ga.maxRssMB.median)}× |`,
        );
      }
    }
  }

  L.push(...diffWideRounds(results, meta));

  const withPhases = results.filter((r) => r.phases);
  if (withPhases.length > 0) {
    L.push('', 'validate, in-process phases (warm median ms; cold = first pass of a fresh process):', '');
    L.push('| N | load | validate | resolve | resolved rules | total (cold) | µs/runtime |', '|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of withPhases) {
      const p = r.phases!.warmMedianMs;
      L.push(`| ${r.n} | ${f(p.load, 0)} | ${f(p.validate, 0)} | ${f(p.resolve, 0)} | ${f(p.resolvedRules, 0)} | ${f(p.total, 0)} (${f(r.phases!.cold.total, 0)}) | ${f((p.total * 1000) / r.n, 0)} |`);
    }
  }

  L.push('', 'Notes:');
  for (const r of results) {
    const fl = r.fleet;
    L.push(`- N=${r.n}: fleet of ${fl.files} input files (${f(fl.bytes / 1e6, 1)} MB); ${fl.production} production, ${fl.cacheOverrides} cache overrides, ${fl.registryCacheDisabled} registry-cache off, ${fl.falcoOverrides} falco overrides.`);
    if (r.objects) {
      L.push(
        `- N=${r.n}: the baselines synthesise the ${r.objects.objects} objects kyma-fleet renders (${f(r.objects.objects / r.n, 1)} per runtime, GitOps wiring included; ` +
          `no kustomization.yaml files, no index) in ${r.objects.charts} charts; exported untimed in ${f(r.objects.exportMs / 1000, 1)} s.`,
      );
    }
    for (const g of r.groups) {
      if (g.inProcessMs && g.scenario.startsWith('floor')) {
        L.push(`- N=${r.n} ${g.scenario}: in-process ${f(g.inProcessMs.ms! / 1000)} s on ${FLOOR_THREADS} thread(s), cpu ${f(g.inProcessMs.cpuMs! / 1000)} s (medians).`);
      } else if (g.inProcessMs) {
        L.push(`- N=${r.n} ${g.scenario}: in-process read ${f(g.inProcessMs.readMs! / 1000)} s, build ${f(g.inProcessMs.buildMs! / 1000)} s, app.synth() ${f(g.inProcessMs.synthMs! / 1000)} s (medians).`);
      }
      for (const note of g.notes) L.push(`- N=${r.n} ${g.scenario}: ${note}`);
      if (g.failed && g.runs.length > 0) L.push(`- N=${r.n} ${g.scenario}: stopped after ${g.runs.length} run(s): ${g.failed}`);
    }
    if (r.oneChanged) L.push(`- N=${r.n} one-changed: ${r.oneChanged}.`);
    if (r.wideChange) L.push(`- N=${r.n} diff-wide: ${r.wideChange.describe}.`);
  }
  L.push(
    '- files written: cold, the CLI summary; noop and one-changed, the files of dist/ with a new inode after the run (the CLI summary counts ' +
      'only files with new or changed content: see results.json, runs[].cliFilesWritten); baselines, the files in their output folder.',
  );
  if (rs.some((x) => x.name.startsWith('floor'))) {
    L.push(
      "- floor rows: what writing the same dist/ bytes and cdk8s's chart.toJson() of the same objects cost with nothing else done, against the baseline of " +
        "the same round. A synth does both and more (reads and validates the fleet, emits YAML, hashes, writes the index), so ✗ on the CPU row " +
        '(a bound even for perfect overlap) means no implementation of this layout through cdk8s meets the cold target on this machine.',
    );
  }
  L.push('- caches: every cold run starts with an empty KYMA_FLEET_CACHE_DIR; noop and one-changed use the cache of the run that wrote their dist/. validate uses a fresh cache per run.');
  if (results.some((r) => r.groups.some((g) => g.busy))) {
    L.push(`- ⚠ = the 1-min load average was above ${BUSY_LOAD} during the group (other processes competing): treat its wall times as noisy; cpu s is steadier.`);
  }
  L.push(`- 1-min load average before/after the whole bench: ${f(meta.loadAverage1m.before)} / ${f(meta.loadAverage1m.after)}.`);
  return L.join('\n') + '\n';
}

/**
 * diff-wide and diff-wide-before next to the cold synth of the same round (issue 29): per round the
 * wall times, both ratios and the comment sizes, then the medians.
 */
function diffWideRounds(results: readonly SizeResult[], meta: Meta): string[] {
  const L: string[] = [];
  for (const r of results) {
    const cold = group(r, 'cold');
    const dw = group(r, 'diff-wide');
    if (!cold || !dw) continue;
    const dwb = group(r, 'diff-wide-before');
    const paired = (g: GroupResult | undefined): g is GroupResult => g !== undefined && g.round === cold.round && g.runs.length === cold.runs.length;
    if (!paired(dw)) continue;
    const withBefore = paired(dwb);
    L.push(
      '',
      `diff-wide at N=${r.n}, per round (paired: the three ran in the same round)${withBefore ? `; before = ${meta.before?.ref ?? '?'} (${meta.before?.commit.slice(0, 12) ?? '?'})` : ''}:`,
      '',
    );
    const head = ['round', 'cold s', 'diff-wide s', 'diff-wide / cold', 'comment chars', 'full diff MB'];
    if (withBefore) head.push('diff-wide-before s', 'diff-wide-before / cold', 'comment chars (before)', 'diff-wide / diff-wide-before');
    L.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---:').join('|')}|`);
    const rows: number[][] = cold.runs.map((c, i) => {
      const a = dw.runs[i]!;
      const row = [c.wallMs / 1000, a.wallMs / 1000, a.wallMs / c.wallMs, a.metrics?.markdownChars ?? NaN, (a.metrics?.fullDiffBytes ?? NaN) / 1e6];
      if (withBefore) {
        const b = dwb.runs[i]!;
        row.push(b.wallMs / 1000, b.wallMs / c.wallMs, b.metrics?.markdownChars ?? NaN, a.wallMs / b.wallMs);
      }
      return row;
    });
    const digits = [2, 2, 3, 0, 2, 2, 3, 0, 3];
    rows.forEach((row, i) => L.push(`| ${i + 1} | ${row.map((x, k) => f(x, digits[k])).join(' | ')} |`));
    const medians = head.slice(1).map((_, k) => spread(rows.map((row) => row[k]!)).median);
    L.push(`| **median** | ${medians.map((x, k) => `**${f(x, digits[k])}**`).join(' | ')} |`);
  }
  return L;
}

interface Meta {
  node: string;
  cpus: string;
  memoryGiB: number;
  rssSource: string;
  seed: number;
  runs: number;
  sizes: number[];
  scenarios: Scenario[];
  startedAt: string;
  finishedAt?: string;
  build: { gitHead: string; dirty: string[]; libHash: string };
  /** --before-ref: the earlier build diff-wide-before runs (built untimed). */
  before?: { ref: string; commit: string; buildS: number };
  loadAverage1m: { before: number; after: number };
}

// ---------------------------------------------------------------------------------------------
// Delivery by the real kustomize-controller (bench/flux-delivery.ts)

/** What bench/flux-delivery.ts prints (its JSON), or why it did not run. */
type DeliveryResult = { runtimes: number; artifacts: string; skipped?: string; [k: string]: unknown };

function runDelivery(runtimes: number, artifacts: 'per-runtime' | 'whole-source', seed: number): DeliveryResult {
  console.error(`delivery: ${runtimes} runtimes, ${artifacts} (real kustomize-controller; minutes)`);
  const child = spawnSync(process.execPath, [path.join(REPO_ROOT, 'lib', 'bench', 'flux-delivery.js'), '--runtimes', String(runtimes), '--artifacts', artifacts, '--seed', String(seed), '--timeout-min', '45'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) return { runtimes, artifacts, skipped: `flux-delivery exited with ${child.status ?? child.signal} (its output above says why: no Go, or no convergence within --timeout-min)` };
  return { ...(JSON.parse(child.stdout) as DeliveryResult), runtimes, artifacts };
}

/** What bench/argocd-revision.ts prints (its JSON), or why it did not run. */
type ArgoRevisionResult = { runtimes: number; skipped?: string; applications?: number; phases?: Array<Record<string, any>>; [k: string]: unknown };

function runArgoRevision(runtimes: number, seed: number): ArgoRevisionResult {
  console.error(`delivery-argocd: ${runtimes} runtimes (argo-cd's generators and repo-server code; minutes)`);
  const child = spawnSync(process.execPath, [path.join(REPO_ROOT, 'lib', 'bench', 'argocd-revision.js'), '--runtimes', String(runtimes), '--seed', String(seed), '--git-diff-runtimes', '10000'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) return { runtimes, skipped: `argocd-revision exited with ${child.status ?? child.signal} (its output above says why)` };
  return { ...(JSON.parse(child.stdout) as ArgoRevisionResult), runtimes };
}

function argoRevisionMarkdown(rows: readonly ArgoRevisionResult[]): string {
  if (rows.length === 0) return '';
  const L = ['', "#### What a revision costs Argo CD's repo-server (argo-cd v3.2.12's code)", ''];
  L.push(
    '| runtimes | Applications | phase | s | CPU s | UpdateRevisionForPaths | paths changed | kustomize builds | MB of manifests | MB git fetched | Git files calls |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const r of rows) {
    if (r.skipped) {
      L.push(`| ${r.runtimes} | skipped: ${r.skipped} |||||||||`);
      continue;
    }
    for (const p of r.phases ?? []) {
      L.push(`| ${r.runtimes} | ${r.applications} | ${p.name} | ${p.seconds.toFixed(1)} | ${p.cpuSeconds.toFixed(1)} | ${p.updateRevisionCalls} | ${p.pathsChanged} | ${p.kustomizeBuilds} | ${(p.manifestBytes / 1e6).toFixed(2)} | ${(p.gitBytes / 1e6).toFixed(2)} | ${p.gitFilesCalls} |`);
    }
  }
  const diffs = rows.flatMap((r) => (r.gitDiff as Array<Record<string, number>> | undefined) ?? []);
  if (diffs.length > 0) {
    L.push('', 'One `git diff --name-only` between two commits (what UpdateRevisionForPaths runs per Application):', '', '| runtimes | ms (median) | dist/runtimes tree bytes | pack MB |', '|---:|---:|---:|---:|');
    for (const d of diffs) L.push(`| ${d.runtimes} | ${d.gitDiffMsMedian} | ${d.runtimesTreeBytes} | ${((d.packBytes ?? 0) / 1e6).toFixed(1)} |`);
  }
  return `${L.join('\n')}\n`;
}

function deliveryMarkdown(rows: readonly DeliveryResult[]): string {
  if (rows.length === 0) return '';
  const L = ['', '#### Delivery by the real kustomize-controller (one revision each)', ''];
  L.push(
    '| runtimes | flux.artifacts | Kustomizations | cold: s to all Ready | cold: MB fetched | one-runtime change: s until on the runtime | s until all Ready | MB fetched | artifacts fetched | generator reconciles | controller CPU s |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  const mb = (b: unknown): string => (typeof b === 'number' ? (b / 1e6).toFixed(1) : '-');
  for (const r of rows) {
    if (r.skipped) {
      L.push(`| ${r.runtimes} | ${r.artifacts} | skipped: ${r.skipped} |||||||||`);
      continue;
    }
    const cold = r.cold as Record<string, any>;
    const change = r.oneRuntimeChange as Record<string, any>;
    L.push(
      `| ${r.runtimes} | ${r.artifacts} | ${r.kustomizations} | ${cold.seconds.toFixed(0)} | ${mb(cold.bytesFetched)} | ${change.takesEffect.seconds.toFixed(0)} | ${change.allReady.seconds.toFixed(0)} | ${mb(change.allReady.bytesFetched)} | ${change.allReady.artifactsFetched} | ${change.allReady.sourceWatcher.generatorReconciles} | ${change.allReady.cpuSeconds} |`,
    );
  }
  return `${L.join('\n')}\n`;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000' },
      runs: { type: 'string', default: '3' },
      seed: { type: 'string', default: '42' },
      scenarios: { type: 'string', default: SELECTABLE.join(',') },
      'before-ref': { type: 'string' },
      keep: { type: 'boolean', default: false },
      'quiet-wait': { type: 'string', default: '0' },
      'pr-check-at': { type: 'string' },
      'delivery-runtimes': { type: 'string', default: '100' },
      'delivery-artifacts': { type: 'string', default: 'per-runtime,whole-source' },
      phases: { type: 'string' }, // internal: the phases child
    },
  });
  const runs = Number(values.runs);
  const seed = Number(values.seed);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer (got ${values.runs})`);
  if (values.phases) return phasesChild(values.phases, runs);

  const sizes = values.sizes!.split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers (got ${values.sizes})`);
  const picked = values.scenarios!.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = picked.filter((s) => !(SELECTABLE as readonly string[]).includes(s));
  if (unknown.length > 0 || picked.length === 0) {
    throw new Error(`--scenarios: unknown ${unknown.join(', ') || '(none given)'}; choose from ${SELECTABLE.join(', ')} (diff-wide-before comes with --before-ref)`);
  }
  const scenarios = new Set(picked as Scenario[]);
  const beforeRef = values['before-ref'];
  if (beforeRef !== undefined) {
    if (!scenarios.has('diff-wide') || !scenarios.has('cold')) throw new Error('--before-ref runs diff-wide-before beside diff-wide: --scenarios must include cold and diff-wide');
    scenarios.add('diff-wide-before');
  }
  const prCheckAt = values['pr-check-at'] === undefined ? undefined : Number(values['pr-check-at']);
  if (prCheckAt !== undefined && !(Number.isInteger(prCheckAt) && prCheckAt >= 1)) throw new Error(`--pr-check-at must be a positive integer (got ${values['pr-check-at']})`);
  quietWaitS = Number(values['quiet-wait']);
  if (!(quietWaitS >= 0)) throw new Error(`--quiet-wait must be a number of seconds (got ${values['quiet-wait']})`);

  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const loadBefore = load1();
  if (loadBefore > BUSY_LOAD) console.error(`warning: 1-min load average is ${loadBefore.toFixed(2)} before starting; wall times will be noisy`);
  const build = snapshotBuild();
  selfCheck(seed);
  let before: BeforeBuild | undefined;
  if (beforeRef !== undefined) {
    console.error(`--before-ref ${beforeRef}: building it into ${path.relative(REPO_ROOT, path.join(BENCH_DIR, 'before'))} (untimed)...`);
    before = buildBefore(REPO_ROOT, beforeRef, path.join(BENCH_DIR, 'before'));
    console.error(`--before-ref ${beforeRef}: ${before.commit.slice(0, 12)} built in ${before.buildS.toFixed(0)} s`);
  }
  const meta: Meta = {
    node: process.version,
    cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? '?'}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    rssSource: rssSource(),
    seed,
    runs,
    sizes,
    scenarios: SCENARIOS.filter((s) => scenarios.has(s)),
    startedAt: new Date().toISOString(),
    build: { gitHead: build.git.head, dirty: build.git.dirty, libHash: build.libHash },
    ...(before ? { before: { ref: before.ref, commit: before.commit, buildS: before.buildS } } : {}),
    loadAverage1m: { before: loadBefore, after: NaN },
  };
  const results: SizeResult[] = [];
  let atScale: AtScaleResult | undefined;
  const delivery: DeliveryResult[] = [];
  const argoRevision: ArgoRevisionResult[] = [];
  const write = (): string => {
    const rs = [...ratios(results, atScale), ...(atScale ? atScaleRatios(atScale) : [])];
    const md = markdown(meta, results, rs);
    const full = md + deliveryMarkdown(delivery) + argoRevisionMarkdown(argoRevision);
    fs.writeFileSync(path.join(BENCH_DIR, 'results.json'), JSON.stringify({ meta, results, ...(atScale ? { prCheckAt: atScale } : {}), ratios: rs, delivery, argoRevision }, null, 2) + '\n');
    fs.writeFileSync(path.join(BENCH_DIR, 'results.md'), full);
    return full;
  };
  for (const n of [...scenarios].some((x) => x !== 'delivery' && x !== 'delivery-argocd') ? sizes : []) {
    results.push(benchSize(n, runs, seed, scenarios, values.keep!, build, before));
    meta.loadAverage1m.after = load1();
    write(); // partial results survive an interrupted 100k run
  }
  if (prCheckAt !== undefined) {
    waitQuiet();
    atScale = prCheckAtScale(build, prCheckAt, runs, seed);
    write();
  }
  const deliveryCounts = (): number[] => {
    const counts = values['delivery-runtimes']!.split(',').map(Number);
    if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--delivery-runtimes must be positive integers (got ${values['delivery-runtimes']})`);
    return counts;
  };
  if (scenarios.has('delivery-argocd')) {
    for (const n of deliveryCounts()) {
      argoRevision.push(runArgoRevision(n, seed));
      write();
    }
  }
  if (scenarios.has('delivery')) {
    const counts = values['delivery-runtimes']!.split(',').map(Number);
    if (counts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--delivery-runtimes must be positive integers (got ${values['delivery-runtimes']})`);
    const modes = values['delivery-artifacts']!.split(',').map((m) => m.trim());
    if (modes.some((m) => m !== 'per-runtime' && m !== 'whole-source')) throw new Error(`--delivery-artifacts: per-runtime and/or whole-source (got ${values['delivery-artifacts']})`);
    for (const n of counts) {
      for (const artifacts of modes as Array<'per-runtime' | 'whole-source'>) {
        delivery.push(runDelivery(n, artifacts, seed));
        write();
      }
    }
  }
  meta.finishedAt = new Date().toISOString();
  meta.loadAverage1m.after = load1();
  const md = write();
  console.log(md);
  console.log(`written: ${path.relative(process.cwd(), path.join(BENCH_DIR, 'results.json'))}, ${path.relative(process.cwd(), path.join(BENCH_DIR, 'results.md'))}`);
  if (!values.keep) {
    removeTree(build.root);
    if (before) removeTree(before.root);
  }
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
