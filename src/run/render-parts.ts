// The check and render stages of a large run without a usable record, in parts: each part checks,
// resolves and renders its runtimes chunk by chunk (./parallel/part.ts), in a worker thread when
// there are several, and writes their files straight into the open write's staging tree (bounded
// memory). This thread checks the fleet-wide layers and the checks across files (duplicates, empty
// fleet) with the identities the parts found.

import { cmp, ExitCode, hasErrors, normalizeDiagnostics } from '../lib/diagnostics';
import type { DistSession } from '../write/dist-writer';
import { checkFleet } from './check';
import { partFiles, type PartResult } from './parallel/part';
import { runParts } from './parallel/pool';
import type { RunPlan, SynthOptions } from './plan';
import type { RenderOutcome, RuntimeEntry } from './stages';

/**
 * Undefined (do the run in this thread) when a worker failed or the fleet changed while the parts
 * ran (a part saw other fleet-wide layers than the plan).
 */
export function renderInParts(options: SynthOptions, planned: RunPlan, sink: DistSession): RenderOutcome | undefined {
  let rendered = 0;
  const total = partFiles(planned.fleetRoot, 0, 1).size;
  const trusted = planned.trusted;
  const previousInputs: Record<string, string> = {};
  const withRecord = options.cacheDir !== undefined || planned.committed;
  if (withRecord) for (const r of Object.values(trusted?.runtimes ?? {})) previousInputs[r.identity.name] = r.input;
  const staging = sink.stagingArea();
  let parts: PartResult[];
  try {
    parts = runParts(
      Array.from({ length: planned.parts }, (_, part) => ({
        fleetDir: options.fleetDir,
        cwd: options.cwd,
        now: options.now.getTime(),
        allowEmpty: options.allowEmpty ?? false,
        outDir: options.outDir,
        part,
        of: planned.parts,
        previousInputs,
        staging,
      })),
      (files, runtimes) => {
        sink.addStaged(files);
        rendered += runtimes;
        options.progress?.('rendering runtimes', rendered, total);
      },
    );
  } catch {
    return undefined;
  }
  if (parts.some((p) => p.layersKey !== planned.key)) return undefined;
  const checked = checkFleet({
    fleetDir: options.fleetDir,
    cwd: options.cwd,
    now: options.now,
    allowEmpty: options.allowEmpty,
    layers: planned.layers,
    runtimes: { plan: () => ({ select: () => false }), identities: () => [], known: parts.flatMap((p) => p.identities) },
  });
  const diagnostics = normalizeDiagnostics([...checked.diagnostics, ...parts.flatMap((p) => p.diagnostics)]);
  if (!checked.ok || !checked.model || parts.some((p) => !p.ok) || hasErrors(diagnostics)) return { failed: { exitCode: ExitCode.InvalidInput, diagnostics } };
  const entries: RuntimeEntry[] = [];
  const recordByName = new Map(Object.values(trusted?.runtimes ?? {}).map((x) => [x.identity.name, x]));
  for (const p of parts) {
    for (const r of p.runtimes) {
      const kept = r.kept && withRecord;
      const { relPath, file: _file, kept: _kept, ...record } = r;
      const targets = kept ? (recordByName.get(r.identity.name)?.targets ?? []) : r.targets;
      // A part that rendered a runtime staged its own GitOps files too (r.kept is false without a cache).
      entries.push({ relPath, kept, gitopsStaged: !kept, record: { ...record, targets } });
    }
  }
  entries.sort((a, b) => cmp(a.relPath, b.relPath));
  // The rendered files are in the session already.
  return { rendered: { model: checked.model, diagnostics, entries, files: new Map() } };
}
