// Measures the delivery by the real Flux kustomize-controller v1.9.6 (test/flux-controller/: built from
// the Go module proxy, on a KCP test cluster, the source served by the harness's artifact server) of a
// generated fleet rendered by the real CLI, bootstrapped with ONE root Kustomization as
// docs/applying.md says. Prints one JSON document:
//   cold: from publishing the first revision (and bootstrapping the root) to every Kustomization having
//         applied it, none failing (FleetDelivery.allApplied: at a thousand runtimes the interval's
//         reconciles keep some in progress at any moment); controller CPU seconds, bytes of artifacts fetched, downloads;
//   oneRuntimeChange: one runtime's fleet file changes (a module added), synth, publish: seconds until
//         the change is on that runtime's Kyma CR ("takes effect"), and until every Kustomization is
//         Ready at the new revision; CPU, bytes, downloads for that revision. The runtime changed is the
//         last by name: a new revision wakes every Kustomization at once and the controller's work
//         queue decides when this one's turn comes (in one run the first by name took 5 s and the
//         whole revision 455 s), so "takes effect" lies between those two.
//
//   npm run build && node lib/bench/flux-delivery.js [--runtimes 100] [--skr-servers 3] [--seed 42]
//       [--concurrent 4] [--timeout-min 20] [--artifacts per-runtime|whole-source] [--keep]
//   (or `npm run bench -- --scenarios delivery --delivery-runtimes 100,1000`)
//
// Per revision it also counts the Kustomizations that fetched anything (each reconcile downloads its
// source's artifact once: the artifact server counts downloads per artifact) and, with per-runtime
// artifacts, what the source-watcher stand-in did (generator reconciles, artifacts re-archived, object
// writes); source-watcher's real cost (fetching the commit once per generator, archiving) is not
// measured, only counted.
//
// How the SKR side is simulated: --skr-servers test clusters (kube-apiserver + etcd each, with the Kyma
// and RegistryCacheConfig CRDs already installed, i.e. the modules are there), shared round-robin by the
// runtimes; each runtime's kubeconfig-<runtimeID> Secret points at its server. Because every runtime's
// objects live in kyma-system (the Kyma CR is kyma-system/default) and kube-system (Falco rule
// ConfigMaps), this bench rewrites, in the published copy only, those namespaces of each runtime's skr/
// and skr-config/ files to a namespace of its own (`rt-<index>`), so that N runtimes create N distinct
// Kyma CRs, RegistryCacheConfigs and ConfigMaps instead of re-applying shared ones. What that leaves out: real network latency and TLS handshakes to N
// distinct API servers (here a few local ones; kustomize-controller still builds one client per
// reconcile from each Secret), per-cluster discovery and REST mapping of N clusters, the webhooks and
// controllers on the runtimes (lifecycle-manager, the registry-cache module), and source-controller's
// own work (cloning, packing); the KCP's Runtime CRs are created beforehand as KEB would.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestCluster } from '../test/cluster/harness';
import { FleetWorkspace } from '../test/flux-controller/fleet-workspace';
import { readFluxTree, type FluxTree } from '../test/flux-controller/flux-tree';
import { applyJson, CRDS, FleetDelivery, FluxLandscape, getObject } from '../test/flux-controller/landscape';
import { KUSTOMIZE_CONTROLLER_VERSION } from '../test/flux-controller/tools';
import { addModule } from './generate-fleet';

interface Args {
  runtimes: number;
  skrServers: number;
  seed: number;
  concurrent: number;
  timeoutMin: number;
  artifacts: 'per-runtime' | 'whole-source';
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { runtimes: 100, skrServers: 3, seed: 42, concurrent: 4, timeoutMin: 20, artifacts: 'per-runtime', keep: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--runtimes': a.runtimes = Number(v); i++; break;
      case '--skr-servers': a.skrServers = Number(v); i++; break;
      case '--seed': a.seed = Number(v); i++; break;
      case '--concurrent': a.concurrent = Number(v); i++; break;
      case '--timeout-min': a.timeoutMin = Number(v); i++; break;
      case '--artifacts':
        if (v !== 'per-runtime' && v !== 'whole-source') throw new Error(`--artifacts: per-runtime or whole-source (got ${v})`);
        a.artifacts = v;
        i++;
        break;
      case '--keep': a.keep = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return a;
}

const log = (line: string) => process.stderr.write(`[flux-delivery] ${line}\n`);

/**
 * A check run at most every `ms` (false in between): listing thousands of Kustomizations twice a
 * second would load the API server the controller works against. Times are then exact to `ms`.
 */
function every(ms: number, check: () => Promise<boolean>): () => Promise<boolean> {
  let last = 0;
  return async () => {
    if (Date.now() - last < ms) return false;
    last = Date.now();
    return check();
  };
}

/** The bench's namespace for a runtime's SKR objects (see the header). */
const skrNamespace = (index: number) => `rt-${index}`;

/** Rewrites `namespace: kyma-system` in each runtime's skr/ and skr-config/ files (bench copy only). */
function separateSkrNamespaces(ws: FleetWorkspace, runtimes: string[]): FluxTree {
  const tree = readFluxTree(ws.repoDir, ws.distDir);
  for (const leaf of tree.leaves.filter((n) => n.kubeConfigSecret)) {
    const index = runtimes.indexOf(leaf.runtime);
    const dir = leaf.dir;
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.yaml') && x !== 'kustomization.yaml')) {
      const file = path.join(dir, f);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^(\s*)namespace: (kyma-system|kube-system)$/gm, `$1namespace: ${skrNamespace(index)}`));
    }
  }
  return tree;
}


