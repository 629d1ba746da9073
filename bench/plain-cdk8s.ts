// The plain-cdk8s baseline of the benchmark, timed as its own process: the same Kubernetes objects
// kyma-fleet renders (prepared once, untimed, by export-objects.ts), put into the textbook cdk8s
// app and synthesised. perf-baseline.md's definitions:
//   --mode folder (default; "cdk8s-synth-folder", 19.3 s for 10,000 runtimes x 5 objects there):
//       one App, one Chart per runtime, one ApiObject per object, `app.synth()` with
//       yamlOutputType FOLDER_PER_CHART_FILE_PER_RESOURCE (`<out>/<chart>/<Kind>.<name>.k8s.yaml`).
//       Linear in N.
//   --mode naive ("cdk8s-synth"): the same app with the default FILE_PER_CHART (one
//       `<chart>.k8s.yaml` per runtime). cdk8s resolves and validates the whole app once per chart,
//       so this is O(N²): only meaningful for small N.
// Reads JSON Lines ({"chart", "objects": [{"id", "object"}]}, one chart per line); the read and
// JSON.parse are inside the timed process (well under a second at 10,000 runtimes).
// Loads nothing of kyma-fleet: the start-up cost is cdk8s's alone.
//
//   node lib/bench/plain-cdk8s.js --objects FILE.jsonl --out DIR [--mode folder|naive]
// Prints {"mode","charts","objects","readMs","buildMs","synthMs"} on stdout.

import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ApiObject, App, Chart, YamlOutputType } from 'cdk8s';

/** One line of the objects file: a chart of the baseline app (one runtime, or the GitOps wiring). */
export interface ChartLine {
  chart: string;
  objects: Array<{ id: string; object: { apiVersion: string; kind: string; metadata?: Record<string, unknown> } & Record<string, unknown> }>;
}

/** Parses JSON Lines from a Buffer (a string of the whole file could pass V8's limit at 100k runtimes). */
export function readChartLines(file: string): ChartLine[] {
  const buf = fs.readFileSync(file);
  const out: ChartLine[] = [];
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    if (end > start) out.push(JSON.parse(buf.toString('utf8', start, end)) as ChartLine);
    start = end + 1;
  }
  return out;
}

function main(): void {
  const { values } = parseArgs({
    options: { objects: { type: 'string' }, out: { type: 'string' }, mode: { type: 'string', default: 'folder' } },
  });
  if (!values.objects || !values.out || !['folder', 'naive'].includes(values.mode!)) {
    throw new Error('usage: plain-cdk8s --objects FILE.jsonl --out DIR [--mode folder|naive]');
  }
  const t0 = performance.now();
  const lines = readChartLines(values.objects);
  const t1 = performance.now();
  const app = new App({
    outdir: values.out,
    yamlOutputType: values.mode === 'folder' ? YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE : YamlOutputType.FILE_PER_CHART,
  });
  let objects = 0;
  for (const line of lines) {
    const chart = new Chart(app, line.chart, { disableResourceNameHashes: true });
    for (const o of line.objects) {
      new ApiObject(chart, o.id, o.object);
      objects++;
    }
  }
  const t2 = performance.now();
  app.synth();
  const t3 = performance.now();
  process.stdout.write(
    JSON.stringify({ mode: values.mode, charts: lines.length, objects, readMs: t1 - t0, buildMs: t2 - t1, synthMs: t3 - t2 }) + '\n',
  );
}

if (require.main === module) main();
