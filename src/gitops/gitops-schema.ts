// `Fleet.spec.gitops`: how dist/ is wired into Flux and Argo CD. The JSON Schema (draft-07, ajv
// strict: shape, types and input caps only, no `pattern`s), its defaults, and the format rules
// (names, durations, paths, URLs, placeholders) with messages that say what to write instead.
// The lead wires GITOPS_OPTIONS_SCHEMA into the Fleet schema as `spec.gitops` and reports
// gitopsOptionProblems() through the fleet rule reporter. Pure: no I/O.

import { quote } from '../lib/diagnostics';
import { parseGoDuration } from '../lib/go-duration';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../lib/k8s-names';
import { parseGoURL, redactUserInfo } from '../lib/url-rules';

/** Caps against hostile input (every string and list is bounded). */
export const MAX_NAME_LENGTH = 253;
export const MAX_NAMESPACE_LENGTH = 63;
export const MAX_DURATION_LENGTH = 32;
export const MAX_PATH_LENGTH = 512;
export const MAX_URL_LENGTH = 2048;
export const MAX_REVISION_LENGTH = 255;

export const SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Placeholders `argocd.skrClusterName` may use. `{{runtimeID}}` is the lowercase runtime ID. */
export const CLUSTER_NAME_PLACEHOLDERS = ['name', 'runtimeID'] as const;

/**
 * Defaults of every option that has one. `flux.namespace` defaults to the fleet's kcpNamespace
 * (resolveGitopsOptions); `argocd.repoURL` has none and is required when Argo CD is enabled.
 */
export const GITOPS_DEFAULTS = {
  flux: {
    enabled: true,
    sourceRef: { kind: 'GitRepository', name: 'kyma-fleet' },
    path: './dist',
    interval: '10m',
    prune: true,
  },
  argocd: {
    enabled: false,
    namespace: 'argocd',
    project: 'default',
    targetRevision: 'HEAD',
    path: 'dist',
    skrClusterName: 'kyma-{{runtimeID}}',
    kcpCluster: 'in-cluster',
  },
} as const;

/** Flux: "The minimum value should be 60 seconds" (kustomizations.md, Interval). */
const MIN_INTERVAL_NS = 60_000_000_000n;

function str(maxLength: number, description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'string', maxLength, description, ...extra };
}

function duration(description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return str(MAX_DURATION_LENGTH, `${description} A Go duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m".`, extra);
}

