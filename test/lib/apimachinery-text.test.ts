// Go's and apimachinery's printing of values, as the oracle's upstream code printed them
// (registry-cache v0.24.0 with apimachinery v0.36.2: the badValue of `must be greater than 0`, the
// decoding errors, time.Duration's String()). test/oracle/messages.test.ts checks the same through the
// oracle; this keeps the answers when Go is absent.

import { describe, expect, it } from 'vitest';
import { canonicalQuantity, goDurationString, goQuantityDecodeError, QUANTITY_FORMAT_WRONG } from '../../src/lib/apimachinery-text';

describe('canonicalQuantity', () => {
  it.each([
    ['-1.5Gi', '-1536Mi'], ['-0.001', '-1m'], ['-1000', '-1k'], ['-1e3', '-1e3'], ['-1E3', '-1E3'], ['-1500Mi', '-1500Mi'],
    ['-0.5Ki', '-512'], ['-1024', '-1024'], ['-1025', '-1025'], ['-2048Ki', '-2Mi'], ['-1.5', '-1500m'], ['-100m', '-100m'],
    ['-0.0000000001', '-1n'], ['-1n', '-1n'], ['-1e-3', '-1e-3'], ['-3000000k', '-3G'], ['-1Ei', '-1Ei'], ['-9Ei', '-9223372036854775807'],
    ['0', '0'], ['0.0Gi', '0'], ['-0', '0'], ['-5Gi', '-5Gi'],
  ])('%s prints as %s', (text, printed) => {
    expect(canonicalQuantity(text)).toBe(printed);
  });
});

describe('goQuantityDecodeError', () => {
  it.each([
    ['10GB', QUANTITY_FORMAT_WRONG], ['', QUANTITY_FORMAT_WRONG], ['1e1.5', QUANTITY_FORMAT_WRONG], ['1K', "unable to parse quantity's suffix"],
    ['1Gi ', undefined], [' 1Gi', undefined], ['1.', undefined], ['1e400', undefined], ['10Gi', undefined],
  ])('%j: %s', (text, error) => {
    expect(goQuantityDecodeError(text)).toBe(error);
  });
});

describe('goDurationString', () => {
  it.each([
    [-3_600_000_000_000n, '-1h0m0s'], [-90_500_000_000n, '-1m30.5s'], [-1_500_000n, '-1.5ms'], [-1_500n, '-1.5µs'], [-7n, '-7ns'],
    [0n, '0s'], [5_400_000_000_000n, '1h30m0s'], [1_000_000_000n, '1s'],
  ])('%s ns prints as %s', (ns, printed) => {
    expect(goDurationString(ns)).toBe(printed);
  });
});
