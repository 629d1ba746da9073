// `kyma-fleet apply garden [RUNTIME...]`: writes the Shoot extension entries that KIM does not
// manage (every type whose plug-in does not say KIM writes it) into the runtimes' Shoots, by read-modify-write
// with optimistic concurrency (../../apply/). Applies what dist/ holds: a runtime whose garden/
// fragment in dist/ differs from the fleet's render is refused (run synth, review, merge first).
// Exit 0 when every Shoot has its entries (written or already there); 1 for an invalid fleet or a
// run the mass-change guard stopped; 2 for usage mistakes; 3 when dist/ is out of date; 4 when the
// status folder is locked or its report cannot be written; 5 when the Garden cluster cannot be
// used (401, an unreadable or refused kubeconfig) or a Shoot was refused or could not be written.
// The kubeconfig is found as kubectl finds it (--kubeconfig, else $KUBECONFIG, else ~/.kube/config;
// --garden-context defaults to its current-context). JSON: schemas/output/apply-garden.schema.json.
// Change windows (docs/rollout.md#change-windows): a runtime whose rollout ring is outside its
// change window is deferred (not read, not written); when every runtime is, the run writes nothing
// and exits 6. --override-window REASON writes anyway and records the reason in garden-apply.json.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import type { GardenResult, GardenRun } from '../../apply/apply-garden';
import { mergeGardenReport, readGardenReport, type RuntimeApplyRecord, writeGardenReport } from '../../apply/garden-report';
import { fleetWrittenTypes, gardenTarget, type PlannedRuntime } from '../../apply/garden-targets';
import type { ShootPlan } from '../../apply/shoot-entries';
import { closedLine, closedRuntimes } from '../../rollout/windows';
import { overrideReasonProblem } from '../../rollout/state-file';
import { checkFleet } from '../../run/check';
import { ExitCode } from '../../lib/diagnostics';
import { closestMatch } from '../../lib/suggest';
import { manifestFile } from '../../render/serialize';
import { manifestFileName } from '../../render/render-fleet';
import { sanitizeMessage } from '../../observe/sanitize';
import { lockStatusDir } from '../../status/status-lock';
import { failureDocument, printJson, problemJson } from '../json-output';
import { concurrencyOption, contextOption, evaluationTime, fleetOption, kubeconfigOption, liveKubeconfig, outOption, outputOption, timeoutOption, UsageError } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';

interface GardenFlags {
  fleet: string;
  out: string;
  dryRun?: boolean;
  kubeconfig?: string;
  gardenContext?: string;
  allowExec?: boolean;
  concurrency?: string;
  timeout?: string;
  allowMassChange?: boolean;
  write?: string;
  output: 'text' | 'json';
  now?: string;
  overrideWindow?: string;
}

const DEFAULT_CONCURRENCY = 8;
/** The mass-change guard refused the run (docs/troubleshooting.md). */
const E_MASS_CHANGE = 'E_MASS_CHANGE';
const DEFAULT_TIMEOUT_SECONDS = 10;

export function applyCommand(streams: Streams, setExit: (code: number) => void): Command {
  const garden = new Command('garden')
    .description(`write the fleet's Shoot extension entries that KIM does not manage (${[...fleetWrittenTypes()].sort().join(', ')}) into the runtimes' Shoots`)
    .argument('[runtime...]', 'runtimes to apply (default: every runtime of the fleet)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(new Option('--dry-run', 'read the Shoots and print the patch each would get; write nothing'))
    .addOption(kubeconfigOption())
    .addOption(contextOption('garden', "Garden cluster (a service account with rights on the projects' Shoots)"))
    .addOption(new Option('--allow-exec', 'allow kubeconfig exec and auth-provider plugins (they run commands)'))
    .addOption(new Option('--concurrency <n>', `Shoots read and written in parallel (default ${DEFAULT_CONCURRENCY})`))
    .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
    .addOption(new Option('--allow-mass-change', 'allow writing more Shoots in one run than Fleet spec.removalGuard.maxShare'))
    .addOption(new Option('--write <dir>', 'status folder for the report garden-apply.json (default: <fleet>/status)'))
    .addOption(outputOption(['text', 'json']))
    .addOption(new Option('--now <time>', 'time of the run for the report and the change windows (RFC 3339); default: SOURCE_DATE_EPOCH or the clock'))
    .addOption(new Option('--override-window <reason>', 'write even outside the change window of a runtime\'s rollout ring (the reason is recorded in garden-apply.json)'))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  kyma-fleet apply garden --garden-context garden --dry-run      # kubeconfig from $KUBECONFIG\n' +
        '  kyma-fleet apply garden --kubeconfig garden.yaml --garden-context garden acme-eu-prod-2\n',
    )
    .action(async (names: string[], flags: GardenFlags) => setExit(await applyGardenCommand(names, flags, streams)));
  garden.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err });
  return new Command('apply')
    .description('apply rendered output that GitOps controllers must not apply (garden: Shoot extension entries)')
    .usage('<target> [options]')
    .addCommand(garden);
}

