// `kyma-fleet profile refresh`: rewrites the snapshot files the Fleet names (an extension's copy of
// a Garden object, declared by its snapshot hook) from the Garden cluster (a dump folder's garden/ or live), atomically, and prints
// what changed and which runtimes it affects (../../onboard/profile-refresh.ts). Exit codes: 0
// written or up to date, 1 the fleet names no snapshot or the cluster's object is missing or
// unusable (nothing written), 2 usage, 4 the file cannot be written, 5 the cluster could not be read.

import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { readObjects } from '../../observe/object-reader';
import { sanitizeMessage } from '../../observe/sanitize';
import { FleetWriteError } from '../../onboard/fleet-files';
import { readFleetSpec } from '../../onboard/fleet-spec';
import { refreshSnapshot, snapshotOptions, type SnapshotRefresh, snapshotTargets } from '../../onboard/profile-refresh';
import { DEFAULT_TIMEOUT_SECONDS } from '../../onboard/source';
import { onboardingSource } from './import';
import { contextOption, evaluationTime, fleetOption, kubeconfigOption, nowOption, groupCommand, outputOption } from '../options';
import type { Streams } from '../report';
import { printReadWarnings, stopWith } from './import';

interface ProfileFlags {
  fleet: string;
  from?: string;
  kubeconfig?: string;
  gardenContext?: string;
  allowExec?: boolean;
  timeout?: string;
  dryRun?: boolean;
  output: 'text' | 'json';
  now?: string;
}

export function profileCommand(streams: Streams, setExit: (code: number) => void): Command {
  const output = { writeOut: streams.out, writeErr: streams.err };
  const cmd = groupCommand(
    'profile',
    'snapshots of cluster objects the fleet checks against: kyma-fleet profile refresh (--from DIR | --kubeconfig FILE)',
    { noun: 'action', argument: 'action', help: 'what to do: refresh', supported: ['refresh'] },
    output,
  );
  cmd.addCommand(
    new Command('refresh')
      .description(`rewrite the snapshot files fleet.yaml names (${snapshotOptions().join(', ')}) from the Garden cluster; print what appeared, expired or vanished and the runtimes it affects`)
      .addOption(fleetOption())
      .addOption(new Option('--from <dir>', 'folder of kubectl dumps; the objects are read from DIR/garden/'))
      .addOption(kubeconfigOption())
      .addOption(contextOption('garden', 'Garden cluster'))
      .addOption(new Option('--allow-exec', 'allow exec and auth-provider plugins in the kubeconfig (they run commands)'))
      .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
      .addOption(new Option('--dry-run', 'print what would change; write nothing'))
      .addOption(outputOption(['text', 'json']))
      .addOption(nowOption())
      .addHelpText('after', '\nExamples:\n  kyma-fleet profile refresh --from dumps/\n  kyma-fleet profile refresh --kubeconfig "$RUNNER_TEMP/garden.yaml" --garden-context garden\n')
      .showHelpAfterError('(run with --help for usage)')
      .exitOverride()
      .configureOutput(output)
      .action(async (flags: ProfileFlags) => {
        const json = flags.output === 'json';
        const source = onboardingSource({ from: flags.from, kubeconfig: flags.kubeconfig, context: flags.gardenContext, allowExec: flags.allowExec, timeout: flags.timeout }, 'garden', streams);
        if ('unreadable' in source) {
          const message = sanitizeMessage(source.unreadable);
          return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `profile: error: UnreadableKubeconfig: ${message} (nothing written)`, { failure: { reason: 'UnreadableKubeconfig', message } }));
        }
        const now = evaluationTime(flags.now, streams.env);
        const targets = snapshotTargets(readFleetSpec(flags.fleet, streams.cwd));
        if (targets.length === 0) {
          const message = `${flags.fleet.replace(/\/+$/, '')}/fleet.yaml names no snapshot to refresh (set ${snapshotOptions().join(' or ')} under spec); nothing written`;
          return setExit(stopWith(streams, json, ExitCode.InvalidInput, message));
        }
        const results: SnapshotRefresh[] = [];
        const warnings: Array<{ where: string; pointer: string; message: string }> = [];
        for (const target of targets) {
          const o = target.object;
          const read = await readObjects(source, { cluster: o.cluster, gvr: o, namespace: o.namespace });
          printReadWarnings(streams, json, read.warnings);
          warnings.push(...read.warnings);
          if (read.global) {
            const { reason, message } = read.global;
            return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `profile: error: ${reason}: ${sanitizeMessage(message)} (nothing written)`, { failure: { reason, message } }));
          }
          const found = read.objects.filter((x) => x.obj.metadata.name === o.name);
          if (found.length !== 1) {
            const what = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
            const message = `profile: error: ${found.length === 0 ? `the ${o.cluster === 'garden' ? 'Garden' : 'KCP'} has no ${what}` : `${found.length} copies of ${what} (${found.map((f) => f.where).join(', ')})`}${read.complete ? '' : ' (some dump files could not be read)'}; nothing written`;
            return setExit(stopWith(streams, json, ExitCode.InvalidInput, message));
          }
          let result;
          try {
            result = refreshSnapshot(flags.fleet, streams.cwd, target, found[0]!.obj, now, flags.dryRun === true);
          } catch (err) {
            if (!(err instanceof FleetWriteError)) throw err;
            return setExit(stopWith(streams, json, ExitCode.IoOrLock, `profile: error: ${err.message} (nothing written)`));
          }
          if ('problems' in result) {
            const problems = result.problems.map((p) => `${found[0]!.where}: ${sanitizeMessage(p)}`).join('; ');
            if (!json) for (const p of result.problems) streams.err(`${found[0]!.where}: error: ${sanitizeMessage(p)}\n`);
            return setExit(stopWith(streams, json, ExitCode.InvalidInput, `profile: error: the ${target.hook.title} read from the cluster is not usable${json ? ` (${problems})` : ''}; nothing written`));
          }
          results.push(result);
        }
        if (flags.output === 'json') {
          streams.out(
            JSON.stringify(
              { ok: true, dryRun: flags.dryRun === true, snapshots: results.map((r) => ({ title: r.target.hook.title, extension: r.target.extension, file: r.file, written: r.written, changes: r.changes, affected: r.affected })), warnings },
              null,
              2,
            ) + '\n',
          );
        } else {
          for (const r of results) {
            for (const c of r.changes) {
              streams.out(`${r.target.hook.title}: ${c.kind} ${c.item}${c.detail ? ` (${c.detail})` : ''}${c.runtimes.length > 0 ? `: ${c.runtimes.join(', ')}` : ''}\n`);
            }
            for (const a of r.affected) {
              for (const change of a.changes) streams.out(`${a.name}: extensions.${r.target.extension}.${change}\n`);
              for (const e of a.newErrors) streams.out(`${a.name}: no longer validates: ${e}\n`);
            }
            const state = r.written ? 'written' : flags.dryRun ? 'dry run, nothing written' : 'up to date, nothing written';
            streams.out(`${r.file}: ${state} (${r.changes.length === 0 ? 'no version changes' : `${r.changes.length} change${r.changes.length === 1 ? '' : 's'}`}, ${r.affected.length} runtime${r.affected.length === 1 ? '' : 's'} affected)\n`);
          }
        }
        setExit(ExitCode.Ok);
      }),
  );
  return cmd;
}
