// `kyma-fleet status`: reads what the clusters report (a folder of kubectl dumps, or live clusters)
// and writes fleet/status/<name>.yaml per runtime plus fleet/status/SUMMARY.md (and status.html
// with --html). Exit 0 when a report was written (Unknown runtimes included), 1 for an invalid
// fleet, 2 for usage mistakes, 4 when the status folder cannot be written or another status run
// holds its lock (<folder>.lock, ../../status/status-lock.ts), 5 for a global failure of the source
// (bad credentials for KCP or Garden, an unreadable dump folder); with exit 1, 2, 5 and a held
// lock nothing is written.

import { readGardenReport } from '../../apply/garden-report';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { checkFleet } from '../../run/check';
import type { FleetModel } from '../../validate/model';
import type { ResolvedRuntime } from '../../resolve/resolve';
import { ExitCode } from '../../lib/diagnostics';
import { observeDumps } from '../../observe/dump-source';
import type { Observation, RuntimeRef } from '../../observe/observed';
import { buildStatusReport, runtimeRefs } from '../../status/report';
import { sanitizeMessage } from '../../observe/sanitize';
import { STATUS_STATES, type StatusState } from '../../status/states';
import { lockStatusDir } from '../../status/status-lock';
import { readPreviousStatus, writeStatusFiles } from '../../status/write-status';
import { concurrencyOption, evaluationTime, fleetOption, outputOption, timeoutOption, UsageError } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';

interface StatusFlags {
  fleet: string;
  out: string;
  from?: string;
  kubeconfig?: string;
  kcpContext?: string;
  gardenContext?: string;
  allowExec?: boolean;
  concurrency?: string;
  timeout?: string;
  write?: string;
  output: 'text' | 'json';
  now?: string;
  html?: boolean;
}

/** What src/observe/live-source.ts exports (loaded lazily: it pulls in @kubernetes/client-node). */
interface LiveOptions {
  readonly kubeconfig: string;
  readonly kcpContext: string;
  readonly gardenContext: string;
  readonly allowExec: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
  /** The fleet's skrApiServers: where runtime kubeconfig secrets may point. */
  readonly skrApiServers?: readonly string[];
}
type ObserveLive = (refs: RuntimeRef[], options: LiveOptions) => Promise<Observation>;

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_SECONDS = 10;

export function statusCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('status')
    .description('read back what the clusters report and write fleet/status/<name>.yaml and SUMMARY.md')
    .addOption(fleetOption())
    .addOption(new Option('--out <dir>', 'rendered output folder; accepted for symmetry with synth (status renders the fleet in memory)').default('dist'))
    .addOption(new Option('--from <dir>', 'folder of kubectl dumps: kcp/, garden/, runtimes/<name>/'))
    .addOption(new Option('--kubeconfig <file>', 'kubeconfig for live clusters (from a CI secret, never from the repo)'))
    .addOption(new Option('--kcp-context <ctx>', 'kubeconfig context of the Kyma Control Plane'))
    .addOption(new Option('--garden-context <ctx>', 'kubeconfig context of the Garden cluster'))
    .addOption(new Option('--allow-exec', 'allow exec and auth-provider plugins in your kubeconfig (they run commands); never allowed in runtime kubeconfig Secrets'))
    .addOption(new Option('--concurrency <n>', `runtimes read in parallel (default ${DEFAULT_CONCURRENCY})`))
    .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
    .addOption(new Option('--write <dir>', 'status folder (default: <fleet>/status)'))
    .addOption(new Option('--html', 'also write status.html beside SUMMARY.md: one self-contained, searchable status page'))
    .addOption(outputOption(['text', 'json']))
    .addOption(new Option('--now <time>', 'time of the run for lastTransitionTime (RFC 3339); default: SOURCE_DATE_EPOCH or the clock'))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  kyma-fleet status --from dumps/\n' +
        '  kyma-fleet status --kubeconfig "$KUBECONFIG" --kcp-context kcp --garden-context garden\n' +
        '  kyma-fleet status --from fleet-status-sample --write /tmp/status --output json\n',
    )
    .action(async (flags: StatusFlags) => {
      const live = checkUsage(flags);
      const now = evaluationTime(flags.now, streams.env);
      const checked = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now });
      if (!checked.ok || !checked.model) {
        printDiagnostics(checked.diagnostics, streams);
        streams.err(`${flags.fleet}: the fleet is invalid; status needs a valid fleet (nothing written)\n`);
        return setExit(ExitCode.InvalidInput);
      }
      const refs = runtimeRefs(checked.model, checked.runtimes);
      const observeLive = live ? loadLiveSource() : undefined;

      const writeDir = path.resolve(streams.cwd, flags.write ?? path.join(flags.fleet, 'status'));
      const rel = toSlash(path.relative(streams.cwd, writeDir));
      const display = `${rel.startsWith('..') || path.isAbsolute(rel) ? toSlash(writeDir) : rel || '.'}/`;
      // Held from before the first read until the last write (./status-lock.ts): a second run on
      // the same folder fails here, before it contacts any cluster.
      const lock = lockStatusDir(writeDir, display);
      if (!lock.ok) {
        streams.err(`${display}: error: ${lock.problem.message} [${lock.problem.code}]\n`);
        return setExit(ExitCode.IoOrLock);
      }
      try {
        setExit(await observeAndWrite({ flags, streams, live, observeLive, model: checked.model, runtimes: checked.runtimes, refs, now, writeDir, display }));
      } finally {
        lock.release();
      }
    });
}

