// The files a test cluster is configured with, generated fresh for each cluster in its folder: the
// static token file (an admin and a narrow user), the service account signing key pair (node:crypto),
// kubeconfigs, and the narrow user's RBAC. No state is shared between clusters.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';

/** The two users of a test cluster, authenticated by static tokens (--token-auth-file). */
export const ADMIN_USER = { name: 'kyma-fleet-admin', groups: ['system:masters'] } as const;
export const NARROW_USER = { name: 'kyma-fleet-narrow', groups: ['kyma-fleet:narrow'] } as const;

/**
 * The narrow user's rights (a ClusterRole bound to NARROW_USER). It can do everything kyma-fleet and
 * its status reporter do on the Kyma side and nothing on Shoots, so a test sees `Forbidden` on exactly
 * the Shoot reads:
 * - all verbs on kymas, modulereleasemetas (operator.kyma-project.io), registrycacheconfigs,
 *   registrycaches (core.kyma-project.io), runtimes (infrastructuremanager.kyma-project.io), with
 *   their status subresources;
 * - read (get, list, watch) on falcoprofiles (falco.gardener.cloud), namespaces, secrets (the SKR
 *   kubeconfig Secrets) and configmaps, and on customresourcedefinitions;
 * - nothing on core.gardener.cloud (shoots) and nothing else.
 */
export const NARROW_RBAC_NAME = 'kyma-fleet-narrow';
const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_VERBS = ['get', 'list', 'watch'];
export const NARROW_RULES = [
  { apiGroups: ['operator.kyma-project.io'], resources: ['kymas', 'kymas/status', 'modulereleasemetas'], verbs: ALL_VERBS },
  { apiGroups: ['core.kyma-project.io'], resources: ['registrycacheconfigs', 'registrycacheconfigs/status', 'registrycaches', 'registrycaches/status'], verbs: ALL_VERBS },
  { apiGroups: ['infrastructuremanager.kyma-project.io'], resources: ['runtimes', 'runtimes/status'], verbs: ALL_VERBS },
  { apiGroups: ['falco.gardener.cloud'], resources: ['falcoprofiles'], verbs: READ_VERBS },
  { apiGroups: [''], resources: ['namespaces', 'secrets', 'configmaps'], verbs: READ_VERBS },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ_VERBS },
];

/** The ClusterRole and ClusterRoleBinding of the narrow user, as a multi-document YAML. */
export function narrowRbacYaml(): string {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: NARROW_RBAC_NAME },
    rules: NARROW_RULES,
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: NARROW_RBAC_NAME },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NARROW_RBAC_NAME },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: NARROW_USER.name }],
  };
  return `${stringify(role)}---\n${stringify(binding)}`;
}

export interface ClusterTokens {
  admin: string;
  narrow: string;
}

/** Writes the static token file (CSV: token,user,uid,"groups") with two fresh random tokens. */
export function writeTokenFile(file: string): ClusterTokens {
  const tokens = { admin: randomBytes(24).toString('hex'), narrow: randomBytes(24).toString('hex') };
  const line = (token: string, user: { name: string; groups: readonly string[] }) => `${token},${user.name},${user.name},"${user.groups.join(',')}"`;
  fs.writeFileSync(file, `${line(tokens.admin, ADMIN_USER)}\n${line(tokens.narrow, NARROW_USER)}\n`, { mode: 0o600 });
  return tokens;
}

/** Writes a fresh RSA key pair for signing service account tokens; returns the two file paths. */
export function writeServiceAccountKeys(dir: string): { privateKey: string; publicKey: string } {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKey = path.join(dir, 'sa.key');
  const publicKey = path.join(dir, 'sa.pub');
  fs.writeFileSync(privateKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey, publicKey };
}

/** Writes a kubeconfig with one cluster, one token user and one context (named `test-cluster`). */
export function writeKubeconfig(file: string, opts: { server: string; caPem: string; user: string; token: string }): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test-cluster', cluster: { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caPem).toString('base64') } }],
    users: [{ name: opts.user, user: { token: opts.token } }],
    contexts: [{ name: 'test-cluster', context: { cluster: 'test-cluster', user: opts.user } }],
    'current-context': 'test-cluster',
  };
  fs.writeFileSync(file, stringify(config), { mode: 0o600 });
}
