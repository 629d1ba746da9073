// The Argo CD cluster Secret of one runtime, made from the access that KIM's kubeconfig-<runtimeID>
// Secret grants: what `kyma-fleet register argocd` writes so that the SKR ApplicationSets' cluster
// generator finds the runtime (label kyma-fleet.dev/runtime-id) and Argo CD can reach it. The format
// is Argo CD's declarative cluster Secret (operator-manual/declarative-setup.md, "Clusters"): `name`,
// `server` and `config`, a JSON whose tlsClientConfig byte fields are base64, exactly as a kubeconfig
// writes its *-data fields. Pure: no I/O; the values come from a kubeconfig already checked
// (observe/kubeconfig.ts kubeConfigFromSecret).

import { OWNED_LABELS } from '../lib/manifest';
import { expandClusterName } from './gitops-rules';
import { type GitopsOptions, LABEL_RUNTIME, LABEL_RUNTIME_ID } from './wiring-common';

/** What a runtime's kubeconfig grants: its server and the credentials Argo CD can use. */
export interface SkrAccess {
  readonly server: string;
  /** base64 PEM, as in certificate-authority-data. */
  readonly caData?: string;
  readonly insecure?: boolean;
  readonly serverName?: string;
  /** base64 PEM, as in client-certificate-data and client-key-data. */
  readonly certData?: string;
  readonly keyData?: string;
  readonly token?: string;
  readonly username?: string;
  readonly password?: string;
}

export const ARGOCD_SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';
/** The labels that mark the cluster Secrets kyma-fleet writes (and may delete). */
export const REGISTERED_SELECTOR = `${ARGOCD_SECRET_TYPE_LABEL}=cluster,app.kubernetes.io/managed-by=kyma-fleet`;

export function argoClusterSecretName(runtimeID: string): string {
  return `kyma-fleet-cluster-${runtimeID.toLowerCase()}`;
}

/** Argo CD's cluster config (the Secret's `config`), keys in a fixed order so equal access gives equal bytes. */
export function argoClusterConfig(access: SkrAccess): string {
  const tls: Record<string, unknown> = {};
  if (access.caData !== undefined) tls.caData = access.caData;
  if (access.certData !== undefined) tls.certData = access.certData;
  tls.insecure = access.insecure === true;
  if (access.keyData !== undefined) tls.keyData = access.keyData;
  if (access.serverName !== undefined) tls.serverName = access.serverName;
  const config: Record<string, unknown> = {};
  if (access.token !== undefined) config.bearerToken = access.token;
  if (access.password !== undefined) config.password = access.password;
  config.tlsClientConfig = tls;
  if (access.username !== undefined) config.username = access.username;
  return JSON.stringify(config);
}

/** The cluster Secret of one runtime, with `data` base64-encoded as the API server returns it. */
export function argoClusterSecret(runtime: { readonly name: string; readonly runtimeID: string }, access: SkrAccess, options: GitopsOptions): Record<string, unknown> {
  const id = runtime.runtimeID.toLowerCase();
  const clusterName = expandClusterName(options.argocd.skrClusterName, runtime);
  if (clusterName === undefined) throw new Error(`argocd.skrClusterName ${JSON.stringify(options.argocd.skrClusterName)} is invalid (gitopsOptionProblems reports it)`);
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: argoClusterSecretName(id),
      namespace: options.argocd.namespace,
      labels: { [ARGOCD_SECRET_TYPE_LABEL]: 'cluster', ...OWNED_LABELS, [LABEL_RUNTIME]: runtime.name, [LABEL_RUNTIME_ID]: id },
    },
    type: 'Opaque',
    data: { config: b64(argoClusterConfig(access)), name: b64(clusterName), server: b64(access.server) },
  };
}
