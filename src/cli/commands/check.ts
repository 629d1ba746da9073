// `kyma-fleet check`: the three questions of a pull request in one process (issue 28): is the fleet
// valid (validate), is dist/ what synth would write (synth --check, exit 3), and what does the change
// do to the rendered manifests against the base branch's dist/ (diff: the pull-request comment in
// markdown, the complete unified diff). On a fresh CI runner the check renders only the runtimes
// whose inputs differ from those recorded in dist/'s index (src/run/committed-record.ts); once dist/
// is proven up to date, the comparison with the base is read from the two indexes
// (src/run/base-diff.ts), else the base is rendered and compared as diff does.
// Each part keeps its command's contract: the diagnostics and verdict of validate, the verdict and
// file list of synth --check, and diff's own outputs (the diff command formats them from the
// comparison made here). Exit 1 (invalid, or diff's --fail-on matched), 4 (I/O, lock), 3 (dist/ out
// of date), else 0.

import * as path from 'node:path';
import { Command, Option } from 'commander';
import { type Diagnostic, ExitCode, hasErrors, normalizeDiagnostics } from '../../lib/diagnostics';
import { diffSummary, isEmptyDiff } from '../../render/tree-diff';
import type { DiffResult } from '../../run/synth';
import { warmStart } from '../../run/warm-start';
import { writeFileAtomic } from '../../write/fsync';
import { printJson, problemJson } from '../json-output';
import { cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outOption, outputOption } from '../options';
import { countBySeverity, plural, printDiagnostics, printProblem, type Streams } from '../report';

interface CheckFlags {
  cache?: boolean;
  fleet: string;
  out: string;
  base?: string;
  markdown?: string;
  outputFile?: string;
  failOn?: string;
  output: 'text' | 'json';
  now?: string;
  allowEmpty?: boolean;
}

const MAX_LISTED = 50;

type DiffCommand = typeof import('./diff').diffCommand;

