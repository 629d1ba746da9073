// Rules over Lakom settings, mirroring the Lakom admission webhook (gardener-extension-shoot-lakom-service
// pkg/admission/validator/lakom/shoot.go) with its wording, plus two guards of this fleet:
// - validateLayer: scope is one of the allowed scopes (`Unsupported value`, sorted list; upstream's
//   order is random); trustedKeysSecretName is a Secret name and avoids KIM's "reg-cache-";
// - validateResolved: scope Cluster only where the Fleet allows it (Fleet.spec.lakom.allowClusterScope).
// The Secret's content (keys, PEM, algorithm) lives in the Garden project, not in the fleet, so the
// checks upstream runs on it are out of reach here (documented in the schema descriptions).
// Unknown fields are refused by the schema (the webhook decodes strictly). Values of the wrong type
// or over their cap are left to the schema, which reports them.

import { quote } from '../../lib/diagnostics';
import { dns1123SubdomainErrors, KIM_RESERVED_NAME_PART } from '../../lib/k8s-names';
import type { RuleEnvironment, RuleReporter } from '../types';
import type { LakomState } from './options';
import { CLUSTER_SCOPE, LAKOM_SCOPES, MAX_SCOPE_LENGTH, MAX_SECRET_NAME_LENGTH } from './schema';

export const Code = {
  Scope: 'E_LAKOM_SCOPE',
  ClusterScope: 'E_LAKOM_CLUSTER_SCOPE',
  SecretName: 'E_LAKOM_SECRET_NAME',
} as const;

type Settings = Record<string, unknown>;
type Env = RuleEnvironment<LakomState>;

function checkable(v: unknown, maxLength: number): v is string {
  return typeof v === 'string' && Array.from(v).length <= maxLength;
}

/** `Unsupported value: "<v>": supported values: "Cluster", "KubeSystem", "KubeSystemManagedByGardener"`. */
export function checkScope(value: Settings, reporter: RuleReporter): void {
  const scope = value.scope;
  if (!checkable(scope, MAX_SCOPE_LENGTH) || (LAKOM_SCOPES as readonly string[]).includes(scope)) return;
  const supported = LAKOM_SCOPES.map((s) => JSON.stringify(s)).join(', ');
  reporter.report(['scope'], Code.Scope, `Unsupported value: ${quote(scope)}: supported values: ${supported}`);
}

/** The Secret the Shoot references: a DNS-1123 subdomain, without KIM's reserved "reg-cache-". */
export function checkTrustedKeysSecretName(value: Settings, reporter: RuleReporter): void {
  const name = value.trustedKeysSecretName;
  if (!checkable(name, MAX_SECRET_NAME_LENGTH)) return;
  const got = ` (got ${quote(name)})`;
  for (const m of dns1123SubdomainErrors(name)) reporter.report(['trustedKeysSecretName'], Code.SecretName, m + got);
  if (name.includes(KIM_RESERVED_NAME_PART)) {
    reporter.report(
      ['trustedKeysSecretName'],
      Code.SecretName,
      `must not contain ${quote(KIM_RESERVED_NAME_PART)}: KIM removes the Shoot resources whose name contains it${got}`,
    );
  }
}

/** scope Cluster checks every pod of the runtime: only where the Fleet allows it. */
export function checkClusterScopeAllowed(value: Settings, reporter: RuleReporter, env: Env): void {
  if (value.scope !== CLUSTER_SCOPE || env.state?.allowClusterScope === true) return;
  reporter.report(
    ['scope'],
    Code.ClusterScope,
    'scope Cluster puts a signature check that fails closed on every pod of the runtime, Kyma\'s own included ' +
      '(a pod whose image is not signed by a trusted key is not started); set Fleet.spec.lakom.allowClusterScope: true ' +
      'to allow it, or use KubeSystem or KubeSystemManagedByGardener',
  );
}

/** Rules over one layer's value of `extensions.lakom` (paths relative to it). */
export function validateLayer(value: Settings, reporter: RuleReporter): void {
  checkScope(value, reporter);
  checkTrustedKeysSecretName(value, reporter);
}

/** Rules over the merged settings of one runtime where Lakom is enabled. */
export function validateResolved(value: Settings, reporter: RuleReporter, env: Env): void {
  checkClusterScopeAllowed(value, reporter, env);
}
