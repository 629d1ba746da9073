// FileHasher (src/write/file-hasher.ts), what a scan of dist/ hashes every file with: the sha256 of
// the file's bytes at every size around its 64 KiB buffer, each file opened once (a larger one is
// read on from the file already open, not opened and read whole again), nothing for a missing one.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileHasher } from '../../src/write/file-hasher';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-file-hasher-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Counts fs.openSync calls on paths under dir while fn runs, through node:fs as the hasher imports it. */
function opensDuring(fn: () => void): number {
  const real = (fs as unknown as { default: typeof fs }).default;
  const original = real.openSync;
  let opens = 0;
  real.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p).startsWith(dir)) opens++;
    return (original as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    real.openSync = original;
    syncBuiltinESMExports();
  }
  return opens;
}

describe('FileHasher', () => {
  it.each([0, 1, 65535, 65536, 65537, 3 * 65536, 300_001])('hashes a file of %i bytes as its sha256, opening it once', (size) => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 9)) & 0xff;
    const rel = `f-${size}.yaml`;
    fs.writeFileSync(path.join(dir, rel), bytes);
    const hasher = new FileHasher(dir);
    let hash: string | undefined;
    expect(opensDuring(() => (hash = hasher.hash(rel)))).toBe(1);
    expect(hash).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('hashes small and large files one after another through the same buffer', () => {
    const hasher = new FileHasher(dir);
    const files = [70_000, 10, 140_000, 65536, 3].map((size, i) => {
      const bytes = Buffer.alloc(size, 0x41 + i);
      fs.writeFileSync(path.join(dir, `seq-${i}.yaml`), bytes);
      return { rel: `seq-${i}.yaml`, sha: createHash('sha256').update(bytes).digest('hex') };
    });
    for (const f of files) expect(hasher.hash(f.rel)).toBe(f.sha);
  });

  it('gives nothing for a file that is not there', () => {
    expect(new FileHasher(dir).hash('missing.yaml')).toBeUndefined();
  });
});