/** JSON Schema of `Fleet.spec.gitops`. */
export const GITOPS_OPTIONS_SCHEMA: Record<string, unknown> = {
  type: 'object',
  title: 'GitOps wiring',
  description:
    'How dist/ is wired into Flux and Argo CD: one Flux Kustomization, or one Argo CD Application ' +
    '(from an ApplicationSet), per runtime and target, written under dist/gitops/.',
  additionalProperties: false,
  properties: {
    flux: {
      type: 'object',
      additionalProperties: false,
      description:
        'Flux Kustomizations (kustomize.toolkit.fluxcd.io/v1) in dist/gitops/flux/, one per runtime and ' +
        'target. Point one bootstrap Kustomization at <path>/gitops/flux to create them all.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Write dist/gitops/flux/. @default true' },
        namespace: str(
          MAX_NAMESPACE_LENGTH,
          'Namespace of the Kustomizations. Kustomizations that reach a runtime must live where KIM writes ' +
            'the kubeconfig-<runtimeID> Secrets, because kubeConfig.secretRef is namespace-local. ' +
            '@default the fleet kcpNamespace (kcp-system)',
          { examples: ['kcp-system'] },
        ),
        sourceRef: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'name'],
          description:
            'The Flux source that holds this repository. @default {kind: GitRepository, name: kyma-fleet}',
          default: { kind: 'GitRepository', name: 'kyma-fleet' },
          properties: {
            kind: {
              type: 'string',
              maxLength: 32,
              enum: [...SOURCE_KINDS],
              description: 'Kind of the Flux source.',
            },
            name: str(MAX_NAME_LENGTH, 'Name of the Flux source object.', { examples: ['kyma-fleet', 'flux-system'] }),
            namespace: str(
              MAX_NAMESPACE_LENGTH,
              'Namespace of the source when it is not the Kustomizations\' namespace (a cross-namespace ' +
                'reference; refused by kustomize-controller started with --no-cross-namespace-refs).',
              { examples: ['flux-system'] },
            ),
          },
        },
        path: str(
          MAX_PATH_LENGTH,
          'Path of dist/ inside the source, relative, with "/" separators; segments of letters, digits, ' +
            '".", "_" and "-" only. @default ./dist',
          { default: './dist', examples: ['./dist', './clusters/kcp/dist'] },
        ),
        interval: duration('How often Flux reconciles each Kustomization (at least 1m). @default 10m', {
          default: '10m',
        }),
        retryInterval: duration('How soon Flux retries a failed reconciliation. Flux uses interval when unset.', {
          examples: ['2m'],
        }),
        timeout: duration('Timeout of each build, apply and health check. Flux uses interval when unset.', {
          examples: ['5m'],
        }),
        prune: {
          type: 'boolean',
          default: true,
          description:
            'Delete objects that disappeared from a runtime folder. Runtime and Kyma CRs are never pruned ' +
            '(they carry kustomize.toolkit.fluxcd.io/prune: disabled), and deleting a runtime orphans its ' +
            'objects (deletionPolicy: Orphan). Garden Kustomizations never prune. @default true',
        },
      },
    },
    argocd: {
      type: 'object',
      additionalProperties: false,
      description:
        'Argo CD ApplicationSets (argoproj.io/v1alpha1) in dist/gitops/argocd/, one per target, generating ' +
        'one Application per runtime from dist/gitops/argocd/runtimes/<name>.json.',
      properties: {
        enabled: { type: 'boolean', default: false, description: 'Write dist/gitops/argocd/. @default false' },
        namespace: str(MAX_NAMESPACE_LENGTH, 'Namespace of the ApplicationSets (where Argo CD runs). @default argocd', {
          default: 'argocd',
        }),
        project: str(MAX_NAME_LENGTH, 'Argo CD AppProject of the generated Applications. @default default', {
          default: 'default',
        }),
        repoURL: str(
          MAX_URL_LENGTH,
          'Git repository that holds dist/, as Argo CD knows it (https://, ssh:// or git@host:path). No ' +
            'credentials in the URL: configure repository credentials in Argo CD. Required when enabled.',
          { examples: ['https://github.com/acme/kyma-fleet.git'] },
        ),
        targetRevision: str(MAX_REVISION_LENGTH, 'Branch, tag or commit to sync. @default HEAD', {
          default: 'HEAD',
          examples: ['main'],
        }),
        path: str(
          MAX_PATH_LENGTH,
          'Path of dist/ inside the repository, relative, without a leading "./" (it is also a generator ' +
            'glob); segments of letters, digits, ".", "_" and "-" only. @default dist',
          { default: 'dist' },
        ),
        skrClusterName: str(
          MAX_NAME_LENGTH,
          'Argo CD cluster name of each runtime (the name in its cluster Secret). Placeholders: {{name}} ' +
            '(runtime name) and {{runtimeID}} (lowercase runtime ID); at least one is required. ' +
            '@default kyma-{{runtimeID}}',
          { default: 'kyma-{{runtimeID}}', examples: ['kyma-{{runtimeID}}', 'skr-{{name}}'] },
        ),
        kcpCluster: str(MAX_NAME_LENGTH, 'Argo CD cluster name of the Kyma Control Plane, destination of kcp/ apps. @default in-cluster', {
          default: 'in-cluster',
        }),
      },
    },
    garden: {
      type: 'object',
      additionalProperties: false,
      description:
        'No longer supported: dist/runtimes/*/garden is never wired into Flux or Argo CD. Shoot.spec.extensions ' +
        'is an atomic list that KIM also writes, so an applier of the whole list wipes its entries; ' +
        '`kyma-fleet apply garden` writes the fleet\'s entries by read-modify-write instead. Only `enabled: false` is accepted.',
      properties: {
        enabled: { type: 'boolean', description: 'Must be false (or left out): the garden/ folders are applied by `kyma-fleet apply garden`.' },
        kubeConfigSecret: str(MAX_NAME_LENGTH, 'Unused since garden/ is applied by `kyma-fleet apply garden`; accepted so existing fleets still load.'),
      },
    },
  },
  examples: [
    {
      flux: { sourceRef: { kind: 'GitRepository', name: 'kyma-fleet', namespace: 'flux-system' }, interval: '10m' },
      argocd: { enabled: true, repoURL: 'https://github.com/acme/kyma-fleet.git', targetRevision: 'main' },
    },
  ],
};

