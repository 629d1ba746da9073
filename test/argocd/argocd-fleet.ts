// The TypeScript side of test/argocd/ (a Go program, argocd-fleet, that runs argo-cd v3.2.12's own
// ApplicationSet generators, templates and controller, and gitops-engine's sync, on kyma-fleet's
// dist/gitops/argocd/; see main.go): its tool-cache entry (test/cluster/go-tool-cache.ts), the
// environment through which the vitest global setup hands over the binary and argo-cd's module
// folder (for its CRDs, read at run time), and typed calls of its subcommands.

import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { PROJECT_ROOT } from '../cluster/paths';

/** The Go module's folder (the source folder also when this file runs compiled, from lib/: the bench). */
export const ARGOCD_DIR = path.join(PROJECT_ROOT, 'test', 'argocd');

/** `go build -o DIR/ .` names the binary after the module path's last element (kyma-fleet.dev/test/argocd): argocd. */
export const ARGOCD_TOOL: GoToolSpec = {
  name: 'argocd-fleet',
  moduleDir: ARGOCD_DIR,
  binaries: { argocd: '.' },
  env: { CGO_ENABLED: '0' },
};

/** The argo-cd module the program is built against (go.mod); its CRDs come from this module's download. */
export const ARGOCD_MODULE = 'github.com/argoproj/argo-cd/v3';
export const ARGOCD_VERSION = 'v3.2.12';

/** Set by the global setup: the binary, and argo-cd's module folder in the Go module cache. */
export const ARGOCD_ENV = { binary: 'KYMA_FLEET_ARGOCD_FLEET', moduleDir: 'KYMA_FLEET_ARGOCD_MODULE_DIR' } as const;
/** Set by the global setup (CI unset, no Go) to the one-line reason the Argo CD tests are skipped. */
export const ARGOCD_SKIP_ENV = 'KYMA_FLEET_ARGOCD_SKIP';

/** The folder of argo-cd's module in the module cache (`go list -m`, no download: -mod=readonly). */
export function argoModuleDir(go: string): string {
  const r = spawnSync(go, ['list', '-m', '-f', '{{.Dir}}', ARGOCD_MODULE], {
    cwd: ARGOCD_DIR, encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
  });
  const dir = r.stdout.trim();
  if (r.status !== 0 || !dir || !fs.existsSync(path.join(dir, 'manifests', 'crds'))) {
    throw new Error(`go list -m ${ARGOCD_MODULE} (in ${ARGOCD_DIR}) failed: ${r.stderr.trim() || 'no module folder'}`);
  }
  return dir;
}

/** Builds (or reuses) the program and finds argo-cd's module folder; throws without Go or on a failed build. */
export async function ensureArgoCdFleet(log?: (line: string) => void): Promise<{ binary: string; moduleDir: string; seconds: number }> {
  const go = findGo();
  if (!go) throw new Error('Go is not installed');
  const tool = await ensureGoTool(ARGOCD_TOOL, { log });
  return { binary: tool.binaries.argocd!, moduleDir: argoModuleDir(go), seconds: tool.seconds };
}

export function argoFromEnv(): { binary: string; moduleDir: string } | undefined {
  const binary = process.env[ARGOCD_ENV.binary];
  const moduleDir = process.env[ARGOCD_ENV.moduleDir];
  return binary && moduleDir ? { binary, moduleDir } : undefined;
}

function tool(): { binary: string; moduleDir: string } {
  const t = argoFromEnv();
  if (!t) throw new Error(`argocd-fleet is not built: ${ARGOCD_ENV.binary} is unset (the global setup test/argocd/global-setup.ts builds it)`);
  return t;
}

/** argo-cd's own CRD file (manifests/crds/<name>-crd.yaml of the module download). */
export function argoCrdFile(name: 'application' | 'applicationset' | 'appproject'): string {
  return path.join(tool().moduleDir, 'manifests', 'crds', `${name}-crd.yaml`);
}

export interface ArgoContext {
  kubeconfig: string;
  namespace: string;
  /** repoURL -> local git repository */
  repos: Record<string, string>;
}

/**
 * Runs one subcommand; resolves with its JSON line, rejects (with stderr) when it could not run.
 * `timeoutMs` (default 5 minutes) is longer for the bench's large fleets.
 */
export function argo<T>(cmd: string, ctx: ArgoContext, args: string[] = [], timeoutMs = 5 * 60_000): Promise<T> {
  const full = [cmd, '--kubeconfig', ctx.kubeconfig, '--namespace', ctx.namespace,
    ...Object.entries(ctx.repos).flatMap(([u, d]) => ['--repo', `${u}=${d}`]), ...args];
  return new Promise((resolve, reject) => {
    execFile(tool().binary, full, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      let parsed: any;
      try {
        parsed = JSON.parse(line);
      } catch {
        return reject(new Error(`argocd-fleet ${cmd} printed no JSON line (${err?.message ?? 'exit 0'}):\n${stdout}\n${stderr.slice(-4000)}`));
      }
      if (err || parsed.error) return reject(new Error(`argocd-fleet ${cmd}: ${parsed.error ?? err?.message}\n${stderr.slice(-4000)}`));
      resolve(parsed as T);
    });
  });
}

// ---- result types (the Go program's JSON) ----

export interface Application {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec: {
    project: string;
    source: { repoURL: string; path: string; targetRevision: string };
    destination: { server?: string; name?: string; namespace?: string };
    syncPolicy?: { automated?: { prune?: boolean; selfHeal?: boolean }; syncOptions?: string[]; retry?: { limit?: number; refresh?: boolean; backoff?: Record<string, unknown> } };
  };
}

export interface GenerateResult {
  applicationSets: Array<{ applicationSet: string; applications: Application[]; reason?: string; error?: string }>;
}

export interface CheckResult {
  verdicts: Array<{ application: string; accepted: boolean; error?: string; dropped: boolean; path: string; pathExists: boolean; revision?: string }>;
}

export interface AppSetRound {
  applicationSets: Array<{ applicationSet: string; refreshed: boolean; conditions: Array<{ type: string; status: string; message: string; reason: string }>; applications: string[] }>;
}

export interface OperationState {
  phase: 'Running' | 'Succeeded' | 'Failed' | 'Error' | 'Terminating';
  message: string;
  retryCount?: number;
  finishedAt?: string;
  operation: { sync?: { revision?: string }; retry?: { limit?: number; refresh?: boolean } };
  syncResult?: { revision: string; resources?: Array<{ kind: string; name: string; namespace?: string; status: string; message: string }> };
}

export interface TickResult {
  app: string;
  log: string[];
  sync: { status: string; revision?: string };
  operation?: unknown;
  operationState?: OperationState;
}

/** cluster-check: a destination resolved by argo-cd (util/db) and its REST config used against the cluster. */
export interface ClusterCheck {
  name: string;
  resolved: boolean;
  server?: string;
  labels?: Record<string, string>;
  authKind?: string;
  reachable: boolean;
  user?: string;
  serverVersion?: string;
  namespaces?: string[];
  status?: number;
  /** Why it is not resolved or not reachable (argo-cd's or the SKR's error). */
  failure?: string;
}
