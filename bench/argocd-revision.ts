// Measures what a revision of the fleet repository costs Argo CD, with argo-cd v3.2.12's own code:
// the ApplicationSet controller's generators make the Applications from the rendered
// dist/gitops/argocd/ of a generated fleet (test/argocd `generate`, every runtime registered the way a
// user does it: KIM's kubeconfig Secrets, then the real `kyma-fleet register argocd`), and argo-cd's
// repo-server code (test/argocd/revisioncost, in-process, with the real `kustomize` v5.7.1 binary)
// answers the calls the controllers make for a cold start and for two commits that each change one
// runtime: once as the wiring is rendered (argocd.argoproj.io/manifest-generate-paths honoured) and
// once with the annotation ignored. Prints one JSON document.
//
//   npm run build && node lib/bench/argocd-revision.js [--runtimes 100] [--seed 42] [--workers 20] [--keep]
//   (or `npm run bench -- --scenarios delivery-argocd --delivery-runtimes 100,1000`)
//
// What it leaves out (see test/argocd/revisioncost/main.go): gRPC and Redis between the controllers
// and the repo-server, revision resolution, the controller's diff against the live objects and its
// syncs (those touch only the Applications whose manifests changed; test/argocd/delivery.test.ts runs
// them on the test cluster), and the clusters: no runtime is contacted (the kubeconfigs' servers are
// placeholders, as in test/argocd/generate.test.ts).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { addModule, generateFleet } from './generate-fleet';
import { startTestCluster, type TestCluster } from '../test/cluster/harness';
import { ensureGoTool, type GoToolSpec } from '../test/cluster/go-tool-cache';
import { argo, ARGOCD_DIR, ensureArgoCdFleet, type GenerateResult } from '../test/argocd/argocd-fleet';
import { argoContext, FleetRepo, git, installArgoCd, kimKubeconfig, putKimKubeconfigs, registerArgoCd } from '../test/argocd/landscape';

/** The measuring program and the kustomize binary argo-cd's repo-server runs (v5.7.1: the kustomize module test/argocd's go.mod selects; argo-cd v3.2 ships 5.7.0). */
export const REVISION_COST_TOOL: GoToolSpec = {
  name: 'argocd-revision-cost',
  moduleDir: ARGOCD_DIR,
  binaries: { revisioncost: './revisioncost', kustomize: 'sigs.k8s.io/kustomize/kustomize/v5' },
  env: { CGO_ENABLED: '0' },
};

