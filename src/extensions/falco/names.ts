// Name checks of the Falco rules (ConfigMap and Secret names), worded like the other extensions'
// name checks, through the shared apimachinery messages of src/lib/k8s-names.ts.

import { quote } from '../../lib/diagnostics';
import { dns1123SubdomainErrors } from '../../lib/k8s-names';
import { toSubdomainName } from '../../lib/manifest';

/** The first DNS-1123 subdomain problem of `name` with the value quoted, or undefined when valid. */
export function dns1123SubdomainProblem(name: string): string | undefined {
  const [first] = dns1123SubdomainErrors(name);
  return first === undefined ? undefined : `${first} (got ${quote(name)})`;
}

/**
 * A value as the Falco admission webhook prints it (bare, `unknown standard rule foo`) when it is
 * one printable ASCII token; anything else is quoted so a message stays on one line.
 */
export function bare(value: string): string {
  return /^[\x21-\x7e]{1,80}$/.test(value) && !value.includes('"') ? value : quote(value);
}

/** How the name of every rules ConfigMap starts. */
export const RULES_CONFIGMAP_PREFIX = 'falco-rules-';

/** ConfigMap name for a rules file: "rules/team/web.yaml" -> "falco-rules-team-web". */
export function rulesConfigMapName(file: string): string {
  const rel = file.replace(/^rules\//, '').replace(/\.yaml$/, '');
  return toSubdomainName(`${RULES_CONFIGMAP_PREFIX}${rel.replace(/[/.]/g, '-')}`, 63);
}