/** One problem: path from the Fleet `spec` (starts with 'gitops'), stable code, message. */
export type GitopsOptionProblem = [path: (string | number)[], code: string, message: string];

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `^([0-9]+(ms|s|m|h))+$`, scanned by hand (linear on any input). */
export function isGitopsDuration(value: string): boolean {
  let i = 0;
  if (value === '') return false;
  while (i < value.length) {
    const start = i;
    while (i < value.length && value.charCodeAt(i) >= 0x30 && value.charCodeAt(i) <= 0x39) i++;
    if (i === start) return false;
    const c = value[i];
    if (c === 'm') i += value[i + 1] === 's' ? 2 : 1;
    else if (c === 's' || c === 'h') i += 1;
    else return false;
  }
  return true;
}

function durationProblem(value: string, minimumNs?: bigint): string | undefined {
  if (!isGitopsDuration(value)) {
    return `must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got ${quote(value)})`;
  }
  const parsed = parseGoDuration(value);
  if (!parsed.ok) return `${parsed.error}: the value is too large`;
  if (parsed.nanoseconds <= 0n) return `must be longer than 0s (got ${quote(value)})`;
  if (minimumNs !== undefined && parsed.nanoseconds < minimumNs) {
    return `must be at least 1m: Flux reconciles every interval and documents 60 seconds as the minimum (got ${quote(value)})`;
  }
  return undefined;
}

function isPathChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2e || // .
    c === 0x5f || // _
    c === 0x2d // -
  );
}

/**
 * A relative source path: segments of [A-Za-z0-9._-], no empty, "." or ".." segment, one
 * trailing "/" tolerated. Flux may start with "./"; Argo CD may not (the path is also a glob
 * prefix of the git files generator). "." (or "./" for Flux) is the repository root.
 */
function pathProblem(value: string, allowDotSlash: boolean): string | undefined {
  const got = ` (got ${quote(value)})`;
  let v = value.endsWith('/') && value.length > 1 ? value.slice(0, -1) : value;
  if (v === '.') return undefined;
  if (v.startsWith('/')) return `must be relative to the repository root, without a leading "/"${got}`;
  if (v.startsWith('./')) {
    if (!allowDotSlash) return `must not start with "./": it is also the prefix of an Argo CD generator glob; write ${quote(v.slice(2) || '.')}${got}`;
    v = v.slice(2);
  }
  if (v === '') return `must name a folder${got}`;
  for (const seg of v.split('/')) {
    if (seg === '') return `must not contain empty segments ("//")${got}`;
    if (seg === '.' || seg === '..') return `must not contain "." or ".." segments${got}`;
    for (let i = 0; i < seg.length; i++) {
      if (!isPathChar(seg.charCodeAt(i))) {
        return `may only contain letters, digits, ".", "_", "-" and "/" separators${got}`;
      }
    }
  }
  return undefined;
}

/** Printable ASCII without space, `{` and `}` (safe as a literal inside an Argo CD go template). */
function plainValueProblem(value: string): string | undefined {
  if (value === '') return 'must not be empty';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return `must be printable ASCII without spaces (got ${quote(value)})`;
    if (c === 0x7b || c === 0x7d) {
      return `must not contain "{" or "}": ApplicationSets render it as a go template (got ${quote(value)})`;
    }
  }
  return undefined;
}

