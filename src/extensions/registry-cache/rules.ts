// Rules over registry-cache settings, mirroring the admission checks of gardener-extension-registry-cache
// (`ValidateRegistryConfig`) and the Kyma registry-cache webhook with their messages, plus what KIM
// needs (no "reg-cache-" names). One small function per rule; checks that need the cluster (DNS
// resolution, Secrets, immutability against the live objects) are out of reach here.

import { quote, type DocPath } from '../../lib/diagnostics';
import { parseGoDuration } from '../../lib/go-duration';
import { dns1123LabelErrors, dns1123SubdomainErrors, KIM_RESERVED_NAME_PART } from '../../lib/k8s-names';
import { parseQuantity } from '../../lib/quantity';
import { canonicalQuantity, goDurationString, goQuantityDecodeError } from '../../lib/apimachinery-text';
// URL and host[:port] rules of gardener-extension-registry-cache's admission (`ValidateURL`, `validateHostPort`).
import { goQuote, hostPortErrors, httpURLErrors, redactUserInfo } from '../../lib/url-rules';
import { cacheObjectName } from './naming';
import type { RuleReporter } from '../types';
import {
  MAX_DURATION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_NAMESPACE_LENGTH,
  MAX_QUANTITY_LENGTH,
  MAX_UPSTREAM_LENGTH,
  MAX_URL_LENGTH,
} from './schema';

export const Code = {
  Upstream: 'E_REGCACHE_UPSTREAM',
  Duplicate: 'E_REGCACHE_DUPLICATE',
  URL: 'E_REGCACHE_URL',
  Quantity: 'E_QUANTITY',
  StorageClass: 'E_REGCACHE_STORAGE_CLASS',
  Duration: 'E_DURATION',
  SecretName: 'E_SECRET_NAME',
  Namespace: 'E_REGCACHE_NAMESPACE',
  NoCaches: 'E_REGCACHE_NO_CACHES',
} as const;

type Settings = Record<string, unknown>;
type Rule = (value: Settings, reporter: RuleReporter) => void;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A string the format rules check. Values of another type or over the schema's maxLength are left
 * to the schema, which reports them; ajv counts code points, so does this.
 */
function checkable(v: unknown, maxLength: number): v is string {
  return typeof v === 'string' && !(v.length > maxLength && Array.from(v).length > maxLength);
}

/** ` (got "value")`, with any user info of a host or URL redacted. */
function got(value: string): string {
  return ` (got ${quote(redactUserInfo(value))})`;
}

/** Longest value shown whole in an `Invalid value` message (every capped field but URLs fits). */
const MAX_SHOWN = 300;

/**
 * apimachinery's `Invalid value: "<value>": <detail>` (the value as Go's %q prints it), so that a
 * message carries upstream's field error text after our own path; user info redacted, long URLs shortened.
 */
function invalid(value: string, detail: string): string {
  const shown = goQuote(redactUserInfo(value));
  return `Invalid value: ${shown.length > MAX_SHOWN ? `${shown.slice(0, MAX_SHOWN - 4)}…${shown.slice(-3)}` : shown}: ${detail}`;
}

/** The cache entries of a layer (or of resolved settings) that are maps, with their index. */
function cacheEntries(value: Settings): Array<[number, Record<string, unknown>]> {
  const caches = value.caches;
  if (!Array.isArray(caches)) return [];
  const out: Array<[number, Record<string, unknown>]> = [];
  caches.forEach((cache, i) => {
    if (isRecord(cache)) out.push([i, cache]);
  });
  return out;
}

/** The string at `path` inside a cache, if it is one the rules check. */
function cacheString(cache: Record<string, unknown>, path: readonly string[], maxLength: number): string | undefined {
  let node: unknown = cache;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return checkable(node, maxLength) ? node : undefined;
}

function reportAll(reporter: RuleReporter, path: DocPath, code: string, messages: readonly string[]): void {
  for (const message of messages) reporter.report(path, code, message);
}

// ---------------------------------------------------------------------------------------------
// Rules over one layer's value

