import { describe, it, expect } from 'vitest';
import { goTimeQuote, parseGoDuration } from '../../src/lib/go-duration';

const S = 1_000_000_000n;

describe('parseGoDuration', () => {
  it.each([
    ['168h', 168n * 3600n * S],
    ['1h30m', 5400n * S],
    ['1.5h', 5400n * S],
    ['0s', 0n],
    ['0', 0n],
    ['-0s', 0n],
    ['+0', 0n],
    ['300ms', 300_000_000n],
    ['2\u00b5s', 2_000n], // micro sign
    ['2\u03bcs', 2_000n], // Greek mu
    ['2us', 2_000n],
    ['7ns', 7n],
    ['.5s', S / 2n],
    ['1.s', S],
    ['+5s', 5n * S],
    ['-1h', -3600n * S],
    ['1h0.5m', 3630n * S],
    ['2562047h47m16.854775807s', (1n << 63n) - 1n], // the largest Duration
    ['-9223372036854775808ns', -(1n << 63n)], // the smallest
  ])('parses %j', (text, nanoseconds) => {
    expect(parseGoDuration(text)).toEqual({ ok: true, nanoseconds });
  });

  it('reads -0s as zero, not as a negative duration', () => {
    const parsed = parseGoDuration('-0s');
    expect(parsed.ok && parsed.nanoseconds < 0n).toBe(false);
  });

  it.each([
    ['7d', 'time: unknown unit "d" in duration "7d"'],
    ['1w', 'time: unknown unit "w" in duration "1w"'],
    ['1hh', 'time: unknown unit "hh" in duration "1hh"'],
    ['1 h', 'time: unknown unit " h" in duration "1 h"'],
    ['2\u00b5x', 'time: unknown unit "\\xc2\\xb5x" in duration "2\\xc2\\xb5x"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1h5', 'time: missing unit in duration "1h5"'],
    ['P7D', 'time: invalid duration "P7D"'],
    ['abc', 'time: invalid duration "abc"'],
    ['', 'time: invalid duration ""'],
    ['-', 'time: invalid duration "-"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-.s', 'time: invalid duration "-.s"'],
    ['h', 'time: invalid duration "h"'],
    ['1h ', 'time: unknown unit "h " in duration "1h "'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['2562048h', 'time: invalid duration "2562048h"'],
    ['99999999999999999999s', 'time: invalid duration "99999999999999999999s"'],
    ['"1h"', 'time: invalid duration "\\"1h\\""'],
  ])('refuses %j with Go\'s message', (text, error) => {
    expect(parseGoDuration(text)).toEqual({ ok: false, error });
  });
});

describe('goTimeQuote', () => {
  it.each([
    ['7d', '"7d"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\t', '"\\x09"'],
    ['é', '"\\xc3\\xa9"'],
  ])('quotes %j as Go\'s time package does', (s, quoted) => {
    expect(goTimeQuote(s)).toBe(quoted);
  });
});
