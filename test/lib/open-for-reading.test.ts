// openForReading (src/lib/open-for-reading.ts): a read leaves the file's access time alone where the
// kernel allows it (O_NOATIME, the file's owner), and reads as before where it refuses (EPERM, a file
// of another user). Both against the real kernel: the refusal as a user that does not own the file
// (the test's own user when it is not root, else `nobody` through setpriv).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openForReading } from '../../src/lib/open-for-reading';
import { diffDist, synth } from '../../src/run/synth';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-noatime-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const linux = process.platform === 'linux';
const PAST = new Date('2026-01-01T00:00:00Z');

function fileWithOldTimes(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  // atime = mtime: under relatime (and strictatime) the next plain read updates atime.
  fs.utimesSync(file, PAST, PAST);
  return file;
}

describe('openForReading', () => {
  it('reads the bytes, and on Linux leaves the access time as it was', () => {
    const control = fileWithOldTimes('control.yaml', 'kind: Control\n');
    expect(fs.readFileSync(control, 'utf8')).toBe('kind: Control\n');
    const file = fileWithOldTimes('read.yaml', 'kind: Read\n');
    const fd = openForReading(file);
    try {
      expect(fs.readFileSync(fd, 'utf8')).toBe('kind: Read\n');
    } finally {
      fs.closeSync(fd);
    }
    if (!linux) return;
    const mount = fs.readFileSync('/proc/self/mounts', 'utf8');
    // The control shows that this file system keeps access times (a noatime mount keeps none).
    expect(fs.statSync(control).atimeMs, `a plain read updates atime here (mounts:\n${mount})`).toBeGreaterThan(PAST.getTime());
    expect(fs.statSync(file).atimeMs).toBe(PAST.getTime());
  });

  it.runIf(linux)('reads a file of another user as before (the kernel refuses O_NOATIME with EPERM)', () => {
    const script = `
      const fs = require('node:fs');
      const file = process.argv[1];
      let refused = '';
      try { fs.closeSync(fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOATIME)); } catch (e) { refused = e.code; }
      const { openForReading } = require(process.argv[2]);
      const fd = openForReading(file);
      const text = fs.readFileSync(fd, 'utf8');
      fs.closeSync(fd);
      process.stdout.write(JSON.stringify({ refused, text }));`;
    const module = path.resolve(__dirname, '../../lib/src/lib/open-for-reading.js');
    expect(fs.existsSync(module), 'npm run build made lib/').toBe(true);
    let file: string;
    let command: string[];
    if (process.getuid?.() === 0) {
      // As root every O_NOATIME is allowed: the reader becomes nobody, the file stays root's.
      fs.chmodSync(dir, 0o755);
      file = fileWithOldTimes('root-owned.yaml', 'kind: RootOwned\n');
      fs.chmodSync(file, 0o644);
      const lib = fs.mkdtempSync(path.join(dir, 'lib-'));
      fs.chmodSync(lib, 0o755);
      fs.copyFileSync(module, path.join(lib, 'open-for-reading.js'));
      command = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, file, path.join(lib, 'open-for-reading.js')];
    } else {
      file = ['/etc/hostname', '/etc/passwd'].find((f) => fs.existsSync(f) && fs.statSync(f).uid !== process.getuid?.())!;
      command = [process.execPath, '-e', script, file, module];
    }
    const r = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { refused: string; text: string };
    expect(out.refused).toBe('EPERM');
    expect(out.text).toBe(fs.readFileSync(file, 'utf8'));
  });

  it.runIf(linux)('a check on a fresh runner reads every file of dist/ and of runtimes/ without touching its access time', () => {
    const fx = FleetFixture.example();
    try {
      const env = { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' };
      expect(synth({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(NOW), env }).exitCode).toBe(0);
      const files = ['dist', 'fleet/runtimes'].flatMap((d) =>
        (fs.readdirSync(path.join(fx.dir, d), { recursive: true, encoding: 'utf8' }) as string[]).map((f) => path.join(fx.dir, d, f)).filter((f) => fs.statSync(f).isFile() && !f.endsWith('.kyma-fleet-index.json')),
      );
      expect(files.length).toBeGreaterThan(50);
      for (const f of files) fs.utimesSync(f, PAST, PAST);
      // An empty cache folder: the record committed in dist/ stands once every file of dist/ is hashed.
      const r = diffDist({ fleetDir: 'fleet', outDir: 'dist', cwd: fx.dir, now: new Date(NOW), cacheDir: path.join(fx.dir, 'runner-cache'), env });
      expect(r.exitCode).toBe(0);
      expect(r.rendered).toBe(0);
      expect(files.filter((f) => fs.statSync(f).atimeMs !== PAST.getTime()).map((f) => path.relative(fx.dir, f))).toEqual([]);
    } finally {
      fx.cleanup();
    }
  });
});
