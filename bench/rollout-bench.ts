// What rollout rings cost (issue 19): the same synthetic fleet (bench/generate-fleet.ts) rendered
// with three rings and two revisions in flight, against the fleet without rings, in the same run.
//
//   npm run build && node lib/bench/rollout-bench.js [--sizes 10000] [--runs 3] [--seed 42] [--keep]
//
// The rings: canary (tier sandbox, ~20%), early (tier development, ~50%), rest (production, ~30%).
// The fleet with rings is started once (revision R1 on every ring), then the default cache's
// garbage collection changes (168h -> 72h) and is started again (R2 on the canary) and advanced
// once (R2 on early): canary and early render R2, rest renders R1. The fleet without rings has the
// same runtimes and R2's layers. Scenarios, each a whole process (bench/measure.ts), in paired
// rounds (with rings and without, in alternating order, the page cache dropped before each; round
// 0 is a warm-up), ratios as medians of the per-round ratios:
//   validate   `kyma-fleet validate --no-cache`
//   cold       `kyma-fleet synth` into an empty out folder with an empty cache
//   noop       `kyma-fleet synth` again over that dist/ with its cache (nothing changed)
// Prints a Markdown table and writes .bench/rollout-results.json.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { generateFleet, NOW, REPO_ROOT } from './generate-fleet';
import { measureNode, type ProcessRun, removeTree, settle, spread } from './measure';

const BIN = path.join(REPO_ROOT, 'bin', 'kyma-fleet.js');
const RINGS = `  rollout:
    rings:
      - name: canary
        selector:
          matchLabels:
            tier: sandbox
        bake: 24h
      - name: early
        selector:
          matchLabels:
            tier: development
        bake: 48h
`;

type Scenario = 'validate' | 'cold' | 'noop';
type Variant = 'rings' | 'plain';

interface Row {
  n: number;
  scenario: Scenario;
  variant: Variant;
  runs: ProcessRun[];
}

function run(args: string[], cwd: string, env: Record<string, string | undefined> = {}): ProcessRun {
  return measureNode([BIN, ...args], { cwd, timeFile: path.join(cwd, 'time.txt'), probe: path.join(REPO_ROOT, 'lib', 'bench', 'rss-probe.js'), env: { KYMA_FLEET_NO_PROGRESS: '1', ...env } });
}

