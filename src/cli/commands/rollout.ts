// `kyma-fleet rollout start|status|advance|pause|resume|abort` (docs/rollout.md): moves the rings
// of Fleet.spec.rollout between revisions of the fleet-wide layers by rewriting fleet/rollout/.
// Every subcommand checks the whole fleet first (an invalid fleet moves nothing, exit 1); advance
// observes the runtimes as `status` does and exits 6 when the gate is closed (nothing moved).
// start and advance act only inside the change window of the rings they move (../../rollout/windows.ts):
// outside it they write nothing and exit 6, unless --override-window REASON, which is recorded on
// the rings moved (fleet/rollout/state.yaml windowOverride).
// None of them writes dist/: run synth afterwards, as CI does. JSON: schemas/output/rollout-*.schema.json.

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { type Diagnostic, ExitCode, hasErrors } from '../../lib/diagnostics';
import { evaluateGate, formatDuration, type GateVerdict } from '../../rollout/gate';
import { type LiveSource, observeAndRecord } from '../../rollout/observe';
import type { RolloutView } from '../../rollout/ring-resolve';
import { readStatusRecords, ringTable } from '../../rollout/report';
import { overrideReasonProblem, type RolloutState } from '../../rollout/state-file';
import { lockRollout, saveRollout } from '../../rollout/store';
import { abortRollout, advanceFrom, ringToLeave, setPaused, startRollout, withWindowOverride } from '../../rollout/transitions';
import { closedLine, closedRings, windowJson } from '../../rollout/windows';
import { checkFleet } from '../../run/check';
import { failureDocument, printJson, problemJson } from '../json-output';
import { concurrencyOption, contextOption, evaluationTime, fleetOption, kubeconfigOption, liveKubeconfig, outputOption, timeoutOption, UsageError } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';

interface RolloutFlags {
  fleet: string;
  now?: string;
  output: 'text' | 'json';
  from?: string;
  kubeconfig?: string;
  kcpContext?: string;
  gardenContext?: string;
  allowExec?: boolean;
  concurrency?: string;
  timeout?: string;
  write?: string;
  overrideWindow?: string;
}

type Setter = (code: number) => void;
type Move = 'start' | 'status' | 'advance' | 'pause' | 'resume' | 'abort';

export function rolloutCommand(streams: Streams, setExit: Setter): Command {
  const cmd = new Command('rollout').usage('<move> [options]').description('stage changes of the fleet-wide layers ring by ring (Fleet.spec.rollout; docs/rollout.md)');
  const sub = (name: Move, description: string): Command =>
    cmd
      .command(name)
      .description(description)
      .addOption(fleetOption())
      .addOption(new Option('--now <time>', 'time of the move and of the gate check (RFC 3339); default: SOURCE_DATE_EPOCH or the clock'))
      .addOption(outputOption(['text', 'json']));
  const overrideWindow = (): Option => new Option('--override-window <reason>', 'act even outside the change window (the reason is recorded in fleet/rollout/state.yaml)');
  sub('start', 'make the working fleet-wide layers a new revision and move the first ring to it; exit 6 outside its change window')
    .addOption(overrideWindow())
    .action((flags: RolloutFlags) => setExit(run(flags, streams, 'start')));
  sub('status', 'per ring: revision, runtimes and their states (fleet/status/), bake time left, gate').action((flags: RolloutFlags) => setExit(run(flags, streams, 'status')));
  sub('advance', 'observe the runtimes (as status does) and move the next ring when the gate of the ring before it is open; exit 6 when closed or outside its change window')
    .addOption(overrideWindow())
    .addOption(new Option('--from <dir>', 'folder of kubectl dumps: kcp/, garden/, runtimes/<name>/'))
    .addOption(kubeconfigOption())
    .addOption(contextOption('kcp', 'Kyma Control Plane'))
    .addOption(contextOption('garden', 'Garden cluster'))
    .addOption(new Option('--allow-exec', 'allow exec and auth-provider plugins in your kubeconfig (they run commands)'))
    .addOption(new Option('--concurrency <n>', 'runtimes read in parallel (default 8)'))
    .addOption(new Option('--timeout <seconds>', 'timeout per request (default 10)'))
    .addOption(new Option('--write <dir>', 'status folder (default: <fleet>/status)'))
    .action(async (flags: RolloutFlags) => setExit(await advance(flags, streams)));
  sub('pause', 'stop advancing: advance refuses (exit 6) until resume').action((flags: RolloutFlags) => setExit(run(flags, streams, 'pause')));
  sub('resume', 'let advance move rings again').action((flags: RolloutFlags) => setExit(run(flags, streams, 'resume')));
  sub('abort', 'move every ring back to the revision of the last ring').action((flags: RolloutFlags) => setExit(run(flags, streams, 'abort')));
  cmd.addHelpText(
    'after',
    '\nExamples:\n  kyma-fleet rollout start\n  kyma-fleet rollout status --output json\n  kyma-fleet rollout advance --from dumps/\n  kyma-fleet rollout advance --kcp-context kcp --garden-context garden     # live, kubeconfig from $KUBECONFIG\n',
  );
  return cmd;
}