async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const timeoutMs = args.timeoutMin * 60_000;
  const ws = FleetWorkspace.generate({ runtimes: args.runtimes, seed: args.seed, prefix: 'kyma-fleet-flux-bench-' });
  if (args.artifacts === 'whole-source') ws.replace('fleet.yaml', '\nspec:\n', '\nspec:\n  gitops:\n    flux:\n      artifacts: whole-source\n');
  let landscape: FluxLandscape | undefined;
  try {
    const synthSeconds = ws.synth().seconds;
    const runtimes = ws.runtimes();
    const tree = separateSkrNamespaces(ws, runtimes);
    log(`rendered ${runtimes.length} runtimes in ${synthSeconds.toFixed(1)} s: ${tree.all.length} Kustomizations below the root (${tree.top.length} listed by it)`);

    landscape = await FluxLandscape.start({ concurrent: args.concurrent, log });
    const delivery = new FleetDelivery(landscape, ws.repoDir, ws.distDir);
    await delivery.prepareKcp();
    const skrs: TestCluster[] = [];
    for (let i = 0; i < args.skrServers; i++) {
      const skr = await landscape.startSkr();
      await skr.installCrds([CRDS.registryCacheConfig]);
      skrs.push(skr);
    }
    const skrOf = (index: number) => skrs[index % skrs.length]!;
    for (const [k, skr] of skrs.entries()) {
      const namespaces = runtimes.map((_, i) => i).filter((i) => i % skrs.length === k)
        .map((i) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: skrNamespace(i) } }));
      await applyJson(skr, { apiVersion: 'v1', kind: 'List', items: namespaces }, 'kyma-fleet-bench');
    }
    for (const [i, runtime] of runtimes.entries()) await delivery.connect(runtime, skrOf(i));
    log(`${skrs.length} SKR servers, ${runtimes.length} kubeconfig Secrets`);

    const controller = landscape.controller;
    const artifacts = landscape.artifacts;
    const watcher = landscape.sourceWatcher;
    const sample = () => ({
      at: Date.now(),
      cpu: controller.cpuSeconds(),
      bytes: artifacts.bytesServed,
      downloads: artifacts.downloads,
      byName: new Map([...artifacts.byName].map(([k, v]) => [k, v.downloads])),
      rounds: watcher.rounds.length,
      writes: watcher.writes,
    });
    const since = (s: ReturnType<typeof sample>) => {
      const n = sample();
      const rounds = watcher.rounds.slice(s.rounds);
      // a Kustomization reconciled when the artifact its source published was downloaded; with one
      // artifact for all (whole-source), every download is one reconcile
      const fetchedArtifacts = [...n.byName].filter(([k, v]) => v > (s.byName.get(k) ?? 0)).length;
      return {
        seconds: (n.at - s.at) / 1000,
        cpuSeconds: Number((n.cpu - s.cpu).toFixed(1)),
        bytesFetched: n.bytes - s.bytes,
        downloads: n.downloads - s.downloads,
        artifactsFetched: fetchedArtifacts,
        sourceWatcher: { generatorReconciles: rounds.length, artifactsArchived: rounds.reduce((x, r) => x + r.artifacts, 0), artifactsRevised: rounds.reduce((x, r) => x + r.changed.length, 0), objectWrites: n.writes - s.writes },
      };
    };

    // cold
    const s0 = sample();
    const rev1 = await delivery.publish();
    await delivery.bootstrap();
    await landscape.waitFor('every Kustomization applied (cold)', every(5_000, () => delivery.allApplied()), timeoutMs);
    const cold = since(s0);
    log(`cold: ${JSON.stringify(cold)}`);
    await new Promise((r) => setTimeout(r, 5000)); // let the last status writes settle before the next revision

    // one runtime changes
    const changedIndex = runtimes.length - 1;
    const changed = runtimes[changedIndex]!;
    const module = addModule(ws.fleetDir, changed);
    const resynthSeconds = ws.synth().seconds;
    separateSkrNamespaces(ws, runtimes);
    const s1 = sample();
    const rev2 = await delivery.publish();
    await landscape.waitFor(`module ${module} on ${changed}'s Kyma CR`, async () => {
      const kyma = await getObject(skrOf(changedIndex), CRDS.kyma, skrNamespace(changedIndex), 'default');
      return ((kyma?.spec?.modules ?? []) as Array<{ name: string }>).some((m) => m.name === module);
    }, timeoutMs);
    const effect = since(s1);
    await landscape.waitFor('every Kustomization applied at the new revision', every(5_000, () => delivery.allApplied()), timeoutMs);
    const settled = since(s1);

    const result = {
      kustomizeController: KUSTOMIZE_CONTROLLER_VERSION,
      artifacts: args.artifacts,
      runtimes: runtimes.length,
      kustomizations: delivery.tree.all.length + 1,
      listedByRoot: delivery.tree.top.length,
      skrServers: skrs.length,
      controllerConcurrent: args.concurrent,
      synthSeconds,
      artifact: { bytes: rev1.size, files: rev1.files, bytesAfterChange: rev2.size },
      cold,
      oneRuntimeChange: { runtime: changed, module, resynthSeconds, takesEffect: effect, allReady: settled },
      controllerRssMiB: Math.round(controller.rssMiB()),
      machine: { cpus: (await import('node:os')).cpus().length, loadavg: (await import('node:os')).loadavg().map((x) => Number(x.toFixed(1))) },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    try {
      await landscape?.stop();
    } finally {
      if (!args.keep) ws.remove();
      else log(`workspace kept: ${ws.dir}`);
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