async function applyGardenCommand(names: string[], flags: GardenFlags, streams: Streams): Promise<number> {
  const live = checkUsage(flags, streams);
  if ('failure' in live) {
    return fail(streams, flags, ExitCode.StatusGlobalFailure, `apply garden: error: ${live.failure.reason}: ${live.failure.message} (nothing written)`, { failure: live.failure });
  }
  const now = evaluationTime(flags.now, streams.env);
  const reasonProblem = flags.overrideWindow === undefined ? undefined : overrideReasonProblem(flags.overrideWindow);
  if (reasonProblem) throw new UsageError(`--override-window ${reasonProblem}`);
  const checked = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now });
  if (!checked.ok || !checked.model) {
    return fail(streams, flags, ExitCode.InvalidInput, `${flags.fleet}: the fleet is invalid; apply garden needs a valid fleet (nothing written)`, { diagnostics: checked.diagnostics });
  }
  const model = checked.model;
  const all = checked.runtimes.map((r) => r.runtime.name);
  for (const name of names) {
    if (!all.includes(name)) {
      const close = closestMatch(name, all);
      throw new UsageError(`no runtime ${JSON.stringify(name)} in ${flags.fleet}${close ? ` (did you mean ${JSON.stringify(close)}?)` : ''}; nothing written`);
    }
  }
  const selected = checked.runtimes.filter((r) => names.length === 0 || names.includes(r.runtime.name));

  // What is written must be what dist/ holds (what was reviewed).
  const planned: PlannedRuntime[] = [];
  const stale: string[] = [];
  for (const r of selected) {
    const p = gardenTarget(model, r);
    const rel = p.fragment ? `runtimes/${r.runtime.name}/garden/${manifestFileName(p.fragment)}` : undefined;
    if (rel !== undefined && readText(path.resolve(streams.cwd, flags.out, ...rel.split('/'))) !== manifestFile(p.fragment)) stale.push(`${flags.out}/${rel}`);
    if (p.target.owned.extensions.length > 0) planned.push(p);
  }
  if (stale.length > 0) {
    const message = `${stale.slice(0, 10).join(', ')}${stale.length > 10 ? `, … (${stale.length - 10} more)` : ''}: out of date with ${flags.fleet}; run kyma-fleet synth and apply what was reviewed (nothing written)`;
    return fail(streams, flags, ExitCode.OutOfDate, message);
  }

  // Runtimes whose ring is outside its change window: deferred, or written with --override-window.
  const outside = closedRuntimes(checked.rollout, planned.map((p) => p.target.name), now);
  const outsideLine = new Map(outside.flatMap((c) => c.runtimes.map((name) => [name, closedLine(c.ring, c.verdict)] as const)));
  const deferred = flags.overrideWindow === undefined ? planned.filter((p) => outsideLine.has(p.target.name)).map((p) => ({ p, line: outsideLine.get(p.target.name)! })) : [];
  if (deferred.length > 0 && deferred.length === planned.length) {
    const lines = outside.map((c) => closedLine(c.ring, c.verdict)).join('; ');
    return fail(streams, flags, ExitCode.RolloutGateClosed, `apply garden: ${lines}; nothing written (--override-window REASON writes anyway)`);
  }
  if (outside.length > 0 && flags.output !== 'json') {
    const what = flags.overrideWindow === undefined ? 'deferred' : 'written anyway (--override-window, recorded in garden-apply.json)';
    for (const c of outside) streams.err(`apply garden: warning: ${closedLine(c.ring, c.verdict)}; ${plural(c.runtimes.length, 'runtime')} ${what}\n`);
  }
  // From here on, planned holds only the runtimes this run writes.
  planned.splice(0, planned.length, ...planned.filter((p) => !outsideLine.has(p.target.name) || flags.overrideWindow !== undefined));

  const writeDir = path.resolve(streams.cwd, flags.write ?? path.join(flags.fleet, 'status'));
  const display = `${toSlash(path.relative(streams.cwd, writeDir)) || '.'}/`;
  const lock = flags.dryRun ? undefined : lockStatusDir(writeDir, display);
  if (lock && !lock.ok) return fail(streams, flags, ExitCode.IoOrLock, `${display}: error: ${lock.problem.message} [${lock.problem.code}]`, { problem: problemJson(lock.problem) });
  try {
    // Loaded only now: it pulls in @kubernetes/client-node.
    const { applyGarden } = await import('../../apply/apply-garden');
    const maxShare = model.options.maxRemovalShare;
    const guard = flags.allowMassChange
      ? undefined
      : (plans: ReadonlyMap<string, ShootPlan>): string | undefined => {
          const writing = [...plans].filter(([, p]) => p.kind === 'update').map(([n]) => n).sort();
          if (writing.length < 2 || writing.length <= maxShare * all.length) return undefined;
          const shown = writing.slice(0, 10).join(', ') + (writing.length > 10 ? `, … (${writing.length - 10} more)` : '');
          return `apply garden would write ${writing.length} of the fleet's ${all.length} Shoots (${shown}), more than the allowed share of ${Math.round(maxShare * 100)}% (Fleet spec.removalGuard.maxShare); if that is intended, run again with --allow-mass-change (nothing written)`;
        };
    const result = await applyGarden(
      planned.map((p) => p.target),
      { ...live, dryRun: flags.dryRun === true, ...(guard ? { guard } : {}) },
    );
    const code = report(result, planned, flags, streams, deferred);
    if (flags.dryRun || result.global || result.guarded !== undefined) return code;
    const records = new Map<string, RuntimeApplyRecord>();
    for (const p of planned) {
      const r = result.results.get(p.target.name);
      const override = flags.overrideWindow !== undefined && outsideLine.has(p.target.name) ? { windowOverride: flags.overrideWindow } : {};
      if (r) records.set(p.target.name, { ...applyRecord(p, r, now), ...override });
    }
    const problem = writeGardenReport(writeDir, mergeGardenReport(readGardenReport(writeDir), new Set(all), records));
    if (problem !== undefined) return fail(streams, flags, ExitCode.IoOrLock, `${display}: error: ${problem}`);
    return code;
  } finally {
    if (lock?.ok) lock.release();
  }
}

