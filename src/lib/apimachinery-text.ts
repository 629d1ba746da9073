// How Go and apimachinery print the values our admission-mirroring rules report, so that a message
// carries upstream's text (`Invalid value: "<value>": <detail>`): the error ParseQuantity gives for a
// quantity Go cannot decode, a quantity's canonical String() (upstream reports `-1.5Gi` as `-1536Mi`),
// and time.Duration's String() (upstream reports a ttl of `-1h` as `-1h0m0s`). Shared.

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const QUANTITY_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
const QUANTITY_NUMERIC = 'unable to parse numeric part of quantity';
const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

const BINARY = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

interface QuantityParts {
  negative: boolean;
  /** The digits before and after the point, leading zeros of the integer part stripped. */
  num: string;
  denom: string;
  suffix: string;
}

/** Go's parseQuantityString (k8s.io/apimachinery/pkg/api/resource); a string is its error. */
function splitQuantity(str: string): QuantityParts | string {
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  let pos = 0;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos++;
  }
  while (pos < str.length && str[pos] === '0') pos++;
  if (pos >= str.length) return { negative, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    pos = i;
    if (num === '0' && denom === '' && str.slice(0, pos).replace(/^[+-]/, '') === '.') return QUANTITY_NUMERIC;
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) return QUANTITY_FORMAT_WRONG;
  return { negative, num, denom, suffix: str.slice(suffixStart) };
}

/** base and exponent of a suffix (Go's suffixer.interpret), or undefined. */
function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent' } | undefined {
  const b = BINARY.indexOf(suffix);
  if (b >= 0) return { base: 2, exponent: (b + 1) * 10, format: 'BinarySI' };
  if (Object.prototype.hasOwnProperty.call(DECIMAL, suffix)) return { base: 10, exponent: DECIMAL[suffix]!, format: 'DecimalSI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    if (!/^[+-]?[0-9]+$/.test(suffix.slice(1))) return undefined;
    const exponent = Number(suffix.slice(1));
    if (exponent < -(2 ** 31) || exponent > 2 ** 31 - 1) return undefined;
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

/** The error Go gives when it decodes `text` as a Quantity from JSON (spaces trimmed); undefined when it decodes. */
export function goQuantityDecodeError(text: string): string | undefined {
  const s = text.trim();
  if (s === '') return QUANTITY_FORMAT_WRONG;
  if (s === '0') return undefined;
  const parts = splitQuantity(s);
  if (typeof parts === 'string') return parts;
  if (!interpretSuffix(parts.suffix)) return QUANTITY_SUFFIX;
  return undefined;
}

const pow = (b: bigint, e: number) => b ** BigInt(e);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Whether ParseQuantity keeps the text as written: its int64 fast path applies and the text is
 * already canonical (decimal: scale a multiple of 3, no trailing "000", no leading 0; binary: the
 * number not a multiple of 8). So `-1E3` stays `-1E3` and `-1500Mi` stays `-1500Mi`.
 */
function keepsText(parts: QuantityParts, suffix: { exponent: number; format: string }): boolean {
  const shifted = parts.num + parts.denom;
  if (suffix.format === 'BinarySI') {
    if (parts.denom.length !== 0) return false;
    if (15 - parts.num.length - Math.trunc((suffix.exponent * 3) / 10) - 1 < 0) return false;
    const value = BigInt(shifted);
    if (value << BigInt(suffix.exponent) > INT64_MAX) return false;
    return (value & 7n) !== 0n;
  }
  if (18 - shifted.length < 0) return false;
  const scale = suffix.exponent - parts.denom.length;
  if (scale < -9 || BigInt(shifted) > INT64_MAX) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

/**
 * A quantity's String() as apimachinery prints it (its canonical form), for values Go decodes; values
 * beyond what BigInt arithmetic here covers sensibly (exponents over 10^6) are returned as written.
 */
export function canonicalQuantity(text: string): string {
  const s = text.trim();
  const parts = splitQuantity(s);
  if (typeof parts === 'string') return text;
  const suffix = interpretSuffix(parts.suffix);
  if (!suffix || Math.abs(suffix.exponent) > 1_000_000) return text;
  if (s !== '0' && keepsText(parts, suffix)) return s;
  // The exact value in nano units, rounded up (away from zero) to a whole nano, as ParseQuantity does.
  const digits = BigInt(parts.num + parts.denom);
  let numerator = digits * (suffix.base === 2 ? pow(2n, suffix.exponent) : 1n);
  let denominator = pow(10n, parts.denom.length);
  const decimalExponent = suffix.base === 10 ? suffix.exponent + 9 : 9;
  if (decimalExponent >= 0) numerator *= pow(10n, decimalExponent);
  else denominator *= pow(10n, -decimalExponent);
  let nanos = numerator / denominator + (numerator % denominator === 0n ? 0n : 1n);
  if (nanos === 0n) return '0';
  let format = suffix.format;
  const sign = parts.negative ? '-' : '';
  const ONE = 1_000_000_000n;
  // A binary quantity's magnitude is capped at 2^63-1 (ParseQuantity's maxAllowed).
  if (format === 'BinarySI' && nanos > INT64_MAX * ONE) nanos = INT64_MAX * ONE;
  if (format === 'BinarySI' && (nanos < 1024n * ONE || nanos % ONE !== 0n)) format = 'DecimalSI';
  if (format === 'BinarySI') {
    let whole = nanos / ONE;
    let k = 0;
    while (k < BINARY.length && whole % 1024n === 0n) {
      whole /= 1024n;
      k++;
    }
    return `${sign}${whole}${k === 0 ? '' : BINARY[k - 1]}`;
  }
  // Decimal: the largest exponent (a multiple of 3, from -9) that leaves an integer mantissa.
  let exponent = -9;
  while (nanos % 1000n === 0n) {
    nanos /= 1000n;
    exponent += 3;
  }
  if (format === 'DecimalExponent') return `${sign}${nanos}${exponent === 0 ? '' : `e${exponent}`}`;
  const decimalSuffix = Object.entries(DECIMAL).find(([, e]) => e === exponent)?.[0];
  return decimalSuffix !== undefined ? `${sign}${nanos}${decimalSuffix}` : `${sign}${nanos}e${exponent}`;
}

/** Go's time.Duration.String() of a number of nanoseconds (e.g. -1h0m0s, 1.5s, 300ms, 0s). */
export function goDurationString(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const neg = nanoseconds < 0n;
  let u = neg ? -nanoseconds : nanoseconds;
  const fraction = (v: bigint, precision: number): string => {
    // v has `precision` digits after the point; trailing zeros and a bare point are dropped.
    const str = v.toString().padStart(precision + 1, '0');
    const whole = str.slice(0, str.length - precision);
    const frac = str.slice(str.length - precision).replace(/0+$/, '');
    return frac === '' ? whole : `${whole}.${frac}`;
  };
  let out: string;
  if (u < 1_000_000_000n) {
    if (u < 1000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${fraction(u, 3)}µs`;
    else out = `${fraction(u, 6)}ms`;
  } else {
    const secondsPart = fraction(u % 60_000_000_000n, 9);
    u /= 60_000_000_000n;
    out = `${secondsPart}s`;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}
