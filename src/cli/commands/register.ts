// `kyma-fleet register argocd`: registers every runtime of the fleet as an Argo CD cluster, from
// KIM's kubeconfig-<runtimeID> Secrets on the KCP (../../apply/register-argocd.ts), so that the
// SKR ApplicationSets of dist/gitops/argocd/ generate its Applications; renews the registrations
// KIM's kubeconfig rotation made stale and removes those of runtimes that left the fleet. Meant to
// run on a schedule (docs/applying.md, "Registering the runtimes"). Exit 0 when the run went through
// (runtimes whose kubeconfig is missing or refused are listed, not failures); 1 for an invalid fleet;
// 2 for usage mistakes; 5 when the KCP or Argo CD's cluster cannot be used. JSON:
// schemas/output/register-argocd.schema.json.

import { Command, Option } from 'commander';
import type { RegisterOutcome, RegisterRun } from '../../apply/register-argocd';
import { ExitCode } from '../../lib/diagnostics';
import { sanitizeMessage } from '../../observe/sanitize';
import { checkFleet } from '../../run/check';
import { failureDocument, printJson } from '../json-output';
import { concurrencyOption, contextOption, evaluationTime, fleetOption, kubeconfigOption, liveKubeconfig, outputOption, timeoutOption } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';

interface RegisterFlags {
  fleet: string;
  kubeconfig?: string;
  kcpContext?: string;
  argocdContext?: string;
  allowExec?: boolean;
  dryRun?: boolean;
  concurrency?: string;
  timeout?: string;
  output: 'text' | 'json';
  now?: string;
}

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_SECONDS = 10;
const OUTCOMES: readonly RegisterOutcome[] = ['created', 'updated', 'unchanged', 'deleted', 'not-registered'];

export function registerCommand(streams: Streams, setExit: (code: number) => void): Command {
  const argocd = new Command('argocd')
    .description("register the fleet's runtimes as Argo CD clusters from KIM's kubeconfig-<runtimeID> Secrets (run it on a schedule: KIM renews them daily)")
    .addOption(fleetOption())
    .addOption(kubeconfigOption())
    .addOption(contextOption('kcp', 'Kyma Control Plane (reads the kubeconfig-<runtimeID> Secrets)'))
    .addOption(contextOption('argocd', 'cluster Argo CD runs in (writes cluster Secrets in gitops.argocd.namespace); default: the KCP context'))
    .addOption(new Option('--allow-exec', 'allow kubeconfig exec and auth-provider plugins in your kubeconfig (they run commands)'))
    .addOption(new Option('--dry-run', 'read everything and print what would be written; write nothing'))
    .addOption(new Option('--concurrency <n>', `runtimes read in parallel (default ${DEFAULT_CONCURRENCY})`))
    .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
    .addOption(outputOption(['text', 'json']))
    .addOption(new Option('--now <time>', 'time of the run (RFC 3339) for the fleet checks; default: SOURCE_DATE_EPOCH or the clock'))
    .addHelpText('after', '\nExamples:\n  kyma-fleet register argocd --kcp-context kcp --dry-run\n  kyma-fleet register argocd --kubeconfig ci.kubeconfig --kcp-context kcp --argocd-context argocd\n')
    .action(async (flags: RegisterFlags) => setExit(await registerArgocd(flags, streams)));
  argocd.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err });
  return new Command('register')
    .description('register the runtimes with a GitOps controller (argocd: cluster Secrets from KIM\'s kubeconfigs)')
    .usage('<controller> [options]')
    .addCommand(argocd);
}

