// `kyma-fleet catalog refresh`: writes fleet/catalog/modules.yaml from the KCP's ModuleReleaseMeta
// objects (a dump folder or live; ../../onboard/catalog-refresh.ts). Once the file exists,
// validation checks module names and channels against it. Exit codes: 0 written or up to date,
// 1 the KCP has no usable ModuleReleaseMeta (nothing written), 2 usage, 4 the file cannot be
// written, 5 the KCP could not be read.

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { readObjects } from '../../observe/object-reader';
import { sanitizeMessage } from '../../observe/sanitize';
import { buildCatalog, MODULE_RELEASE_META_GVR, writeCatalog } from '../../onboard/catalog-refresh';
import { FleetWriteError } from '../../onboard/fleet-files';
import { fleetKcpNamespace } from '../../onboard/fleet-spec';
import { DEFAULT_TIMEOUT_SECONDS } from '../../onboard/source';
import { onboardingSource, printReadWarnings, stopWith } from './import';
import { CATALOG_PATH } from '../../validate/module-catalog';
import { contextOption, fleetOption, kubeconfigOption, groupCommand, outputOption } from '../options';
import { plural, type Streams } from '../report';

interface CatalogFlags {
  fleet: string;
  from?: string;
  kubeconfig?: string;
  kcpContext?: string;
  allowExec?: boolean;
  timeout?: string;
  output: 'text' | 'json';
}

export function catalogCommand(streams: Streams, setExit: (code: number) => void): Command {
  const output = { writeOut: streams.out, writeErr: streams.err };
  const cmd = groupCommand(
    'catalog',
    'the module catalog of the KCP: kyma-fleet catalog refresh (--from DIR | --kubeconfig FILE)',
    { noun: 'action', argument: 'action', help: 'what to do: refresh', supported: ['refresh'] },
    output,
  );
  cmd.addCommand(
    new Command('refresh')
      .description(`write <fleet>/${CATALOG_PATH} (module names and channels) from the KCP's ModuleReleaseMeta objects; validation then refuses modules and channels it does not list`)
      .addOption(fleetOption())
      .addOption(new Option('--from <dir>', 'folder of kubectl dumps; the ModuleReleaseMetas are read from DIR/kcp/'))
      .addOption(kubeconfigOption())
      .addOption(contextOption('kcp', 'Kyma Control Plane'))
      .addOption(new Option('--allow-exec', 'allow exec and auth-provider plugins in the kubeconfig (they run commands)'))
      .addOption(new Option('--timeout <seconds>', `timeout per request (default ${DEFAULT_TIMEOUT_SECONDS})`))
      .addOption(outputOption(['text', 'json']))
      .addHelpText('after', '\nExamples:\n  kyma-fleet catalog refresh --from dumps/\n  kyma-fleet catalog refresh --kubeconfig "$RUNNER_TEMP/kcp.yaml" --kcp-context kcp\n')
      .showHelpAfterError('(run with --help for usage)')
      .exitOverride()
      .configureOutput(output)
      .action(async (flags: CatalogFlags) => {
        const json = flags.output === 'json';
        const source = onboardingSource({ from: flags.from, kubeconfig: flags.kubeconfig, context: flags.kcpContext, allowExec: flags.allowExec, timeout: flags.timeout }, 'kcp', streams);
        if ('unreadable' in source) {
          const message = sanitizeMessage(source.unreadable);
          return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `catalog: error: UnreadableKubeconfig: ${message} (nothing written)`, { failure: { reason: 'UnreadableKubeconfig', message } }));
        }
        const namespace = fleetKcpNamespace(flags.fleet, streams.cwd);
        const read = await readObjects(source, { cluster: 'kcp', gvr: MODULE_RELEASE_META_GVR, namespace });
        printReadWarnings(streams, json, read.warnings);
        if (read.global) {
          const { reason, message } = read.global;
          return setExit(stopWith(streams, json, ExitCode.StatusGlobalFailure, `catalog: error: ${reason}: ${sanitizeMessage(message)} (nothing written)`, { failure: { reason, message } }));
        }
        if (!read.complete) return setExit(stopWith(streams, json, ExitCode.InvalidInput, 'catalog: error: some dump files could not be read, so the catalog would miss modules (nothing written)'));
        const built = buildCatalog(read.objects);
        const warnings = [...read.warnings, ...built.warnings.map((w) => ({ where: w.where, pointer: '', message: w.message }))];
        printReadWarnings(streams, json, built.warnings.map((w) => ({ where: w.where, pointer: '', message: w.message })));
        if (built.modules.length === 0) {
          const message = `catalog: error: no usable ModuleReleaseMeta in namespace ${namespace} of the KCP; a catalog without modules would refuse every module (nothing written)`;
          return setExit(stopWith(streams, json, ExitCode.InvalidInput, message));
        }
        const fleetRoot = path.resolve(streams.cwd, flags.fleet);
        const display = `${flags.fleet.replace(/\/+$/, '')}/${CATALOG_PATH}`;
        let result;
        try {
          result = writeCatalog(fleetRoot, display, built.modules);
        } catch (err) {
          if (!(err instanceof FleetWriteError)) throw err;
          return setExit(stopWith(streams, json, ExitCode.IoOrLock, `catalog: error: ${err.message} (nothing written)`));
        }
        if (flags.output === 'json') {
          streams.out(JSON.stringify({ ok: true, file: result.file, written: result.written, modules: built.modules, change: result.change ?? null, warnings }, null, 2) + '\n');
        } else {
          const c = result.change;
          if (c) {
            if (c.added.length) streams.out(`modules added: ${c.added.join(', ')}\n`);
            if (c.removed.length) streams.out(`modules removed: ${c.removed.join(', ')}\n`);
            for (const line of c.changed) streams.out(`channels changed: ${line}\n`);
          }
          streams.out(`${result.file}: ${result.written ? 'written' : 'up to date, nothing written'} (${plural(result.modules, 'module')}); next: kyma-fleet validate\n`);
        }
        setExit(ExitCode.Ok);
      }),
  );
  return cmd;
}
