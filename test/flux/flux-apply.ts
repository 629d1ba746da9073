// The TypeScript side of test/flux-apply/ (a Go program that reconciles one Flux Kustomization the way
// kustomize-controller does, with Flux's own build and apply libraries): builds it into the tool cache
// or reuses it there (test/cluster/go-tool-cache.ts: keyed by the module's files, built under a lock,
// renamed into place), and runs one reconcile, returning its JSON result line.

import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { ensureGoTool, type GoToolSpec } from '../cluster/go-tool-cache';

export const FLUX_APPLY_TOOL: GoToolSpec = {
  name: 'flux-apply',
  moduleDir: path.resolve(__dirname, '..', 'flux-apply'),
  binaries: { 'flux-apply': '.' },
  env: { CGO_ENABLED: '0' },
};

/** One object of the apply (or prune) change set, as Flux's ssa.ChangeSetEntry. */
export interface ChangeEntry {
  /** Inventory id: `<namespace>_<name>_<group>_<kind>`. */
  id: string;
  /** `Kind/namespace/name`. */
  subject: string;
  /** created, configured, unchanged, deleted, skipped, ... */
  action: string;
}

/** What one reconcile ended with; the same is written to the Kustomization's status on the cluster. */
export interface ReconcileResult {
  kustomization: string;
  revision: string;
  ready: boolean;
  reason: string;
  message: string;
  changeset: ChangeEntry[];
  pruned: ChangeEntry[];
  inventory: string[];
}

export interface ReconcileOptions {
  /** The folder spec.path is relative to (the source artifact's root, e.g. the repo or a temp workspace). */
  sourceRoot: string;
  kubeconfig: string;
  /** The source revision (Flux: the commit); dependencies must have applied the same one. */
  revision?: string;
  /** Health check timeout instead of spec.timeout/interval (keeps a failing wait short in tests). */
  healthTimeout?: string;
  /** Health check poll interval (default 1s here; kustomize-controller polls every 5s). */
  pollInterval?: string;
}

let built: Promise<string> | undefined;

/**
 * The path of the flux-apply binary, built into the tool cache on first use. Throws without Go: the
 * tests run inside describeWithCluster (test/cluster), which already skips them on a machine without
 * Go (CI unset) and fails them under CI=true.
 */
export function ensureFluxApply(log: (line: string) => void = (l) => console.log(`[flux-apply] ${l}`)): Promise<string> {
  built ??= ensureGoTool(FLUX_APPLY_TOOL, { log }).then((tool) => tool.binaries['flux-apply']!);
  return built;
}

/**
 * Reconciles one Kustomization file once against the cluster of `kubeconfig`. Resolves with the
 * result whether or not it ended Ready; rejects when the emulation itself failed (exit 2: an
 * unsupported spec field, an unreachable server), with its message.
 */
export async function reconcile(kustomizationFile: string, opts: ReconcileOptions): Promise<ReconcileResult> {
  const binary = await ensureFluxApply();
  const args = [
    '--kustomization', kustomizationFile,
    '--source-root', opts.sourceRoot,
    '--kubeconfig', opts.kubeconfig,
    '--revision', opts.revision ?? 'local',
    '--poll-interval', opts.pollInterval ?? '1s',
    ...(opts.healthTimeout ? ['--health-timeout', opts.healthTimeout] : []),
  ];
  return new Promise((resolve, reject) => {
    execFile(binary, args, { encoding: 'utf8', timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      const line = stdout.trim().split('\n').pop() ?? '';
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return reject(new Error(`flux-apply ${path.basename(kustomizationFile)} exited ${code} without a result line:\n${stdout}${stderr}`));
      }
      if (code === 0 || code === 1) return resolve(parsed as ReconcileResult);
      reject(new Error(`flux-apply ${path.basename(kustomizationFile)} failed (exit ${code}): ${(parsed as { error?: string }).error ?? stderr}`));
    });
  });
}
