// What a plain `kyma-fleet synth` reports and does about dist/ (issue 21), through the built CLI:
// it counts the files it actually wrote (not every file of the tree), and with its run record it
// trusts dist/'s index (the one it wrote): foreign files are refused by a run that writes (outside
// the folders it keeps whole) and by `synth --check` and `synth --no-cache` always, but a plain
// synth of an unchanged fleet does not open dist/ at all (docs/applying.md, "Foreign and
// hand-edited files in dist/", says what detecting them on every run would cost).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

/** Every file of a tree with its bytes, by relative path. */
function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else out.set(child, fs.readFileSync(path.join(root, child), 'utf8'));
    }
  };
  walk('');
  return out;
}

describe('synth over an existing dist/', () => {
  let fx: FleetFixture | undefined;
  afterEach(() => fx?.cleanup());
  const synth = (...args: string[]) => fx!.runBinary(['synth', '--now', NOW, ...args]);

  it('counts the files it wrote: all of them first, then only those a changed value changed', () => {
    fx = FleetFixture.example();
    const first = synth();
    expect(first.code, first.stderr).toBe(0);
    const before = files(path.join(fx.dir, 'dist'));
    before.delete('.kyma-fleet-index.json');
    expect(first.stdout).toBe(`dist: written (7 runtimes, ${before.size} files)\n`);
    // One changed value in one runtime file.
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    const second = synth();
    expect(second.code, second.stderr).toBe(0);
    const after = files(path.join(fx.dir, 'dist'));
    after.delete('.kyma-fleet-index.json');
    const changed = [...after].filter(([rel, text]) => before.get(rel) !== text).map(([rel]) => rel);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.size / 10);
    expect(second.stdout).toBe(`dist: written (7 runtimes, ${changed.length} file${changed.length === 1 ? '' : 's'})\n`);
    const json = JSON.parse(synth('-o', 'json').stdout) as { files: { written: number } };
    expect(json.files.written).toBe(0);
  });

  it('foreign files: refused by a run that writes, by --check and by --no-cache; an unchanged fleet does not open dist/', () => {
    fx = FleetFixture.example();
    expect(synth().code).toBe(0);
    fx.write('../dist/notes.txt', 'mine\n');
    // Nothing changed: the record vouches for dist/ and the run ends before opening it.
    const again = synth();
    expect(again, again.stderr).toMatchObject({ code: 0, stdout: 'dist: up to date, nothing written (7 runtimes)\n' });
    // Every other way refuses it.
    const check = synth('--check');
    expect(check.code).toBe(4);
    expect(check.stderr).toContain('E_DIST_FOREIGN');
    expect(synth('--no-cache').code).toBe(4);
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    const changed = synth();
    expect(changed.code).toBe(4);
    expect(changed.stderr).toContain('dist/notes.txt');
    expect(fs.readFileSync(path.join(fx.dir, 'dist/notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('a foreign file inside a runtime folder it keeps is found by --no-cache, not by a run that keeps that folder', () => {
    fx = FleetFixture.example();
    expect(synth().code).toBe(0);
    fx.write('../dist/runtimes/acme-us-prod-1/skr/extra.yaml', 'kind: ConfigMap\n');
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    expect(synth().code).toBe(0);
    const full = synth('--no-cache');
    expect(full.code).toBe(4);
    expect(full.stderr).toContain('dist/runtimes/acme-us-prod-1/skr/extra.yaml');
  });

  it('a foreign file in a GitOps folder it keeps whole is found by --no-cache, not by a run that keeps it; one beside a changed runtime\'s files is refused', () => {
    fx = FleetFixture.example();
    expect(synth().code).toBe(0);
    const shardOf = (runtime: string): string => {
      const index = fs.readFileSync(path.join(fx.dir, 'dist/.kyma-fleet-index.json'), 'utf8');
      return new RegExp(`"(gitops/flux/shards/[0-9a-f]+)/${runtime}-kcp\\.yaml"`).exec(index)![1]!;
    };
    const changed = shardOf('acme-eu-dev-1');
    const other = ['acme-us-prod-1', 'acme-eu-prod-1', 'acme-us-dev-1', 'acme-eu-sandbox'].map(shardOf).find((s) => s !== changed);
    expect(other).toBeDefined();
    // The same runtimes and targets, one of them changed: the other shards' folders are kept whole.
    fx.write(`../dist/${other}/extra.yaml`, 'kind: ConfigMap\n');
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: fast\n', 'channel: regular\n');
    expect(synth().code).toBe(0);
    const full = synth('--no-cache');
    expect(full.code).toBe(4);
    expect(full.stderr).toContain(`dist/${other}/extra.yaml`);
    fs.rmSync(path.join(fx.dir, 'dist', other!, 'extra.yaml'));
    // Beside the files the run writes anew, it is refused.
    fx.write(`../dist/${changed}/extra.yaml`, 'kind: ConfigMap\n');
    fx.replace('runtimes/acme-eu-dev-1.yaml', 'channel: regular\n', 'channel: fast\n');
    const refused = synth();
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`dist/${changed}/extra.yaml`);
  });

  // Issue 26: synth and --check agree on a hand edit, and a plain synth restores it (test/run/dist-hand-edit.test.ts).
  it('a hand-edited file is reported by --check (exit 3) and rewritten by a plain synth, as by --no-cache', () => {
    fx = FleetFixture.example();
    expect(synth().code).toBe(0);
    const edited = path.join(fx.dir, 'dist/runtimes/acme-us-prod-1/skr/kustomization.yaml');
    const original = fs.readFileSync(edited, 'utf8');
    fs.appendFileSync(edited, '# hand-edited\n');
    expect(synth('--check').code).toBe(3);
    expect(synth()).toMatchObject({ code: 0, stdout: 'dist: written (7 runtimes, 1 file)\n' });
    expect(fs.readFileSync(edited, 'utf8')).toBe(original);
    fs.appendFileSync(edited, '# hand-edited\n');
    expect(synth('--no-cache')).toMatchObject({ code: 0, stdout: 'dist: written (7 runtimes, 1 file)\n' });
    expect(fs.readFileSync(edited, 'utf8')).toBe(original);
  });
});
