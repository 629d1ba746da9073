// Which API servers the status reporter may contact with a kubeconfig read from a runtime's
// `kubeconfig-<runtimeID>` Secret in the KCP. The Secret is data from a cluster: whoever can write
// it could otherwise point the reporter's requests anywhere (an internal address of the CI network,
// a server that answers with a made-up status). The fleet declares the allowed servers in
// fleet.yaml (`spec.skrApiServers`), as host patterns an operator knows from certificates and
// no_proxy lists:
//
//   api.c-1a2b3c.kyma.ondemand.com     exactly this host, on port 443 (https' default)
//   *.kyma.ondemand.com                any host below kyma.ondemand.com (not kyma.ondemand.com itself), port 443
//   *.kyma.ondemand.com:6443           ... on port 6443 only
//   127.0.0.1:*                        this address on any port
//   [::1]:*                            an IPv6 address, in brackets
//
// The server URL is parsed as the HTTP client parses it (WHATWG URL: percent-decoded, IDNA and
// lowercase host, IPv4 shorthands normalised) and only its host and port are compared, so
// `https://api.evil.example/?x=.kyma.ondemand.com`, `https://api.x.kyma.ondemand.com@evil.example`,
// `https://evil.example#.kyma.ondemand.com`, a port or upper case never pass for another host. URLs
// with user info, a query or a fragment are refused outright: a kube-apiserver URL has none.
// Pure: no I/O.

import * as net from 'node:net';

export interface SkrServerPattern {
  /** As written in fleet.yaml. */
  readonly text: string;
  /** Lowercase host; for a wildcard the domain below which hosts match. */
  readonly host: string;
  readonly wildcard: boolean;
  /** A port number, any port ('*'), or 443 (undefined). */
  readonly port: number | '*' | undefined;
}

export type SkrServerCheck = { readonly ok: true } | { readonly ok: false; readonly host: string; readonly why: string };

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_PATTERN_LENGTH = 260;

/** Parses one pattern; a string says what is wrong with it. */
export function parseSkrServerPattern(text: string): SkrServerPattern | string {
  if (text.length === 0 || text.length > MAX_PATTERN_LENGTH) return `must be a host pattern of 1 to ${MAX_PATTERN_LENGTH} characters`;
  if (/[/?#@\s\\]/.test(text) || text.includes('://')) {
    return 'must be a host pattern such as "*.kyma.ondemand.com" or "api.example.com:6443", not a URL';
  }
  if (net.isIPv6(text)) return 'an IPv6 address must be written in brackets, e.g. "[::1]:*"';
  let rest = text.toLowerCase();
  let port: number | '*' | undefined;
  const portMatch = /:(\*|[0-9]{1,5})$/.exec(rest);
  if (portMatch && !(rest.startsWith('[') && !rest.includes(']:'))) {
    const p = portMatch[1]!;
    if (p !== '*' && (Number(p) < 1 || Number(p) > 65535 || p.startsWith('0'))) return 'port must be 1 to 65535 or *';
    port = p === '*' ? '*' : Number(p);
    rest = rest.slice(0, -portMatch[0].length);
  }
  if (rest.startsWith('[')) {
    const inner = rest.endsWith(']') ? rest.slice(1, -1) : '';
    if (!net.isIPv6(inner)) return 'an IPv6 address must be written in brackets, e.g. "[::1]:*"';
    return { text, host: new URL(`https://[${inner}]/`).hostname, wildcard: false, port };
  }
  if (rest.includes(':')) return 'a port goes last, after one colon: "HOST:PORT" or "HOST:*"';
  const wildcard = rest.startsWith('*.');
  const host = wildcard ? rest.slice(2) : rest;
  if (host.includes('*')) return '"*" is allowed only as the whole leftmost label ("*.example.com")';
  if (net.isIPv4(host)) {
    if (wildcard) return 'a wildcard needs a domain name, not an IP address';
    return { text, host, wildcard, port };
  }
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((l) => DNS_LABEL.test(l))) return `${JSON.stringify(host)} is not a valid DNS name or IP address`;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return `${JSON.stringify(host)} is not a valid DNS name or IP address`;
  if (wildcard && labels.length < 2) return `"*.${host}" would allow every host of a top-level domain; name the landscape's domain`;
  return { text, host, wildcard, port };
}

/** Parses every pattern; throws RangeError for an invalid one (fleet validation refuses them first). */
export function parseSkrServerPatterns(texts: readonly string[]): SkrServerPattern[] {
  return texts.map((t) => {
    const p = parseSkrServerPattern(t);
    if (typeof p === 'string') throw new RangeError(`skrApiServers: ${JSON.stringify(t)}: ${p}`);
    return p;
  });
}

/**
 * Checks a kubeconfig's cluster server URL against the patterns. `host` in a refusal is the host
 * (and port) the URL points at, safe to show.
 */
export function checkSkrServer(server: string, patterns: readonly SkrServerPattern[]): SkrServerCheck {
  const url = safeUrl(server);
  if (!url) return { ok: false, host: '(unparsable)', why: 'the server URL cannot be parsed' };
  const shown = url.host || '(no host)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, host: shown, why: `the server URL has the scheme ${url.protocol}` };
  if (url.username !== '' || url.password !== '') return { ok: false, host: shown, why: 'the server URL carries user info (user@host)' };
  if (url.search !== '' || url.hash !== '') return { ok: false, host: shown, why: 'the server URL carries a query or a fragment' };
  // The client sends requests to the server URL with API paths appended: they must reach the same
  // authority (they do for every URL that passed the checks above; this keeps it so).
  let base = server;
  while (base.endsWith('/')) base = base.slice(0, -1);
  const joined = safeUrl(`${base}/apis/x`);
  if (!joined || joined.host !== url.host) return { ok: false, host: shown, why: 'the server URL changes host when API paths are appended' };
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  if (host === '') return { ok: false, host: shown, why: 'the server URL has no host' };
  // WHATWG URL drops a port equal to the scheme's default: '' means 443 for https, 80 for http.
  // A pattern without a port allows 443 only, so plain http needs an explicit port.
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  const port = url.port === '' ? defaultPort : Number(url.port);
  for (const p of patterns) {
    const hostOk = p.wildcard ? host.endsWith(`.${p.host}`) && !host.startsWith('[') : host === p.host;
    const portOk = p.port === '*' || (p.port ?? 443) === port;
    if (hostOk && portOk) return { ok: true };
  }
  return { ok: false, host: shown, why: 'no pattern of skrApiServers allows it' };
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
