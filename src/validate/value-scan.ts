// Checks every string of a fleet file for two things no field schema can catch: secret material
// written inline (the fleet references secrets by name only) and `${VAR}` text that Flux
// post-build substitution would rewrite (or, since kustomize-controller 1.9, fail on).

import type { DocPath } from '../lib/diagnostics';

export interface ValueFinding {
  readonly path: DocPath;
  readonly code: 'E_SECRET_INLINE' | 'E_SUBSTITUTION_SYNTAX';
  readonly message: string;
}

const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/, 'a private key'],
  [/-----BEGIN CERTIFICATE-----/, 'a certificate'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key ID'],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, 'a GitHub token'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, 'a JSON Web Token'],
  [/"auths"\s*:/, 'a Docker config (.dockerconfigjson)'],
  [/\b(password|passwd|token|secret)\s*[:=]\s*\S{6,}/i, 'a password or token'],
];

/** Field names that only ever hold credentials. */
const SECRET_KEYS = /^(password|passwd|pass|token|secret|apikey|api-key|accesskey|secretkey|privatekey|private-key|\.dockerconfigjson|auth|credentials)$/i;

const SUBSTITUTION = /\$\{[^}\n]*\}|\$\([^)\n]*\)/;

/** Finds inline secrets and substitution variables in any string of `data`. Pure. */
export function scanValues(data: unknown, base: DocPath = []): ValueFinding[] {
  const out: ValueFinding[] = [];
  const visit = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'string') {
      for (const [re, what] of SECRET_PATTERNS) {
        if (re.test(v)) {
          out.push({
            path,
            code: 'E_SECRET_INLINE',
            message: `value looks like ${what} (redacted); secrets are never written into the fleet: create a Secret on the cluster and reference it by name`,
          });
          return;
        }
      }
      const m = SUBSTITUTION.exec(v);
      if (m) {
        out.push({
          path,
          code: 'E_SUBSTITUTION_SYNTAX',
          message: `${JSON.stringify(m[0])} would be replaced by Flux post-build substitution; the fleet does not template values, remove it`,
        });
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, [...path, i]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (SECRET_KEYS.test(k) && item !== null && typeof item !== 'object') {
          out.push({
            path: [...path, k],
            code: 'E_SECRET_INLINE',
            message: `field ${JSON.stringify(k)} holds credentials (value redacted); secrets are never written into the fleet: create a Secret on the cluster and reference it by name`,
          });
          continue;
        }
        visit(item, [...path, k]);
      }
    }
  };
  visit(data, [...base]);
  return out;
}