/** Ends a run that failed: text to stderr (after the diagnostics), or the failure document. */
function fail(streams: Streams, flags: RolloutFlags, exitCode: number, message: string, parts: Parameters<typeof failureDocument>[2] = {}): number {
  if (flags.output === 'json') printJson(streams, failureDocument(exitCode, message, parts));
  else {
    printDiagnostics(parts.diagnostics ?? [], streams);
    streams.err(`${message}\n`);
  }
  return exitCode;
}

/** Ends a run that did its job: the text line, or the JSON document. */
function done(streams: Streams, flags: RolloutFlags, diagnostics: readonly Diagnostic[], text: string, json: Record<string, unknown>): number {
  if (flags.output === 'json') printJson(streams, { ok: true, ...json, diagnostics });
  else {
    printDiagnostics(diagnostics, streams);
    streams.out(text);
  }
  return ExitCode.Ok;
}

interface Checked {
  readonly checked: ReturnType<typeof checkFleet>;
  readonly view: RolloutView;
  readonly now: Date;
  /** The diagnostics to show (warnings only: an error ends the run). */
  readonly diagnostics: readonly Diagnostic[];
}

/** The checked fleet and its rollout, or an exit code after saying why not. */
function checkedRollout(flags: RolloutFlags, streams: Streams, move: Move): Checked | number {
  const now = evaluationTime(flags.now, streams.env);
  const reasonProblem = flags.overrideWindow === undefined ? undefined : overrideReasonProblem(flags.overrideWindow);
  if (reasonProblem) throw new UsageError(`--override-window ${reasonProblem}`);
  const checked = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now });
  // `start` is what the pending-change warning asks for: not repeated there.
  const diagnostics = move === 'start' ? checked.diagnostics.filter((d) => d.code !== 'W_ROLLOUT_PENDING') : checked.diagnostics;
  if (!checked.ok || !checked.model || hasErrors(diagnostics)) {
    return fail(streams, flags, ExitCode.InvalidInput, `${flags.fleet}: the fleet is invalid; rollout ${move} needs a valid fleet (nothing changed)`, { diagnostics });
  }
  if (!checked.rollout) {
    return fail(streams, flags, ExitCode.InvalidInput, `${flags.fleet}/fleet.yaml: error: declares no spec.rollout; rollout ${move} needs rollout rings (docs/rollout.md)`, { diagnostics });
  }
  if (!checked.rollout.state && move !== 'start' && move !== 'status') {
    return fail(streams, flags, ExitCode.InvalidInput, `${checked.rollout.stateFile}: error: no rollout was started; run kyma-fleet rollout start first (nothing to ${move})`, { diagnostics });
  }
  return { checked, view: checked.rollout, now, diagnostics };
}

const ringsJson = (state: RolloutState) => state.rings.map((r) => ({ name: r.name, revision: r.revision, since: r.since, ...(r.windowOverride === undefined ? {} : { windowOverride: r.windowOverride }) }));

