// `kyma-fleet init DIR`: a new fleet repository that validates and renders at once (fleet.yaml, a
// group, two example runtimes, the editor schemas, .gitignore, a CI workflow, package.json,
// README). A new folder is assembled beside DIR and renamed into place, so DIR appears complete or
// not at all. Refuses a DIR that exists and is not empty. Runs nothing else (no npm, no git).
// `--kyma-fleet-from FILE.tgz` vendors the tarball: it is copied into vendor/ and package.json
// installs it from there (`file:vendor/…`), so `npm ci` works on a fresh CI runner, which has
// neither the path the tarball came from nor a registry that serves kyma-fleet (issue 26).

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Command, Option } from 'commander';
import { renderFleetSchemas } from '../../../scripts/write-fleet-schemas';
import { ExitCode } from '../../lib/diagnostics';
import { packageVersion } from '../../lib/version';
import { dnsLabelNameProblem, sanitizeDnsLabel } from '../../scaffold/names';
import { FLEET_FOLDER, scaffoldFleetRepo, VENDOR_FOLDER } from '../../scaffold/templates';
import { failureDocument, printJson } from '../json-output';
import { outputOption, UsageError } from '../options';
import { type Streams } from '../report';

interface InitFlags {
  name?: string;
  kymaFleetFrom?: string;
  output: 'text' | 'json';
}

