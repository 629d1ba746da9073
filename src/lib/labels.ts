// Kubernetes labels and label selectors: the syntax rules of apimachinery and the matching
// semantics groups and policies use to pick runtimes.

import { isDNS1123Subdomain } from './k8s-names';

const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/** Problem with a label key, or undefined when valid (prefix ≤253 DNS subdomain, name ≤63). */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix.length === 0 || !isDNS1123Subdomain(prefix)) {
      return 'label key prefix must be a lowercase DNS-1123 subdomain of at most 253 characters';
    }
  }
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) {
    return "label key name must be 1-63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

/** Problem with a label value, or undefined when valid (empty, or ≤63 with alphanumeric ends). */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !LABEL_NAME.test(value)) {
    return "label value must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** Kubernetes semantics: every matchLabels entry and every expression must hold; {} matches all. */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(labels, k) || labels[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key);
    const value = has ? labels[req.key] : undefined;
    switch (req.operator) {
      case 'In':
        if (!has || !(req.values ?? []).includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && (req.values ?? []).includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** Structural problems of a selector, as [path relative to the selector, message]. */
export function selectorProblems(selector: LabelSelector): [Array<string | number>, string][] {
  const out: [Array<string | number>, string][] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    const kp = labelKeyProblem(k);
    if (kp) out.push([['matchLabels', k], `${kp} (got ${JSON.stringify(k)})`]);
    const vp = labelValueProblem(v);
    if (vp) out.push([['matchLabels', k], `${vp} (got ${JSON.stringify(v)})`]);
  }
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const kp = labelKeyProblem(req.key);
    if (kp) out.push([['matchExpressions', i, 'key'], `${kp} (got ${JSON.stringify(req.key)})`]);
    const n = req.values?.length ?? 0;
    if ((req.operator === 'In' || req.operator === 'NotIn') && n === 0) {
      out.push([['matchExpressions', i, 'values'], `values: Required value: must be specified when operator is ${req.operator}`]);
    }
    if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && n > 0) {
      out.push([['matchExpressions', i, 'values'], `values: Forbidden: may not be specified when operator is ${req.operator}`]);
    }
    (req.values ?? []).forEach((v, j) => {
      const vp = labelValueProblem(v);
      if (vp) out.push([['matchExpressions', i, 'values', j], `${vp} (got ${JSON.stringify(v)})`]);
    });
  });
  return out;
}
