// `kyma-fleet import runtimes`: writes fleet/runtimes/<name>.yaml for every Runtime CR of the Kyma
// Control Plane that the fleet does not declare yet (matched by runtime ID), read from a dump folder
// or live (../../onboard/). Exit codes: 0 done (also when some CRs could not be imported: they are
// listed), 1 the fleet is invalid, or --strict and something to report (nothing written), 2 usage,
// 4 a file could not be written (nothing written), 5 the KCP could not be read.

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { type Diagnostic, ExitCode } from '../../lib/diagnostics';
import { readObjects } from '../../observe/object-reader';
import { sanitizeMessage } from '../../observe/sanitize';
import { importRuntimes } from '../../onboard/import-runtimes';
import { DEFAULT_NAME_TEMPLATE, nameTemplateProblem } from '../../onboard/naming';
import { DEFAULT_LABEL_RULES, parseLabelRules } from '../../onboard/runtime-cr';
import { DEFAULT_TIMEOUT_SECONDS, dumpSource, liveSource, readsDump, type SourceFlags } from '../../onboard/source';
import type { ObjectSource } from '../../observe/object-reader';
import { fleetKcpNamespace } from '../../onboard/fleet-spec';
import { contextOption, evaluationTime, fleetOption, kubeconfigOption, liveKubeconfig, nowOption, groupCommand, outputOption, UsageError } from '../options';
import { failureDocument, printJson } from '../json-output';
import { plural, printDiagnostics, type Streams } from '../report';

/**
 * How an onboarding command stops before its report: the text line on stderr (and the findings), or
 * with --output json the failure document on stdout and nothing on stderr. Returns the exit code.
 */
export function stopWith(streams: Streams, json: boolean, exitCode: number, message: string, parts: { diagnostics?: readonly Diagnostic[]; failure?: { reason: string; message: string } } = {}): number {
  if (json) printJson(streams, failureDocument(exitCode, message, parts));
  else {
    if (parts.diagnostics) printDiagnostics(parts.diagnostics, streams);
    streams.err(`${message}\n`);
  }
  return exitCode;
}