interface Args {
  runtimes: number;
  seed: number;
  workers: number;
  gitDiffRuntimes: number[];
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { runtimes: 100, seed: 42, workers: 20, gitDiffRuntimes: [], keep: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--runtimes': a.runtimes = Number(v); i++; break;
      case '--seed': a.seed = Number(v); i++; break;
      case '--workers': a.workers = Number(v); i++; break;
      case '--git-diff-runtimes': a.gitDiffRuntimes = (v ?? '').split(',').map(Number); i++; break;
      case '--keep': a.keep = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (a.gitDiffRuntimes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--git-diff-runtimes must be positive integers (got ${a.gitDiffRuntimes.join(',')})`);
  if (!Number.isInteger(a.runtimes) || a.runtimes < 1) throw new Error(`--runtimes must be a positive integer (got ${a.runtimes})`);
  return a;
}

const log = (line: string) => process.stderr.write(`[argocd-revision] ${line}\n`);

/** Every document of the given kind in the YAML files below `dir`. */
function documentsOfKind(dir: string, kind: string): any[] {
  const out: any[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml')) {
        const doc = parse(fs.readFileSync(p, 'utf8'));
        if (doc?.kind === kind) out.push(doc);
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * What one UpdateRevisionForPaths costs in git at a larger fleet: the repo-server runs `git diff
 * --name-only <synced>..<new>` in its clone for every Application with the annotation (util/git
 * client.go ChangedFiles), and that diff reads the trees on the changed path, dist/runtimes/ among
 * them, whose size grows with the fleet. A generated fleet of `runtimes` rendered by the CLI and
 * committed, one runtime changed and committed, `git gc`; then the diff timed `rounds` times in the
 * repository (median), as the repo-server runs it in its clone.
 */
function gitDiffCost(runtimes: number, seed: number, rounds = 15): Record<string, number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-argocd-gitdiff-'));
  try {
    generateFleet(path.join(dir, 'fleet'), runtimes, seed);
    const repo = new FleetRepo(dir);
    repo.enableArgoCd();
    let t = Date.now();
    repo.synth();
    const synthSeconds = (Date.now() - t) / 1000;
    const a = repo.commit('render');
    const name = repo.runtimeFiles().map((r) => r.runtime!).sort()[0]!;
    addModule(repo.fleetDir, name);
    repo.synth();
    const b = repo.commit(`${name}: add a module`);
    git(dir, ['gc', '-q']);
    const times: number[] = [];
    let changed = '';
    for (let i = 0; i < rounds; i++) {
      const started = process.hrtime.bigint();
      changed = git(dir, ['diff', '--name-only', `${a}..${b}`]);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((x, y) => x - y);
    const runtimesTree = git(dir, ['cat-file', '-s', `${b}:dist/runtimes`]);
    return {
      runtimes, synthSeconds, gitDiffMsMedian: Number(times[Math.floor(times.length / 2)]!.toFixed(1)), gitDiffMsMin: Number(times[0]!.toFixed(1)),
      changedFiles: changed.split('\n').filter(Boolean).length, runtimesTreeBytes: Number(runtimesTree),
      packBytes: Number(/size-pack: (\d+)/.exec(git(dir, ['count-objects', '-v']))?.[1] ?? NaN) * 1024,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const [fleetTool, costTool] = await Promise.all([ensureArgoCdFleet(log), ensureGoTool(REVISION_COST_TOOL, { log })]);
  log(`tools ready (${fleetTool.seconds.toFixed(0)} s, ${costTool.seconds.toFixed(0)} s)`);
  process.env.KYMA_FLEET_ARGOCD_FLEET = fleetTool.binary;
  process.env.KYMA_FLEET_ARGOCD_MODULE_DIR = fleetTool.moduleDir;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-argocd-bench-'));
  let kcp: TestCluster | undefined;
  try {
    generateFleet(path.join(dir, 'fleet'), args.runtimes, args.seed);
    const repo = new FleetRepo(dir);
    repo.enableArgoCd();
    let t = Date.now();
    repo.synth();
    const synthSeconds = (Date.now() - t) / 1000;
    const revA = repo.commit('render');
    const runtimes = repo.runtimeFiles();
    log(`rendered ${runtimes.length} runtimes in ${synthSeconds.toFixed(1)} s`);

    kcp = await startTestCluster({ crds: [] });
    await installArgoCd(kcp);
    await putKimKubeconfigs(kcp, Object.fromEntries(runtimes.map((r) => [r.runtimeID!, kimKubeconfig(`https://api.${r.runtimeID!.slice(0, 8)}.kyma.example:443`, undefined, { token: 'unused' })])));
    t = Date.now();
    const reg = await registerArgoCd(kcp, repo);
    log(`register argocd: ${JSON.stringify(reg.counts)} in ${((Date.now() - t) / 1000).toFixed(1)} s`);

    const argocdDir = path.join(repo.distDir, 'gitops', 'argocd');
    t = Date.now();
    // the generate command's repo-server stand-in checks the repository out for every Git files call (test/argocd/repos.go): minutes at 1,000 runtimes
    const gen = await argo<GenerateResult>('generate', argoContext(kcp, repo), ['--appsets', argocdDir], 60 * 60_000);
    const generateSeconds = (Date.now() - t) / 1000;
    const failed = gen.applicationSets.filter((a) => a.error);
    if (failed.length > 0) throw new Error(`generate: ${JSON.stringify(failed.slice(0, 3))}`);
    const shardApps = documentsOfKind(argocdDir, 'Application');
    const apps = [...shardApps, ...gen.applicationSets.flatMap((a) => a.applications)];
    const appSets = documentsOfKind(argocdDir, 'ApplicationSet');
    log(`${apps.length} Applications (${shardApps.length} shard Applications), ${appSets.length} ApplicationSets, generated in ${generateSeconds.toFixed(1)} s`);

    const names = runtimes.map((r) => r.runtime!).sort();
    const changedB = names[names.length - 1]!;
    const moduleB = addModule(repo.fleetDir, changedB);
    repo.synth();
    const revB = repo.commit(`${changedB}: add ${moduleB}`);
    const changedC = names[0]!;
    const moduleC = addModule(repo.fleetDir, changedC);
    repo.synth();
    const revC = repo.commit(`${changedC}: add ${moduleC}`);
    git(dir, ['gc', '-q']);
    const packedKiB = Number(/size-pack: (\d+)/.exec(git(dir, ['count-objects', '-v']))?.[1] ?? NaN);

    const appsFile = path.join(dir, 'bench-apps.json');
    const appSetsFile = path.join(dir, 'bench-appsets.json');
    fs.writeFileSync(appsFile, JSON.stringify(apps));
    fs.writeFileSync(appSetsFile, JSON.stringify(appSets));
    // the repo-server code logs every command it runs (argo-cd's exec tracing): kept in a file, its tail shown on failure
    const costLog = path.join(dir, 'revisioncost.log');
    const run = spawnSync(costTool.binaries.revisioncost!, [
      '--repo', dir, '--apps', appsFile, '--appsets', appSetsFile, '--kustomize', costTool.binaries.kustomize!,
      '--revisions', [revA, revB, revC].join(','), '--workers', String(args.workers),
    ], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', fs.openSync(costLog, 'w')] });
    if (run.status !== 0) throw new Error(`revisioncost exited with ${run.status ?? run.signal}: ${run.stdout}\n${fs.readFileSync(costLog, 'utf8').split('\n').slice(-20).join('\n')}`);
    const cost = JSON.parse(run.stdout.trim().split('\n').pop()!) as { phases: Array<{ errors: string[] }> };
    const errors = cost.phases.flatMap((p) => p.errors);
    if (errors.length > 0) throw new Error(`revisioncost: ${errors.slice(0, 5).join('\n')}`);
    const result = {
      argocd: 'v3.2.12',
      runtimes: runtimes.length,
      applications: apps.length,
      applicationSets: appSets.length,
      synthSeconds,
      generateSeconds,
      repository: { packBytes: packedKiB * 1024 },
      commits: { [revB]: { runtime: changedB, module: moduleB }, [revC]: { runtime: changedC, module: moduleC } },
      ...cost,
      gitDiff: [args.runtimes, ...args.gitDiffRuntimes].map((n) => {
        log(`git diff at ${n} runtimes`);
        return gitDiffCost(n, args.seed);
      }),
      wallSeconds: (Date.now() - started) / 1000,
      machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => Number(x.toFixed(1))) },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    try {
      await kcp?.stop();
    } finally {
      if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
      else log(`workspace kept: ${dir}`);
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
