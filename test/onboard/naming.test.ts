// Names of imported runtimes: the template, DNS-1123 labels, and deterministic collision handling.

import { describe, expect, it } from 'vitest';
import { isDNS1123Label } from '../../src/lib/k8s-names';
import { baseName, chooseNames, DEFAULT_NAME_TEMPLATE, type NameInput, nameTemplateProblem } from '../../src/onboard/naming';

const input = (runtimeID: string, over: Partial<NameInput> = {}): NameInput => ({
  runtimeID,
  region: 'eu-central-1',
  shootName: 'c-8b7c6d5',
  plan: 'aws',
  subaccountID: 'sa',
  globalAccountID: 'ga',
  ...over,
});
const ID1 = '8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52';
const ID2 = '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63';
const ID3 = '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01';

describe('the name template', () => {
  it('makes plan-region-shoot by default', () => {
    expect(baseName(DEFAULT_NAME_TEMPLATE, input(ID1))).toBe('aws-eu-central-1-c-8b7c6d5');
  });

  it.each([
    ['azure_lite', 'westeurope', 'azure-lite-westeurope-c-8b7c6d5'],
    ['SAP Converged Cloud', 'eu-de-1', 'sap-converged-cloud-eu-de-1-c-8b7c6d5'],
    [undefined, 'eu-de-1', 'kyma-eu-de-1-c-8b7c6d5'],
  ])('turns plan %j and region %j into a DNS-1123 label', (plan, region, expected) => {
    const name = baseName(DEFAULT_NAME_TEMPLATE, input(ID1, { plan, region }));
    expect(name).toBe(expected);
    expect(isDNS1123Label(name)).toBe(true);
  });

  it('cuts long names to 63 characters without a trailing dash', () => {
    const name = baseName('{plan}-{region}-{shoot}', input(ID1, { plan: 'p'.repeat(40), region: 'r'.repeat(30) }));
    expect(name.length).toBeLessThanOrEqual(63);
    expect(isDNS1123Label(name)).toBe(true);
  });

  it.each([
    ['{plan}', 'must contain {shoot} or {id}'],
    ['{plan}-{zone}-{shoot}', 'unknown placeholder {zone}'],
    ['{shoot', 'unmatched'],
    ['', 'must be 1 to 200 characters'],
  ])('refuses the template %j', (template, says) => {
    expect(nameTemplateProblem(template)).toContain(says);
  });

  it('accepts {id} templates', () => {
    expect(nameTemplateProblem('rt-{id}')).toBeUndefined();
    expect(baseName('rt-{id}', input(ID1))).toBe('rt-8b7c6d5e');
  });
});

describe('collisions', () => {
  it('gives every runtime of a colliding group the first 8 hex digits of its runtime ID, whatever the input order', () => {
    const inputs = [input(ID1), input(ID2), input(ID3, { shootName: 'c-other00' })];
    const forward = chooseNames(DEFAULT_NAME_TEMPLATE, inputs, new Set());
    const backward = chooseNames(DEFAULT_NAME_TEMPLATE, [...inputs].reverse(), new Set());
    expect(Object.fromEntries(forward)).toEqual(Object.fromEntries(backward));
    expect(forward.get(ID1)).toBe('aws-eu-central-1-c-8b7c6d5-8b7c6d5e');
    expect(forward.get(ID2)).toBe('aws-eu-central-1-c-8b7c6d5-1d2c3b4a');
    expect(forward.get(ID3)).toBe('aws-eu-central-1-c-other00');
  });

  it('suffixes a runtime whose name an existing fleet file has', () => {
    const names = chooseNames(DEFAULT_NAME_TEMPLATE, [input(ID1)], new Set(['aws-eu-central-1-c-8b7c6d5']));
    expect(names.get(ID1)).toBe('aws-eu-central-1-c-8b7c6d5-8b7c6d5e');
  });

  it('uses all 32 hex digits when the short suffix meets another name', () => {
    const names = chooseNames(DEFAULT_NAME_TEMPLATE, [input(ID1)], new Set(['aws-eu-central-1-c-8b7c6d5', 'aws-eu-central-1-c-8b7c6d5-8b7c6d5e']));
    expect(names.get(ID1)).toBe('aws-eu-central-1-c-8b7c6d5-8b7c6d5e4f3a4b2c9d1e0f9a8b7c6d52');
    expect(isDNS1123Label(names.get(ID1)!)).toBe(true);
  });

  it('names no runtime when two runtime IDs share every hex digit (the caller reports both)', () => {
    const names = chooseNames(DEFAULT_NAME_TEMPLATE, [input(ID1), input(ID1.toUpperCase())], new Set());
    expect(names.size).toBe(0);
  });

  it('never yields a Windows device name', () => {
    const names = chooseNames('{shoot}', [input(ID1, { shootName: 'con' })], new Set());
    expect(names.get(ID1)).toBe('con-8b7c6d5e');
  });
});