/** Writes both fleets under `dir`: rings/fleet (three rings, two revisions in flight) and plain/fleet. */
function prepare(dir: string, n: number, seed: number): void {
  const rings = path.join(dir, 'rings');
  const plain = path.join(dir, 'plain');
  generateFleet(path.join(rings, 'fleet'), n, seed);
  const fleetYaml = path.join(rings, 'fleet', 'fleet.yaml');
  const text = fs.readFileSync(fleetYaml, 'utf8');
  if (!text.includes('  kcpNamespace: kcp-system\n') || !text.includes('ttl: 168h')) throw new Error('generate-fleet changed: no kcpNamespace or ttl line to edit');
  fs.writeFileSync(fleetYaml, text.replace('  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${RINGS}`));
  const cli = (args: string[]): void => void run([...args, '--now', NOW], rings);
  cli(['rollout', 'start']);
  fs.writeFileSync(fleetYaml, fs.readFileSync(fleetYaml, 'utf8').replace('ttl: 168h', 'ttl: 72h'));
  cli(['rollout', 'start']);
  // Advance without a gate check: the bench measures rendering, not the clusters.
  const statePath = path.join(rings, 'fleet', 'rollout', 'state.yaml');
  const state = fs.readFileSync(statePath, 'utf8');
  const revisions = [...state.matchAll(/revision: "([0-9a-f]{16})"/g)].map((m) => m[1]!);
  if (revisions.length !== 3 || revisions[0] === revisions[1]) throw new Error(`unexpected rollout state:\n${state}`);
  fs.writeFileSync(statePath, state.replace(`name: early\n    revision: "${revisions[1]}"`, `name: early\n    revision: "${revisions[0]}"`));
  // The fleet without rings: the same runtimes, R2's layers.
  fs.cpSync(path.join(rings, 'fleet'), path.join(plain, 'fleet'), { recursive: true });
  removeTree(path.join(plain, 'fleet', 'rollout'));
  const plainYaml = path.join(plain, 'fleet', 'fleet.yaml');
  fs.writeFileSync(plainYaml, fs.readFileSync(plainYaml, 'utf8').replace(RINGS, ''));
}

function main(): void {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' }, seed: { type: 'string', default: '42' }, keep: { type: 'boolean', default: false } } });
  const sizes = values.sizes!.split(',').map(Number);
  const runs = Number(values.runs);
  const seed = Number(values.seed);
  const base = path.join(REPO_ROOT, '.bench', 'rollout');
  const rows: Row[] = [];
  for (const n of sizes) {
    const dir = path.join(base, `n${n}`);
    removeTree(dir);
    console.error(`N=${n}: generating both fleets and starting the rollout`);
    prepare(dir, n, seed);
    const row = (scenario: Scenario, variant: Variant): Row => {
      let r = rows.find((x) => x.n === n && x.scenario === scenario && x.variant === variant);
      if (!r) rows.push((r = { n, scenario, variant, runs: [] }));
      return r;
    };
    for (let round = 0; round <= runs; round++) {
      // Paired: both variants in every round, in alternating order, the machine settled before each.
      for (const variant of round % 2 === 0 ? (['rings', 'plain'] as const) : (['plain', 'rings'] as const)) {
        settle();
        const cwd = path.join(dir, variant);
        const out = `dist-${round}`;
        const cache = path.join(cwd, `cache-${round}`);
        const measured: Array<[Scenario, ProcessRun]> = [
          ['validate', run(['validate', '--no-cache', '--now', NOW], cwd)],
          ['cold', run(['synth', '--out', out, '--now', NOW], cwd, { KYMA_FLEET_CACHE_DIR: cache })],
          ['noop', run(['synth', '--out', out, '--now', NOW], cwd, { KYMA_FLEET_CACHE_DIR: cache })],
        ];
        for (const [scenario, r] of measured) {
          console.error(`  N=${n} ${variant} ${scenario}${round === 0 ? ' (warm-up)' : ` run ${round}/${runs}`}: ${(r.wallMs / 1000).toFixed(2)} s, ${Math.round(r.maxRssKB / 1024)} MB`);
          if (round > 0) row(scenario, variant).runs.push(r);
        }
      }
      // Outputs of this round go; the next round writes fresh folders.
      for (const variant of ['rings', 'plain']) {
        removeTree(path.join(dir, variant, `dist-${round}`));
        removeTree(path.join(dir, variant, `cache-${round}`));
      }
      settle();
    }
    if (!values.keep) removeTree(dir);
  }
  const table = ['| N | scenario | with rings (wall, median) | without rings | ratio (median of rounds) | CPU with / without | peak RSS with / without |', '|---:|---|---:|---:|---:|---:|---:|'];
  for (const n of sizes) {
    for (const scenario of ['validate', 'cold', 'noop'] as const) {
      const a = rows.find((r) => r.n === n && r.scenario === scenario && r.variant === 'rings')!;
      const b = rows.find((r) => r.n === n && r.scenario === scenario && r.variant === 'plain')!;
      const ratios = a.runs.map((r, i) => r.wallMs / b.runs[i]!.wallMs);
      const cpu = (x: Row) => spread(x.runs.map((r) => r.userS + r.sysS)).median;
      const rss = (x: Row) => Math.round(spread(x.runs.map((r) => r.maxRssKB)).median / 1024);
      table.push(
        `| ${n.toLocaleString('en')} | ${scenario} | ${(spread(a.runs.map((r) => r.wallMs)).median / 1000).toFixed(2)} s | ${(spread(b.runs.map((r) => r.wallMs)).median / 1000).toFixed(2)} s | ${spread(ratios).median.toFixed(2)}× (${spread(ratios).min.toFixed(2)}–${spread(ratios).max.toFixed(2)}) | ${cpu(a).toFixed(1)} s / ${cpu(b).toFixed(1)} s | ${rss(a)} / ${rss(b)} MB |`,
      );
    }
  }
  fs.mkdirSync(base, { recursive: true });
  fs.writeFileSync(path.join(base, '..', 'rollout-results.json'), JSON.stringify(rows.map((r) => ({ ...r, runs: r.runs.map(({ stdout: _o, stderr: _e, ...rest }) => rest) })), null, 2));
  console.log(table.join('\n'));
}

main();
