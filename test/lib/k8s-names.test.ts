import { describe, it, expect } from 'vitest';
import {
  DNS1123_LABEL_MESSAGE,
  DNS1123_SUBDOMAIN_MESSAGE,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
} from '../../src/lib/k8s-names';

// Literal copies of apimachinery's text (k8s.io/apimachinery/pkg/util/validation), kept apart from
// the implementation so a typo in either shows up.
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('DNS-1123 messages', () => {
  it('are the apimachinery wording, double space after the first label example included', () => {
    expect(DNS1123_SUBDOMAIN_MESSAGE).toBe(SUBDOMAIN);
    expect(DNS1123_LABEL_MESSAGE).toBe(LABEL);
  });
});

describe('dns1123SubdomainErrors', () => {
  it.each([
    'a',
    '0',
    'docker.io',
    'my-registry.example.com',
    'registry-1.docker.io',
    '123.456',
    'a-b.c-d',
    'a'.repeat(253),
    `${'a'.repeat(63)}.${'b'.repeat(63)}`, // labels inside a subdomain have no 63 limit of their own
  ])('accepts %j', (value) => {
    expect(dns1123SubdomainErrors(value)).toEqual([]);
    expect(isDNS1123Subdomain(value)).toBe(true);
  });

  it.each([
    ['', [SUBDOMAIN]],
    ['Docker.IO', [SUBDOMAIN]],
    ['Premium_SSD', [SUBDOMAIN]],
    ['-docker.io', [SUBDOMAIN]],
    ['docker.io-', [SUBDOMAIN]],
    ['docker.io.', [SUBDOMAIN]],
    ['.docker.io', [SUBDOMAIN]],
    ['docker..io', [SUBDOMAIN]],
    ['docker.-io', [SUBDOMAIN]],
    ['ghcr.io/my-org', [SUBDOMAIN]],
    ['docker.io:5000', [SUBDOMAIN]],
    [' docker.io', [SUBDOMAIN]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
    ['A'.repeat(254), ['must be no more than 253 characters', SUBDOMAIN]],
    // Go counts bytes: 127 × "é" is 254 bytes.
    ['é'.repeat(127), ['must be no more than 253 characters', SUBDOMAIN]],
  ])('refuses %j', (value, messages) => {
    expect(dns1123SubdomainErrors(value)).toEqual(messages);
    expect(isDNS1123Subdomain(value)).toBe(false);
  });

  it('is linear on long hostile input', () => {
    const hostile = `${'a-'.repeat(200_000)}!`;
    const t0 = performance.now();
    expect(dns1123SubdomainErrors(hostile)).toHaveLength(2);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('dns1123LabelErrors', () => {
  it.each(['kyma-system', 'a', '123-abc', 'a'.repeat(63)])('accepts %j', (value) => {
    expect(dns1123LabelErrors(value)).toEqual([]);
    expect(isDNS1123Label(value)).toBe(true);
  });

  it.each([
    ['', [LABEL]],
    ['Kyma-System', [LABEL]],
    ['kyma_system', [LABEL]],
    ['-kyma', [LABEL]],
    ['kyma-', [LABEL]],
    ['kyma.system', ['must not contain dots']],
    ['kyma..system', [LABEL]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    [`${'a'.repeat(60)}.bcd`, ['must be no more than 63 characters', 'must not contain dots']],
  ])('refuses %j', (value, messages) => {
    expect(dns1123LabelErrors(value)).toEqual(messages);
    expect(isDNS1123Label(value)).toBe(false);
  });
});