export function checkCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('check')
    .description('validate the fleet, check that dist/ is up to date and diff against a base dist/, in one pass (for CI)')
    .addOption(fleetOption())
    .addOption(outOption())
    .addOption(new Option('--base <dir>', "the base branch's dist/: immutable fields are checked and the diff is taken against it (default: --out)"))
    .addOption(new Option('--markdown <file>', 'write the pull-request comment (as diff --output markdown) to FILE'))
    .addOption(new Option('--output-file <file>', 'write the complete unified diff against the base (every patch) to FILE'))
    .addOption(new Option('--fail-on <classes>', "as diff's --fail-on: exit 1 when a runtime has one of these consequence classes"))
    .addOption(outputOption(['text', 'json']))
    .addOption(new Option('--allow-empty', 'accept a fleet without runtimes'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addHelpText(
      'after',
      '\nExamples:\n  kyma-fleet check\n  kyma-fleet check --base "$RUNNER_TEMP/base/dist" --markdown diff.md --output-file kyma-fleet.diff\n\n' +
        'The same verdicts as validate, synth --check and diff --out BASE run one after the other, in one process.\n',
    )
    .action(async (flags: CheckFlags) => {
      const options = { fleetDir: flags.fleet, cwd: streams.cwd, now: evaluationTime(flags.now, streams.env), cacheDir: cacheDirFor(flags, streams.cwd, streams.env) };
      // The workers that scan dist/ for its committed record start before the checker and the
      // renderer are loaded (src/run/warm-start.ts); a check reads no run record.
      if (options.cacheDir !== undefined) warmStart({ ...options, outDir: flags.out, prelude: false });
      const [{ diffDist, diffDistProving }, { diffBaseFromIndexes }, { diffCommand }] = await Promise.all([import('../../run/synth'), import('../../run/base-diff'), import('./diff')]);
      const { result: check, proven } = diffDistProving({ ...options, outDir: flags.out, allowEmpty: flags.allowEmpty });
      const separateBase = flags.base !== undefined && path.resolve(streams.cwd, flags.base) !== path.resolve(streams.cwd, flags.out);
      // Against the base: the transition rules (immutable fields) and the diff, as `validate --out BASE` and `diff --out BASE`;
      // from the two indexes once dist/ is proven current (src/run/base-diff.ts).
      const base = separateBase && check.diff
        ? ((proven && diffBaseFromIndexes(options, flags.base!, proven)) ?? diffDist({ ...options, outDir: flags.base!, allowEmpty: true }))
        : check;
      const diagnostics = normalizeDiagnostics([...check.diagnostics, ...(base === check ? [] : base.diagnostics)]) as Diagnostic[];
      const valid = !hasErrors(diagnostics) && check.diff !== undefined;
      const problem = check.problem ? { out: flags.out, problem: check.problem } : base.problem ? { out: flags.base!, problem: base.problem } : undefined;
      const upToDate = check.diff !== undefined && isEmptyDiff(check.diff);
      const exitCode = !valid && !problem ? ExitCode.InvalidInput : problem ? ExitCode.IoOrLock : upToDate ? ExitCode.Ok : ExitCode.OutOfDate;
      const against = flags.base ?? flags.out;
      // diff's outputs of the comparison with the base, by the diff command itself (--fail-on included).
      const diffed = valid && base.diff ? runDiff(diffCommand, flags, against, base, streams) : undefined;
      const code = exitCode !== ExitCode.Ok ? exitCode : (diffed?.exitCode ?? ExitCode.Ok);
      if (flags.output === 'json') {
        const { errors, warnings } = countBySeverity(diagnostics);
        printJson(streams, {
          ok: code === ExitCode.Ok,
          exitCode: code,
          valid,
          errors,
          warnings,
          runtimes: check.runtimes ?? 0,
          upToDate,
          files: { added: check.diff?.added ?? [], changed: check.diff?.changed ?? [], removed: check.diff?.removed ?? [] },
          ...(diffed ? { diff: { against, ...(JSON.parse(diffed.json) as object) } } : {}),
          diagnostics,
          ...(problem ? { problem: problemJson(problem.problem) } : {}),
        });
        return setExit(code);
      }
      printDiagnostics(diagnostics, streams);
      if (problem) printProblem(problem.out, problem.problem, streams);
      const { errors, warnings } = countBySeverity(diagnostics);
      if (!valid) {
        if (!problem) streams.err(`${flags.fleet}: ${plural(errors, 'error')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}\n`);
        return setExit(code);
      }
      streams.out(`${flags.fleet}: valid (${plural(check.runtimes ?? 0, 'runtime')}${warnings ? `, ${plural(warnings, 'warning')}` : ''})\n`);
      if (problem) return setExit(code);
      reportCheck(flags.out, check, streams);
      if (base.diff) streams.out(`against ${against}: ${isEmptyDiff(base.diff) ? 'no change' : diffSummary(base.diff)}\n`);
      if (diffed?.failure) streams.err(diffed.failure);
      setExit(code);
    });
}

/** synth --check's report of dist/ (its lines, on the same streams). */
function reportCheck(out: string, r: DiffResult, streams: Streams): void {
  const diff = r.diff!;
  if (isEmptyDiff(diff)) {
    streams.out(`${out}: up to date (${plural(r.runtimes ?? 0, 'runtime')})\n`);
    return;
  }
  const files = [...diff.added.map((f) => `  added    ${f}`), ...diff.changed.map((f) => `  changed  ${f}`), ...diff.removed.map((f) => `  removed  ${f}`)];
  streams.err(`${out}: out of date: ${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed; run kyma-fleet synth\n`);
  streams.err(files.slice(0, MAX_LISTED).join('\n') + (files.length > MAX_LISTED ? `\n  … ${files.length - MAX_LISTED} more` : '') + '\n');
}

/**
 * The diff command's outputs of `compared` (the comparison with the base made here): its markdown
 * into --markdown, its complete diff into --output-file, its JSON document, and its exit code
 * (1 when --fail-on matched, 4 when a file could not be written).
 */
function runDiff(diffCommand: DiffCommand, flags: CheckFlags, against: string, compared: DiffResult, streams: Streams): { exitCode: number; json: string; failure?: string } {
  // Its diagnostics are reported above, once; annotations (GITHUB_ACTIONS) would land in the markdown.
  const { GITHUB_ACTIONS: _github, ...env } = streams.env;
  const run = (output: 'markdown' | 'json', outputFile: string | undefined): { out: string; err: string; code: number } => {
    let out = '';
    let err = '';
    let code: number = ExitCode.Ok;
    const args = ['--fleet', flags.fleet, '--out', against, '--output', output, ...(outputFile === undefined ? [] : ['--output-file', outputFile]), ...(flags.failOn === undefined ? [] : ['--fail-on', flags.failOn])];
    diffCommand({ out: (t) => void (out += t), err: (t) => void (err += t), env, cwd: streams.cwd }, (c) => void (code = c), compared)
      .exitOverride()
      .parse(args, { from: 'user' });
    return { out, err, code };
  };
  const markdown = run('markdown', flags.outputFile);
  const json = flags.output === 'json' ? run('json', undefined).out : '{}';
  // What diff says beyond its diagnostics (a file it could not write).
  const failure = markdown.code === ExitCode.IoOrLock ? markdown.err.split('\n').filter((l) => l.startsWith('diff: error:')).join('\n') + '\n' : undefined;
  if (flags.markdown !== undefined && markdown.code !== ExitCode.IoOrLock) {
    try {
      writeFileAtomic(path.resolve(streams.cwd, flags.markdown), markdown.out);
    } catch (e) {
      return { exitCode: ExitCode.IoOrLock, json, failure: `check: error: cannot write --markdown ${flags.markdown}: ${(e as Error).message}\n` };
    }
  }
  return { exitCode: markdown.code, json, ...(failure ? { failure } : {}) };
}
