// `kyma-fleet init` writes no placeholder URL that something would use, through the built binary:
// package.json installs kyma-fleet from what --kyma-fleet-from says (a tarball file is copied into
// vendor/ and installed from there, `file:vendor/…`, so a CI runner's `npm ci` finds it (issue 26);
// a folder path as a file: spec relative to the new repository; URLs and git specs as given); without
// it, from the registry at this version, and the README says that no registry serves it and what to
// install instead. The GitOps wiring names no URL: Argo CD enabled without one is refused by validation.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { NOW, runBinary } from '../helpers/fleet-fixture';

/** A minimal npm tarball (ustar, gzip) holding package/package.json with `name`. */
function fakeTarball(name: string): Buffer {
  const body = Buffer.from(JSON.stringify({ name, version: '0.1.0' }));
  const header = Buffer.alloc(512);
  header.write('package/package.json', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return gzipSync(Buffer.concat([header, padded, Buffer.alloc(1024)]));
}

let ws: string;
beforeAll(() => {
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-init-'));
});
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

const VERSION = (JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const read = (rel: string): string => fs.readFileSync(path.join(ws, rel), 'utf8');
const dependency = (repo: string): string => (JSON.parse(read(`${repo}/package.json`)) as { devDependencies: Record<string, string> }).devDependencies['kyma-fleet']!;

/** Every file of a repository, by path. */
function files(repo: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(ws, repo, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else out.set(child, read(`${repo}/${child}`));
    }
  };
  walk('');
  return out;
}

describe('init: where kyma-fleet and the repository come from', () => {
  it('without --kyma-fleet-from: this version, and no placeholder URL in any file', () => {
    const r = runBinary(['init', 'plain'], ws);
    expect(r.code).toBe(0);
    expect(dependency('plain')).toBe(VERSION);
    expect(r.stdout).toContain('no registry serves it yet, see README.md');
    const all = files('plain');
    for (const [file, text] of all) {
      if (file.startsWith('schemas/')) continue; // the editor schemas describe URL formats (https://<upstream>), they configure nothing
      expect(text, file).not.toMatch(/(https?|git\+\w+):\/\/[^\s"'`]*[<>{}]/); // a URL with a <placeholder>
      expect(text, file).not.toMatch(/example\.(com|org)|your-org|ORG\/REPO/i);
    }
    const readme = all.get('README.md')!;
    expect(readme).toContain(`asks the npm registry for kyma-fleet ${VERSION},\n   which no registry serves yet`);
    expect(readme).toContain(`npm install --save-dev --save-exact ./vendor/kyma-fleet-${VERSION}.tgz`);
  });

  it('--kyma-fleet-from a tarball file: copied into vendor/ and installed from there', () => {
    const tarball = fakeTarball('kyma-fleet');
    fs.writeFileSync(path.join(ws, `kyma-fleet-${VERSION}.tgz`), tarball);
    const r = runBinary(['init', 'repos/tarball', '--kyma-fleet-from', `kyma-fleet-${VERSION}.tgz`], ws);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(dependency('repos/tarball')).toBe(`file:vendor/kyma-fleet-${VERSION}.tgz`);
    expect(fs.readFileSync(path.join(ws, `repos/tarball/vendor/kyma-fleet-${VERSION}.tgz`))).toEqual(tarball);
    expect(r.stdout).toBe(
      `repos/tarball: created fleet "tarball" (12 files: 2 example runtimes, 1 group, schemas, CI workflow, vendor/kyma-fleet-${VERSION}.tgz)\n` +
        'next:\n' +
        '  cd repos/tarball\n' +
        `  npm install        # kyma-fleet from vendor/kyma-fleet-${VERSION}.tgz (commit it: CI installs it from there); commit package-lock.json\n` +
        '  npx --no-install kyma-fleet synth\n' +
        '  git init -b main && git add . && git commit -m "kyma-fleet init"\n',
    );
    const readme = read('repos/tarball/README.md');
    expect(readme).toContain(`installs it from\n   \`vendor/kyma-fleet-${VERSION}.tgz\`, the tarball \`kyma-fleet init\` copied into this repository`);
    expect(readme).not.toMatch(/(?<!--no-install )npx kyma-fleet [a-z]/);
  });

  it.each([
    ['a missing file', 'nowhere.tgz', undefined, /^error: --kyma-fleet-from: cannot read nowhere\.tgz \(ENOENT\); build it with `npm run pack` in a kyma-fleet clone\n$/],
    ['a tarball of another package', 'other.tgz', fakeTarball('left-pad'), /^error: --kyma-fleet-from: other\.tgz is not a kyma-fleet package tarball \(it holds "left-pad"\)/],
    ['a file that is no tarball', 'junk.tgz', Buffer.from('junk'), /^error: --kyma-fleet-from: junk\.tgz is not a kyma-fleet package tarball \(no package\/package\.json in it\)/],
  ])('--kyma-fleet-from %s: exit 1, nothing written', (_what, file, bytes, message) => {
    if (bytes) fs.writeFileSync(path.join(ws, file), bytes);
    const r = runBinary(['init', 'refused', '--kyma-fleet-from', file], ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(fs.existsSync(path.join(ws, 'refused'))).toBe(false);
  });

  it.each([
    ['a folder path, as file: relative to the new repository', ['repos/folder', '--kyma-fleet-from', '../kyma-fleet'], 'repos/folder', 'file:../../../kyma-fleet'],
    ['a git URL with a tag, as given', ['git', '--kyma-fleet-from', `git+https://git.acme.test/platform/kyma-fleet.git#v${VERSION}`], 'git', `git+https://git.acme.test/platform/kyma-fleet.git#v${VERSION}`],
    ['a version, as given', ['pinned', '--kyma-fleet-from', '9.9.9'], 'pinned', '9.9.9'],
  ])('--kyma-fleet-from %s', (_what, args, repo, spec) => {
    const r = runBinary(['init', ...args, '-o', 'json'], ws);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, kymaFleetFrom: spec });
    expect(dependency(repo)).toBe(spec);
    expect(read(`${repo}/README.md`)).toContain(`\`package.json\` installs it from\n   \`${spec}\``);
    if (spec.startsWith('file:')) expect(path.resolve(ws, repo, spec.slice('file:'.length))).toBe(path.resolve(ws, '../kyma-fleet'));
  });

  it('a malformed spec is a usage error; nothing written', () => {
    const r = runBinary(['init', 'bad', '--kyma-fleet-from', 'two words'], ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --kyma-fleet-from must be an npm package spec/);
    expect(fs.existsSync(path.join(ws, 'bad'))).toBe(false);
  });

  it('the GitOps wiring names no URL; Argo CD enabled without repoURL is refused by validation', () => {
    expect(runBinary(['init', 'argo'], ws).code).toBe(0);
    const fleetYaml = path.join(ws, 'argo/fleet/fleet.yaml');
    const text = fs.readFileSync(fleetYaml, 'utf8');
    expect(text).not.toMatch(/repoURL|url:/i);
    fs.writeFileSync(fleetYaml, text.replace('  gitops:\n', '  gitops:\n    argocd:\n      enabled: true\n'));
    const r = runBinary(['validate', '--now', NOW], path.join(ws, 'argo'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fleet\/fleet\.yaml:\d+:\d+: error at gitops\.argocd\.repoURL: is required when argocd\.enabled is true: the git URL of the repository that holds dist\/ \[E_GITOPS_REQUIRED\]$/m);
  });
});