/** The namespace of the RegistryCacheConfig resources must be a DNS-1123 label. */
export const checkNamespace: Rule = (value, reporter) => {
  const ns = value.namespace;
  if (!checkable(ns, MAX_NAMESPACE_LENGTH)) return;
  reportAll(reporter, ['namespace'], Code.Namespace, dns1123LabelErrors(ns).map((m) => m + got(ns)));
};

/**
 * The messages for one upstream: `host[:port]`, no scheme, no path (GRC `ValidateUpstream`), as
 * upstream words them; with a scheme or a path, a hint follows upstream's text.
 */
export function upstreamErrors(upstream: string): string[] {
  // Upstream's texts, which the oracle compares (test/oracle/messages.test.ts); what the user reads
  // says "drop https://" first (src/lib/plain-messages.ts, issue 26).
  const hint = upstream.includes('://') ? ' (an upstream is host[:port], without scheme)' : upstream.includes('/') ? ' (an upstream is host[:port], without a path)' : '';
  return hostPortErrors(upstream).map((m) => invalid(upstream, m) + hint);
}

/** Every upstream is `host[:port]`: lowercase DNS-1123 host, port 1-65535, no scheme, no path. */
export const checkUpstreams: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    const upstream = cacheString(cache, ['upstream'], MAX_UPSTREAM_LENGTH);
    if (upstream === undefined) continue;
    reportAll(reporter, ['caches', i, 'upstream'], Code.Upstream, upstreamErrors(upstream));
  }
};

/** An upstream appears once per list (reported on the later entry, as GRC does). */
export const checkDuplicateUpstreams: Rule = (value, reporter) => {
  const first = new Map<string, number>();
  for (const [i, cache] of cacheEntries(value)) {
    const upstream = cache.upstream;
    if (typeof upstream !== 'string' || upstream === '') continue;
    const j = first.get(upstream);
    if (j === undefined) {
      first.set(upstream, i);
      continue;
    }
    reporter.report(
      ['caches', i, 'upstream'],
      Code.Duplicate,
      `Duplicate value: ${quote(redactUserInfo(upstream))} (first defined at caches[${j}])`,
    );
  }
};

const URL_FIELDS: readonly (readonly string[])[] = [['remoteURL'], ['proxy', 'httpProxy'], ['proxy', 'httpsProxy']];

/** remoteURL and the proxies are `http(s)://host[:port]` with nothing else (GRC `ValidateURL`). */
export const checkURLs: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    for (const field of URL_FIELDS) {
      const url = cacheString(cache, field, MAX_URL_LENGTH);
      if (url === undefined) continue;
      reportAll(reporter, ['caches', i, ...field], Code.URL, httpURLErrors(url).map((m) => invalid(url, m)));
    }
  }
};

/** volume.size is a quantity string greater than 0 (GRC `validatePositiveQuantity`). */
export const checkVolumeSize: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    const size = cacheString(cache, ['volume', 'size'], MAX_QUANTITY_LENGTH);
    if (size === undefined) continue;
    const quantity = parseQuantity(size);
    const path = ['caches', i, 'volume', 'size'];
    // Go's decoding error where Go refuses it too; else (spaces around it) the CRD pattern refuses it.
    // Upstream's decoding error (the oracle compares it); the user reads the suggested quantities
    // instead of its regular expression (src/lib/plain-messages.ts, issue 26).
    if (quantity === undefined) reporter.report(path, Code.Quantity, invalid(size, goQuantityDecodeError(size) ?? 'must be a Kubernetes quantity such as 10Gi, without spaces'));
    else if (quantity.sign <= 0) reporter.report(path, Code.Quantity, invalid(canonicalQuantity(size), 'must be greater than 0'));
  }
};

/** volume.storageClassName is a DNS-1123 subdomain. */
export const checkStorageClassName: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    const name = cacheString(cache, ['volume', 'storageClassName'], MAX_NAME_LENGTH);
    if (name === undefined) continue;
    const messages = dns1123SubdomainErrors(name).map((m) => invalid(name, m));
    reportAll(reporter, ['caches', i, 'volume', 'storageClassName'], Code.StorageClass, messages);
  }
};

