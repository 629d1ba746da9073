// `kyma-fleet status`: reads what the clusters report (a folder of kubectl dumps, or live clusters)
// and writes fleet/status/<name>.yaml per runtime plus fleet/status/SUMMARY.md (and status.html
// with --html). Exit 0 when a report was written (Unknown runtimes included), 1 for an invalid
// fleet, 2 for usage mistakes, 4 when the status folder cannot be written or another status run
// holds its lock (<folder>.lock, ../../status/status-lock.ts), 5 for a global failure of the source
// (an unreadable or unusable kubeconfig, bad credentials for KCP or Garden, an unreadable dump
// folder); with exit 1, 2, 5 and a held lock nothing is written. Live clusters are found as kubectl
// finds them (--kubeconfig, else $KUBECONFIG, else ~/.kube/config; a context option not given is
// the current-context). JSON: schemas/output/status.schema.json.

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
import { ringWindowRows } from '../../rollout/windows';
import { sanitizeMessage } from '../../observe/sanitize';
import { STATUS_STATES, type StatusState } from '../../status/states';
import { lockStatusDir } from '../../status/status-lock';
import { readPreviousStatus, writeStatusFiles } from '../../status/write-status';
import { failureDocument, printJson, problemJson } from '../json-output';
import { concurrencyOption, contextOption, evaluationTime, fleetOption, kubeconfigOption, liveKubeconfig, outputOption, timeoutOption, UsageError } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';

interface StatusFlags {
  fleet: string;
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
  /** The kubeconfig files, merged as kubectl merges them. */
  readonly kubeconfig: readonly string[];
  readonly kcpContext: string;
  readonly gardenContext: string;
  readonly allowExec: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
  /** The fleet's skrApiServers: where runtime kubeconfig secrets may point. */
  readonly skrApiServers?: readonly string[];
  /** Also list every Runtime CR of the KCP namespace (the report's runtimes the fleet does not manage). */
  readonly inventory?: boolean;
}
type ObserveLive = (refs: RuntimeRef[], options: LiveOptions) => Promise<Observation>;

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_SECONDS = 10;

