// Regular expressions out of the words a user reads (issue 26, item 5): the rules quote upstream's
// admission messages verbatim (apimachinery's "regex used for validation is '…'", resource.Quantity's
// "must match the regular expression '…'"), which the oracle tests compare with the Go code. A
// diagnostic's message is made plain here, once, where every diagnostic of a run passes
// (normalizeDiagnostics): the pattern moves to `details.pattern`, which only --output json shows.

import { quantitySuggestion } from './quantity';
import { hostPortErrors } from './url-rules';

/** What a message says about a pattern, and the words that replace it (`message`: the whole message). */
const RULES: ReadonlyArray<{ readonly re: RegExp; readonly words: (pattern: string, message: string) => string }> = [
  // apimachinery RegexError: "(e.g. 'example.com', regex used for validation is '<re>')"
  { re: /, regex used for validation is '([^']*)'\)/, words: () => ')' },
  // resource.Quantity's decoding error: the quantities a size written as people write sizes may mean.
  {
    re: /quantities must match the regular expression '([^']*)'/,
    words: (_p, message) => {
      const value = invalidValue(message);
      const suggestion = value === undefined ? undefined : quantitySuggestion(value);
      return `not a Kubernetes quantity: ${suggestion ?? 'a number and an optional unit such as Gi, Mi, G or M, without spaces'}`;
    },
  },
  // Go's decoding error for a suffix it does not know (`1K`, `5 gb`): the quantities meant, if any.
  {
    re: /unable to parse quantity's suffix()/,
    words: (_p, message) => {
      const value = invalidValue(message);
      const suggestion = value === undefined ? undefined : quantitySuggestion(value);
      return suggestion ? `not a Kubernetes quantity: ${suggestion}` : "unable to parse quantity's suffix";
    },
  },
  { re: /should match '(\^\[a-z\]\+\$)'/, words: () => 'must be lowercase letters only' },
  { re: /must match the module catalog pattern '([^']*)'/, words: () => "must be the name of a module: lowercase words of at least 3 letters joined by '-'" },
];

/** The message without regular expressions, and the first pattern it named (undefined when none). */
export function plainMessage(message: string): { message: string; pattern?: string } {
  let out = message;
  let pattern: string | undefined;
  const scheme = schemeFirst(out);
  if (scheme) {
    pattern = scheme.pattern;
    out = scheme.message;
  }
  for (const rule of RULES) {
    const m = rule.re.exec(out);
    if (!m) continue;
    if (m[1]) pattern ??= m[1];
    out = out.slice(0, m.index) + rule.words(m[1]!, out) + out.slice(m.index + m[0].length);
  }
  out = withNameSuggestion(out);
  return pattern === undefined && out === message ? { message } : pattern === undefined ? { message: out } : { message: out, pattern };
}

/** The value of apimachinery's `Invalid value: "<value>": …`, undefined when there is none. */
function invalidValue(message: string): string | undefined {
  const m = /Invalid value: ("(?:[^"\\]|\\.)*")/.exec(message);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return undefined;
  }
}

const SCHEME_HINT = ' (an upstream is host[:port], without scheme)';

/**
 * An upstream with a scheme: upstream's admission text (kept verbatim by the rule, for the oracle)
 * buries the fix at the end; the user reads "drop https://" first, with what to write, and only
 * what is still wrong without the scheme.
 */
function schemeFirst(message: string): { message: string; pattern?: string } | undefined {
  if (!message.endsWith(SCHEME_HINT)) return undefined;
  const value = invalidValue(message);
  const m = value === undefined ? null : /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(.*)$/.exec(value);
  if (!m) return undefined;
  const host = m[2]!.replace(/\/+$/, '');
  const detail = message.slice(`Invalid value: ${JSON.stringify(value)}: `.length, -SCHEME_HINT.length);
  const drop = `Invalid value: ${JSON.stringify(value)}: drop ${JSON.stringify(m[1])}: an upstream is host[:port], without scheme`;
  if (host === '' || host.includes('/')) return { message: `${drop} or path` };
  const rest = hostPortErrors(host);
  if (rest.length === 0) return { message: `${drop}: write ${JSON.stringify(host)}` };
  // Still wrong without the scheme: this message's part of it (the rule reports each fault once).
  const pattern = /regex used for validation is '([^']*)'/.exec(detail)?.[1];
  const restOfThis = rest.some((r: string) => r === detail) ? `; what is left, ${JSON.stringify(host)}, is not valid either: ${detail}` : '';
  return { message: `${drop}${restOfThis}`, ...(pattern ? { pattern } : {}) };
}

/**
 * A name that is not a DNS-1123 label or subdomain: the normalized name that would be one is
 * appended (`Shop_Rules` -> `use "shop-rules"`), so the fix is in the message.
 */
function withNameSuggestion(message: string): string {
  const label = /RFC 1123 label|DNS-1123 label/.test(message);
  const subdomain = /RFC 1123 subdomain/.test(message);
  // Not where the value is more than a name (an upstream with a scheme says what to drop instead).
  if ((!label && !subdomain) || /; use "|drop "/.test(message)) return message;
  const got = /\(got ("(?:[^"\\]|\\.)*")\)/.exec(message) ?? /Invalid value: ("(?:[^"\\]|\\.)*")/.exec(message);
  if (!got) return message;
  let value: string;
  try {
    value = JSON.parse(got[1]!) as string;
  } catch {
    return message;
  }
  // Text, not a name someone mistyped (a pasted key, a sentence): nothing to suggest.
  if (/\s/.test(value)) return message;
  const name = normalizedName(value, label ? 'label' : 'subdomain');
  return name === undefined || name === value ? message : `${message}; use ${JSON.stringify(name)}`;
}

/** The DNS-1123 label (or subdomain) a name most likely means: lowercase, other characters as '-'. */
export function normalizedName(value: string, kind: 'label' | 'subdomain'): string | undefined {
  const other = kind === 'label' ? /[^a-z0-9]+/g : /[^a-z0-9.]+/g;
  let name = value.toLowerCase().replace(other, '-');
  if (kind === 'subdomain') name = name.replace(/\.{2,}/g, '.').replace(/-?\.-?/g, '.');
  name = name.replace(/^[-.]+|[-.]+$/g, '');
  const max = kind === 'label' ? 63 : 253;
  if (name.length > max) name = name.slice(0, max).replace(/[-.]+$/, '');
  return name === '' ? undefined : name;
}