/**
 * Expands `{{name}}` and `{{runtimeID}}` in an Argo CD cluster name template. Returns undefined
 * for a template gitopsOptionProblems refuses.
 */
export function expandClusterName(template: string, values: { name: string; runtimeID: string }): string | undefined {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{{', i);
    if (open === -1) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, open);
    const close = template.indexOf('}}', open + 2);
    if (close === -1) return undefined;
    const key = template.slice(open + 2, close);
    if (key === 'name') out += values.name;
    else if (key === 'runtimeID') out += values.runtimeID.toLowerCase();
    else return undefined;
    i = close + 2;
  }
  return out;
}

function clusterNameTemplateProblem(value: string): string | undefined {
  const got = ` (got ${quote(value)})`;
  let placeholders = 0;
  let i = 0;
  while (i < value.length) {
    const open = value.indexOf('{{', i);
    const rest = open === -1 ? value.slice(i) : value.slice(i, open);
    if (rest.includes('{') || rest.includes('}')) return `may use "{" and "}" only in the placeholders {{name}} and {{runtimeID}}${got}`;
    if (open === -1) break;
    const close = value.indexOf('}}', open + 2);
    if (close === -1) return `has an unclosed placeholder; use {{name}} or {{runtimeID}}${got}`;
    const key = value.slice(open + 2, close);
    if (!(CLUSTER_NAME_PLACEHOLDERS as readonly string[]).includes(key)) {
      return `unknown placeholder ${quote(`{{${key}}}`)}; use {{name}} or {{runtimeID}}${got}`;
    }
    placeholders++;
    i = close + 2;
  }
  if (placeholders === 0) {
    return `must contain {{name}} or {{runtimeID}}, or every runtime would be synced to the same cluster${got}`;
  }
  const sample = expandClusterName(value, { name: 'n', runtimeID: '0' })!;
  const plain = plainValueProblem(sample);
  return plain === undefined ? undefined : `must be printable ASCII without spaces outside the placeholders${got}`;
}

const SCP_LIKE = /^[A-Za-z0-9._-]{1,64}@[A-Za-z0-9.-]{1,253}:[^\s:][^\s]*$/;

function repoURLProblems(value: string): [code: string, message: string][] {
  const shown = quote(redactUserInfo(value));
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return [['E_GITOPS_URL', `must be printable ASCII without spaces (got ${shown})`]];
    if (c === 0x7b || c === 0x7d) return [['E_GITOPS_URL', `must not contain "{" or "}": ApplicationSets render it as a go template (got ${shown})`]];
  }
  if (!value.includes('://')) {
    if (SCP_LIKE.test(value)) return [];
    return [['E_GITOPS_URL', `must be a git URL: https://host/path, ssh://git@host/path or git@host:path (got ${shown})`]];
  }
  const parsed = parseGoURL(value);
  if (!parsed.ok) return [['E_GITOPS_URL', `must be a git URL: ${parsed.error}`]];
  const url = parsed.url;
  if (!['https', 'http', 'ssh', 'git'].includes(url.scheme)) {
    return [['E_GITOPS_URL', `must use the scheme https, http, ssh or git (got ${shown})`]];
  }
  const out: [string, string][] = [];
  if (url.host === '') out.push(['E_GITOPS_URL', `must name a host (got ${shown})`]);
  if (url.user !== undefined) {
    if (url.scheme === 'http' || url.scheme === 'https' || url.user.password !== undefined) {
      out.push([
        'E_SECRET_INLINE',
        `must not contain credentials: configure repository credentials in Argo CD instead (got ${shown})`,
      ]);
    }
  }
  if (url.rawQuery !== '' || url.fragment !== '') out.push(['E_GITOPS_URL', `must not contain a query or fragment (got ${shown})`]);
  return out;
}