/** Warnings of a read on stderr (text output only: --output json carries them in its document). */
export function printReadWarnings(streams: Streams, json: boolean, warnings: ReadonlyArray<{ where: string; pointer: string; message: string }>): void {
  if (json) return;
  for (const w of warnings) streams.err(`${w.pointer === '' ? w.where : `${w.where}#${w.pointer}`}: warning: ${sanitizeMessage(w.message)}\n`);
}

/**
 * The source of an onboarding command: `--from DIR`, else a live cluster found as kubectl finds it
 * (--kubeconfig, else $KUBECONFIG, else ~/.kube/config; the `role` context, else the
 * current-context). Usage mistakes throw UsageError; an unreadable kubeconfig is returned (exit 5).
 */
export function onboardingSource(flags: SourceFlags, role: 'kcp' | 'garden', streams: Streams): ObjectSource | { readonly unreadable: string } {
  const contextFlag = `--${role}-context`;
  if (readsDump(flags)) {
    const dump = dumpSource(flags, contextFlag, (p) => path.resolve(streams.cwd, p));
    if ('problem' in dump) throw new UsageError(dump.problem);
    return dump;
  }
  const found = liveKubeconfig(flags.kubeconfig, { [role]: flags.context }, streams);
  if ('unreadable' in found) return found;
  const live = liveSource(flags, found.files, found.contexts[role]!);
  if ('problem' in live) throw new UsageError(live.problem);
  return live;
}

const RUNTIME_GVR = { group: 'infrastructuremanager.kyma-project.io', version: 'v1', plural: 'runtimes', kind: 'Runtime' } as const;

interface ImportFlags {
  fleet: string;
  from?: string;
  kubeconfig?: string;
  kcpContext?: string;
  allowExec?: boolean;
  timeout?: string;
  project?: string;
  labelFrom?: string[];
  nameTemplate: string;
  dryRun?: boolean;
  strict?: boolean;
  output: 'text' | 'json';
  now?: string;
}

export function importCommand(streams: Streams, setExit: (code: number) => void): Command {
  const output = { writeOut: streams.out, writeErr: streams.err };
  const cmd = groupCommand(
    'import',
    'onboard from the Kyma Control Plane: kyma-fleet import runtimes (--from DIR | --kubeconfig FILE) --project PROJECT',
    { noun: 'subject', argument: 'what', help: 'what to import: runtimes', supported: ['runtimes'] },
    output,
  );
  cmd.addCommand(importRuntimesCommand(streams, setExit).showHelpAfterError('(run with --help for usage)').exitOverride().configureOutput(output));
  return cmd;
}

function importRuntimesCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('runtimes')
    .description('write runtimes/<name>.yaml for every Runtime CR of the KCP that the fleet does not declare (matched by runtime ID); never touches an existing file')
    .addOption(fleetOption())
    .addOption(new Option('--from <dir>', 'folder of kubectl dumps; the Runtime CRs are read from DIR/kcp/'))
    .addOption(kubeconfigOption())
    .addOption(contextOption('kcp', 'Kyma Control Plane'))
    .addOption(new Option('--allow-exec', 'allow exec and auth-provider plugins in the kubeconfig (they run commands)'))
    .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
    .addOption(new Option('--project <project>', 'Gardener project of the Shoots (the Runtime CR does not name it; KIM is configured with it) (required)'))
    .addOption(
      new Option('--label-from <key=label>', 'copy the Runtime CR label KEY into the runtime label LABEL; repeat for more; replaces the default rules').argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    )
    .addOption(new Option('--name-template <template>', 'runtime names: {plan}, {region}, {shoot}, {id}, {subaccount}, {global-account}').default(DEFAULT_NAME_TEMPLATE))
    .addOption(new Option('--dry-run', 'list what would be written; write nothing'))
    .addOption(new Option('--strict', 'exit 1 and write nothing when a Runtime CR cannot be imported or a fleet runtime is missing from the KCP'))
    .addOption(outputOption(['text', 'json']))
    .addOption(nowOption())
    .addHelpText(
      'after',
      '\nDefault label rules (--label-from):\n' +
        DEFAULT_LABEL_RULES.map((r) => `  ${r.from}=${r.label}\n`).join('') +
        '\nExamples:\n' +
        '  kyma-fleet import runtimes --from dumps/ --project kyma-prod --dry-run\n' +
        '  kyma-fleet import runtimes --kubeconfig "$RUNNER_TEMP/kcp.yaml" --kcp-context kcp --project kyma-prod\n' +
        '\nSee docs/onboarding.md for the name rule and collisions.\n',
    )
    .action(async (flags: ImportFlags) => {
      if (flags.project === undefined) throw new UsageError('--project PROJECT is required: the Runtime CR does not name the Gardener project of its Shoot (KIM is configured with it)');
      const json = flags.output === 'json';
      const source = onboardingSource({ from: flags.from, kubeconfig: flags.kubeconfig, context: flags.kcpContext, allowExec: flags.allowExec, timeout: flags.timeout }, 'kcp', streams);
      if ('unreadable' in source) {
        const message = sanitizeMessage(source.unreadable);
        return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `import: error: UnreadableKubeconfig: ${message} (nothing written)`, { failure: { reason: 'UnreadableKubeconfig', message } }));
      }
      let labelRules = DEFAULT_LABEL_RULES;
      try {
        if (flags.labelFrom) labelRules = parseLabelRules(flags.labelFrom);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const templateProblem = nameTemplateProblem(flags.nameTemplate);
      if (templateProblem) throw new UsageError(`--name-template ${JSON.stringify(flags.nameTemplate)}: ${templateProblem}`);
      const now = evaluationTime(flags.now, streams.env);

      const namespace = fleetKcpNamespace(flags.fleet, streams.cwd);
      const read = await readObjects(source, { cluster: 'kcp', gvr: RUNTIME_GVR, namespace });
      printReadWarnings(streams, json, read.warnings);
      if (read.global) {
        const { reason, message } = read.global;
        return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `import: error: ${reason}: ${sanitizeMessage(message)} (nothing written)`, { failure: { reason, message } }));
      }

      const outcome = importRuntimes(read.objects, {
        fleetDir: flags.fleet,
        cwd: streams.cwd,
        now,
        project: flags.project,
        labelRules,
        nameTemplate: flags.nameTemplate,
        dryRun: flags.dryRun === true,
        strict: flags.strict === true,
        complete: read.complete,
      });
      if (outcome.kind === 'invalid-fleet') {
        const message = `${flags.fleet}: ${plural(outcome.diagnostics.length, 'error')}; fix the fleet before importing (nothing written)`;
        return setExit(stopWith(streams, json, ExitCode.InvalidInput, message, { diagnostics: outcome.diagnostics }));
      }
      if (outcome.kind === 'write-failed') return setExit(stopWith(streams, json, ExitCode.IoOrLock, `import: error: ${outcome.message}`));
      if (outcome.kind === 'rolled-back') {
        const message = `${flags.fleet}: the fleet does not validate with the imported runtimes; they were removed again (nothing written)`;
        return setExit(stopWith(streams, json, ExitCode.InvalidInput, message, { diagnostics: outcome.diagnostics }));
      }

      const { plan, written, refused, missingFromKcp, strictRefused, groupsMissed } = outcome;
      const wouldWrite = plan.toWrite;
      const fleetDisplay = flags.fleet.replace(/\/+$/, '');
      if (flags.output === 'json') {
        streams.out(
          JSON.stringify(
            {
              ok: !strictRefused,
              dryRun: flags.dryRun === true,
              read: plan.read,
              complete: read.complete,
              managed: plan.managed,
              [flags.dryRun || strictRefused ? 'wouldWrite' : 'written']: wouldWrite.map((p) => ({
                file: `${fleetDisplay}/${p.relPath}`,
                name: p.name,
                runtimeID: p.candidate.runtimeID,
                labels: Object.fromEntries(p.candidate.labels),
                from: p.candidate.where,
              })),
              notImported: refused,
              missingFromKcp: missingFromKcp.map((r) => ({ name: r.name, runtimeID: r.runtimeID, file: r.file })),
              notes: plan.notes,
              warnings: read.warnings,
              groupsMissed,
            },
            null,
            2,
          ) + '\n',
        );
      } else {
        for (const n of plan.notes) streams.err(`${n.where}: note: ${n.message}\n`);
        for (const r of refused) streams.err(`${r.where}: not imported: Runtime ${r.object}${r.runtimeID ? ` (runtime ID ${r.runtimeID})` : ''}: ${r.reason}\n`);
        for (const m of missingFromKcp) streams.err(`${m.file}: warning: runtime ${m.name} (runtime ID ${m.runtimeID}) has no Runtime CR in the KCP; deprovisioned? remove its file to stop rendering it\n`);
        if (!read.complete) streams.err(`import: warning: some dump files could not be read, so fleet runtimes missing from the KCP are not reported\n`);
        printDiagnostics(groupsMissed, streams);
        const verb = flags.dryRun || strictRefused ? 'would write' : 'written';
        for (const p of wouldWrite) {
          const labels = p.candidate.labels.map(([k, v]) => `${k}=${v}`).join(',');
          streams.out(`${fleetDisplay}/${p.relPath}: ${verb} (runtime ID ${p.candidate.runtimeID}${labels ? `; labels ${labels}` : ''})\n`);
        }
        const summary = [
          `${plural(plan.read, 'Runtime CR')} read`,
          `${plan.managed} already in the fleet`,
          `${wouldWrite.length} new${flags.dryRun ? ' (dry run: nothing written)' : strictRefused ? ' (--strict: nothing written)' : written.length > 0 ? ' written' : ''}`,
          ...(refused.length > 0 ? [`${refused.length} not imported`] : []),
          ...(missingFromKcp.length > 0 ? [`${plural(missingFromKcp.length, 'fleet runtime')} missing from the KCP`] : []),
        ];
        streams.out(`import: ${summary.join(', ')}${written.length > 0 ? '; next: kyma-fleet synth' : ''}\n`);
      }
      setExit(strictRefused ? ExitCode.InvalidInput : ExitCode.Ok);
    });
}
