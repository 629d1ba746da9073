// Two runtimes may not share a Flux Kustomization or Argo CD Application name. A name is
// `<runtime>-<target>`, or, past 63 characters, the runtime name cut short plus 8 hex of its SHA-256
// (src/gitops/wiring-common.ts gitopsObjectName): among long names that share their first 50
// characters, two can meet (a 32-bit hash; it happens among 100,000 such names), and a plain name can
// equal another runtime's shortened one. renderGitops refuses such a pair; this reports it first, at
// the runtime file that comes later, naming the other. Pure.

import { cmp, type Diagnostic, quote } from '../lib/diagnostics';
import { gitopsObjectName, type GitopsTarget } from '../gitops/gitops';
import type { RuntimeIdentity } from './model';

/** The targets Flux and Argo CD objects are named for (wiring-common.ts WIRED_TARGETS). */
const TARGETS: readonly GitopsTarget[] = ['kcp', 'skr', 'skr-config'];

export function checkGitopsNames(runtimes: readonly RuntimeIdentity[], sink: Diagnostic[]): void {
  // A fleet without a pair (nearly every fleet) is not sorted: the order only says which one is reported.
  if (!anyPair(runtimes)) return;
  const owner = new Map<string, RuntimeIdentity>();
  const reported = new Set<string>();
  // In file order, then by name, so the later file is the one reported whatever order they came in.
  const sorted = [...runtimes].sort((a, b) => cmp(a.file, b.file) || cmp(a.name, b.name));
  for (const r of sorted) {
    for (const target of TARGETS) {
      const name = gitopsObjectName(r.name, target);
      const other = owner.get(name);
      if (!other) {
        owner.set(name, r);
        continue;
      }
      // The same runtime name twice is E_DUPLICATE_RUNTIME; one report per pair of runtimes.
      if (other.name === r.name || reported.has(`${other.name}\u0000${r.name}`)) continue;
      reported.add(`${other.name}\u0000${r.name}`);
      sink.push({
        severity: 'error',
        code: 'E_GITOPS_NAME_COLLISION',
        file: r.file,
        line: r.at.name.line,
        col: r.at.name.col,
        field: 'metadata.name',
        message:
          `runtime ${quote(r.name)} would get the Flux Kustomization and Argo CD Application name ${quote(name)}, which runtime ` +
          `${quote(other.name)} (${other.file}:${other.at.name.line}:${other.at.name.col}) already gets: names over ` +
          `${63 - target.length - 1} characters are cut and told apart by 8 hex digits of a hash; rename one of the two runtimes ` +
          '(for example, make them differ in their first 40 characters)',
      });
    }
  }
}

/** Whether two runtimes of other names get the same object name. */
function anyPair(runtimes: readonly RuntimeIdentity[]): boolean {
  const owner = new Map<string, string>();
  for (const r of runtimes) {
    for (const target of TARGETS) {
      const name = gitopsObjectName(r.name, target);
      const other = owner.get(name);
      if (other === undefined) owner.set(name, r.name);
      else if (other !== r.name) return true;
    }
  }
  return false;
}
