// The program's key taken from the run record while its files keep their stamps (src/lib/code-key.ts,
// issue 28), through a copy of the built CLI: a synth records the key and the digest of the stamps
// of the program's files; a file of the program edited in place afterwards (same size, same mtime:
// only its ctime tells) makes the next synth read the program again, so its new output is rendered
// and not taken from the record of the old program.

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STAMP_SETTLE_MS } from '../../src/lib/file-stamp';
import { FleetFixture, NOW, REPO, testProcessEnv } from '../helpers/fleet-fixture';

let fx: FleetFixture | undefined;
afterEach(() => fx?.cleanup());

const FILE = 'src/render/serialize.js';
const FROM = "apiVersion: 'kustomize.config.k8s.io/v1beta1'";
const TO = "apiVersion: 'kustomize.config.k8s.io/v1beta2'";

function settle(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STAMP_SETTLE_MS + 200);
}

/** The record files of the cache folder, parsed. */
function records(cacheHome: string): Array<{ code?: { key: string; files: string } }> {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^run-[0-9a-f]+\.json$/.test(e.name)) found.push(p);
    }
  };
  walk(cacheHome);
  return found.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { code?: { key: string; files: string } });
}

describe("the program's key from the run record", () => {
  it('a program file edited in place after a synth (size and mtime kept) is read again: the next synth renders its output', () => {
    fx = FleetFixture.example();
    const root = path.join(fx.dir, 'program');
    fs.cpSync(path.join(REPO, 'lib'), path.join(root, 'lib'), { recursive: true });
    fs.cpSync(path.join(REPO, 'bin'), path.join(root, 'bin'), { recursive: true });
    fs.copyFileSync(path.join(REPO, 'package.json'), path.join(root, 'package.json'));
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    const bin = path.join(root, 'bin', 'kyma-fleet.js');
    const cacheHome = path.join(fx.dir, '.cache');
    const synth = (): { code: number; stderr: string } => {
      const r = spawnSync(process.execPath, [bin, 'synth', '--now', NOW], { cwd: fx!.dir, encoding: 'utf8', env: { ...testProcessEnv(), XDG_CACHE_HOME: cacheHome } });
      return { code: r.status ?? -1, stderr: r.stderr };
    };
    const kustomizations = (): string => fs.readFileSync(path.join(fx!.dir, 'dist', 'runtimes', 'acme-eu-dev-1', 'skr', 'kustomization.yaml'), 'utf8');
    // The copied program's files settle, so the synth records their stamps with the key.
    settle();
    expect(synth().code).toBe(0);
    const [record] = records(cacheHome);
    expect(record?.code?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(kustomizations()).toContain('kustomize.config.k8s.io/v1beta1');

    const target = path.join(root, 'lib', FILE);
    const before = fs.statSync(target, { bigint: true });
    const text = fs.readFileSync(target, 'utf8');
    expect(text).toContain(FROM);
    fs.writeFileSync(target, text.split(FROM).join(TO));
    const ns = before.mtimeNs;
    execFileSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, target]);
    const after = fs.statSync(target, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    // Settled again: only the stamp's ctime tells the file changed.
    settle();
    const r = synth();
    expect(r.code, r.stderr).toBe(0);
    expect(kustomizations()).toContain('kustomize.config.k8s.io/v1beta2');
    expect(records(cacheHome)[0]?.code?.key).not.toBe(record?.code?.key);
  });
});
