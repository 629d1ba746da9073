// The untimed preparation of the plain-cdk8s baseline: validates the fleet (checkFleet), renders
// every runtime (renderRuntime) and the GitOps wiring (renderGitops), and writes the resulting
// Kubernetes objects as JSON Lines, one line per chart of the baseline app:
//   {"chart":"<runtime name>","objects":[{"id":"<target>-<kind>-<name>","object":{...}}, ...]}
// and a last line {"chart":"gitops",...} with the Flux/Argo CD objects (kustomize files and the
// Argo CD parameter JSON files are not Kubernetes objects and are left out, as are the
// kustomization.yaml files of the target folders: cdk8s does not write those either).
// JSON Lines rather than one JSON document: at 100,000 runtimes the whole would pass V8's string limit.
//
//   node lib/bench/export-objects.js --fleet DIR --out FILE.jsonl [--now ISO]
// Prints {"charts":…,"objects":…,"bytes":…,"ms":…} on stdout.

import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { checkFleet } from '../src/run/check';
import { cmp, formatDiagnostic } from '../src/lib/diagnostics';
import { renderGitops } from '../src/gitops/gitops';
import { renderRuntime, TARGETS } from '../src/render/render-runtime';

export interface ExportStats {
  charts: number;
  objects: number;
  bytes: number;
  ms: number;
}

export function exportObjects(fleetDir: string, outFile: string, now: Date): ExportStats {
  const t0 = performance.now();
  const checked = checkFleet({ fleetDir, now });
  if (!checked.ok || !checked.model) {
    throw new Error(`fleet ${fleetDir} does not validate:\n${checked.diagnostics.slice(0, 20).map(formatDiagnostic).join('\n')}`);
  }
  const model = checked.model;
  const fd = fs.openSync(outFile, 'w');
  const stats: ExportStats = { charts: 0, objects: 0, bytes: 0, ms: 0 };
  const line = (chart: string, objects: Array<{ id: string; object: unknown }>): void => {
    const text = JSON.stringify({ chart, objects }) + '\n';
    fs.writeSync(fd, text);
    stats.charts++;
    stats.objects += objects.length;
    stats.bytes += Buffer.byteLength(text);
  };
  try {
    const wiring: Array<{ name: string; runtimeID: string; targets: Array<(typeof TARGETS)[number]> }> = [];
    for (const resolved of [...checked.runtimes].sort((a, b) => cmp(a.runtime.name, b.runtime.name))) {
      const rendered = renderRuntime(model, resolved);
      const objects: Array<{ id: string; object: unknown }> = [];
      for (const target of TARGETS) {
        for (const m of rendered.targets[target]) objects.push({ id: `${target}-${m.kind}-${m.metadata.name}`, object: m });
      }
      wiring.push({ name: rendered.name, runtimeID: resolved.runtime.runtimeID, targets: TARGETS.filter((t) => rendered.targets[t].length > 0) });
      line(rendered.name, objects);
    }
    const gitops: Array<{ id: string; object: unknown }> = [];
    for (const [file, content] of renderGitops(wiring, model.options.gitops)) {
      const meta = content.metadata as { name?: unknown } | undefined;
      const kustomizeFile = String(content.apiVersion).startsWith('kustomize.config.k8s.io/');
      if (file.endsWith('.json') || kustomizeFile || typeof content.kind !== 'string' || typeof meta?.name !== 'string') continue;
      gitops.push({ id: file.replace(/[^0-9A-Za-z._-]/g, '-'), object: content });
    }
    if (gitops.length > 0) line('gitops', gitops);
  } finally {
    fs.closeSync(fd);
  }
  stats.ms = performance.now() - t0;
  return stats;
}

if (require.main === module) {
  const { values } = parseArgs({ options: { fleet: { type: 'string' }, out: { type: 'string' }, now: { type: 'string', default: '2026-11-22T00:00:00Z' } } });
  if (!values.fleet || !values.out) throw new Error('usage: export-objects --fleet DIR --out FILE.jsonl [--now ISO]');
  process.stdout.write(JSON.stringify(exportObjects(values.fleet, values.out, new Date(values.now!))) + '\n');
}
