// Go's time.ParseDuration (`168h`, `1h30m`, `300ms`, `0s`) with its exact error wording, because
// Kubernetes decodes metav1.Duration fields with it and users will meet those messages on the
// cluster. Shared by extensions. No days unit, no ISO 8601 (`P7D`).

export type GoDurationResult =
  | { readonly ok: true; readonly nanoseconds: bigint }
  | { readonly ok: false; readonly error: string };

/** Nanoseconds per unit, as Go's time.unitMap (both micro signs, U+00B5 and U+03BC). */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const TWO_63 = 1n << 63n;

/**
 * The quoting of Go's time package (not strconv.Quote): ASCII control and non-ASCII characters
 * become `\xNN` per UTF-8 byte, `"` and `\` are backslash-escaped.
 */
export function goTimeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Parses a Go duration. Negative results are allowed here; callers decide (e.g. a ttl ≥ 0). */
export function parseGoDuration(orig: string): GoDurationResult {
  const invalid = (): GoDurationResult => ({ ok: false, error: `time: invalid duration ${goTimeQuote(orig)}` });
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanoseconds: 0n };
  if (s === '') return invalid();

  let d = 0n;
  while (s !== '') {
    // The next character must be [0-9.]
    if (!(s[0] === '.' || isDigit(s[0]))) return invalid();

    // Consume [0-9]* (Go's leadingInt, with its overflow checks).
    let v = 0n;
    let i = 0;
    for (; isDigit(s[i]); i++) {
      if (v > TWO_63 / 10n) return invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO_63) return invalid();
    }
    const pre = i > 0;
    s = s.slice(i);

    // Consume (\.[0-9]*)? (Go's leadingFraction: digits past overflow are skipped, not an error).
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let overflow = false;
      let j = 0;
      for (; isDigit(s[j]); j++) {
        if (overflow) continue;
        if (f > (TWO_63 - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return invalid(); // no digits, e.g. ".s" or "-.s"

    // Consume the unit: everything up to the next '.' or digit.
    let u = 0;
    while (u < s.length && !(s[u] === '.' || isDigit(s[u]))) u++;
    if (u === 0) return { ok: false, error: `time: missing unit in duration ${goTimeQuote(orig)}` };
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS.get(unitName);
    if (unit === undefined) {
      return { ok: false, error: `time: unknown unit ${goTimeQuote(unitName)} in duration ${goTimeQuote(orig)}` };
    }
    if (v > TWO_63 / unit) return invalid();
    v *= unit;
    if (f > 0n) {
      // Go computes the fraction in float64 and truncates: uint64(float64(f) * (float64(unit) / scale)).
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) return invalid();
    }
    d += v;
    if (d > TWO_63) return invalid();
  }
  if (neg) return { ok: true, nanoseconds: -d };
  if (d > TWO_63 - 1n) return invalid();
  return { ok: true, nanoseconds: d };
}
