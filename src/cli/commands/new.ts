// `kyma-fleet new runtime NAME ...`: adds fleet/runtimes/NAME.yaml. The file is checked before it
// is written by the validator itself (the new document joins the loaded fleet in memory, so the
// name, identity and label rules and the duplicate checks are the validator's, with its messages),
// written atomically without replacing anything, and removed again if the fleet as a whole (layering,
// policies) no longer validates with it. Exit codes: 0 written, 1 conflicts with the fleet or the
// fleet is invalid (nothing written), 2 usage (missing or malformed options), 4 I/O.
// JSON: schemas/output/new.schema.json (no document for exit 2, as for every usage error).

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { checkFleet } from '../../run/check';
import { type LoadedDocument, loadFleet } from '../../load/load';
import { openParseCache } from '../../load/parse-cache';
import { parseFleetYaml } from '../../lib/yaml/parse-yaml';
import { kymaRuntimeSchema } from '../../validate/schema';
import { validateFleet } from '../../validate/validate';
import { type Diagnostic, ExitCode, formatDiagnostic, hasErrors } from '../../lib/diagnostics';
import { sha256 } from '../../lib/digest';
import { fsyncDir, fsyncFile } from '../../write/fsync';
import { dnsLabelNameProblem } from '../../scaffold/names';
import { runtimeYaml, SCHEMAS_FOLDER, schemaFileName } from '../../scaffold/templates';
import { failureDocument, printJson } from '../json-output';
import { UsageError, cacheDirFor, cacheOption, evaluationTime, fleetOption, nowOption, outputOption } from '../options';
import { plural, printDiagnostics, type Streams } from '../report';
import { lexists } from '../../lib/fs-exists';

interface NewRuntimeFlags {
  fleet: string;
  runtimeId?: string;
  globalAccount?: string;
  subaccount?: string;
  region?: string;
  shoot?: string;
  project?: string;
  label?: string[];
  out: string;
  now?: string;
  cache?: boolean;
  output: 'text' | 'json';
}

/** The identity options in the order of the help text, with what to tell a user who left one out. */
const IDENTITY_OPTIONS = [
  ['runtimeId', '--runtime-id'],
  ['globalAccount', '--global-account'],
  ['subaccount', '--subaccount'],
  ['region', '--region'],
  ['shoot', '--shoot'],
  ['project', '--project'],
] as const;

/** Field of the runtime document (as diagnostics name it) -> the option or argument that set it. */
const FIELD_SOURCE: ReadonlyArray<readonly [string, string]> = [
  ['metadata.name', 'NAME'],
  ['metadata.labels', '--label'],
  ['runtimeID', '--runtime-id'],
  ['globalAccountID', '--global-account'],
  ['subaccountID', '--subaccount'],
  ['region', '--region'],
  ['shoot.name', '--shoot'],
  ['shoot.project', '--project'],
];

/** Conflicts with other files of the fleet (exit 1); every other finding is a bad option value (exit 2). */
const CONFLICT_CODES = new Set(['E_DUPLICATE_RUNTIME', 'E_DUPLICATE_RUNTIME_ID', 'E_DUPLICATE_SHOOT']);

export function newCommand(streams: Streams, setExit: (code: number) => void): Command {
  const output = { writeOut: streams.out, writeErr: streams.err };
  const cmd = new Command('new')
    .description('add a declaration to the fleet: kyma-fleet new runtime NAME --runtime-id UUID ...')
    .argument('[kind]', 'what to add: runtime')
    .usage('<kind> [options] <name>')
    .allowExcessArguments()
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(output)
    .action((kind: string | undefined) => {
      throw new UsageError(
        kind === undefined ? 'kyma-fleet new needs a kind: kyma-fleet new runtime NAME --runtime-id UUID ...' : `unknown kind ${JSON.stringify(kind)}; kyma-fleet new supports: runtime`,
      );
    });
  cmd.addCommand(newRuntimeCommand(streams, setExit).showHelpAfterError('(run with --help for usage)').exitOverride().configureOutput(output));
  return cmd;
}

function newRuntimeCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('runtime')
    .description('write <fleet>/runtimes/NAME.yaml for a Kyma runtime; refuses a duplicate name, runtime ID or Shoot')
    .argument('<name>', 'runtime name: a DNS-1123 label, the file name and the folder in dist/')
    .addOption(fleetOption())
    .addOption(new Option('--runtime-id <uuid>', 'Kyma runtime ID, assigned by the Kyma Environment Broker (required)'))
    .addOption(new Option('--global-account <id>', 'SAP BTP global account ID (required)'))
    .addOption(new Option('--subaccount <id>', 'SAP BTP subaccount ID (required)'))
    .addOption(new Option('--region <region>', 'region of the runtime, e.g. eu-central-1 (required)'))
    .addOption(new Option('--shoot <name>', 'name of the Gardener Shoot behind the runtime (required)'))
    .addOption(new Option('--project <project>', 'Gardener project of the Shoot; its namespace is garden-<project> (required)'))
    .addOption(
      new Option('--label <key=value>', 'label that group selectors match; repeat for more')
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(new Option('--out <dir>', 'previous render; immutable fields are checked against it').default('dist'))
    .addOption(nowOption())
    .addOption(cacheOption())
    .addOption(outputOption(['text', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  kyma-fleet new runtime acme-eu-prod-3 --runtime-id 5b0c1f3e-2d4a-4f6b-8c7d-9e0f1a2b3c4d \\\n' +
        '    --global-account 0c5e8a3d-7f21-4b6a-9d44-51c2e8f0a1b7 --subaccount 6a2d4f10-1e3b-4c7d-9f58-0b9e2c7d4a11 \\\n' +
        '    --region eu-central-1 --shoot c-5b0c1f3 --project kyma-prod --label tier=production --label geo=eu\n' +
        '\nThe IDs come from the Kyma Environment Broker: the BTP cockpit shows them on the Kyma environment\n' +
        'of the subaccount (the runtime ID also names the Kyma and Runtime CRs in the Kyma Control Plane).\n',
    )
    .action((name: string, flags: NewRuntimeFlags) => {
      const missing = IDENTITY_OPTIONS.filter(([key]) => flags[key] === undefined).map(([, option]) => option);
      if (missing.length > 0) {
        const why = missing.includes('--runtime-id')
          ? '; the runtime ID is assigned by the Kyma Environment Broker when the runtime is provisioned (BTP cockpit: the Kyma environment of the subaccount), so kyma-fleet never makes one up'
          : '';
        throw new UsageError(`kyma-fleet new runtime ${name} needs ${missing.join(', ')}${why} (see kyma-fleet new runtime --help)`);
      }
      const json = flags.output === 'json';
      const fail = (exitCode: number, message: string, diagnostics: readonly Diagnostic[] = []): void => {
        if (json) printJson(streams, failureDocument(exitCode, message.replace(/^error: /, ''), { diagnostics }));
        else {
          printDiagnostics(diagnostics, streams);
          streams.err(`${message}\n`);
        }
        setExit(exitCode);
      };
      const labels = parseLabels(flags.label ?? []);
      const now = evaluationTime(flags.now, streams.env);
      const cacheDir = cacheDirFor(flags, streams.cwd, streams.env);

      // 1. Load the fleet and validate it with the new document added last, so findings about
      //    duplicates land on the new document ("already declared in <existing file>").
      const fleetAbs = path.resolve(streams.cwd, flags.fleet);
      const loaded = loadFleet({ fleetDir: flags.fleet, cwd: streams.cwd, cache: cacheDir ? openParseCache(cacheDir, fleetAbs) : undefined });
      if (hasErrors(loaded.diagnostics) && !loaded.fleet) return refuseInvalidFleet(flags.fleet, loaded.diagnostics, fail);
      const runtimesDir = path.join(loaded.root, 'runtimes');
      const relPath = `runtimes/${name}.yaml`;
      const file = `${loaded.displayRoot}/${relPath}`;
      const text = runtimeYaml({
        name,
        schemaRef: schemaRefFrom(runtimesDir, loaded.root),
        labels,
        runtimeID: flags.runtimeId!,
        globalAccountID: flags.globalAccount!,
        subaccountID: flags.subaccount!,
        region: flags.region!,
        shoot: { name: flags.shoot!, project: flags.project! },
      });
      const parsed = parseFleetYaml(Buffer.from(text, 'utf8'), file);
      const candidate: LoadedDocument[] =
        parsed.data === undefined ? [] : [{ expectedKind: 'KymaRuntime', relPath, file, data: parsed.data, positions: parsed.positions, digest: sha256(text) }];
      // A duplicate is reported on the new file ("already declared in <existing>"): every file but the candidate counts as one git has.
      const tracked = (files: readonly string[]): ReadonlySet<string> => new Set(files.filter((f) => f !== file));
      const validated = validateFleet({ ...loaded, runtimes: [...loaded.runtimes, ...candidate] }, { now, allowEmpty: true, tracked });
      const all = [...parsed.diagnostics, ...validated.diagnostics].filter((d) => d.severity === 'error');
      const elsewhere = all.filter((d) => d.file !== file);
      if (elsewhere.length > 0) return refuseInvalidFleet(flags.fleet, elsewhere, fail);

      const problems = all.map((d) => ({ conflict: CONFLICT_CODES.has(d.code), line: describe(d) }));
      // NAME becomes a path only once it is known to be a safe file name. The validator checks it
      // after the schema, so a schema finding elsewhere can hide its verdict: check it here too.
      const nameProblem = dnsLabelNameProblem(name);
      if (nameProblem !== undefined) {
        if (!all.some((d) => d.field === 'metadata.name')) problems.push({ conflict: false, line: `NAME: ${nameProblem.message} [${nameProblem.code}]` });
      } else {
        const taken = [`${name}.yaml`, `${name}.yml`].find((f) => lexists(path.join(runtimesDir, f), true));
        if (taken) {
          const rest = problems.filter((p) => !p.line.endsWith('[E_DUPLICATE_RUNTIME]'));
          problems.splice(0, problems.length, { conflict: true, line: `${loaded.displayRoot}/runtimes/${taken} already exists: runtime ${JSON.stringify(name)} is declared there; choose another name or edit that file [E_DUPLICATE_RUNTIME]` }, ...rest);
        }
      }
      if (problems.length > 0) {
        const code = problems.every((p) => p.conflict) ? ExitCode.InvalidInput : ExitCode.Usage;
        const summary = nameProblem === undefined ? `${file}: not written` : 'nothing written';
        // Exit 2 (a bad option value) prints no JSON document, as every usage error (docs/cli.md).
        if (json && code === ExitCode.InvalidInput) return fail(code, `${problems.map((p) => `error: ${p.line}`).join('; ')}; ${summary}`);
        for (const p of problems) streams.err(`error: ${p.line}\n`);
        streams.err(`${summary}\n`);
        return setExit(code);
      }

      // 2. Write without replacing anything, then 3. the whole fleet must still validate.
      const target = path.join(runtimesDir, `${name}.yaml`);
      try {
        if (!writeNew(runtimesDir, target, text)) {
          return fail(ExitCode.InvalidInput, `error: ${file} already exists; choose another name or edit that file [E_DUPLICATE_RUNTIME]`);
        }
      } catch (err) {
        return fail(ExitCode.IoOrLock, `error: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); nothing written`);
      }
      const after = checkFleet({ fleetDir: flags.fleet, cwd: streams.cwd, now, previousDist: flags.out, cacheDir });
      if (!after.ok) {
        fs.rmSync(target, { force: true });
        const errors = after.diagnostics.filter((d) => d.severity === 'error');
        return fail(ExitCode.InvalidInput, `${flags.fleet}: ${plural(errors.length, 'error')} with the new runtime; ${file} not written`, errors);
      }
      if (json) printJson(streams, { ok: true, file, name, runtimeID: flags.runtimeId, runtimes: after.runtimes.length });
      else streams.out(`${file}: written (runtime ID ${flags.runtimeId}); the fleet has ${plural(after.runtimes.length, 'runtime')}; next: kyma-fleet synth\n`);
      setExit(ExitCode.Ok);
    });
}

/** `--label k=v` values, in order; a key given twice or without '=' is a usage error. */
export function parseLabels(values: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label must be KEY=VALUE, e.g. --label tier=production (got ${JSON.stringify(v)})`);
    const key = v.slice(0, eq);
    if (out.some(([k]) => k === key)) throw new UsageError(`--label ${JSON.stringify(key)} is given twice`);
    out.push([key, v.slice(eq + 1)]);
  }
  return out;
}

/** One line naming the option or argument behind a validator finding on the new document. */
function describe(d: Diagnostic): string {
  const source = FIELD_SOURCE.find(([field]) => d.field === field || d.field.startsWith(`${field}.`) || d.field.startsWith(`${field}[`))?.[1];
  return source ? `${source}: ${d.message} [${d.code}]` : formatDiagnostic(d);
}

function refuseInvalidFleet(fleet: string, diagnostics: readonly Diagnostic[], fail: (code: number, message: string, diagnostics: readonly Diagnostic[]) => void): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  fail(ExitCode.InvalidInput, `${fleet}: ${plural(errors.length, 'error')}; fix the fleet before adding a runtime (nothing written)`, errors);
}

/**
 * The $schema reference for a file in `fromDir`: the nearest schemas/kymaruntime.json found by
 * walking up from the fleet folder (stopping at the repository root, the folder holding .git),
 * as a relative path; the published $id URL when there is none.
 */
export function schemaRefFrom(fromDir: string, fleetRoot: string): string {
  const fileName = schemaFileName('KymaRuntime');
  for (let dir = fleetRoot; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, SCHEMAS_FOLDER, fileName);
    if (isFile(candidate)) return path.relative(fromDir, candidate).split(path.sep).join('/');
    if (lexists(path.join(dir, '.git'), true) || path.dirname(dir) === dir) break;
  }
  return String(kymaRuntimeSchema().$id);
}

/**
 * Writes `text` to a hidden temporary file beside `target` (skipped by the loader), makes it
 * durable, and moves it into place without replacing an existing file: a hard link fails with
 * EEXIST where a rename would overwrite. Where hard links are not supported, an existence check and
 * a rename. Returns false when `target` exists.
 */
function writeNew(dir: string, target: string, text: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(target)}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
  fs.writeFileSync(tmp, text, { flag: 'wx' });
  try {
    fsyncFile(tmp);
    try {
      fs.linkSync(tmp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(code ?? '')) throw err;
      if (lexists(target, true)) return false;
      fs.renameSync(tmp, target);
    }
    fsyncDir(dir);
    return true;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
