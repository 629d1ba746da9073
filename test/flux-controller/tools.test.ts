// The pinned kustomize-controller release is what the wrapper module builds: tools.ts's version is the
// one go.mod requires, go.mod names the upstream main package as its tool (so `go build
// github.com/fluxcd/kustomize-controller` is upstream's binary), and it carries upstream's go-digest
// replace line (replace lines of a dependency do not apply to its users). Where Go is present, that
// line is compared with upstream's own go.mod at that version. Needs no cluster.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_GENERATOR_CRD_TOOL, findGo, KUSTOMIZE_CONTROLLER_TOOL, KUSTOMIZE_CONTROLLER_VERSION, SOURCE_WATCHER_API_VERSION } from './tools';
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

describe('the ArtifactGenerator CRD wrapper module', () => {
  const mod = fs.readFileSync(path.join(ARTIFACT_GENERATOR_CRD_TOOL.moduleDir, 'go.mod'), 'utf8');
  it('pins the source-watcher API release tools.ts names and builds controller-gen as its tool', () => {
    expect(mod).toMatch(new RegExp(`^require github\\.com/fluxcd/source-watcher/api/v2 ${SOURCE_WATCHER_API_VERSION.replace(/\./g, '\\.')}$`, 'm'));
    expect(mod).toMatch(/^tool sigs\.k8s\.io\/controller-tools\/cmd\/controller-gen$/m);
    expect(ARTIFACT_GENERATOR_CRD_TOOL.name).toBe(`controller-gen-${/sigs\.k8s\.io\/controller-tools (v\S+)/.exec(mod)![1]}`);
  });
});
