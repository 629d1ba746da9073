// Conventions shared by every rendered manifest: prune protection for objects whose deletion
// would deprovision or strip a cluster, and the label of objects kyma-fleet owns completely.

/** Flux and Argo CD must never delete these objects when their file disappears from dist/. */
export const PRUNE_PROTECTION: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'Prune=false',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

/**
 * On every object of skr-config/: Argo CD does not dry-run a kind whose CRD the module enabled in
 * skr/ has not installed yet, and the Application retries (on the newest revision) until the apply
 * goes through. No sync wave: waves order objects inside one Application, and skr/ and skr-config/
 * are two. Flux orders the two folders with dependsOn and health checks instead.
 */
export const SKR_CONFIG_ANNOTATIONS: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true',
};

/** On objects the fleet owns entirely (not on fragments of objects KIM, KEB or KLM own). */
export const OWNED_LABELS: Readonly<Record<string, string>> = {
  'app.kubernetes.io/managed-by': 'kyma-fleet',
};

/** A DNS-1123 subdomain name derived from free text: lowercase, [a-z0-9.-], ≤ max, hash-suffixed when cut. */
export function toSubdomainName(text: string, max = 253): string {
  let s = text.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  if (s.length > max) {
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
    s = `${s.slice(0, max - 9).replace(/[^a-z0-9]+$/, '')}-${hash}`;
  }
  return s === '' ? 'x' : s;
}
