import { describe, it, expect } from 'vitest';
import { isQuantity, parseQuantity } from '../../src/lib/quantity';

describe('parseQuantity', () => {
  it.each([
    ['10Gi', 1, 10 * 2 ** 30, 'BinarySI'],
    ['1.5Gi', 1, 1.5 * 2 ** 30, 'BinarySI'],
    ['500Mi', 1, 500 * 2 ** 20, 'BinarySI'],
    ['1Ei', 1, 2 ** 60, 'BinarySI'],
    ['1e3', 1, 1000, 'DecimalExponent'],
    ['1E3', 1, 1000, 'DecimalExponent'],
    ['1e-3', 1, 0.001, 'DecimalExponent'],
    ['2e+2', 1, 200, 'DecimalExponent'],
    ['+10Gi', 1, 10 * 2 ** 30, 'BinarySI'],
    ['-5Gi', -1, -5 * 2 ** 30, 'BinarySI'],
    ['10', 1, 10, 'DecimalSI'],
    ['100m', 1, 0.1, 'DecimalSI'],
    ['1u', 1, 1e-6, 'DecimalSI'],
    ['1n', 1, 1e-9, 'DecimalSI'],
    ['1k', 1, 1000, 'DecimalSI'],
    ['1E', 1, 1e18, 'DecimalSI'], // E alone is exa, not an exponent
    ['.5', 1, 0.5, 'DecimalSI'],
    ['1.', 1, 1, 'DecimalSI'],
    ['0', 0, 0, 'DecimalSI'],
    ['0Gi', 0, 0, 'BinarySI'],
    ['-0', 0, 0, 'DecimalSI'],
    ['0.000', 0, 0, 'DecimalSI'],
    ['0e9', 0, 0, 'DecimalExponent'],
  ] as const)('parses %j (sign %d, value %d, %s)', (text, sign, value, format) => {
    expect(parseQuantity(text)).toEqual({ sign, value, format });
    expect(isQuantity(text)).toBe(true);
  });

  it.each([
    '',
    '10GB', // GB is no suffix
    '10gi',
    '10K', // kilo is lowercase k
    '10KiB',
    '1e1.5', // the OpenAPI pattern allows it, Go's ParseQuantity does not
    '1e',
    '1e99999999999', // exponent beyond int32
    '-', // Go parses it as 0, the OpenAPI pattern refuses it
    '+',
    '.',
    'Gi',
    ' 10Gi',
    '10Gi ',
    '10 Gi',
    '0x10',
    '1,5Gi',
    '1.5.5',
    '--1',
  ])('refuses %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
    expect(isQuantity(text)).toBe(false);
  });
});
