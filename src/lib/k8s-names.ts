// DNS-1123 name checks with the exact messages of k8s.io/apimachinery/pkg/util/validation, so a
// fleet error reads like the admission error the cluster would return. Shared by all extensions.
// Checked by hand instead of by regex: linear time on any input (Go's RE2 is linear, JS regex is not).

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;

/** apimachinery `RegexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com")`. */
export const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for " +
  `validation is '${SUBDOMAIN_FMT}')`;

/**
 * apimachinery `RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc")`. The double
 * space after `'my-name',` is in the original (RegexError joins examples with `', ' + ' or '`).
 */
export const DNS1123_LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must " +
  "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for " +
  `validation is '${LABEL_FMT}')`;

/** apimachinery `MaxLenError`. */
export function maxLengthMessage(max: number): string {
  return `must be no more than ${max} characters`;
}

/** Go measures strings in bytes; so do the length limits here. */
function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39); // a-z, 0-9
}

/** `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` */
function matchesLabel(value: string, from = 0, to = value.length): boolean {
  if (to <= from) return false;
  if (!isAlnum(value.charCodeAt(from)) || !isAlnum(value.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = value.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d) return false; // '-'
  }
  return true;
}

/** `^label(\.label)*$` */
function matchesSubdomain(value: string): boolean {
  let start = 0;
  for (;;) {
    const dot = value.indexOf('.', start);
    const end = dot === -1 ? value.length : dot;
    if (!matchesLabel(value, start, end)) return false;
    if (dot === -1) return true;
    start = dot + 1;
  }
}

/** apimachinery `IsDNS1123Subdomain`: the messages, empty when valid (≤253 bytes, lowercase, dots). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!matchesSubdomain(value)) errs.push(DNS1123_SUBDOMAIN_MESSAGE);
  return errs;
}

/** apimachinery `IsDNS1123Label`: the messages, empty when valid (≤63 bytes, lowercase, no dots). */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLengthMessage(DNS1123_LABEL_MAX_LENGTH));
  if (!matchesLabel(value)) {
    // A valid subdomain that is not a valid label can only be wrong by its dots.
    errs.push(matchesSubdomain(value) ? 'must not contain dots' : DNS1123_LABEL_MESSAGE);
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): boolean {
  return dns1123SubdomainErrors(value).length === 0;
}

export function isDNS1123Label(value: string): boolean {
  return dns1123LabelErrors(value).length === 0;
}

/**
 * KIM names the Garden copies it makes of cache credential Secrets `reg-cache-<uuid>` and drops and
 * rebuilds every Shoot spec.resources entry whose name contains this, so no other Secret the fleet
 * references through spec.resources may contain it (kyma-gardener-apis.md §8).
 */
export const KIM_RESERVED_NAME_PART = 'reg-cache-';
