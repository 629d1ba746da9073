// Serialisation benchmark: toYaml (yaml.stringify with cdk8s's options) vs emitYaml
// (src/render/yaml-emitter.ts) over every document of a synthetic fleet, in memory (no files).
//
//   npm run build && node --expose-gc lib/bench/serialize-bench.js [--runtimes 2000] [--seed 42] [--rounds 5]
//
// Generates the fleet into a temp dir, checks it, renders each runtime (the same objects
// renderFleet hands to manifestFile/kustomizationFile, plus the gitops manifests), then times both
// serialisers over all documents: one uncounted warm-up round each, then `rounds` alternating
// rounds (A B A B ...). Also verifies that every document serialises byte-identically and reports
// how many documents fell back to yaml.stringify.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { EXTENSIONS } from '../src/extensions';
import { checkFleet } from '../src/run/check';
import { cmp } from '../src/lib/diagnostics';
import { renderGitops } from '../src/gitops/gitops';
import { manifestFileName } from '../src/render/render-fleet';
import { renderRuntime, type Target, TARGETS } from '../src/render/render-runtime';
import { toYaml } from '../src/render/serialize';
import { emitYaml, getEmitterStats, resetEmitterStats } from '../src/render/yaml-emitter';
import { generateFleet, NOW, REPO_ROOT } from './generate-fleet';

/** The documents renderFleet would serialise for this fleet, in its order (before sorting by path). */
export function collectDocuments(fleetDir: string, cwd: string = REPO_ROOT): unknown[] {
  const checked = checkFleet({ fleetDir, cwd, now: new Date(NOW) });
  if (!checked.ok || !checked.model) throw new Error(`fleet does not check cleanly: ${checked.diagnostics.length} diagnostics`);
  const docs: unknown[] = [];
  const wiring: Array<{ name: string; runtimeID: string; targets: Target[] }> = [];
  for (const resolved of [...checked.runtimes].sort((a, b) => cmp(a.runtime.name, b.runtime.name))) {
    const rendered = renderRuntime(checked.model, resolved, EXTENSIONS);
    wiring.push({ name: rendered.name, runtimeID: resolved.runtime.runtimeID, targets: TARGETS.filter((t) => rendered.targets[t].length > 0) });
    for (const target of TARGETS) {
      const manifests = rendered.targets[target];
      if (manifests.length === 0) continue;
      docs.push(...manifests);
      docs.push({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: manifests.map(manifestFileName).sort(cmp) });
    }
  }
  for (const [file, content] of renderGitops(wiring, checked.model.options.gitops)) if (!file.endsWith('.json')) docs.push(content);
  return docs;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function timeRound(fn: (v: unknown) => string, docs: readonly unknown[]): { ms: number; bytes: number } {
  (globalThis as { gc?: () => void }).gc?.();
  let bytes = 0;
  const t0 = performance.now();
  for (const d of docs) bytes += fn(d).length;
  return { ms: performance.now() - t0, bytes };
}

function main(): void {
  const { values } = parseArgs({ options: { runtimes: { type: 'string', default: '2000' }, seed: { type: 'string', default: '42' }, rounds: { type: 'string', default: '5' } } });
  const n = Number(values.runtimes);
  const seed = Number(values.seed);
  const rounds = Number(values.rounds);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-serialize-bench-'));
  try {
    const fleetDir = path.join(tmp, 'fleet');
    let t = performance.now();
    generateFleet(fleetDir, n, seed);
    const docs = collectDocuments(fleetDir);
    console.log(`fleet: ${n} runtimes, seed ${seed}: ${docs.length} documents (generate+check+render ${(performance.now() - t).toFixed(0)} ms)`);

    t = performance.now();
    resetEmitterStats();
    let mismatches = 0;
    for (const d of docs) if (emitYaml(d) !== toYaml(d)) mismatches++;
    const st = getEmitterStats();
    console.log(`equality: ${docs.length - mismatches}/${docs.length} byte-identical; fallbacks ${st.fallbackDocuments}/${st.documents} (${(performance.now() - t).toFixed(0)} ms)`);
    if (mismatches > 0) process.exitCode = 1;

    timeRound(toYaml, docs); // warm-up
    timeRound(emitYaml, docs);
    const a: number[] = [];
    const b: number[] = [];
    let bytes = 0;
    for (let r = 0; r < rounds; r++) {
      a.push(timeRound(toYaml, docs).ms);
      const e = timeRound(emitYaml, docs);
      b.push(e.ms);
      bytes = e.bytes;
    }
    const ma = median(a);
    const mb = median(b);
    const us = (ms: number): string => ((ms * 1000) / docs.length).toFixed(2);
    console.log(`| serializer | median ms (min..max), ${rounds} rounds | us/doc | docs/s |`);
    console.log('|---|---:|---:|---:|');
    console.log(`| toYaml (yaml.stringify) | ${ma.toFixed(0)} (${Math.min(...a).toFixed(0)}..${Math.max(...a).toFixed(0)}) | ${us(ma)} | ${Math.round(docs.length / (ma / 1000))} |`);
    console.log(`| emitYaml | ${mb.toFixed(1)} (${Math.min(...b).toFixed(1)}..${Math.max(...b).toFixed(1)}) | ${us(mb)} | ${Math.round(docs.length / (mb / 1000))} |`);
    const ratios = a.map((x, i) => x / b[i]!);
    console.log(`speedup (paired per round): median ${median(ratios).toFixed(1)}x, min ${Math.min(...ratios).toFixed(1)}x, max ${Math.max(...ratios).toFixed(1)}x; ${(bytes / 1e6).toFixed(1)} MB of YAML per round`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) main();
