// `npm run oracle -- <command>`: the upstream oracle for people and CI (compiled by
// test/oracle/tsconfig.json into lib/test/oracle/cli.js; needs Go to build the oracle).
//
//   judge DIST [--falco-profile FILE] [--now TIME] [--otlp-logging] [--verbose] [--json]
//                                     judge every Shoot and Runtime fragment under a rendered dist/;
//                                     one line per object and extension entry; exit 0 when all are
//                                     accepted (and KIM's mapping equal, the Falco mutator changing
//                                     nothing), 1 otherwise, 2 on usage errors. Falco versions are
//                                     judged against FILE (the fleet's FalcoProfile snapshot) as of
//                                     TIME (what synth --now was; default: now); without FILE they
//                                     are not judged (the line says so with --verbose);
//                                     --otlp-logging judges Falco as an admission run with that
//                                     flag (off upstream by default: then `otlp` is refused)
//   versions                          print the upstream versions compiled into the oracle
//   bump [--registry-cache V] [--kim V] [--gardener V] [--lakom V] [--kyma-registry-cache V]
//                                     move the pins: `go get` the newest (or given) versions in the
//                                     modules, `go mod tidy`, rebuild, print the new versions. The
//                                     Falco module follows the snapshot in ../shared/upstream/ (it
//                                     moves when that folder does): bump runs `go mod tidy` there.
//                                     Every version is resolved before any go.mod moves; where the
//                                     proxy lists no versions (@latest, @main refused) name one

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGo } from '../cluster/go-tool-cache';
import { parseDocument } from 'yaml';
import { formatLine, formatSummary, judgeDist, type JudgeOptions } from './judge';
import type { KubeObject } from './protocol';
import { Oracle } from './oracle';
import { ensureOracleBinaries, falcoUnavailableReason, ORACLE_DIR } from './tools';

const USAGE =
  'usage: npm run oracle -- judge DIST [--falco-profile FILE] [--now TIME] [--otlp-logging] [--verbose] [--json] | versions | ' +
  'bump [--registry-cache VERSION] [--kim VERSION] [--gardener VERSION] [--lakom VERSION] [--kyma-registry-cache VERSION]';
/** The Kyma registry-cache module's webhook binary, built for the test cluster (test/registry-cache-webhook/). */
const WEBHOOK_GO_DIR = path.join(ORACLE_DIR, '..', 'registry-cache-webhook', 'go');

function log(line: string): void {
  process.stderr.write(`oracle: ${line}\n`);
}

async function judge(argv: string[]): Promise<number> {
  const valued = new Map<string, string>();
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--falco-profile' || argv[i] === '--now') {
      if (argv[i + 1] === undefined) {
        process.stderr.write(`${argv[i]} needs a value\n${USAGE}\n`);
        return 2;
      }
      valued.set(argv[i]!, argv[++i]!);
    } else args.push(argv[i]!);
  }
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const positional = args.filter((a) => !a.startsWith('--'));
  const unknown = [...flags].filter((f) => f !== '--verbose' && f !== '--json' && f !== '--otlp-logging');
  if (positional.length !== 1 || unknown.length > 0) {
    process.stderr.write(`${unknown.length > 0 ? `unknown option ${unknown[0]}\n` : ''}${USAGE}\n`);
    return 2;
  }
  const opts: JudgeOptions = flags.has('--otlp-logging') ? { otlpLogging: true } : {};
  const profileFile = valued.get('--falco-profile');
  if (profileFile !== undefined) {
    if (!fs.existsSync(profileFile)) {
      process.stderr.write(`${profileFile}: no such file\n${USAGE}\n`);
      return 2;
    }
    opts.falcoProfile = parseDocument(fs.readFileSync(profileFile, 'utf8')).toJS() as KubeObject;
  }
  const now = valued.get('--now');
  if (now !== undefined) {
    if (Number.isNaN(Date.parse(now))) {
      process.stderr.write(`--now ${now}: not a time (RFC 3339, e.g. 2026-11-22T00:00:00Z)\n${USAGE}\n`);
      return 2;
    }
    opts.now = new Date(now).toISOString().replace(/\.000Z$/, 'Z');
  }
  const dist = path.resolve(positional[0]!);
  if (!fs.existsSync(path.join(dist, 'runtimes'))) {
    process.stderr.write(`${positional[0]}: not a rendered dist/ folder (no runtimes/ in it)\n${USAGE}\n`);
    return 2;
  }
  const oracle = await Oracle.start(undefined, log);
  try {
    const v = await oracle.versions();
    const falco = v.falco ? `Falco ${v.falco['github.com/gardener/gardener-extension-shoot-falco-service']}` : `no Falco (${falcoUnavailableReason() ?? 'not built'})`;
    log(`judging with gardener-extension-registry-cache ${v.admission['github.com/gardener/gardener-extension-registry-cache']}, Lakom ${v.lakom['github.com/gardener/gardener-extension-shoot-lakom-service']}, ${falco} and KIM ${v.kim['github.com/kyma-project/infrastructure-manager']} (docs/testing.md, "The upstream oracle")`);
    if (!opts.falcoProfile) log('no --falco-profile: Falco versions are not judged');
    const result = await judgeDist(oracle, dist, opts);
    if (flags.has('--json')) {
      process.stdout.write(`${JSON.stringify({ versions: await oracle.versions(), ...result }, null, 2)}\n`);
    } else {
      for (const line of result.lines) process.stdout.write(`${formatLine(line, flags.has('--verbose'))}\n`);
      process.stdout.write(`${formatSummary(result)}\n`);
    }
    return result.ok ? 0 : 1;
  } finally {
    await oracle.close();
  }
}

