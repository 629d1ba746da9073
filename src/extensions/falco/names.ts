// Kubernetes name checks the Falco rules need (ConfigMap and Secret names). Kept private to this
// folder so the extension does not depend on code other engineers are still writing.

import { quote } from '../../lib/diagnostics';

const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks a DNS-1123 subdomain (the name rule of ConfigMaps and Secrets). Returns the problem in
 * apimachinery's wording, with the value quoted, or undefined when the name is valid.
 */
export function dns1123SubdomainProblem(name: string): string | undefined {
  if (name.length > DNS1123_SUBDOMAIN_MAX) {
    return `must be no more than ${DNS1123_SUBDOMAIN_MAX} characters (got ${name.length} characters)`;
  }
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return (
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
      `and must start and end with an alphanumeric character (got ${quote(name)})`
    );
  }
  return undefined;
}

/**
 * A value as the Falco admission webhook prints it (bare, `unknown standard rule foo`) when it is
 * one printable ASCII token; anything else is quoted so a message stays on one line.
 */
export function bare(value: string): string {
  return /^[\x21-\x7e]{1,80}$/.test(value) && !value.includes('"') ? value : quote(value);
}
