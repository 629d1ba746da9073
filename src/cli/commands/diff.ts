// `kyma-fleet diff`: what a synth would change in dist/, as a unified diff (text), JSON, or
// Markdown for a pull request comment (grouped and capped, markdown-diff.ts). Writes nothing in
// dist/; --output-file FILE also writes the complete unified diff to FILE (atomically), for a CI
// job to attach next to the capped comment. Exit 0 whether or not there are changes, unless
// --exit-code: then 1 when there are changes, as `git diff --exit-code` and `kubectl diff` do.
// Every output says what the change does on the clusters (src/render/consequences.ts); --fail-on
// CLASS[,CLASS] exits 1 as well when a runtime has one of those classes (a workflow then asks for
// an approval label, docs/ci.md); a word that names no class is a usage error (exit 2).

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { ExitCode } from '../../lib/diagnostics';
import { formatDiffMarkdown } from '../../render/markdown-diff';
import { blastRadiusMarkdown, rolloutOverview } from '../../rollout/blast-radius';
import { formatDiffJson, formatDiffText, isEmptyDiff } from '../../render/tree-diff';
import { classifyDiff, consequenceClasses, resolveFailOn, SEVERITIES } from '../../render/consequences';
import { consequencesJson, consequencesMarkdown, consequencesText } from '../../render/consequence-report';
import { ringNames } from '../../rollout/rings';
import { diffDist, type DiffResult } from '../../run/synth';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption, outputOption, UsageError } from '../options';
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
  failOn?: string;
  now?: string;
}

/** The class ids `--fail-on` names (ids, or a severity for all its classes); a usage error listing the valid ids otherwise. */
function failOnClasses(value: string | undefined): string[] {
  if (value === undefined) return [];
  const classes = consequenceClasses();
  const words = value.split(',').map((w) => w.trim()).filter((w) => w !== '');
  const { ids, unknown } = resolveFailOn(words, classes);
  if (unknown.length === 0 && words.length > 0) return ids;
  const what = unknown.length > 0 ? `unknown consequence class ${unknown.map((w) => JSON.stringify(w)).join(', ')}` : 'no consequence class given';
  throw new UsageError(`--fail-on: ${what}; valid: ${classes.map((c) => c.id).join(', ')}, or a severity for all of its classes: ${SEVERITIES.join(', ')}`);
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

/** `compared`: the comparison already made (kyma-fleet check hands in its own, src/cli/commands/check.ts). */
export function diffCommand(streams: Streams, setExit: (code: number) => void, compared?: DiffResult): Command {
  return new Command('diff')
    .description('show what synth would change in dist/ (text, json, or markdown for a PR comment)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(outputOption(['text', 'json', 'markdown']))
    .addOption(new Option('--output-file <file>', 'also write the complete unified diff (every patch, never capped) to FILE'))
    .addOption(new Option('--exit-code', 'exit 1 when there are changes, 0 when there are none'))
    .addOption(new Option('--fail-on <classes>', 'exit 1 when a runtime has one of these consequence classes (comma-separated ids, or destructive|disruptive|routine)'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addHelpText(
      'after',
      '\nExamples:\n  kyma-fleet diff\n  kyma-fleet diff --exit-code > /dev/null || echo "dist/ would change"\n' +
        '  kyma-fleet diff --output markdown --output-file kyma-fleet.diff > comment.md\n' +
        '  kyma-fleet diff --fail-on destructive --output markdown > comment.md || echo "needs approval"\n\n' +
        'The markdown groups runtimes with the same change (one patch shown), caps the lists, and stays\n' +
        'under 60,000 characters (a pull request comment may have 65,536); --output-file keeps every patch.\n',
    )
    .action((flags: DiffFlags) => {
      const failOn = failOnClasses(flags.failOn);
      const r = compared ?? diffDist({ fleetDir: flags.fleet, outDir: flags.out, cwd: streams.cwd, now: evaluationTime(flags.now, streams.env), allowEmpty: true, cacheDir: cacheDirFor(flags, streams.cwd, streams.env) });
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
      // What the change does on the clusters; --fail-on's classes that some runtime has.
      const consequences = classifyDiff(diff);
      const matched = failOn.filter((id) => (consequences.runtimesOf.get(id)?.length ?? 0) > 0);
      const exitCode = matched.length > 0 || (flags.exitCode === true && !isEmptyDiff(diff)) ? EXIT_CHANGES : ExitCode.Ok;
      const text = (): string => formatDiffText(diff, flags.out, consequencesText(consequences));
      if (flags.outputFile !== undefined) {
        const failure = writeFileAtomically(path.resolve(streams.cwd, flags.outputFile), text());
        if (failure !== undefined) {
          const message = `diff: error: cannot write --output-file ${flags.outputFile}: ${failure}`;
          if (json) printJson(streams, failureDocument(ExitCode.IoOrLock, message, { diagnostics: r.diagnostics }));
          else streams.err(`${message}\n`);
          return setExit(ExitCode.IoOrLock);
        }
      }
      const format = {
        text,
        // ok as in every other command's JSON: true when the exit code is 0 (false with --exit-code and changes, or a --fail-on match).
        json: () =>
          JSON.stringify(
            {
              ok: exitCode === ExitCode.Ok,
              ...(JSON.parse(formatDiffJson(diff)) as object),
              consequences: consequencesJson(consequences),
              ...(flags.failOn !== undefined ? { failOn: { classes: failOn, matched } } : {}),
              diagnostics: r.diagnostics,
            },
            null,
            2,
          ) + '\n',
        markdown: () => {
          // With rollout rings: which rings the change reaches now and how many runtimes wait (src/rollout/blast-radius.ts).
          const rollout = rolloutOverview(flags.fleet, streams.cwd);
          const sections = rollout ? [blastRadiusMarkdown(rollout, new Set([...diff.runtimes.added, ...diff.runtimes.removed, ...diff.runtimes.changed]))] : [];
          const rings = rollout ? { names: ringNames(rollout.config), ringOf: (name: string) => rollout.ringOf.get(name) } : undefined;
          const lead = consequencesMarkdown(consequences, rings, matched);
          const md = formatDiffMarkdown(diff, { fullDiffFile: flags.outputFile, sections, ...(lead ? { lead } : {}) });
          // A change that reaches no runtime yet still says where it will go.
          return isEmptyDiff(diff) && sections.length > 0 ? `${md}\n${sections[0]}` : md;
        },
      }[flags.output];
      streams.out(format());
      setExit(exitCode);
    });
}
