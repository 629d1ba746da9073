// `kyma-fleet diff`: what a synth would change in dist/, as a unified diff (text), JSON, or
// Markdown for a pull request comment (grouped and capped, markdown-diff.ts). Writes nothing in
// dist/; --output-file FILE also writes the complete unified diff to FILE (atomically), for a CI
// job to attach next to the capped comment. Exit 0 whether or not there are changes, unless
// --exit-code: then 1 when there are changes, as `git diff --exit-code` and `kubectl diff` do.

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { formatDiffMarkdown } from '../../render/markdown-diff';
import { blastRadiusMarkdown, rolloutOverview } from '../../rollout/blast-radius';
import { formatDiffJson, formatDiffText, isEmptyDiff } from '../../render/tree-diff';
import { diffDist } from '../../run/synth';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption, outputOption } from '../options';
import { failureDocument, printJson, problemJson } from '../json-output';
import { printDiagnostics, printProblem, type Streams } from '../report';
import { writeFileAtomic } from '../../write/fsync';

/** The exit code of `diff --exit-code` when there are changes (git's and kubectl's). */
export const EXIT_CHANGES = 1;

interface DiffFlags {
  cache?: boolean;
  fleet: string;
  out: string;
  output: 'text' | 'json' | 'markdown';
  outputFile?: string;
  exitCode?: boolean;
  now?: string;
}

/** Writes `text` to `file` through a temporary file beside it and a rename; an error message, or undefined. */
function writeFileAtomically(file: string, text: string): string | undefined {
  try {
    writeFileAtomic(file, text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export function diffCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('diff')
    .description('show what synth would change in dist/ (text, json, or markdown for a PR comment)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(outputOption(['text', 'json', 'markdown']))
    .addOption(new Option('--output-file <file>', 'also write the complete unified diff (every patch, never capped) to FILE'))
    .addOption(new Option('--exit-code', 'exit 1 when there are changes, 0 when there are none'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addHelpText(
      'after',
      '\nExamples:\n  kyma-fleet diff\n  kyma-fleet diff --exit-code > /dev/null || echo "dist/ would change"\n' +
        '  kyma-fleet diff --output markdown --output-file kyma-fleet.diff > comment.md\n\n' +
        'The markdown groups runtimes with the same change (one patch shown), caps the lists, and stays\n' +
        'under 60,000 characters (a pull request comment may have 65,536); --output-file keeps every patch.\n',
    )
    .action((flags: DiffFlags) => {
      const r = diffDist({ fleetDir: flags.fleet, outDir: flags.out, cwd: streams.cwd, now: evaluationTime(flags.now, streams.env), allowEmpty: true, cacheDir: cacheDirFor(flags, streams.cwd, streams.env) });
      // --output json: one document, failures included (docs/cli.md; schemas/output/diff.schema.json).
      const json = flags.output === 'json';
      if (json && (r.problem || !r.diff)) {
        const message = r.problem ? `${flags.out}: error: ${r.problem.message} [${r.problem.code}]` : `${flags.fleet}: the fleet has errors; nothing compared`;
        printJson(streams, failureDocument(r.exitCode, message, { diagnostics: r.diagnostics, ...(r.problem ? { problem: problemJson(r.problem) } : {}) }));
        return setExit(r.exitCode);
      }
      if (!json) printDiagnostics(r.diagnostics, streams);
      if (r.problem) printProblem(flags.out, r.problem, streams);
      if (!r.diff) return setExit(r.exitCode);
      const diff = r.diff;
      if (flags.outputFile !== undefined) {
        const failure = writeFileAtomically(path.resolve(streams.cwd, flags.outputFile), formatDiffText(diff, flags.out));
        if (failure !== undefined) {
          const message = `diff: error: cannot write --output-file ${flags.outputFile}: ${failure}`;
          if (json) printJson(streams, failureDocument(ExitCode.IoOrLock, message, { diagnostics: r.diagnostics }));
          else streams.err(`${message}\n`);
          return setExit(ExitCode.IoOrLock);
        }
      }
      const format = {
        text: () => formatDiffText(diff, flags.out),
        // ok as in every other command's JSON: true when the exit code is 0 (false with --exit-code and changes).
        json: () => JSON.stringify({ ok: !(flags.exitCode === true && !isEmptyDiff(diff)), ...(JSON.parse(formatDiffJson(diff)) as object), diagnostics: r.diagnostics }, null, 2) + '\n',
        markdown: () => {
          // With rollout rings: which rings the change reaches now and how many runtimes wait (src/rollout/blast-radius.ts).
          const rollout = rolloutOverview(flags.fleet, streams.cwd);
          const sections = rollout ? [blastRadiusMarkdown(rollout, new Set([...diff.runtimes.added, ...diff.runtimes.removed, ...diff.runtimes.changed]))] : [];
          const md = formatDiffMarkdown(diff, { fullDiffFile: flags.outputFile, sections });
          // A change that reaches no runtime yet still says where it will go.
          return isEmptyDiff(diff) && sections.length > 0 ? `${md}\n${sections[0]}` : md;
        },
      }[flags.output];
      streams.out(format());
      setExit(flags.exitCode === true && !isEmptyDiff(diff) ? EXIT_CHANGES : ExitCode.Ok);
    });
}
