// The real Flux controllers of the delivery tests, built from the Go module proxy into the tool cache
// (test/cluster/go-tool-cache.ts: keyed by the wrapper module's go.mod/go.sum, built under a lock,
// renamed into place) and handed to test processes by global-setup.ts. Each controller is its own
// wrapper module under go/ (no Go code of ours: a `tool` line in go.mod names the upstream main
// package, so `go build github.com/fluxcd/<controller>` builds upstream's own binary at the pinned
// version), so the two controllers never share one module graph that would move either's
// dependencies away from what its release was tested with.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { PROJECT_ROOT } from '../cluster/paths';

export const FLUX_CONTROLLER_DIR = path.join(PROJECT_ROOT, 'test', 'flux-controller');
/** The pinned release; must match the go.mod of go/kustomize-controller (a test compares them). */
export const KUSTOMIZE_CONTROLLER_VERSION = 'v1.9.6';
/**
 * The source-controller release whose CRDs (GitRepository, OCIRepository, Bucket, ...) the KCP gets:
 * the one of the same Flux release. Only its module zip is read (config/crd/bases); the controller
 * itself is not built (artifact-server.ts says why).
 */
export const SOURCE_CONTROLLER_VERSION = 'v1.9.6';

export const KUSTOMIZE_CONTROLLER_TOOL: GoToolSpec = {
  name: `kustomize-controller-${KUSTOMIZE_CONTROLLER_VERSION}`,
  moduleDir: path.join(FLUX_CONTROLLER_DIR, 'go', 'kustomize-controller'),
  binaries: { 'kustomize-controller': 'github.com/fluxcd/kustomize-controller' },
  env: { CGO_ENABLED: '0' },
};

/** Environment variables through which the global setup hands the binaries (or a skip reason) on. */
export const FLUX_CONTROLLER_ENV = { kustomizeController: 'KYMA_FLEET_KUSTOMIZE_CONTROLLER' } as const;
export const FLUX_CONTROLLER_SKIP_ENV = 'KYMA_FLEET_FLUX_CONTROLLER_SKIP';

export interface FluxControllerBinaries {
  kustomizeController: string;
}

export async function ensureFluxControllerBinaries(log?: (line: string) => void): Promise<FluxControllerBinaries & { seconds: number }> {
  const kc = await ensureGoTool(KUSTOMIZE_CONTROLLER_TOOL, { log });
  return { kustomizeController: kc.binaries['kustomize-controller']!, seconds: kc.seconds };
}

export function fluxControllerBinariesFromEnv(env: NodeJS.ProcessEnv = process.env): FluxControllerBinaries | undefined {
  const kustomizeController = env[FLUX_CONTROLLER_ENV.kustomizeController];
  return kustomizeController ? { kustomizeController } : undefined;
}

/** The module's folder in the Go module cache, downloaded through the proxy when missing. */
function moduleDir(go: string, modulePath: string, version: string): string {
  const r = spawnSync(go, ['mod', 'download', '-json', `${modulePath}@${version}`], {
    cwd: os.tmpdir(), // outside any module: the download needs no go.mod
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly', GOCACHE: process.env.GOCACHE || path.join(os.homedir(), '.cache', 'go-build') },
    timeout: 10 * 60_000,
  });
  let info: { Dir?: string; Error?: string } = {};
  try {
    info = JSON.parse(r.stdout) as typeof info;
  } catch {
    // reported below
  }
  if (r.status !== 0 || !info.Dir) throw new Error(`go mod download ${modulePath}@${version} failed: ${info.Error ?? r.stderr.trim()}`);
  return info.Dir;
}

/**
 * The real Flux CRDs the KCP of the delivery tests gets, read from the released modules' sources at
 * the pinned versions (config/crd/bases of kustomize-controller and source-controller), never copied
 * into the repo: the Kustomization CRD and every source kind kustomize-controller watches (it cannot
 * start without GitRepository, OCIRepository, Bucket and ExternalArtifact being served).
 */
export function fluxCrdFiles(go = findGo()): string[] {
  if (!go) throw new Error('Go is not installed (no `go` on PATH and no /usr/local/go/bin/go)');
  const kc = moduleDir(go, 'github.com/fluxcd/kustomize-controller', KUSTOMIZE_CONTROLLER_VERSION);
  const sc = moduleDir(go, 'github.com/fluxcd/source-controller', SOURCE_CONTROLLER_VERSION);
  const files = [
    path.join(kc, 'config', 'crd', 'bases', 'kustomize.toolkit.fluxcd.io_kustomizations.yaml'),
    ...['gitrepositories', 'ocirepositories', 'buckets', 'externalartifacts'].map((p) => path.join(sc, 'config', 'crd', 'bases', `source.toolkit.fluxcd.io_${p}.yaml`)),
  ];
  for (const f of files) if (!fs.existsSync(f)) throw new Error(`Flux CRD ${f} is missing from the module source`);
  return files;
}

export { findGo };
