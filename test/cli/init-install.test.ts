// `kyma-fleet init` writes no placeholder URL that something would use, through the built binary:
// package.json installs kyma-fleet from what --kyma-fleet-from says (a tarball path as a file: spec
// relative to the new repository, URLs and git specs as given); without it, from the registry at this
// version, and the README says that no registry serves it and what to install instead. The GitOps
// wiring names no URL: Argo CD enabled without one is refused by validation.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOW, runBinary } from '../helpers/fleet-fixture';

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
    expect(readme).toContain(`npm install --save-dev --save-exact ../kyma-fleet/kyma-fleet-${VERSION}.tgz`);
  });

  it.each([
    ['a tarball path, as file: relative to the new repository', ['repos/tarball', '--kyma-fleet-from', `kyma-fleet-${VERSION}.tgz`], 'repos/tarball', `file:../../kyma-fleet-${VERSION}.tgz`],
    ['a git URL with a tag, as given', ['git', '--kyma-fleet-from', `git+https://git.acme.test/platform/kyma-fleet.git#v${VERSION}`], 'git', `git+https://git.acme.test/platform/kyma-fleet.git#v${VERSION}`],
    ['a version, as given', ['pinned', '--kyma-fleet-from', '9.9.9'], 'pinned', '9.9.9'],
  ])('--kyma-fleet-from %s', (_what, args, repo, spec) => {
    const r = runBinary(['init', ...args, '-o', 'json'], ws);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, kymaFleetFrom: spec });
    expect(dependency(repo)).toBe(spec);
    expect(read(`${repo}/README.md`)).toContain(`\`package.json\` installs it from \`${spec}\``);
    if (spec.startsWith('file:')) expect(path.resolve(ws, repo, spec.slice('file:'.length))).toBe(path.join(ws, `kyma-fleet-${VERSION}.tgz`));
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
