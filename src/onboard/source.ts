// The source options the onboarding commands share: `--from DIR` (a dump folder laid out like the
// status dumps) or `--kubeconfig FILE` with a context (`--kcp-context` or `--garden-context`,
// default the kubeconfig's current-context), `--allow-exec` and `--timeout` for live reads. Checks
// the combination and returns the source, or the usage problem as text.

import type { ObjectSource } from '../observe/object-reader';

export interface SourceFlags {
  from?: string;
  kubeconfig?: string;
  context?: string;
  allowExec?: boolean;
  /** Request timeout in seconds, as given. */
  timeout?: string;
}

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** `contextFlag` names the context option in messages (--kcp-context or --garden-context). */
export function sourceFromFlags(flags: SourceFlags, contextFlag: string, cwdResolve: (p: string) => string): ObjectSource | { problem: string } {
  if (flags.from !== undefined && flags.kubeconfig !== undefined) return { problem: 'use either --from DIR (a dump folder) or --kubeconfig FILE (a live cluster), not both' };
  if (flags.from === undefined && flags.kubeconfig === undefined) {
    return { problem: `say where to read from: --from DIR (a folder of kubectl dumps) or --kubeconfig FILE [${contextFlag} CTX]` };
  }
  if (flags.from !== undefined) {
    const liveOnly = [
      ...(flags.context !== undefined ? [contextFlag] : []),
      ...(flags.allowExec ? ['--allow-exec'] : []),
      ...(flags.timeout !== undefined ? ['--timeout'] : []),
    ];
    if (liveOnly.length > 0) return { problem: `${liveOnly.join(', ')} only apply to a live cluster (--kubeconfig), not to --from` };
    return { kind: 'dump', dir: cwdResolve(flags.from), display: flags.from.replace(/\/+$/, '') || '.' };
  }
  let timeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
  if (flags.timeout !== undefined) {
    const t = Number(flags.timeout);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(flags.timeout) || !(t > 0) || t > 3600) {
      return { problem: `--timeout must be a number of seconds above 0 and at most 3600 (got ${JSON.stringify(flags.timeout)})` };
    }
    timeoutMs = Math.round(t * 1000);
  }
  return {
    kind: 'live',
    kubeconfig: cwdResolve(flags.kubeconfig!),
    ...(flags.context !== undefined ? { context: flags.context } : {}),
    allowExec: flags.allowExec === true,
    timeoutMs,
  };
}
