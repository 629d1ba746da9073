// URL and host[:port] checks as Gardener extensions run them (Go's net/url.Parse, then the upstream
// admission's `ValidateURL` / `validateHostPort`; the extension that uses them names that source in
// its rules), with the same messages,
// and with user info redacted so a password written into a URL is never echoed (H49). Shared.

import { dns1123SubdomainErrors } from './k8s-names';

export interface GoUserinfo {
  readonly username: string;
  readonly password?: string;
}

/** The fields of Go's url.URL that the rules read. */
export interface GoURL {
  readonly scheme: string;
  readonly opaque: string;
  readonly user?: GoUserinfo;
  readonly host: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly fragment: string;
}

export type GoURLResult = { readonly ok: true; readonly url: GoURL } | { readonly ok: false; readonly error: string };

/** Longest URL shown inside a message, as diagnostics' `quote()` shortens values. */
const MAX_SHOWN = 80;

/**
 * Replaces the user info of a URL-like string: `user:pw@` becomes `user:***@`, a lone `token@`
 * becomes `***@` (tokens are often passed as the user name). Works on unparsable input too, and
 * rather redacts too much (an `@` in a path) than too little.
 */
export function redactUserInfo(raw: string): string {
  const schemeEnd = raw.indexOf('://');
  const start = schemeEnd === -1 ? 0 : schemeEnd + 3;
  const at = raw.lastIndexOf('@');
  if (at < start) return raw;
  const userinfo = raw.slice(start, at);
  const colon = userinfo.indexOf(':');
  const shown = colon === -1 ? '***' : `${userinfo.slice(0, colon)}:***`;
  return raw.slice(0, start) + shown + raw.slice(at);
}

/** Go's strconv.Quote, for the text of url.Parse errors. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += ch; // unicode.IsPrint
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}

function shortGoQuote(s: string): string {
  const q = goQuote(s);
  return q.length > MAX_SHOWN ? `${q.slice(0, MAX_SHOWN - 4)}…${q.slice(-3)}` : q;
}

class URLError extends Error {}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

function isAsciiAlnum(c: string): boolean {
  return /^[A-Za-z0-9]$/.test(c);
}

type Mode = 'path' | 'host' | 'userPassword' | 'fragment';

/** Characters net/url accepts unescaped in a host (shouldEscape(c, encodeHost) == false). */
function hostCharAllowed(c: string): boolean {
  return isAsciiAlnum(c) || "-_.~!$&'()*+,;=:[]<>\"".includes(c);
}

/** Go's url.unescape: checks %-escapes (and host characters) and decodes. */
function unescape(s: string, mode: Mode): string {
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new URLError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      // In a host, %-encoding is only for non-ASCII bytes (and %25 for IPv6 zones).
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') {
        throw new URLError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      i += 3;
    } else {
      if (mode === 'host' && c.charCodeAt(0) < 0x80 && !hostCharAllowed(c)) {
        throw new URLError(`invalid character ${goQuote(c)} in host name`);
      }
      i++;
    }
  }
  if (!s.includes('%')) return s;
  // Decode in the byte domain, as Go does (an escape may be one byte of a UTF-8 sequence).
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 0x25) {
      out.push(parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16));
      i += 2;
    } else {
      out.push(src[i]!);
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** validOptionalPort: "" or ":" followed by digits only. */
function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function validUserinfo(s: string): boolean {
  for (const c of s) {
    if (isAsciiAlnum(c)) continue;
    if ("-._:~!$&'()*+,;=%@".includes(c)) continue;
    return false;
  }
  return true;
}

/** Unescapes a part of the user info; an error names no character of it (it may be a password). */
function unescapeSecret(s: string): string {
  try {
    return unescape(s, 'userPassword');
  } catch {
    throw new URLError('invalid URL escape "***"');
  }
}

function parseAuthority(authority: string): { user?: GoUserinfo; host: string } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return { host };
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new URLError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon === -1) return { user: { username: unescapeSecret(userinfo) }, host };
  return {
    user: { username: unescapeSecret(userinfo.slice(0, colon)), password: unescapeSecret(userinfo.slice(colon + 1)) },
    host,
  };
}

