// The format rules of `Fleet.spec.gitops` (./gitops-schema.ts holds its JSON Schema and defaults):
// Go durations with Flux's minimum interval, repository paths, plain values, cluster name templates
// and repository URLs, each problem with a stable code and a message that says what to write
// instead. Pure: no I/O.

import { quote } from '../lib/diagnostics';
import { parseGoDuration } from '../lib/go-duration';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../lib/k8s-names';
import { parseGoURL, redactUserInfo } from '../lib/url-rules';
import { CLUSTER_NAME_PLACEHOLDERS, MIN_INTERVAL_NS } from './gitops-schema';

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
      // An ArtifactGenerator names its source by the CRD pattern ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$: no dots.
      const generatorSource = flux.artifacts === undefined || flux.artifacts === 'per-runtime';
      check(['flux', 'sourceRef', 'name'], flux.sourceRef.name, (v) => {
        const problem = subdomain(v);
        if (problem !== undefined || !generatorSource || !v.includes('.')) return problem;
        return `must not contain "." while flux.artifacts is per-runtime: the ArtifactGenerator that reads the source refuses dots in its name; rename the source or set flux.artifacts to whole-source (got ${quote(v)})`;
      }, 'E_GITOPS_NAME');
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