async function versions(): Promise<number> {
  const oracle = await Oracle.start(undefined, log);
  try {
    process.stdout.write(`${JSON.stringify(await oracle.versions(), null, 2)}\n`);
    return 0;
  } finally {
    await oracle.close();
  }
}

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}

/** Moves the pins of both modules; the README and docs/testing.md lines are then updated by hand (a test checks them). */
/** The bump flag that sets a module's version. */
function flagOf(moduleAtVersion: string): string {
  const m = moduleAtVersion.replace(/@.*$/, '');
  if (m.endsWith('gardener-extension-registry-cache')) return '--registry-cache';
  if (m.endsWith('infrastructure-manager')) return '--kim';
  if (m.endsWith('shoot-lakom-service')) return '--lakom';
  if (m.endsWith('kyma-project/registry-cache')) return '--kyma-registry-cache';
  return '--gardener';
}

async function bump(args: string[]): Promise<number> {
  const go = findGo();
  if (!go) {
    process.stderr.write('bump needs Go (no `go` on PATH and no /usr/local/go/bin/go)\n');
    return 1;
  }
  const known = new Set(['--registry-cache', '--kim', '--gardener', '--lakom', '--kyma-registry-cache']);
  for (let i = 0; i < args.length; i += 2) {
    if (!known.has(args[i]!) || !args[i + 1]) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
  }
  // KIM has no semver tags: @main is the pseudo-version of its main branch.
  // Lakom: the checksum database does not know the module, hence GONOSUMDB for it alone (lakom/go.mod says more).
  const lakomEnv = { GONOSUMDB: 'github.com/gardener/gardener-extension-shoot-lakom-service' };
  const steps: [string, string[], Record<string, string>?][] = [
    ['admission', [`github.com/gardener/gardener-extension-registry-cache@${option(args, '--registry-cache', 'latest')}`]],
    ['kim', [`github.com/kyma-project/infrastructure-manager@${option(args, '--kim', 'main')}`,
      ...(args.includes('--gardener') ? [`github.com/gardener/gardener@${option(args, '--gardener', '')}`, `github.com/gardener/gardener/pkg/apis@${option(args, '--gardener', '')}`] : [])]],
    ['lakom', [`github.com/gardener/gardener-extension-shoot-lakom-service@${option(args, '--lakom', 'latest')}`], lakomEnv],
    [path.relative(ORACLE_DIR, WEBHOOK_GO_DIR), [`github.com/kyma-project/registry-cache@${option(args, '--kyma-registry-cache', 'main')}`]],
    // The Falco module has no version to get: `go mod tidy` follows the snapshot in ../shared/upstream/.
    ...(falcoUnavailableReason() ? [] : [['falco', []] as [string, string[]]]),
  ];
  // Every requested version first, before any go.mod moves: the proxy here refuses some modules'
  // version lists (then @latest and @main cannot resolve) and some versions (403).
  for (const [dir, modules, extraEnv] of steps) {
    for (const m of modules) {
      const r = spawnSync(go, ['list', '-m', '-json', m], { cwd: path.join(ORACLE_DIR, dir), env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', ...(extraEnv ?? {}) }, encoding: 'utf8' });
      if (r.status !== 0) {
        const refused = /403 Forbidden|not available/.test(r.stderr);
        process.stderr.write(
          `${m} cannot be resolved${refused ? ' (the Go module proxy refuses it)' : ''}: ${r.stderr.trim().split('\n').map((l) => l.trim()).join(' ')}\n` +
            `nothing was changed; name a version the proxy serves (for example with ${flagOf(m)} VERSION; ../shared/reference/upstream-modules.md lists them)\n`,
        );
        return 1;
      }
    }
  }
  for (const [dir, modules, extraEnv] of steps) {
    const cwd = path.join(ORACLE_DIR, dir);
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', ...(extraEnv ?? {}) };
    for (const cmd of [...(modules.length > 0 ? [['get', ...modules]] : []), ['mod', 'tidy']]) {
      log(`(${dir}) go ${cmd.join(' ')}`);
      const r = spawnSync(go, cmd, { cwd, env, stdio: 'inherit' });
      if (r.status !== 0) {
        process.stderr.write(`go ${cmd.join(' ')} failed in ${path.normalize(`test/oracle/${dir}`)} (exit ${r.status}); go.mod may be partly moved: review with git diff\n`);
        return 1;
      }
    }
  }
  const built = await ensureOracleBinaries(log);
  const oracle = await Oracle.start(built, log);
  try {
    process.stdout.write(`${JSON.stringify(await oracle.versions(), null, 2)}\n`);
  } finally {
    await oracle.close();
  }
  process.stdout.write(`pinned on ${new Date().toISOString().slice(0, 10)}: update the pins in README.md and docs/testing.md ("The upstream oracle"), keep admission/ and falco/ on the same dependency versions (they share the Go build cache), then run the oracle tests\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'judge':
      return judge(rest);
    case 'versions':
      return versions();
    case 'bump':
      return bump(rest);
    default:
      process.stderr.write(`${command ? `unknown command ${command}\n` : ''}${USAGE}\n`);
      return 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`oracle: ${err.message}\n`);
      process.exit(1);
    },
  );
}