export function initCommand(streams: Streams, setExit: (code: number) => void): Command {
  return new Command('init')
    .description('create a new fleet repository: fleet/, editor schemas, .gitignore, CI workflow, package.json')
    .argument('<dir>', 'folder to create (must not exist, or be empty)')
    .addOption(new Option('--name <name>', "fleet name (metadata.name in fleet.yaml); default: the folder's name as a DNS-1123 label"))
    .addOption(
      new Option(
        '--kyma-fleet-from <spec>',
        "where package.json installs kyma-fleet from: a tarball file (built by npm run pack in a kyma-fleet clone; copied into vendor/ of the new repository and installed from there), a tarball URL, a git URL with #tag, or a version; default: this version from the npm registry, which does not serve it yet (README.md says what to do)",
      ),
    )
    .addOption(outputOption(['text', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  kyma-fleet init ../acme-fleet --kyma-fleet-from kyma-fleet-' + packageVersion() + '.tgz   (in a kyma-fleet clone, after npm run pack)\n  kyma-fleet init . --name acme --kyma-fleet-from "git+https://git.example.org/platform/kyma-fleet.git#v' + packageVersion() + '"\n',
    )
    .action((dir: string, flags: InitFlags) => {
      const json = flags.output === 'json';
      /** Prints the failure (text: `error: <message>` on stderr) and returns its exit code. */
      const fail = (exitCode: number, message: string): void => {
        if (json) printJson(streams, failureDocument(exitCode, message));
        else streams.err(`error: ${message}\n`);
        setExit(exitCode);
      };
      const target = path.resolve(streams.cwd, dir);
      let name: string;
      if (flags.name !== undefined) {
        const problem = dnsLabelNameProblem(flags.name);
        if (problem) throw new UsageError(`--name: ${problem.message}`);
        name = flags.name;
      } else {
        name = sanitizeDnsLabel(path.basename(target));
      }
      const display = dir.replace(/[\\/]+$/, '') || dir;
      let kymaFleetFrom = flags.kymaFleetFrom === undefined ? packageVersion() : kymaFleetSpec(flags.kymaFleetFrom, streams.cwd, target);
      let vendored: { rel: string; bytes: Buffer } | undefined;
      if (flags.kymaFleetFrom !== undefined && isTarballPath(flags.kymaFleetFrom)) {
        const file = path.resolve(streams.cwd, flags.kymaFleetFrom.trim());
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(file);
        } catch (err) {
          return fail(ExitCode.InvalidInput, `--kyma-fleet-from: cannot read ${flags.kymaFleetFrom} (${(err as NodeJS.ErrnoException).code ?? String(err)}); build it with \`npm run pack\` in a kyma-fleet clone`);
        }
        const name = tarballPackageName(bytes);
        if (name !== 'kyma-fleet') {
          return fail(ExitCode.InvalidInput, `--kyma-fleet-from: ${flags.kymaFleetFrom} is not a kyma-fleet package tarball (${name === undefined ? 'no package/package.json in it' : `it holds ${JSON.stringify(name)}`}); build it with \`npm run pack\` in a kyma-fleet clone`);
        }
        vendored = { rel: `${VENDOR_FOLDER}/${path.basename(file)}`, bytes };
        kymaFleetFrom = `file:${vendored.rel}`;
      }

      let existing: 'none' | 'empty';
      try {
        const stat = fs.statSync(target);
        if (!stat.isDirectory()) {
          return fail(ExitCode.InvalidInput, `${display} exists and is not a folder; kyma-fleet init creates a new repository there`);
        }
        if (fs.readdirSync(target).length > 0) {
          return fail(ExitCode.InvalidInput, `${display} exists and is not empty; kyma-fleet init only writes into a new or empty folder`);
        }
        existing = 'empty';
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          return fail(ExitCode.IoOrLock, `cannot read ${display} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
        }
        existing = 'none';
      }

      const files: Map<string, string | Buffer> = scaffoldFleetRepo({ name, kymaFleetVersion: packageVersion(), kymaFleetFrom, schemas: renderFleetSchemas(), newId: randomUUID });
      if (vendored) files.set(vendored.rel, vendored.bytes);
      try {
        if (existing === 'none') writeNewFolder(target, files);
        else writeIntoEmptyFolder(target, files);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOTEMPTY') {
          return fail(ExitCode.InvalidInput, `${display} was created by someone else meanwhile; nothing written`);
        }
        return fail(ExitCode.IoOrLock, `cannot write ${display} (${code ?? (err instanceof Error ? err.message : String(err))}); nothing written`);
      }

      const runtimes = [...files.keys()].filter((f) => f.startsWith(`${FLEET_FOLDER}/runtimes/`)).length;
      if (json) {
        printJson(streams, { ok: true, dir: display, name, kymaFleetFrom, files: [...files.keys()].sort() });
        return setExit(ExitCode.Ok);
      }
      const cd = path.relative(streams.cwd, target) || '.';
      streams.out(
        `${display}: created fleet ${JSON.stringify(name)} (${files.size} files: ${runtimes} example runtimes, 1 group, schemas, CI workflow${vendored ? `, ${vendored.rel}` : ''})\n` +
          'next:\n' +
          (cd === '.' ? '' : `  cd ${shellWord(cd)}\n`) +
          (flags.kymaFleetFrom === undefined
            ? '  # install kyma-fleet: no registry serves it yet, see README.md (or init again with --kyma-fleet-from); commit package-lock.json\n'
            : vendored
              ? `  npm install        # kyma-fleet from ${vendored.rel} (commit it: CI installs it from there); commit package-lock.json\n`
              : `  npm install        # kyma-fleet from ${kymaFleetFrom}; commit package-lock.json\n`) +
          '  npx --no-install kyma-fleet synth\n' +
          '  git init -b main && git add . && git commit -m "kyma-fleet init"\n',
      );
      setExit(ExitCode.Ok);
    });
}

/**
 * The dependency spec package.json gets for --kyma-fleet-from: a tarball or folder path becomes a
 * `file:` spec relative to the new repository (where npm resolves it); URLs, git specs and versions
 * are written as given.
 */
export function kymaFleetSpec(value: string, cwd: string, target: string): string {
  const v = value.trim();
  if (v === '' || /\s/.test(v)) {
    throw new UsageError(`--kyma-fleet-from must be an npm package spec: a tarball (path or URL), a git URL with #tag, or a version (got ${JSON.stringify(value)})`);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) return v;
  if (/\.(tgz|tar\.gz)$/.test(v) || v.startsWith('.') || path.isAbsolute(v)) {
    const rel = path.relative(target, path.resolve(cwd, v)).split(path.sep).join('/');
    return `file:${rel.startsWith('.') ? rel : `./${rel}`}`;
  }
  return v;
}

/** A local tarball path (not a URL or a git spec): init vendors it. */
function isTarballPath(value: string): boolean {
  const v = value.trim();
  return !/^[a-z][a-z0-9+.-]*:/i.test(v) && /\.(tgz|tar\.gz)$/.test(v);
}

/** The `name` of package/package.json in an npm tarball (gzip-compressed ustar), or undefined. */
export function tarballPackageName(tgz: Buffer): string | undefined {
  let tar: Buffer;
  try {
    tar = gunzipSync(tgz);
  } catch {
    return undefined;
  }
  const text = (b: Buffer): string => b.toString('utf8').replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) return undefined;
    const name = text(header.subarray(0, 100));
    const prefix = text(header.subarray(345, 500));
    const size = parseInt(text(header.subarray(124, 136)).trim() || '0', 8);
    const entry = prefix ? `${prefix}/${name}` : name;
    if (entry === 'package/package.json') {
      try {
        const pkg = JSON.parse(tar.subarray(at + 512, at + 512 + size).toString('utf8')) as { name?: unknown };
        return typeof pkg.name === 'string' ? pkg.name : undefined;
      } catch {
        return undefined;
      }
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

function writeFiles(root: string, files: ReadonlyMap<string, string | Buffer>): void {
  for (const [rel, text] of files) {
    const abs = path.join(root, ...rel.split('/'));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text, { flag: 'wx' });
  }
}

/** Assembles the repository in a hidden folder beside `target`, then renames it into place. */
function writeNewFolder(target: string, files: ReadonlyMap<string, string | Buffer>): void {
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  const staging = path.join(parent, `.${path.basename(target)}.init-tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    fs.mkdirSync(staging);
    writeFiles(staging, files);
    fs.renameSync(staging, target); // fails if target appeared meanwhile and is not empty
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** An existing empty folder (e.g. a fresh clone target or a mount point): write in place, undo on failure. */
function writeIntoEmptyFolder(target: string, files: ReadonlyMap<string, string | Buffer>): void {
  try {
    writeFiles(target, files);
  } catch (err) {
    for (const entry of fs.readdirSync(target)) {
      if ([...files.keys()].some((rel) => rel.split('/')[0] === entry)) fs.rmSync(path.join(target, entry), { recursive: true, force: true });
    }
    throw err;
  }
}

/** A path as one POSIX shell word, for the "next" hints. */
function shellWord(p: string): string {
  return /^[A-Za-z0-9._\/-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