function applyRecord(p: PlannedRuntime, r: GardenResult, now: Date): RuntimeApplyRecord {
  const shoot = `${p.target.shootNamespace}/${p.target.shootName}`;
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  switch (r.outcome) {
    case 'Applied':
    case 'Unchanged':
      return { outcome: r.outcome, shoot, ...(r.generation === undefined ? {} : { generation: r.generation }), entries: p.digests, time };
    case 'Refused':
    case 'Failed':
      return { outcome: r.outcome, shoot, entries: p.digests, reason: r.reason, message: r.message, time };
    case 'WouldApply':
      throw new Error('apply garden: a dry run writes no report');
  }
}

function report(run: GardenRun, planned: readonly PlannedRuntime[], flags: GardenFlags, streams: Streams, deferred: ReadonlyArray<{ p: PlannedRuntime; line: string }>): number {
  if (run.global) {
    const failure = { reason: run.global.reason, message: sanitizeMessage(run.global.message) };
    return fail(streams, flags, ExitCode.StatusGlobalFailure, `apply garden: error: ${failure.reason}: ${failure.message} (nothing written after it)`, { failure });
  }
  const rows = planned.map((p) => ({ p, r: run.results.get(p.target.name) }));
  if (flags.output === 'json') {
    streams.out(
      JSON.stringify(
        {
          ok: (run.guarded === undefined || flags.dryRun === true) && rows.every(({ r }) => r && r.outcome !== 'Failed' && r.outcome !== 'Refused'),
          dryRun: flags.dryRun === true,
          ...(run.guarded !== undefined ? { guarded: run.guarded } : {}),
          runtimes: rows.map(({ p, r }) => ({
            name: p.target.name,
            shoot: `${p.target.shootNamespace}/${p.target.shootName}`,
            outcome: r?.outcome ?? 'NotRun',
            ...(r && (r.outcome === 'Refused' || r.outcome === 'Failed') ? { reason: r.reason, message: r.message } : {}),
            ...(r && (r.outcome === 'Applied' || r.outcome === 'WouldApply') ? { types: r.plan.changedTypes, patch: r.plan.ops } : {}),
            ...(r?.outcome === 'Applied' ? { attempts: r.attempts } : {}),
            ...(r && (r.outcome === 'Applied' || r.outcome === 'Unchanged') && r.generation !== undefined ? { generation: r.generation } : {}),
          })).concat(deferred.map(({ p, line }) => ({ name: p.target.name, shoot: `${p.target.shootNamespace}/${p.target.shootName}`, outcome: 'Deferred', reason: 'OutsideChangeWindow', message: line }))),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const { p, r } of rows) {
      const shoot = `${p.target.shootNamespace}/${p.target.shootName}`;
      if (!r) continue;
      switch (r.outcome) {
        case 'Applied':
          streams.out(`${p.target.name}: ${shoot}: applied ${r.plan.changedTypes.join(', ') || 'spec.resources'}${r.generation !== undefined ? ` (generation ${r.generation})` : ''}\n`);
          break;
        case 'WouldApply':
          streams.out(`${p.target.name}: ${shoot}: would write ${r.plan.changedTypes.join(', ') || 'spec.resources'}; JSON Patch:\n${JSON.stringify(r.plan.ops, null, 2).replace(/^/gm, '  ')}\n`);
          break;
        case 'Unchanged':
          streams.out(`${p.target.name}: ${shoot}: up to date\n`);
          break;
        default:
          streams.out(`${p.target.name}: ${shoot}: ${r.outcome.toLowerCase()} (${r.reason}): ${r.message}\n`);
      }
    }
  }
  if (run.guarded !== undefined && flags.dryRun) {
    if (flags.output !== 'json') streams.err(`apply garden: warning: without --dry-run this run would stop: ${run.guarded} [${E_MASS_CHANGE}]\n`);
  } else if (run.guarded !== undefined) {
    if (flags.output !== 'json') streams.err(`apply garden: error: ${run.guarded} [${E_MASS_CHANGE}]\n`);
    return ExitCode.InvalidInput;
  }
  const count = (o: string): number => rows.filter(({ r }) => r?.outcome === o).length;
  const failed = count('Failed') + count('Refused');
  if (flags.output !== 'json') {
    const parts = flags.dryRun
      ? [`${count('WouldApply')} to write`, `${count('Unchanged')} up to date`]
      : [`${count('Applied')} written`, `${count('Unchanged')} up to date`];
    if (count('Refused') > 0) parts.push(`${count('Refused')} refused`);
    if (count('Failed') > 0) parts.push(`${count('Failed')} failed`);
    if (deferred.length > 0) parts.push(`${deferred.length} deferred (outside the change window)`);
    streams.out(`apply garden${flags.dryRun ? ' --dry-run' : ''}: ${plural(planned.length, 'Shoot')} with entries the fleet writes: ${parts.join(', ')}\n`);
  }
  return failed > 0 ? ExitCode.StatusGlobalFailure : ExitCode.Ok;
}

interface GardenLive {
  readonly kubeconfig: readonly string[];
  readonly gardenContext: string;
  readonly allowExec: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

function checkUsage(flags: GardenFlags, streams: Streams): GardenLive | { readonly failure: { readonly reason: string; readonly message: string } } {
  // Malformed values first: a usage error (exit 2) before any file is read.
  const concurrency = concurrencyOption(flags.concurrency, DEFAULT_CONCURRENCY);
  const timeoutMs = timeoutOption(flags.timeout, DEFAULT_TIMEOUT_SECONDS);
  const kubeconfig = liveKubeconfig(flags.kubeconfig, { garden: flags.gardenContext }, streams);
  if ('unreadable' in kubeconfig) return { failure: { reason: 'UnreadableKubeconfig', message: kubeconfig.unreadable } };
  return { kubeconfig: kubeconfig.files, gardenContext: kubeconfig.contexts.garden!, allowExec: flags.allowExec === true, concurrency, timeoutMs };
}

/** Prints a failure that ends the run (text: the message on stderr, after the diagnostics) and returns its exit code. */
function fail(streams: Streams, flags: GardenFlags, exitCode: number, message: string, parts: Parameters<typeof failureDocument>[2] = {}): number {
  if (flags.output === 'json') printJson(streams, failureDocument(exitCode, message, parts));
  else {
    printDiagnostics(parts.diagnostics ?? [], streams);
    streams.err(`${message}\n`);
  }
  return exitCode;
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}
