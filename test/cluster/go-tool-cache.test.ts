// The Go tool cache (go-tool-cache.ts) on a tiny wrapper module: built once and then reused, keyed by
// the module's sources (an edit builds anew, in a new folder), two concurrent callers build once, a
// lock left by a dead process is taken over, and a failed build leaves no folder behind.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithCluster } from './describe-with-cluster';
import { ensureGoTool, toolCacheRoot, type GoToolSpec } from './go-tool-cache';

describeWithCluster('the Go tool cache', () => {
  let work: string;
  let savedCache: string | undefined;
  let spec: GoToolSpec;
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-gotool-'));
    savedCache = process.env.KYMA_FLEET_TOOL_CACHE;
    process.env.KYMA_FLEET_TOOL_CACHE = path.join(work, 'cache');
    const mod = path.join(work, 'hello');
    fs.mkdirSync(mod);
    fs.writeFileSync(path.join(mod, 'go.mod'), 'module example.test/hello\n\ngo 1.24\n');
    fs.writeFileSync(path.join(mod, 'main.go'), 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello 1") }\n');
    spec = { name: 'hello', moduleDir: mod, binaries: { hello: '.' }, env: { CGO_ENABLED: '0' } };
  });
  afterAll(() => {
    if (savedCache === undefined) delete process.env.KYMA_FLEET_TOOL_CACHE;
    else process.env.KYMA_FLEET_TOOL_CACHE = savedCache;
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('builds once when two callers ask at the same time, then reuses', async () => {
    const [a, b] = await Promise.all([ensureGoTool(spec), ensureGoTool(spec)]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    expect(a.binaries.hello).toBe(b.binaries.hello);
    expect(path.dirname(a.binaries.hello)).toBe(path.join(toolCacheRoot(), path.basename(a.dir)));
    expect(fs.statSync(a.binaries.hello).isFile()).toBe(true);
    const again = await ensureGoTool(spec);
    expect(again.built).toBe(false);
    // only the finished folder is left: no temporary build folder, no lock
    expect(fs.readdirSync(toolCacheRoot())).toEqual([path.basename(a.dir)]);
  });

  it('builds anew into another folder when a source changes', async () => {
    const before = await ensureGoTool(spec);
    fs.writeFileSync(path.join(spec.moduleDir, 'main.go'), 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello 2") }\n');
    const after = await ensureGoTool(spec);
    expect(after.built).toBe(true);
    expect(after.dir).not.toBe(before.dir);
  });

  it('takes over a lock whose holder died', async () => {
    fs.writeFileSync(path.join(spec.moduleDir, 'main.go'), 'package main\n\nfunc main() {}\n');
    // find the key this source gets by building it elsewhere first
    const probe = await ensureGoTool(spec);
    fs.rmSync(probe.dir, { recursive: true });
    const lock = `${probe.dir}.lock`;
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), '999999999'); // no such process
    const result = await ensureGoTool(spec, { lockTimeoutMs: 20_000 });
    expect(result.built).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('leaves no folder behind when the build fails, and says why', async () => {
    fs.writeFileSync(path.join(spec.moduleDir, 'main.go'), 'package main\n\nfunc main() { undefinedThing() }\n');
    await expect(ensureGoTool(spec)).rejects.toThrow(/undefined: undefinedThing/);
    const left = fs.readdirSync(toolCacheRoot()).filter((f) => f.startsWith('.tmp-') || f.endsWith('.lock'));
    expect(left).toEqual([]);
  });
});