/** Go's getScheme: `[a-zA-Z][a-zA-Z0-9+.-]*:` or no scheme. */
function getScheme(raw: string): [scheme: string, rest: string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/^[A-Za-z]$/.test(c)) continue;
    if (/^[0-9+.-]$/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

// Go's parse(rawURL, viaRequest=false), without the fragment.
function parseWithoutFragment(raw: string): Omit<GoURL, 'fragment'> {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '*') return { scheme: '', opaque: '', host: '', path: '*', rawQuery: '' };
  const [rawScheme, afterScheme] = getScheme(raw);
  const scheme = rawScheme.toLowerCase();
  let rest = afterScheme;
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1); // ForceQuery, RawQuery stays empty
  } else {
    const q = rest.indexOf('?');
    if (q !== -1) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, opaque: rest, host: '', path: '', rawQuery };
    const firstSegment = rest.split('/', 1)[0]!;
    if (firstSegment.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  let user: GoUserinfo | undefined;
  let host = '';
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    ({ user, host } = parseAuthority(authority));
  }
  const path = unescape(rest, 'path');
  return { scheme, opaque: '', ...(user ? { user } : {}), host, path, rawQuery };
}

/**
 * Go's url.Parse. Errors have Go's wording (`parse "<url>": <reason>`) except that the URL in them
 * has its user info redacted and is shortened like any quoted value.
 */
export function parseGoURL(raw: string): GoURLResult {
  const hash = raw.indexOf('#');
  const u = hash === -1 ? raw : raw.slice(0, hash);
  const frag = hash === -1 ? '' : raw.slice(hash + 1);
  let url: Omit<GoURL, 'fragment'>;
  try {
    url = parseWithoutFragment(u);
  } catch (e) {
    if (!(e instanceof URLError)) throw e;
    return { ok: false, error: `parse ${shortGoQuote(redactUserInfo(u))}: ${e.message}` };
  }
  let fragment = '';
  if (frag !== '') {
    try {
      fragment = unescape(frag, 'fragment');
    } catch (e) {
      if (!(e instanceof URLError)) throw e;
      return { ok: false, error: `parse ${shortGoQuote(redactUserInfo(raw))}: ${e.message}` };
    }
  }
  return { ok: true, url: { ...url, fragment } };
}

const DIGITS = /^[0-9]+$/;
const PORT = /^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/;

/**
 * The upstream admission's `validateHostPort`: `<host>[:<port>]`, the host a DNS-1123
 * subdomain, the port 1-65535. Only an all-digit tail after the last ':' counts as a port; anything
 * else stays part of the host (and fails the subdomain check).
 */
export function hostPortErrors(hostPort: string): string[] {
  const errs: string[] = [];
  let host = hostPort;
  const colon = hostPort.lastIndexOf(':');
  if (colon !== -1) {
    const port = hostPort.slice(colon + 1);
    if (DIGITS.test(port)) {
      host = hostPort.slice(0, colon);
      if (!PORT.test(port)) errs.push(`port '${port}' is not valid, valid port must be in the range [1, 65535]`);
    }
  }
  return [...errs, ...dns1123SubdomainErrors(host)];
}

export interface HttpURLOptions {
  /** Allow a path after the host (GRC passes false for remoteURL and proxies). */
  readonly allowPath?: boolean;
}

/**
 * The upstream admission's `ValidateURL` (v0.23+): the messages, empty when valid. A parse
 * error or a wrong scheme is the only message; otherwise each fault gives one.
 */
export function httpURLErrors(raw: string, options: HttpURLOptions = {}): string[] {
  const parsed = parseGoURL(raw);
  if (!parsed.ok) return [`failed to parse url: ${parsed.error}`];
  const url = parsed.url;
  if (url.scheme !== 'http' && url.scheme !== 'https') return ["url must start with 'http://' or 'https://' scheme"];
  const errs = hostPortErrors(url.host);
  if (!options.allowPath && url.path !== '' && url.path !== '/') errs.push('url must not contain a path');
  if (url.user !== undefined) errs.push('url must not contain user info');
  if (url.rawQuery !== '') errs.push('url must not contain query parameters');
  if (url.fragment !== '') errs.push('url must not contain a fragment');
  return errs;
}
