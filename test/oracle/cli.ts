// `npm run oracle -- <command>`: the upstream oracle for people and CI (compiled by
// test/oracle/tsconfig.json into lib/test/oracle/cli.js; needs Go to build the oracle).
//
//   judge DIST [--verbose] [--json]   judge every Shoot and Runtime fragment under a rendered dist/;
//                                     one line per object and extension entry; exit 0 when all are
//                                     accepted (and KIM's mapping equal), 1 otherwise, 2 on usage errors
//   versions                          print the upstream versions compiled into the oracle
//   bump [--registry-cache V] [--kim V] [--gardener V]
//                                     move the pins: `go get` the newest (or given) versions in both
//                                     modules, `go mod tidy`, rebuild, print the new versions

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGo } from '../cluster/go-tool-cache';
import { formatLine, formatSummary, judgeDist } from './judge';
import { Oracle } from './oracle';
import { ensureOracleBinaries, ORACLE_DIR } from './tools';

const USAGE = 'usage: npm run oracle -- judge DIST [--verbose] [--json] | versions | bump [--registry-cache VERSION] [--kim VERSION] [--gardener VERSION]';

function log(line: string): void {
  process.stderr.write(`oracle: ${line}\n`);
}

async function judge(args: string[]): Promise<number> {
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const positional = args.filter((a) => !a.startsWith('--'));
  const unknown = [...flags].filter((f) => f !== '--verbose' && f !== '--json');
  if (positional.length !== 1 || unknown.length > 0) {
    process.stderr.write(`${unknown.length > 0 ? `unknown option ${unknown[0]}\n` : ''}${USAGE}\n`);
    return 2;
  }
  const dist = path.resolve(positional[0]!);
  if (!fs.existsSync(path.join(dist, 'runtimes'))) {
    process.stderr.write(`${positional[0]}: not a rendered dist/ folder (no runtimes/ in it)\n${USAGE}\n`);
    return 2;
  }
  const oracle = await Oracle.start(undefined, log);
  try {
    const v = await oracle.versions();
    log(`judging with gardener-extension-registry-cache ${v.admission['github.com/gardener/gardener-extension-registry-cache']} and KIM ${v.kim['github.com/kyma-project/infrastructure-manager']} (docs/testing.md, "The upstream oracle")`);
    const result = await judgeDist(oracle, dist);
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
async function bump(args: string[]): Promise<number> {
  const go = findGo();
  if (!go) {
    process.stderr.write('bump needs Go (no `go` on PATH and no /usr/local/go/bin/go)\n');
    return 1;
  }
  const known = new Set(['--registry-cache', '--kim', '--gardener']);
  for (let i = 0; i < args.length; i += 2) {
    if (!known.has(args[i]!) || !args[i + 1]) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
  }
  // KIM has no semver tags: @main is the pseudo-version of its main branch.
  const steps: [string, string[]][] = [
    ['admission', [`github.com/gardener/gardener-extension-registry-cache@${option(args, '--registry-cache', 'latest')}`]],
    ['kim', [`github.com/kyma-project/infrastructure-manager@${option(args, '--kim', 'main')}`,
      ...(args.includes('--gardener') ? [`github.com/gardener/gardener@${option(args, '--gardener', '')}`, `github.com/gardener/gardener/pkg/apis@${option(args, '--gardener', '')}`] : [])]],
  ];
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  for (const [dir, modules] of steps) {
    const cwd = path.join(ORACLE_DIR, dir);
    for (const cmd of [['get', ...modules], ['mod', 'tidy']]) {
      log(`(${dir}) go ${cmd.join(' ')}`);
      const r = spawnSync(go, cmd, { cwd, env, stdio: 'inherit' });
      if (r.status !== 0) {
        process.stderr.write(`go ${cmd.join(' ')} failed in test/oracle/${dir} (exit ${r.status}); go.mod may be partly moved: review with git diff\n`);
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
  process.stdout.write(`pinned on ${new Date().toISOString().slice(0, 10)}: update the pins in README.md and docs/testing.md ("The upstream oracle"), then run the oracle tests\n`);
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