export function statusCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('status')
    .description('read back what the clusters report and write fleet/status/<name>.yaml and SUMMARY.md')
    .addOption(fleetOption())
    .addOption(new Option('--from <dir>', 'folder of kubectl dumps: kcp/, garden/, runtimes/<name>/'))
    .addOption(kubeconfigOption())
    .addOption(contextOption('kcp', 'Kyma Control Plane'))
    .addOption(contextOption('garden', 'Garden cluster'))
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
        '  kyma-fleet status --kcp-context kcp --garden-context garden     # live, kubeconfig from $KUBECONFIG\n' +
        '  kyma-fleet status --from fleet-status-sample --write /tmp/status --output json\n',
    )
    .action(async (flags: StatusFlags) => {
      const live = checkUsage(flags, streams);
      if (live && 'failure' in live) {
        return setExit(fail(streams, flags, ExitCode.StatusGlobalFailure, `status: error: ${live.failure.reason}: ${live.failure.message} (nothing written)`, { failure: live.failure }));
      }
      const now = evaluationTime(flags.now, streams.env);
      const checked = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now });
      if (!checked.ok || !checked.model) {
        const message = `${flags.fleet}: the fleet is invalid; status needs a valid fleet (nothing written)`;
        return setExit(fail(streams, flags, ExitCode.InvalidInput, message, { diagnostics: checked.diagnostics }));
      }
      const refs = runtimeRefs(checked.model, checked.runtimes);
      const observeLive = live ? loadLiveSource() : undefined;

      const writeDir = path.resolve(streams.cwd, flags.write ?? path.join(flags.fleet, 'status'));
      const rel = toSlash(path.relative(streams.cwd, writeDir));
      const display = `${rel.startsWith('..') || path.isAbsolute(rel) ? toSlash(writeDir) : rel || '.'}/`;
      // Held from before the first read until the last write (./status-lock.ts): a second run on
      // the same folder fails here, before it contacts any cluster.
      const lock = lockStatusDir(writeDir, display);
      if (!lock.ok) return setExit(fail(streams, flags, ExitCode.IoOrLock, `${display}: error: ${lock.problem.message} [${lock.problem.code}]`, { problem: problemJson(lock.problem) }));
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
    observation = await run.observeLive(run.refs, { ...run.live, skrApiServers: run.model.options.skrApiServers, inventory: true });
  } else {
    observation = observeDumps(path.resolve(streams.cwd, flags.from!), run.refs, { display: flags.from! });
  }
  const json = flags.output === 'json';
  if (!json) {
    for (const w of observation.warnings) {
      streams.err(`${w.pointer === '' ? w.where : `${w.where}#${w.pointer}`}: warning: ${sanitizeMessage(w.message)}\n`);
    }
  }
  if (observation.global) {
    const failure = { reason: observation.global.reason, message: sanitizeMessage(observation.global.message) };
    return fail(streams, flags, ExitCode.StatusGlobalFailure, `status: error: ${failure.reason}: ${failure.message} (nothing written)`, { failure });
  }

  const previous = readPreviousStatus(writeDir, run.refs.map((r) => r.name));
  if (!json) for (const p of previous.problems) streams.err(`${display}${p.file}: warning: ${p.message}\n`);
  const gardenApply = readGardenReport(writeDir);
  const windows = ringWindowRows(run.model.options.rollout, run.now);
  const report = buildStatusReport({ model: run.model, runtimes: run.runtimes, observation, previous: previous.texts, now: run.now, html: flags.html === true, ...(gardenApply ? { gardenApply } : {}), windows });
  if (!json) for (const w of report.warnings) streams.err(`${display}${w.file}: warning: ${w.message}\n`);
  const result = writeStatusFiles(writeDir, report.files, display);
  if (!result.ok) {
    return fail(streams, flags, ExitCode.IoOrLock, `${display}: error: ${result.problem.message} [${result.problem.code}]`, { problem: problemJson(result.problem) });
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
          ...(report.inventory
            ? {
                inventory: {
                  namespace: report.inventory.namespace,
                  managed: report.inventory.managed,
                  unmanaged: report.inventory.unmanaged,
                  missing: report.inventory.missing.map((r) => ({ name: r.name, runtimeID: r.runtimeID })),
                },
              }
            : {}),
          warnings: [
            ...observation.warnings,
            ...previous.problems.map((p) => ({ where: `${display}${p.file}`, pointer: '', message: p.message })),
            ...report.warnings.map((w) => ({ where: `${display}${w.file}`, pointer: '', message: w.message })),
          ],
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
function checkUsage(flags: StatusFlags, streams: Streams): LiveOptions | { readonly failure: { readonly reason: string; readonly message: string } } | undefined {
  const liveOnly = (['kubeconfig', 'kcpContext', 'gardenContext', 'allowExec', 'concurrency', 'timeout'] as const).filter((k) => flags[k] !== undefined);
  const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (flags.from !== undefined) {
    if (liveOnly.length > 0) throw new UsageError(`${liveOnly.map(flag).join(', ')} ${liveOnly.length === 1 ? 'applies' : 'apply'} only to live clusters, not to --from DIR (kubectl dumps)`);
    return undefined;
  }
  // Malformed values first: a usage error (exit 2) before any file is read.
  const concurrency = concurrencyOption(flags.concurrency, DEFAULT_CONCURRENCY);
  const timeoutMs = timeoutOption(flags.timeout, DEFAULT_TIMEOUT_SECONDS);
  let kubeconfig: ReturnType<typeof liveKubeconfig>;
  try {
    kubeconfig = liveKubeconfig(flags.kubeconfig, { kcp: flags.kcpContext, garden: flags.gardenContext }, streams);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`status reads kubectl dumps (--from DIR) or live clusters through a kubeconfig: ${err.message}`);
    throw err;
  }
  if ('unreadable' in kubeconfig) return { failure: { reason: 'UnreadableKubeconfig', message: kubeconfig.unreadable } };
  return {
    kubeconfig: kubeconfig.files,
    kcpContext: kubeconfig.contexts.kcp!,
    gardenContext: kubeconfig.contexts.garden!,
    allowExec: flags.allowExec === true,
    concurrency,
    timeoutMs,
  };
}

/** Prints a failure that ends the run (text: the message on stderr, after the diagnostics) and returns its exit code. */
function fail(streams: Streams, flags: StatusFlags, exitCode: number, message: string, parts: Parameters<typeof failureDocument>[2] = {}): number {
  if (flags.output === 'json') printJson(streams, failureDocument(exitCode, message, parts));
  else {
    printDiagnostics(parts.diagnostics ?? [], streams);
    streams.err(`${message}\n`);
  }
  return exitCode;
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