/**
 * The change windows of the rings a move changes (those with runtimes): the rings whose closed
 * window --override-window passes (to record the reason on), or exit 6 after saying why and when
 * the next window opens (nothing written, not even the lock).
 */
function windowGate(flags: RolloutFlags, streams: Streams, diagnostics: readonly Diagnostic[], view: RolloutView, rings: readonly string[], now: Date, nothing: string): readonly string[] | number {
  const concerned = rings.filter((name) => view.runtimes.some((r) => r.ring === name));
  const closedNow = closedRings(view.config, concerned, now);
  if (closedNow.length === 0) {
    if (flags.overrideWindow !== undefined && flags.output !== 'json') streams.err(`rollout: note: ${concerned.join(', ') || 'no ring with runtimes'} inside the change window: --override-window not needed (not recorded)\n`);
    return [];
  }
  const lines = closedNow.map((c) => closedLine(c.ring, c.verdict));
  if (flags.overrideWindow !== undefined) {
    if (flags.output !== 'json') for (const line of lines) streams.err(`rollout: warning: ${line}; acting anyway (--override-window, recorded in ${view.stateFile})\n`);
    return closedNow.map((c) => c.ring);
  }
  const state = view.state ?? { paused: false, rings: [] };
  const message = `rollout: ${lines.join('; ')}; ${nothing} (--override-window REASON acts anyway)`;
  return closed(streams, flags, diagnostics, message, { rings: ringsJson(state), windows: closedNow.map((c) => ({ ring: c.ring, ...windowJson(c.verdict) })) });
}

/** Takes fleet/rollout.lock for `body`, or fails with exit 4. */
function locked(flags: RolloutFlags, streams: Streams, view: RolloutView, body: () => number): number;
function locked(flags: RolloutFlags, streams: Streams, view: RolloutView, body: () => Promise<number>): Promise<number>;
function locked(flags: RolloutFlags, streams: Streams, view: RolloutView, body: () => number | Promise<number>): number | Promise<number> {
  const display = `${flags.fleet}/rollout/`;
  const lock = lockRollout(view.fleetRoot, display);
  if (!lock.ok) {
    const problem = { code: 'E_ROLLOUT_LOCKED', message: lock.message, paths: [`${flags.fleet}/rollout.lock`] };
    return fail(streams, flags, ExitCode.IoOrLock, `${display}: error: ${lock.message} [${problem.code}]`, { problem: problemJson(problem) });
  }
  let result: number | Promise<number>;
  try {
    result = body();
  } catch (e) {
    lock.release();
    throw e;
  }
  if (typeof result === 'number') {
    lock.release();
    return result;
  }
  return result.finally(() => lock.release());
}

