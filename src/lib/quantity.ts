// Kubernetes resource quantities (`10Gi`, `500m`, `1e3`) accepted exactly when the API server would
// accept them: the OpenAPI pattern of resource.Quantity and Go's resource.ParseQuantity must both
// pass. Shared by extensions that take sizes, CPU or memory.

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** -1, 0 or 1: the sign of the exact value (`-0` and `0.000` are 0). */
  readonly sign: -1 | 0 | 1;
  /** The value in base units (bytes, cores) as a float; approximate, may be Infinity. */
  readonly value: number;
  readonly format: QuantityFormat;
}

const BINARY_SUFFIXES: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Go parses the exponent of `1e3` with strconv.ParseInt(…, 10, 32): an int32, sign allowed. */
const EXPONENT = /^[eE]([+-]?[0-9]+)$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Parses a quantity string; undefined when the API server would refuse it. Accepts an optional sign,
 * digits with an optional fraction (at least one digit), then nothing, a binary suffix
 * (Ki Mi Gi Ti Pi Ei), a decimal suffix (n u m k M G T P E) or an integer exponent (e3, E-2).
 * Refuses what one of the two gates refuses: `10GB`, `1K`, `1e1.5`, `-`, `.`, spaces.
 */
export function parseQuantity(text: string): Quantity | undefined {
  let i = 0;
  let negative = false;
  if (text[i] === '+' || text[i] === '-') {
    negative = text[i] === '-';
    i++;
  }
  const intStart = i;
  while (isDigit(text[i])) i++;
  const intPart = text.slice(intStart, i);
  let fracPart = '';
  if (text[i] === '.') {
    const fracStart = ++i;
    while (isDigit(text[i])) i++;
    fracPart = text.slice(fracStart, i);
  }
  if (intPart === '' && fracPart === '') return undefined; // the OpenAPI pattern needs a digit

  const suffix = text.slice(i);
  let multiplier: number;
  let format: QuantityFormat;
  if (Object.prototype.hasOwnProperty.call(BINARY_SUFFIXES, suffix)) {
    multiplier = BINARY_SUFFIXES[suffix]!;
    format = 'BinarySI';
  } else if (Object.prototype.hasOwnProperty.call(DECIMAL_SUFFIXES, suffix)) {
    multiplier = 10 ** DECIMAL_SUFFIXES[suffix]!;
    format = 'DecimalSI';
  } else {
    const m = EXPONENT.exec(suffix);
    if (!m) return undefined;
    const exponent = Number(m[1]);
    if (exponent < INT32_MIN || exponent > INT32_MAX) return undefined;
    multiplier = 10 ** exponent;
    format = 'DecimalExponent';
  }

  const isZero = !/[1-9]/.test(intPart + fracPart);
  const sign: -1 | 0 | 1 = isZero ? 0 : negative ? -1 : 1;
  const magnitude = isZero ? 0 : Number(`${intPart || '0'}.${fracPart || '0'}`) * multiplier;
  return { sign, value: sign === -1 ? -magnitude : magnitude, format };
}

export function isQuantity(text: string): boolean {
  return parseQuantity(text) !== undefined;
}

/** Byte units people write, by the quantity suffixes they may mean: [decimal, binary]. */
const UNIT_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  k: ['k', 'Ki'], kb: ['k', 'Ki'], kib: ['k', 'Ki'], ki: ['k', 'Ki'],
  m: ['M', 'Mi'], mb: ['M', 'Mi'], mib: ['M', 'Mi'], mi: ['M', 'Mi'],
  g: ['G', 'Gi'], gb: ['G', 'Gi'], gib: ['G', 'Gi'], gi: ['G', 'Gi'],
  t: ['T', 'Ti'], tb: ['T', 'Ti'], tib: ['T', 'Ti'], ti: ['T', 'Ti'],
  p: ['P', 'Pi'], pb: ['P', 'Pi'], pib: ['P', 'Pi'], pi: ['P', 'Pi'],
};

/**
 * For a size written the way people write sizes but Kubernetes does not (`10 GB`, `10GB`, `5 gi`),
 * the two quantities it may mean and how they differ; undefined when the text is no such size.
 */
export function quantitySuggestion(text: string): string | undefined {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*$/.exec(text);
  if (!m) return undefined;
  const units = UNIT_WORDS[m[2]!.toLowerCase()];
  if (!units) return undefined;
  const [dec, bin] = units;
  const n = m[1]!;
  const k = ['k', 'M', 'G', 'T', 'P'].indexOf(dec) + 1;
  return `write ${n}${bin} (binary, ${n}×2^${10 * k} bytes: what disk sizes usually mean) or ${n}${dec} (decimal, ${n}×10^${3 * k} bytes), without a space`;
}
