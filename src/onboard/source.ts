// The source options the onboarding commands share: `--from DIR` (a dump folder laid out like the
// status dumps) or a live cluster through kubeconfig files (found as kubectl finds them by the
// caller: --kubeconfig, else $KUBECONFIG, else ~/.kube/config) and a context (`--kcp-context` or
// `--garden-context`, default the current-context), `--allow-exec` and `--timeout` for live reads.
// Checks the combination and returns the source, or the usage problem as text.

import type { ObjectSource } from '../observe/object-reader';

export interface SourceFlags {
  from?: string;
  /** The --kubeconfig option as given (only checked against --from here). */
  kubeconfig?: string;
  context?: string;
  allowExec?: boolean;
  /** Request timeout in seconds, as given. */
  timeout?: string;
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** True when the flags read a dump folder; otherwise the caller resolves the kubeconfig and calls liveSource. */
export function readsDump(flags: SourceFlags): boolean {
  return flags.from !== undefined;
}

/**
 * The dump source of `--from`, or the usage problem (--from with --kubeconfig or a live-only
 * option). `contextFlag` names the context option in messages (--kcp-context or --garden-context).
 */
export function dumpSource(flags: SourceFlags, contextFlag: string, cwdResolve: (p: string) => string): ObjectSource | { problem: string } {
  if (flags.from !== undefined && flags.kubeconfig !== undefined) return { problem: 'use either --from DIR (a dump folder) or --kubeconfig FILE (a live cluster), not both' };
  const liveOnly = [
    ...(flags.context !== undefined ? [contextFlag] : []),
    ...(flags.allowExec ? ['--allow-exec'] : []),
    ...(flags.timeout !== undefined ? ['--timeout'] : []),
  ];
  if (liveOnly.length > 0) return { problem: `${liveOnly.join(', ')} only apply to a live cluster (--kubeconfig), not to --from` };
  return { kind: 'dump', dir: cwdResolve(flags.from!), display: flags.from!.replace(/\/+$/, '') || '.' };
}

/** The live source: the kubeconfig files and context the caller resolved, with --allow-exec and --timeout. */
export function liveSource(flags: SourceFlags, files: readonly string[], context: string): ObjectSource | { problem: string } {
  let timeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
  if (flags.timeout !== undefined) {
    const t = Number(flags.timeout);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(flags.timeout) || !(t > 0) || t > 3600) {
      return { problem: `--timeout must be a number of seconds above 0 and at most 3600 (got ${JSON.stringify(flags.timeout)})` };
    }
    timeoutMs = Math.round(t * 1000);
  }
  return { kind: 'live', kubeconfig: files, context, allowExec: flags.allowExec === true, timeoutMs };
}
