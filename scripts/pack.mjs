#!/usr/bin/env node
// `npm run pack`: the kyma-fleet tarball that a fleet repository vendors (`kyma-fleet init
// --kyma-fleet-from kyma-fleet-<version>.tgz` copies it into vendor/). Why not a plain `npm pack`:
// the clone's package.json has a `prepare` script (it builds lib/ on `npm ci`, which the README and
// .ci/run rely on), and npm would ship it; an installed package must run no scripts. So this packs
// a staging copy of exactly the files `npm pack` would take (the `files` list, read with
// `npm pack --dry-run`), whose package.json has no `scripts` and no `devDependencies`. The clone's
// `prepack` script runs this with --guard, which refuses a plain `npm pack` or `npm publish` there.
//
//   node scripts/pack.mjs [--pack-destination DIR] [--dry-run] [--json]
//   node scripts/pack.mjs --guard        (the prepack script: always fails, saying what to run)
//
// lib/ must be built (`npm run pack` builds it first; the tests call this script after pretest).
// Prints the tarball's path (or npm's JSON with --json). Exit 1 on any failure.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Fields of the clone's package.json that an installed package has no use for (scripts would run). */
export const DROPPED_FIELDS = ['scripts', 'devDependencies'];

function fail(message) {
  process.stderr.write(`pack: error: ${message}\n`);
  process.exit(1);
}

function npm(args, cwd) {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** The package.json that goes into the tarball: the clone's, without scripts and devDependencies. */
export function packedManifest(manifest) {
  const out = { ...manifest };
  for (const field of DROPPED_FIELDS) delete out[field];
  return out;
}

function main(argv) {
  if (argv.includes('--guard')) {
    fail('run `npm run pack` to build the kyma-fleet tarball (a plain `npm pack` or `npm publish` would ship the clone\'s ' +
      '`prepare` script, which every install would run); publish the tarball it writes (npm publish kyma-fleet-<version>.tgz)');
  }
  let destination = process.env.INIT_CWD ?? process.cwd();
  const json = argv.includes('--json');
  const dryRun = argv.includes('--dry-run');
  const at = argv.indexOf('--pack-destination');
  if (at >= 0) {
    if (!argv[at + 1]) fail('--pack-destination needs a folder');
    destination = path.resolve(argv[at + 1]);
  }
  if (!fs.existsSync(path.join(ROOT, 'lib', 'src', 'cli', 'main.js'))) fail('lib/ is not built: run `npm run build` (or `npm ci`) first');

  // What `npm pack` would take from the clone (--ignore-scripts: no prepack guard, no prepare).
  const listed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT))[0];
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-pack-'));
  try {
    for (const { path: rel } of listed.files) {
      if (rel === 'package.json') continue;
      fs.mkdirSync(path.join(staging, path.dirname(rel)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, rel), path.join(staging, rel));
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify(packedManifest(manifest), null, 2)}\n`);
    fs.mkdirSync(destination, { recursive: true });
    const out = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', destination, ...(dryRun ? ['--dry-run'] : [])], staging);
    if (json) process.stdout.write(out);
    else process.stdout.write(`${path.join(destination, JSON.parse(out)[0].filename)}${dryRun ? ' (dry run: not written)' : ''}\n`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
