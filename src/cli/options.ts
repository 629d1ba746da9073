// Options and argument parsing shared by several commands.

import { Command, Option } from 'commander';
import { kubeconfigSource, readKubeconfigHead } from '../lib/kubeconfig-files';
import { defaultCacheDir } from '../load/parse-cache';

/** A usage mistake that commander cannot see (bad --now value, unknown runtime name): exit 2. */
export class UsageError extends Error {}

/** Parses --now (RFC 3339) or falls back to SOURCE_DATE_EPOCH, then the clock. */
export function evaluationTime(value: string | undefined, env: NodeJS.ProcessEnv): Date {
  if (value !== undefined) {
    const d = new Date(value);
    if (Number.isNaN(d.getTime())) throw new UsageError(`--now must be an RFC 3339 time such as 2026-11-22T00:00:00Z (got ${JSON.stringify(value)})`);
    return d;
  }
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && /^[0-9]+$/.test(epoch)) return new Date(Number(epoch) * 1000);
  return new Date();
}

export const fleetOption = (): Option => new Option('--fleet <dir>', 'fleet config folder').default('fleet');
export const outOption = (): Option => new Option('--out <dir>', 'output folder (rendered manifests)').default('dist');
export const nowOption = (): Option =>
  new Option('--now <time>', 'evaluation time for version expiry checks (RFC 3339); default: SOURCE_DATE_EPOCH or the clock');

/** -o/--output of every command: `text` first (the default), `json` always (docs/cli.md, schemas/output/). */
export function outputOption(choices: string[]): Option {
  return new Option('-o, --output <format>', 'output format').choices(choices).default(choices[0]);
}

/** --kubeconfig of the commands that read clusters; without it kubectl's rules apply (../lib/kubeconfig-files.ts). */
export const kubeconfigOption = (): Option =>
  new Option('--kubeconfig <file>', "kubeconfig file; default: $KUBECONFIG (a ':'-separated list, as for kubectl), else ~/.kube/config");

/** --<role>-context of the commands that read clusters: a context of the kubeconfig, default its current-context. */
export const contextOption = (flag: string, what: string): Option =>
  new Option(`--${flag}-context <ctx>`, `kubeconfig context of the ${what}; default: the kubeconfig's current-context`);

/** The kubeconfig files and contexts of a live command, as kubectl would pick them. */
export interface LiveKubeconfig {
  readonly files: readonly string[];
  /** The context per role: the option's value, else the current-context. */
  readonly contexts: Readonly<Record<string, string>>;
}

/**
 * Resolves --kubeconfig and the context options of a live command: `contexts` maps a role (`kcp`,
 * `garden`) to its option value (undefined when not given). Returns `unreadable` with the OS error
 * when a kubeconfig file exists but cannot be read (exit 5, reason UnreadableKubeconfig). A usage
 * error when there is no kubeconfig at all, or a role has no context and the kubeconfig no
 * current-context.
 */
export function liveKubeconfig(
  kubeconfig: string | undefined,
  contexts: Readonly<Record<string, string | undefined>>,
  streams: { readonly env: NodeJS.ProcessEnv; readonly cwd: string },
): LiveKubeconfig | { readonly unreadable: string } {
  const source = kubeconfigSource(kubeconfig, streams.env, streams.cwd);
  if ('missing' in source) throw new UsageError(`no kubeconfig: ${source.missing}; give --kubeconfig FILE or set KUBECONFIG`);
  const head = readKubeconfigHead(source.files);
  if ('unreadable' in head) return head;
  const resolved: Record<string, string> = {};
  for (const [role, value] of Object.entries(contexts)) {
    const context = value ?? head.currentContext;
    if (context === undefined) {
      throw new UsageError(`--${role}-context is not given and the kubeconfig (${source.origin}: ${source.files.join(', ')}) has no current-context; name the context with --${role}-context CTX`);
    }
    resolved[role] = context;
  }
  return { files: source.files, contexts: resolved };
}

export const cacheOption = (): Option => new Option('--no-cache', 'check every fleet file again (skip the parse cache and the run record)');

/** The parse cache folder for a run, or undefined when disabled (--no-cache or KYMA_FLEET_NO_CACHE=1). */
export function cacheDirFor(flags: { cache?: boolean }, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.cache === false || env.KYMA_FLEET_NO_CACHE === '1') return undefined;
  return defaultCacheDir(cwd, env);
}

/** --concurrency of the live cluster commands: a whole number from 1 to 256, or the default. */
export function concurrencyOption(value: string | undefined, dflt: number): number {
  if (value === undefined) return dflt;
  if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 256 (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

/** --timeout of the live cluster commands, in seconds (above 0, at most an hour), as milliseconds. */
export function timeoutOption(value: string | undefined, dfltSeconds: number): number {
  if (value === undefined) return dfltSeconds * 1000;
  const t = Number(value);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || !(t > 0) || t > 3600) {
    throw new UsageError(`--timeout must be a number of seconds above 0 and at most 3600 (got ${JSON.stringify(value)})`);
  }
  return Math.round(t * 1000);
}

/**
 * A command that only groups sub-commands (`kyma-fleet catalog refresh`, `import runtimes`): run bare,
 * or with a word it does not know, it is a usage error that names what it supports.
 */
export function groupCommand(
  name: string,
  description: string,
  words: { readonly noun: 'action' | 'subject'; readonly argument: string; readonly help: string; readonly supported: readonly string[] },
  output: { writeOut: (text: string) => void; writeErr: (text: string) => void },
): Command {
  const first = words.supported[0]!;
  return new Command(name)
    .description(description)
    .usage(`${first} [options]`)
    .argument(`[${words.argument}]`, words.help)
    .allowExcessArguments()
    .exitOverride()
    .configureOutput(output)
    .action((word: string | undefined) => {
      throw new UsageError(
        word === undefined
          ? `kyma-fleet ${name} needs ${words.noun === 'action' ? 'an action' : 'a subject'}: kyma-fleet ${name} ${first} ...`
          : `unknown ${words.noun} ${JSON.stringify(word)}; kyma-fleet ${name} supports: ${words.supported.join(', ')}`,
      );
    });
}
