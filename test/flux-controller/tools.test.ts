// The pinned kustomize-controller release is what the wrapper module builds: tools.ts's version is the
// one go.mod requires, go.mod names the upstream main package as its tool (so `go build
// github.com/fluxcd/kustomize-controller` is upstream's binary), and it carries upstream's go-digest
// replace line (replace lines of a dependency do not apply to its users). Where Go is present, that
// line is compared with upstream's own go.mod at that version. Needs no cluster.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGo, KUSTOMIZE_CONTROLLER_TOOL, KUSTOMIZE_CONTROLLER_VERSION } from './tools';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';

const goMod = fs.readFileSync(path.join(KUSTOMIZE_CONTROLLER_TOOL.moduleDir, 'go.mod'), 'utf8');
const replaceLine = (text: string): string | undefined => /^replace github\.com\/opencontainers\/go-digest => .+$/m.exec(text)?.[0];

describe('the kustomize-controller wrapper module', () => {
  it('requires the pinned release and builds its main package as a tool', () => {
    expect(goMod).toMatch(new RegExp(`^\\s*github\\.com/fluxcd/kustomize-controller ${KUSTOMIZE_CONTROLLER_VERSION.replace(/\./g, '\\.')}( // indirect)?$`, 'm'));
    expect(goMod).toMatch(/^tool github\.com\/fluxcd\/kustomize-controller$/m);
    expect(Object.values(KUSTOMIZE_CONTROLLER_TOOL.binaries)).toEqual(['github.com/fluxcd/kustomize-controller']);
    expect(replaceLine(goMod)).toBe('replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be');
  });

  it.skipIf(!findGo())('carries the go-digest replace of upstream\'s own go.mod at that version', () => {
    const r = spawnSync(findGo()!, ['mod', 'download', '-json', `github.com/fluxcd/kustomize-controller@${KUSTOMIZE_CONTROLLER_VERSION}`], { cwd: os.tmpdir(), encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: 'local' } });
    expect(r.status, r.stderr).toBe(0);
    const upstream = fs.readFileSync(JSON.parse(r.stdout).GoMod, 'utf8');
    expect(replaceLine(upstream)).toBe(replaceLine(goMod));
  });
});