/** start, status, pause, resume and abort: no clusters read. */
function run(flags: RolloutFlags, streams: Streams, move: Exclude<Move, 'advance'>): number {
  const c = checkedRollout(flags, streams, move);
  if (typeof c === 'number') return c;
  const { view, now, diagnostics } = c;
  if (move === 'status') {
    const table = ringTable(view, readStatusRecords(path.join(view.fleetRoot, 'status'), view.runtimes.map((r) => r.name)), now);
    const { text, ...json } = table;
    return done(streams, flags, diagnostics, text, json);
  }
  let overridden: readonly string[] = [];
  if (move === 'start' && startRollout(view.state, view.config, view.working.id, now)) {
    const gate = windowGate(flags, streams, diagnostics, view, [view.config.rings[0]!.name], now, 'nothing started');
    if (typeof gate === 'number') return gate;
    overridden = gate;
  }
  return locked(flags, streams, view, () => {
    const state = view.state;
    if (move === 'start') {
      const started = startRollout(state, view.config, view.working.id, now);
      const first = view.config.rings[0]!.name;
      if (!started) return done(streams, flags, diagnostics, `ring ${first} is on revision ${view.working.id} already: nothing to start\n`, { changed: false, revision: view.working.id, rings: ringsJson(state!) });
      const next = overridden.length > 0 ? withWindowOverride(started, overridden, flags.overrideWindow!) : started;
      saveRollout(view.fleetRoot, next, view.working);
      const behind = next.rings.filter((r) => r.revision !== view.working.id).map((r) => r.name);
      const text = state
        ? `revision ${view.working.id} started: ring ${first} is on it${behind.length ? `; ${behind.join(', ')} stay where they are` : ''}\n`
        : `revision ${view.working.id} started: first rollout, every ring is on it\n`;
      return done(streams, flags, diagnostics, text, { changed: true, revision: view.working.id, rings: ringsJson(next) });
    }
    if (move === 'abort') {
      const aborted = abortRollout(state!, now);
      const revision = aborted.state.rings[0]!.revision;
      if (aborted.moved.length > 0) saveRollout(view.fleetRoot, aborted.state);
      const text = aborted.moved.length === 0 ? `every ring is on revision ${revision} already: nothing to abort\n` : `rollout aborted: ${aborted.moved.join(', ')} moved back to revision ${revision}; run kyma-fleet synth\n`;
      return done(streams, flags, diagnostics, text, { changed: aborted.moved.length > 0, paused: aborted.state.paused, moved: aborted.moved, rings: ringsJson(aborted.state) });
    }
    const paused = move === 'pause';
    const changed = state!.paused !== paused;
    if (changed) saveRollout(view.fleetRoot, setPaused(state!, paused));
    const text = !changed ? `the rollout is ${paused ? 'paused' : 'not paused'} already\n` : paused ? 'rollout paused: advance refuses until kyma-fleet rollout resume\n' : 'rollout resumed\n';
    return done(streams, flags, diagnostics, text, { changed, paused, moved: [], rings: ringsJson(state!) });
  });
}

async function advance(flags: RolloutFlags, streams: Streams): Promise<number> {
  const live = sourceOf(flags, streams);
  const writeDir = path.resolve(streams.cwd, flags.write ?? path.join(flags.fleet, 'status'));
  if (live && 'failure' in live) return fail(streams, flags, ExitCode.StatusGlobalFailure, `rollout advance: error: ${live.failure.reason}: ${live.failure.message} (nothing written)`, { failure: live.failure });
  const c = checkedRollout(flags, streams, 'advance');
  if (typeof c === 'number') return c;
  const { checked, view, now, diagnostics } = c;
  const state = view.state!;
  const base = { rings: ringsJson(state) };
  if (state.paused) {
    return closed(streams, flags, diagnostics, 'rollout: gate closed: the rollout is paused (kyma-fleet rollout resume); nothing advanced', { ...base, paused: true });
  }
  const left = ringToLeave(state);
  if (left === undefined) {
    const revision = state.rings[0]!.revision;
    return done(streams, flags, diagnostics, `every ring is on revision ${revision}: nothing to advance\n`, { changed: false, moved: [], ...base });
  }
  const moving = advanceFrom(state, left, now, (name) => !view.runtimes.some((r) => r.ring === name)).moved;
  const gate = windowGate(flags, streams, diagnostics, view, moving, now, `${moving.join(', ')} not advanced`);
  if (typeof gate === 'number') return gate;
  return locked(flags, streams, view, async () => {
    const rel = path.relative(streams.cwd, writeDir).split(path.sep).join('/');
    const statusDisplay = `${rel.startsWith('..') || path.isAbsolute(rel) ? writeDir : rel || '.'}/`;
    const warnings: string[] = [];
    const observed = await observeAndRecord({
      model: checked.model!,
      runtimes: checked.runtimes,
      source: live ? { live } : { dumps: path.resolve(streams.cwd, flags.from!), display: flags.from! },
      statusDir: writeDir,
      statusDisplay,
      now,
      warn: (line) => (flags.output === 'json' ? warnings.push(line) : streams.err(`${line}\n`)),
    });
    if (!observed.ok) {
      if (observed.kind === 'source') return fail(streams, flags, ExitCode.StatusGlobalFailure, observed.message, { diagnostics, failure: { reason: observed.reason, message: observed.detail } });
      return fail(streams, flags, ExitCode.IoOrLock, observed.message, { diagnostics, problem: problemJson(observed.problem) });
    }
    const ring = state.rings[left]!;
    const config = view.config.rings[left]!;
    const members = view.runtimes.filter((r) => r.ring === ring.name);
    const verdict = evaluateGate({ ring: ring.name, bakeMs: config.bakeMs, maxFailed: config.maxFailed, since: new Date(ring.since), runtimes: members, status: observed.records, now });
    const observedJson = { statusDir: statusDisplay, warnings };
    if (!verdict.open) {
      const next = state.rings[left + 1]!.name;
      return closed(streams, flags, diagnostics, `rollout: gate of ring ${ring.name} closed: ${verdict.reason}; ${next} not advanced`, { ...base, ...observedJson, gate: gateJson(verdict) }, verdict);
    }
    const moved = advanceFrom(state, left, now, (name) => !view.runtimes.some((r) => r.ring === name));
    if (gate.length > 0) moved.state = withWindowOverride(moved.state, gate, flags.overrideWindow!);
    saveRollout(view.fleetRoot, moved.state);
    const text = `gate of ring ${ring.name} open (${verdict.reason}): ${moved.moved.join(', ')} moved to revision ${ring.revision}; run kyma-fleet synth\n`;
    return done(streams, flags, diagnostics, text, { changed: true, moved: moved.moved, revision: ring.revision, gate: gateJson(verdict), rings: ringsJson(moved.state), ...observedJson });
  });
}

