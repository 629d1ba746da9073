// `kyma-fleet explain NAME`: the resolved settings of one runtime, every value with the
// file:line of the layer that set it. Works on an invalid fleet too (errors go to stderr, exit 1),
// because explaining a conflict is when it is needed most. With the run record of the last synth
// into dist/, runtime files unchanged since then are not parsed again (see checkForExplain).
// JSON: schemas/output/explain.schema.json.

import { Command } from 'commander';
import { explainRuntime, formatExplanation } from '../../resolve/explain';
import { ExitCode } from '../../lib/diagnostics';
import { closestMatch } from '../../lib/suggest';
import { checkForExplain } from '../../run/synth';
import { UsageError, cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outputOption } from '../options';
import { failureDocument, printJson } from '../json-output';
import { printDiagnostics, type Streams } from '../report';

interface ExplainFlags {
  cache?: boolean;
  fleet: string;
  output: 'text' | 'json';
  now?: string;
}

export function explainCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('explain')
    .description('show the resolved settings of one runtime and where each value comes from')
    .argument('<name>', 'runtime name (metadata.name, the file name in runtimes/)')
    .addOption(fleetOption())
    .addOption(outputOption(['text', 'json']))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addHelpText('after', '\nExamples:\n  kyma-fleet explain acme-eu-prod\n  kyma-fleet explain acme-eu-prod --output json | jq .values\n')
    .action((name: string, flags: ExplainFlags) => {
      const { checked: result, diagnostics, names } = checkForExplain(
        { fleetDir: flags.fleet, outDir: 'dist', cwd: streams.cwd, cacheDir: cacheDirFor(flags, streams.cwd, streams.env), now: evaluationTime(flags.now, streams.env) },
        name,
      );
      const errors = diagnostics.filter((d) => d.severity === 'error');
      const json = flags.output === 'json';
      if (!json) printDiagnostics(errors, streams);
      const resolved = result.runtimes.find((r) => r.runtime.name === name);
      if (!result.model) {
        if (json) printJson(streams, failureDocument(ExitCode.InvalidInput, `${flags.fleet}: the fleet cannot be loaded`, { diagnostics: errors }));
        return setExit(ExitCode.InvalidInput);
      }
      if (!resolved) {
        const guess = closestMatch(name, names);
        throw new UsageError(`runtime ${JSON.stringify(name)} not found in ${flags.fleet}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}`);
      }
      const explanation = explainRuntime(result.model, resolved);
      if (json) printJson(streams, { ok: errors.length === 0, diagnostics: errors, ...explanation });
      else streams.out(formatExplanation(explanation));
      setExit(errors.length > 0 ? ExitCode.InvalidInput : ExitCode.Ok);
    });
}
