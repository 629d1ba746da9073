// The live commands find their kubeconfig as kubectl does, through the built binary: --kubeconfig
// wins; else $KUBECONFIG, a list of files of which missing ones are skipped, merged with the first
// definition of a name and the first current-context winning; else ~/.kube/config. A context
// option not given is the current-context. A kubeconfig that cannot be read is reported as
// UnreadableKubeconfig with the OS error (exit 5), never as a credentials problem. The clusters
// named here refuse connections (each on its own port), so the error names the context and server
// that were chosen.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfigFiles } from '../../src/lib/kubeconfig-files';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

/** A kubeconfig whose contexts point at 127.0.0.1:<port> (nothing listens on ports 1-9). */
function kubeconfig(current: string | undefined, contexts: Record<string, number>): string {
  const names = Object.keys(contexts);
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [${names.map((n) => `{name: c-${n}, cluster: {server: "https://127.0.0.1:${contexts[n]}"}}`).join(', ')}]`,
    `users: [${names.map((n) => `{name: u-${n}, user: {token: t}}`).join(', ')}]`,
    `contexts: [${names.map((n) => `{name: ${n}, context: {cluster: c-${n}, user: u-${n}}}`).join(', ')}]`,
    ...(current ? [`current-context: ${current}`] : []),
    '',
  ].join('\n');
}

let fx: FleetFixture;
beforeAll(() => {
  fx = FleetFixture.example();
  fs.writeFileSync(path.join(fx.dir, 'first.yaml'), kubeconfig('one', { one: 1 }));
  // Defines "one" again (a later file: ignored) and its own current-context (ignored after first.yaml's).
  fs.writeFileSync(path.join(fx.dir, 'second.yaml'), kubeconfig('two', { one: 2, two: 3 }));
  fs.writeFileSync(path.join(fx.dir, 'no-current.yaml'), kubeconfig(undefined, { three: 4 }));
  fs.mkdirSync(path.join(fx.dir, 'home/.kube'), { recursive: true });
  fs.writeFileSync(path.join(fx.dir, 'home/.kube/config'), kubeconfig('home', { home: 5 }));
  fs.mkdirSync(path.join(fx.dir, 'a-folder.yaml'));
  fx.runBinary(['synth', '--now', NOW]);
});
afterAll(() => fx.cleanup());

const list = (...files: string[]): string => files.join(path.delimiter);
const status = (args: string[], env: NodeJS.ProcessEnv) => fx.runBinary(['status', '--timeout', '1', '--now', NOW, ...args], env);

describe('kubeconfig as kubectl finds it', () => {
  it('$KUBECONFIG: a list, missing files skipped, the first current-context and the first definition of a name win', () => {
    const r = status([], { KUBECONFIG: list('missing.yaml', 'first.yaml', 'second.yaml') });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^status: error: Unreachable: (KCP|Garden) \(context "one"\): .*127\.0\.0\.1:1\b/);
  });

  it('a context option wins over the current-context; it may come from any file of the list', () => {
    const r = status(['--kcp-context', 'two', '--garden-context', 'two'], { KUBECONFIG: list('first.yaml', 'second.yaml') });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/\(context "two"\): .*127\.0\.0\.1:3\b/);
  });

  it('--kubeconfig wins over $KUBECONFIG', () => {
    const r = status(['--kubeconfig', 'second.yaml'], { KUBECONFIG: 'first.yaml' });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/\(context "two"\): .*127\.0\.0\.1:3\b/);
  });

  it('without --kubeconfig and $KUBECONFIG: ~/.kube/config', () => {
    const r = status([], { HOME: path.join(fx.dir, 'home') });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/\(context "home"\): .*127\.0\.0\.1:5\b/);
  });

  it('apply garden follows the same rules: the current-context of $KUBECONFIG is the Garden context', () => {
    const r = fx.runBinary(['apply', 'garden', '--timeout', '1', '--now', NOW], { KUBECONFIG: list('first.yaml', 'second.yaml') });
    expect(r.code).toBe(5);
    // Each Shoot read fails on the server of context "one" of first.yaml.
    expect(r.stdout).toMatch(/: failed \(Unreachable\): .*127\.0\.0\.1:1\b/);
    expect(r.stdout).not.toMatch(/127\.0\.0\.1:[2-9]\b/);
  });

  it.each([
    [[], {}, /^error: status reads kubectl dumps \(--from DIR\) or live clusters through a kubeconfig: no kubeconfig: no --kubeconfig, no \$KUBECONFIG; give --kubeconfig FILE or set KUBECONFIG\n$/],
    [[], { KUBECONFIG: list('gone-1.yaml', 'gone-2.yaml') }, /none of the files in \$KUBECONFIG exists \(gone-1\.yaml:gone-2\.yaml\)/],
    [[], { KUBECONFIG: 'no-current.yaml' }, /--kcp-context is not given and the kubeconfig \(\$KUBECONFIG: .*no-current\.yaml\) has no current-context; name the context with --kcp-context CTX/],
  ])('usage errors (exit 2), nothing contacted: %j %j', (args, env, message) => {
    const r = status(args, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['--kubeconfig naming a missing file', ['--kubeconfig', 'absent.yaml'], {}, /cannot read kubeconfig .*absent\.yaml: ENOENT: no such file or directory/],
    ['a folder in $KUBECONFIG', [], { KUBECONFIG: list('first.yaml', 'a-folder.yaml') }, /cannot read kubeconfig .*a-folder\.yaml: EISDIR: illegal operation on a directory/],
  ])('an unreadable kubeconfig is UnreadableKubeconfig with the OS error (exit 5): %s', (_what, kubeconfigArgs, env, message) => {
    const r = status([...kubeconfigArgs, '--kcp-context', 'a', '--garden-context', 'b'], env);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^status: error: UnreadableKubeconfig: /);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('RefusedCredentials');
    const a = fx.runBinary(['apply', 'garden', ...kubeconfigArgs, '--garden-context', 'g', '--now', NOW], env);
    expect(a.code).toBe(5);
    expect(a.stderr).toMatch(/^apply garden: error: UnreadableKubeconfig: /);
    expect(a.stderr).toMatch(message);
  });

  it('a file that is not a kubeconfig is InvalidKubeconfig, not a credentials problem', () => {
    fs.writeFileSync(path.join(fx.dir, 'garbage.yaml'), 'clusters: 7\n');
    const r = status(['--kubeconfig', 'garbage.yaml', '--kcp-context', 'a', '--garden-context', 'b'], {});
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^status: error: InvalidKubeconfig: /);
  });
});

describe('loadKubeconfigFiles', () => {
  it('merges as kubectl: first definition and first current-context win; relative paths are relative to their file', async () => {
    const k8s = await import('@kubernetes/client-node');
    const dir = fs.mkdtempSync(path.join(fx.dir, 'merge-'));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub/a.yaml'), 'apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://a", certificate-authority: ca.pem}}]\ncontexts: [{name: x, context: {cluster: x}}]\n');
    fs.writeFileSync(path.join(dir, 'b.yaml'), 'apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://b"}}, {name: y, cluster: {server: "https://y"}}]\ncontexts: [{name: y, context: {cluster: y}}]\ncurrent-context: y\n');
    const kc = loadKubeconfigFiles(k8s, [path.join(dir, 'sub/a.yaml'), path.join(dir, 'b.yaml')]);
    expect(kc.getCluster('x')).toMatchObject({ server: 'https://a', caFile: path.join(dir, 'sub/ca.pem') });
    expect(kc.getCluster('y')?.server).toBe('https://y');
    expect(kc.getCurrentContext()).toBe('y');
  });
});