/** garbageCollection.ttl is a Go duration (as metav1.Duration decodes it) and not negative. */
export const checkGarbageCollectionTTL: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    const ttl = cacheString(cache, ['garbageCollection', 'ttl'], MAX_DURATION_LENGTH);
    if (ttl === undefined) continue;
    const parsed = parseGoDuration(ttl);
    const path = ['caches', i, 'garbageCollection', 'ttl'];
    if (!parsed.ok) reporter.report(path, Code.Duration, invalid(ttl, parsed.error));
    else if (parsed.nanoseconds < 0n) reporter.report(path, Code.Duration, invalid(goDurationString(parsed.nanoseconds), 'ttl must be a non-negative duration'));
  }
};

/** secretReferenceName is a Secret name (DNS-1123 subdomain) without KIM's "reg-cache-". */
export const checkSecretReferenceName: Rule = (value, reporter) => {
  for (const [i, cache] of cacheEntries(value)) {
    const name = cacheString(cache, ['secretReferenceName'], MAX_NAME_LENGTH);
    if (name === undefined) continue;
    const messages = dns1123SubdomainErrors(name).map((m) => m + got(name));
    if (name.includes(KIM_RESERVED_NAME_PART)) {
      messages.push(
        `must not contain ${quote(KIM_RESERVED_NAME_PART)}: KIM reserves that for the secrets it copies to ` +
          `the Garden project${got(name)}`,
      );
    }
    reportAll(reporter, ['caches', i, 'secretReferenceName'], Code.SecretName, messages);
  }
};

// ---------------------------------------------------------------------------------------------
// Rules over the resolved settings of a runtime where the extension is enabled

/** An enabled extension has at least one enabled cache (GRC: `caches` must not be empty). */
export const checkAtLeastOneCache: Rule = (value, reporter) => {
  if (value.enabled === false) return;
  const enabled = cacheEntries(value).filter(([, cache]) => cache.enabled !== false);
  if (enabled.length > 0) return;
  reporter.report(['enabled'], Code.NoCaches, 'caches: Required value: at least one cache must be provided');
};

// ---------------------------------------------------------------------------------------------
// Entry points

const LAYER_RULES: readonly Rule[] = [
  checkNamespace,
  checkUpstreams,
  checkDuplicateUpstreams,
  checkURLs,
  checkVolumeSize,
  checkStorageClassName,
  checkGarbageCollectionTTL,
  checkSecretReferenceName,
];

const RESOLVED_RULES: readonly Rule[] = [checkAtLeastOneCache, checkDerivedNames];

/** Rules over one layer's value of `extensions.registry-cache` (paths relative to it). */
export function validateLayer(value: Settings, reporter: RuleReporter): void {
  for (const rule of LAYER_RULES) rule(value, reporter);
}

/** Rules over the merged settings of one runtime where the extension is enabled. */
/**
 * Two upstreams must not derive the same RegistryCacheConfig name ("my-reg.io:5000" and
 * "my-reg.io-5000" both give "my-reg.io-5000"): the second object would replace the first.
 */
function checkDerivedNames(value: Settings, reporter: RuleReporter): void {
  const caches = Array.isArray(value.caches) ? (value.caches as Array<{ upstream?: unknown }>) : [];
  const seen = new Map<string, string>();
  caches.forEach((c, i) => {
    if (typeof c.upstream !== 'string') return;
    const name = cacheObjectName(c.upstream);
    const other = seen.get(name);
    if (other !== undefined) {
      reporter.report(['caches', i, 'upstream'], 'E_OUTPUT_COLLISION', `upstreams ${quote(other)} and ${quote(c.upstream)} would both be rendered as RegistryCacheConfig ${quote(name)}; only one of them can be cached`);
    } else seen.set(name, c.upstream);
  });
}

export function validateResolved(value: Settings, reporter: RuleReporter): void {
  for (const rule of RESOLVED_RULES) rule(value, reporter);
}