async function registerArgocd(flags: RegisterFlags, streams: Streams): Promise<number> {
  const concurrency = concurrencyOption(flags.concurrency, DEFAULT_CONCURRENCY);
  const timeoutMs = timeoutOption(flags.timeout, DEFAULT_TIMEOUT_SECONDS);
  const live = liveKubeconfig(flags.kubeconfig, { kcp: flags.kcpContext }, streams);
  if ('unreadable' in live) return fail(streams, flags, ExitCode.StatusGlobalFailure, `register argocd: error: UnreadableKubeconfig: ${live.unreadable} (nothing written)`, { failure: { reason: 'UnreadableKubeconfig', message: live.unreadable } });
  const checked = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now: evaluationTime(flags.now, streams.env) });
  if (!checked.ok || !checked.model) {
    return fail(streams, flags, ExitCode.InvalidInput, `${flags.fleet}: the fleet is invalid; register argocd needs a valid fleet (nothing written)`, { diagnostics: checked.diagnostics });
  }
  const model = checked.model;
  if (!model.options.gitops.argocd.enabled) {
    return fail(streams, flags, ExitCode.InvalidInput, `${flags.fleet}: gitops.argocd.enabled is false in fleet.yaml; there is no Argo CD wiring to register runtimes for (nothing written)`);
  }
  // Loaded only now: it pulls in @kubernetes/client-node.
  const { registerArgoClusters } = await import('../../apply/register-argocd');
  const run = await registerArgoClusters(
    checked.runtimes.map((r) => ({ name: r.runtime.name, runtimeID: r.runtime.runtimeID })),
    {
      kubeconfig: live.files,
      kcpContext: live.contexts.kcp!,
      argocdContext: flags.argocdContext ?? live.contexts.kcp!,
      allowExec: flags.allowExec === true,
      dryRun: flags.dryRun === true,
      kcpNamespace: model.options.kcpNamespace,
      gitops: model.options.gitops,
      skrApiServers: model.options.skrApiServers ?? [],
      concurrency,
      timeoutMs,
    },
  );
  return report(run, flags, streams);
}

function report(run: RegisterRun, flags: RegisterFlags, streams: Streams): number {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, run.entries.filter((e) => e.outcome === o).length])) as Record<RegisterOutcome, number>;
  if (run.failure) {
    const failure = { reason: run.failure.reason, message: sanitizeMessage(run.failure.message) };
    const done = run.entries.filter((e) => e.outcome !== 'unchanged' && e.outcome !== 'not-registered').length;
    return fail(streams, flags, ExitCode.StatusGlobalFailure, `register argocd: error: ${failure.reason}: ${failure.message} (${plural(done, 'Secret')} written before it)`, { failure });
  }
  if (flags.output === 'json') {
    printJson(streams, { ok: true, dryRun: flags.dryRun === true, runtimes: run.entries, counts });
    return ExitCode.Ok;
  }
  const verb: Record<RegisterOutcome, string> = flags.dryRun
    ? { created: 'would register', updated: 'would renew its registration', unchanged: 'registered, up to date', deleted: 'would remove its registration', 'not-registered': 'not registered' }
    : { created: 'registered', updated: 'registration renewed', unchanged: 'registered, up to date', deleted: 'registration removed', 'not-registered': 'not registered' };
  for (const e of run.entries) {
    if (e.outcome === 'unchanged') continue;
    streams.out(`${e.runtime || e.runtimeID}: ${verb[e.outcome]}${e.reason ? ` (${e.reason}): ${e.message}` : ''}\n`);
  }
  const parts = [`${counts.created} new`, `${counts.updated} renewed`, `${counts.unchanged} up to date`, `${counts.deleted} removed`, `${counts['not-registered']} not registered`];
  streams.out(`register argocd${flags.dryRun ? ' --dry-run' : ''}: ${parts.join(', ')}\n`);
  return ExitCode.Ok;
}

function fail(streams: Streams, flags: RegisterFlags, exitCode: number, message: string, parts: Parameters<typeof failureDocument>[2] = {}): number {
  if (flags.output === 'json') printJson(streams, failureDocument(exitCode, message, parts));
  else {
    printDiagnostics(parts.diagnostics ?? [], streams);
    streams.err(`${message}\n`);
  }
  return exitCode;
}