/**
 * Format rules of `Fleet.spec.gitops` that the schema does not express. Paths start at the
 * Fleet `spec` (['gitops', 'flux', 'interval']). Runs on schema-invalid input too: values of the
 * wrong type are left to the schema.
 */
export function gitopsOptionProblems(options: unknown): GitopsOptionProblem[] {
  const out: GitopsOptionProblem[] = [];
  if (!isRec(options)) return out;
  const check = (path: (string | number)[], value: unknown, rule: (v: string) => string | undefined, code: string): void => {
    if (typeof value !== 'string') return;
    const problem = rule(value);
    if (problem !== undefined) out.push([['gitops', ...path], code, problem]);
  };
  const label = (v: string): string | undefined => {
    const errs = dns1123LabelErrors(v);
    return errs.length === 0 ? undefined : `must be a DNS-1123 label: ${errs.join('; ')} (got ${quote(v)})`;
  };
  const subdomain = (v: string): string | undefined => {
    const errs = dns1123SubdomainErrors(v);
    return errs.length === 0 ? undefined : `must be a DNS-1123 subdomain: ${errs.join('; ')} (got ${quote(v)})`;
  };

  const flux = isRec(options.flux) ? options.flux : undefined;
  if (flux) {
    check(['flux', 'namespace'], flux.namespace, label, 'E_GITOPS_NAME');
    if (isRec(flux.sourceRef)) {
      check(['flux', 'sourceRef', 'name'], flux.sourceRef.name, subdomain, 'E_GITOPS_NAME');
      check(['flux', 'sourceRef', 'namespace'], flux.sourceRef.namespace, label, 'E_GITOPS_NAME');
    }
    check(['flux', 'path'], flux.path, (v) => pathProblem(v, true), 'E_GITOPS_PATH');
    check(['flux', 'interval'], flux.interval, (v) => durationProblem(v, MIN_INTERVAL_NS), 'E_GITOPS_DURATION');
    check(['flux', 'retryInterval'], flux.retryInterval, (v) => durationProblem(v), 'E_GITOPS_DURATION');
    check(['flux', 'timeout'], flux.timeout, (v) => durationProblem(v), 'E_GITOPS_DURATION');
  }

  const argocd = isRec(options.argocd) ? options.argocd : undefined;
  if (argocd) {
    check(['argocd', 'namespace'], argocd.namespace, label, 'E_GITOPS_NAME');
    check(['argocd', 'project'], argocd.project, subdomain, 'E_GITOPS_NAME');
    if (typeof argocd.repoURL === 'string') {
      for (const [code, message] of repoURLProblems(argocd.repoURL)) out.push([['gitops', 'argocd', 'repoURL'], code, message]);
    } else if (argocd.enabled === true && argocd.repoURL === undefined) {
      out.push([['gitops', 'argocd', 'repoURL'], 'E_GITOPS_REQUIRED', 'is required when argocd.enabled is true: the git URL of the repository that holds dist/']);
    }
    check(['argocd', 'targetRevision'], argocd.targetRevision, plainValueProblem, 'E_GITOPS_VALUE');
    check(['argocd', 'path'], argocd.path, (v) => pathProblem(v, false), 'E_GITOPS_PATH');
    check(['argocd', 'skrClusterName'], argocd.skrClusterName, clusterNameTemplateProblem, 'E_GITOPS_TEMPLATE');
    check(['argocd', 'kcpCluster'], argocd.kcpCluster, plainValueProblem, 'E_GITOPS_VALUE');
  }

  const garden = isRec(options.garden) ? options.garden : undefined;
  if (garden) {
    if (garden.enabled === true) {
      out.push([
        ['gitops', 'garden', 'enabled'],
        'E_GITOPS_GARDEN',
        'is no longer supported: Flux or Argo CD would replace the whole Shoot spec.extensions list, which KIM also writes; ' +
          'remove it and run `kyma-fleet apply garden`, which writes only the fleet\'s entries (docs/applying.md)',
      ]);
    }
  }
  return out;
}
