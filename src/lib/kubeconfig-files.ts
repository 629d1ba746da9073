// Which kubeconfig a live command reads, and how several files become one, by kubectl's rules
// (client-go clientcmd): --kubeconfig FILE wins and must exist; else $KUBECONFIG, a list of files
// separated by ':' (';' on Windows) of which missing ones are skipped; else ~/.kube/config. Merged,
// the first file that defines a cluster, user or context name wins, and so does the first file that
// sets current-context; relative paths in a file are relative to that file. A file that exists but
// cannot be read is an error naming the file and the OS error (never a credentials problem).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as K8s from '@kubernetes/client-node';

export interface KubeconfigSource {
  /** Files to read, in order of precedence. */
  readonly files: readonly string[];
  /** Where the list came from, for messages: `--kubeconfig`, `$KUBECONFIG` or `~/.kube/config`. */
  readonly origin: '--kubeconfig' | '$KUBECONFIG' | '~/.kube/config';
}

/** A kubeconfig that cannot be used: `Unreadable` (the OS refused a file) or `Invalid` (its content). */
export class KubeconfigFileError extends Error {
  constructor(
    readonly kind: 'Unreadable' | 'Invalid',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The kubeconfig files of a live command, or a sentence why there are none. `explicit` is the
 * --kubeconfig value; `env` supplies KUBECONFIG and HOME; relative paths resolve against `cwd`.
 */
export function kubeconfigSource(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): KubeconfigSource | { readonly missing: string } {
  if (explicit !== undefined && explicit !== '') return { files: [path.resolve(cwd, explicit)], origin: '--kubeconfig' };
  const list = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  if (list.length > 0) {
    const existing = list.map((f) => path.resolve(cwd, f)).filter((f) => !isMissing(f));
    if (existing.length === 0) return { missing: `none of the files in $KUBECONFIG exists (${list.join(path.delimiter)})` };
    return { files: existing, origin: '$KUBECONFIG' };
  }
  const home = env.HOME;
  const fallback = home ? path.join(home, '.kube', 'config') : undefined;
  if (fallback === undefined || isMissing(fallback)) return { missing: `no --kubeconfig, no $KUBECONFIG${fallback ? ` and no ${fallback}` : ''}` };
  return { files: [fallback], origin: '~/.kube/config' };
}

/**
 * Reads `files` as a live command starts: the message of the first file that cannot be read
 * (`cannot read kubeconfig <file>: <OS error>`), or the current-context as kubectl takes it (the
 * first file that sets one; undefined when none does). Content problems are left to
 * loadKubeconfigFiles, which reports them with the cluster access.
 */
export function readKubeconfigHead(files: readonly string[]): { readonly currentContext?: string } | { readonly unreadable: string } {
  let currentContext: string | undefined;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      return { unreadable: unreadableMessage(file, err) };
    }
    if (currentContext !== undefined) continue;
    try {
      // Loaded here: the CLI loads this module for its options, before a synth starts its workers (src/run/warm-start.ts).
      const { parse: parseYaml } = require('yaml') as typeof import('yaml');
      const doc = parseYaml(text) as unknown;
      const ctx = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['current-context'] : undefined;
      if (typeof ctx === 'string' && ctx !== '') currentContext = ctx;
    } catch {
      // not YAML: loadKubeconfigFiles says so
    }
  }
  return currentContext === undefined ? {} : { currentContext };
}

function unreadableMessage(file: string, err: unknown): string {
  return `cannot read kubeconfig ${file}: ${err instanceof Error ? err.message : String(err)}`;
}

function isMissing(file: string): boolean {
  try {
    fs.statSync(file);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Reads and merges `files` (kubectl's merge: first definition of a name wins, first current-context
 * wins). Throws KubeconfigFileError: Unreadable with the OS error, Invalid for content that is not
 * a kubeconfig.
 */
export function loadKubeconfigFiles(k8s: Pick<typeof K8s, 'KubeConfig'>, files: readonly string[]): K8s.KubeConfig {
  const clusters = new Map<string, K8s.Cluster>();
  const users = new Map<string, K8s.User>();
  const contexts = new Map<string, K8s.Context>();
  let currentContext = '';
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new KubeconfigFileError('Unreadable', unreadableMessage(file, err));
    }
    if (text.trim() === '') continue; // kubectl reads an empty file as an empty config
    const one = new k8s.KubeConfig();
    try {
      one.loadFromString(text);
      one.makePathsAbsolute(path.dirname(file));
    } catch (err) {
      throw new KubeconfigFileError('Invalid', `kubeconfig ${file} is not a valid kubeconfig: ${firstLine(err)}`);
    }
    for (const c of one.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (currentContext === '' && one.getCurrentContext()) currentContext = one.getCurrentContext();
  }
  const merged = new k8s.KubeConfig();
  merged.loadFromOptions({ clusters: [...clusters.values()], users: [...users.values()], contexts: [...contexts.values()], currentContext });
  return merged;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
}