interface StatusRun {
  readonly flags: StatusFlags;
  readonly streams: Streams;
  readonly live: LiveOptions | undefined;
  readonly observeLive: ObserveLive | undefined;
  readonly model: FleetModel;
  readonly runtimes: readonly ResolvedRuntime[];
  readonly refs: RuntimeRef[];
  readonly now: Date;
  readonly writeDir: string;
  readonly display: string;
}

/** Observes, builds the report and writes it (under the status lock); returns the exit code. */
async function observeAndWrite(run: StatusRun): Promise<number> {
  const { flags, streams, writeDir, display } = run;
  let observation: Observation;
  if (run.live && run.observeLive) {
    observation = await run.observeLive(run.refs, { ...run.live, skrApiServers: run.model.options.skrApiServers });
  } else {
    observation = observeDumps(path.resolve(streams.cwd, flags.from!), run.refs, { display: flags.from! });
  }
  for (const w of observation.warnings) {
    streams.err(`${w.pointer === '' ? w.where : `${w.where}#${w.pointer}`}: warning: ${sanitizeMessage(w.message)}\n`);
  }
  if (observation.global) {
    streams.err(`status: error: ${observation.global.reason}: ${sanitizeMessage(observation.global.message)} (nothing written)\n`);
    return ExitCode.StatusGlobalFailure;
  }

  const previous = readPreviousStatus(writeDir, run.refs.map((r) => r.name));
  for (const p of previous.problems) streams.err(`${display}${p.file}: warning: ${p.message}\n`);
  const gardenApply = readGardenReport(writeDir);
  const report = buildStatusReport({ model: run.model, runtimes: run.runtimes, observation, previous: previous.texts, now: run.now, html: flags.html === true, ...(gardenApply ? { gardenApply } : {}) });
  for (const w of report.warnings) streams.err(`${display}${w.file}: warning: ${w.message}\n`);
  const result = writeStatusFiles(writeDir, report.files, display);
  if (!result.ok) {
    streams.err(`${display}: error: ${result.problem.message} [${result.problem.code}]\n`);
    return ExitCode.IoOrLock;
  }

  const counts = Object.fromEntries(STATUS_STATES.map((s) => [s, 0])) as Record<StatusState, number>;
  for (const r of report.records) counts[r.state]++;
  if (flags.output === 'json') {
    streams.out(
      JSON.stringify(
        {
          ok: true,
          statusDir: display,
          written: result.written,
          removed: result.removed,
          runtimes: report.records.length,
          counts,
          status: report.records,
          warnings: observation.warnings,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const r of report.records) {
      for (const [ext, e] of Object.entries(r.extensions)) {
        if (e.state === 'Ready' || e.state === 'Disabled') continue;
        const stale = e.stale && e.lastKnown ? `; stale, last known ${e.lastKnown.state} since ${e.lastKnown.lastTransitionTime}` : '';
        streams.out(`${r.name}: ${ext}: ${e.state} (${e.reason}${stale}): ${e.message}\n`);
      }
    }
    const states = STATUS_STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`).join(', ');
    const files =
      result.written.length + result.removed.length === 0
        ? 'up to date, nothing written'
        : `${plural(result.written.length, 'file')} written${result.removed.length ? `, ${plural(result.removed.length, 'file')} removed` : ''}`;
    streams.out(`${display}: ${plural(report.records.length, 'runtime')}${states ? ` (${states})` : ''}; ${files}\n`);
  }
  return ExitCode.Ok;
}

/** Checks the source options; returns the live options, or undefined for --from. */
function checkUsage(flags: StatusFlags): LiveOptions | undefined {
  const liveOnly = (['kcpContext', 'gardenContext', 'allowExec', 'concurrency', 'timeout'] as const).filter((k) => flags[k] !== undefined);
  const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (flags.from !== undefined && flags.kubeconfig !== undefined) throw new UsageError('use either --from DIR (dumps) or --kubeconfig FILE (live clusters), not both');
  if (flags.from === undefined && flags.kubeconfig === undefined) {
    throw new UsageError('say where the status comes from: --from DIR (a folder of kubectl dumps) or --kubeconfig FILE --kcp-context CTX --garden-context CTX');
  }
  if (flags.from !== undefined) {
    if (liveOnly.length > 0) throw new UsageError(`${liveOnly.map(flag).join(', ')} only apply to live clusters (--kubeconfig), not to --from`);
    return undefined;
  }
  if (!flags.kcpContext || !flags.gardenContext) throw new UsageError('--kubeconfig needs --kcp-context CTX and --garden-context CTX');
  const concurrency = concurrencyOption(flags.concurrency, DEFAULT_CONCURRENCY);
  const timeoutMs = timeoutOption(flags.timeout, DEFAULT_TIMEOUT_SECONDS);
  return {
    kubeconfig: flags.kubeconfig!,
    kcpContext: flags.kcpContext,
    gardenContext: flags.gardenContext,
    allowExec: flags.allowExec === true,
    concurrency,
    timeoutMs,
  };
}

/** The live source, loaded only when asked for; a build without it is a usage error (exit 2). */
function loadLiveSource(): ObserveLive {
  let mod: { observeLive?: unknown };
  try {
    mod = require('../../observe/live-source') as { observeLive?: unknown };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new UsageError(`live cluster reading is not available in this build (${firstLine((e as Error).message)}); use --from DIR with kubectl dumps`);
    }
    throw e;
  }
  if (typeof mod.observeLive !== 'function') throw new UsageError('live cluster reading is not available in this build (no observeLive); use --from DIR with kubectl dumps');
  return mod.observeLive as ObserveLive;
}

function firstLine(s: string): string {
  return sanitizeMessage(s.split('\n')[0], 200);
}

function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}
