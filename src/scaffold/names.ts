// Names for scaffolded files: a fleet name from a folder name, and YAML scalars that read back as
// the same string under YAML 1.2 (the fleet loader) and 1.1 (older tools). Pure.

import { parse } from 'yaml';
import { WINDOWS_RESERVED } from '../validate/validate';
import { DNS1123_LABEL_MAX_LENGTH, dns1123LabelErrors } from '../lib/k8s-names';

/** Used when nothing of the input survives sanitising (e.g. a folder named "日本" or "---"). */
export const FALLBACK_FLEET_NAME = 'fleet';

/**
 * Turns any text (typically a folder's basename) into a DNS-1123 label that the validator accepts
 * as metadata.name: accents dropped, lowercase, runs of other characters become one '-', at most
 * 63 characters, no leading or trailing '-', never a Windows device name.
 */
export function sanitizeDnsLabel(input: string, fallback: string = FALLBACK_FLEET_NAME): string {
  let s = input
    .slice(0, 1024)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '');
  s = s.slice(0, DNS1123_LABEL_MAX_LENGTH).replace(/-+$/, '');
  if (s === '') s = fallback;
  if (WINDOWS_RESERVED.test(s)) s = `${s}-fleet`;
  return s;
}

/**
 * Why `name` cannot be a fleet or runtime name (the validator's rules: a DNS-1123 label, not a
 * Windows device name), as a message ending in the value and the diagnostic code; undefined when it can.
 */
export function dnsLabelNameProblem(name: string): { code: string; message: string } | undefined {
  const errs = dns1123LabelErrors(name);
  if (errs.length > 0) return { code: 'E_NAME_DNS1123', message: `${errs.join('; ')} (got ${JSON.stringify(name)})` };
  if (WINDOWS_RESERVED.test(name)) {
    return { code: 'E_NAME_RESERVED', message: `${JSON.stringify(name)} is a reserved device name on Windows and cannot be a folder in dist/` };
  }
  return undefined;
}

const PLAIN_SAFE = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * A string as a YAML scalar: plain when both YAML 1.2 and 1.1 read it back as the same string
 * (so `eu-central-1` stays bare while `yes`, `0.40`, `1e3` or `null` are quoted), otherwise a
 * double-quoted scalar (JSON string syntax is valid YAML).
 */
export function yamlString(value: string): string {
  if (value.length <= 256 && PLAIN_SAFE.test(value)) {
    try {
      if (parse(value, { version: '1.2', schema: 'core' }) === value && parse(value, { version: '1.1' }) === value) return value;
    } catch {
      // not a plain scalar
    }
  }
  return JSON.stringify(value);
}