/** Exit 6: the gate is closed (or the rollout paused); the runtimes that hold it are named. */
function closed(streams: Streams, flags: RolloutFlags, diagnostics: readonly Diagnostic[], message: string, json: Record<string, unknown>, verdict?: GateVerdict): number {
  if (flags.output === 'json') {
    printJson(streams, { ok: false, exitCode: ExitCode.RolloutGateClosed, ...json, diagnostics, message });
    return ExitCode.RolloutGateClosed;
  }
  printDiagnostics(diagnostics, streams);
  streams.err(`${message}\n`);
  const holders = verdict?.holders ?? [];
  for (const h of holders.slice(0, 50)) streams.err(`  ${h.runtime}: ${h.why}\n`);
  if (holders.length > 50) streams.err(`  … and ${plural(holders.length - 50, 'more runtime')}\n`);
  return ExitCode.RolloutGateClosed;
}

function gateJson(v: GateVerdict): Record<string, unknown> {
  return { open: v.open, reason: v.reason, bakeLeft: formatDuration(v.bakeLeftMs), bakeLeftSeconds: Math.ceil(v.bakeLeftMs / 1000), holders: v.holders, failed: v.failed, counts: v.counts };
}

/** The status source of advance: live options, undefined for --from, or an unreadable kubeconfig. */
function sourceOf(flags: RolloutFlags, streams: Streams): LiveSource | { readonly failure: { readonly reason: string; readonly message: string } } | undefined {
  const liveOnly = (['kubeconfig', 'kcpContext', 'gardenContext', 'allowExec', 'concurrency', 'timeout'] as const).filter((k) => flags[k] !== undefined);
  if (flags.from !== undefined) {
    if (liveOnly.length > 0) throw new UsageError(`${liveOnly.map((k) => `--${k.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`).join(', ')} only apply to live clusters, not to --from DIR (kubectl dumps)`);
    return undefined;
  }
  const concurrency = concurrencyOption(flags.concurrency, 8);
  const timeoutMs = timeoutOption(flags.timeout, 10);
  let kubeconfig: ReturnType<typeof liveKubeconfig>;
  try {
    kubeconfig = liveKubeconfig(flags.kubeconfig, { kcp: flags.kcpContext, garden: flags.gardenContext }, streams);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`advance observes the runtimes from kubectl dumps (--from DIR) or live clusters through a kubeconfig: ${err.message}`);
    throw err;
  }
  if ('unreadable' in kubeconfig) return { failure: { reason: 'UnreadableKubeconfig', message: kubeconfig.unreadable } };
  return { kubeconfig: kubeconfig.files, kcpContext: kubeconfig.contexts.kcp!, gardenContext: kubeconfig.contexts.garden!, allowExec: flags.allowExec === true, concurrency, timeoutMs };
}
