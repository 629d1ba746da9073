// Drift of a Shoot entry: what the providerConfig the fleet renders sets, compared with the live
// entry's. Fields the fragment leaves unset are not compared; lists of objects are matched by a key
// field; everything else must be equal. An extension whose values come back in another spelling
// (sizes as quantities, durations) or renamed (a Secret copied under another name) says so in its
// status hook's drift rules (../extensions/status-hook.ts DriftRules), in its own folder.

import type { DriftRules } from '../extensions/status-hook';
import { cmp, quote } from '../lib/diagnostics';
import { isRec, type Rec } from '../lib/status-fields';

/** At most this many differences are collected per entry. */
export const MAX_DIFFS = 20;

/** List entries are matched by the first of these keys that every entry carries, once each. */
const DEFAULT_LIST_KEYS: readonly string[] = ['name'];

/** The differences between what the fleet renders (`expected`) and the live value, at most MAX_DIFFS. */
export function driftOf(expected: unknown, live: unknown, path: string, rules: DriftRules = {}): string[] {
  const diffs: string[] = [];
  compareValue(expected, live, path, '', diffs, rules);
  return diffs;
}

function compareValue(expected: unknown, live: unknown, path: string, leaf: string, diffs: string[], rules: DriftRules): void {
  if (diffs.length >= MAX_DIFFS) return;
  const presence = rules.presenceOnly?.[leaf];
  if (presence) {
    if (typeof expected === 'string' && expected !== '' && !(typeof live === 'string' && live !== '')) diffs.push(`${path} is ${describe(live)}; ${presence(expected)}`);
    return;
  }
  if (isRec(expected)) {
    if (!isRec(live)) {
      diffs.push(`${path} is ${describe(live)}; the fleet renders an object`);
      return;
    }
    for (const k of Object.keys(expected).sort(cmp)) compareValue(expected[k], live[k], `${path}.${k}`, k, diffs, rules);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(live)) {
      diffs.push(`${path} is ${describe(live)}; the fleet renders a list`);
      return;
    }
    const key = listKey(expected, rules.listKeys ?? DEFAULT_LIST_KEYS);
    if (key === undefined) {
      if (canonical(expected) !== canonical(live)) diffs.push(`${path} is ${quote(live)}; the fleet renders ${quote(expected)}`);
      return;
    }
    const liveByKey = new Map<string, Rec>();
    for (const e of live) if (isRec(e) && typeof e[key] === 'string' && !liveByKey.has(e[key] as string)) liveByKey.set(e[key] as string, e);
    const expectedKeys = new Set<string>();
    for (const e of expected as Rec[]) {
      const k = e[key] as string;
      expectedKeys.add(k);
      const l = liveByKey.get(k);
      if (!l) diffs.push(`${path}[${key}=${k}] is missing; the fleet renders it`);
      else compareValue(e, l, `${path}[${key}=${k}]`, '', diffs, rules);
    }
    for (const l of live) {
      if (diffs.length >= MAX_DIFFS) return;
      const k = isRec(l) && typeof l[key] === 'string' ? (l[key] as string) : undefined;
      if (k === undefined || !expectedKeys.has(k)) diffs.push(`${path}${k === undefined ? '' : `[${key}=${k}]`} is an entry the fleet does not render`);
    }
    return;
  }
  if (!(expected === live || rules.sameValue?.[leaf]?.(expected, live) === true)) diffs.push(`${path} is ${describe(live)}; the fleet renders ${quote(expected)}`);
}

function listKey(list: readonly unknown[], keys: readonly string[]): string | undefined {
  for (const key of keys) {
    if (list.length === 0) return undefined;
    const values = list.map((e) => (isRec(e) && typeof e[key] === 'string' ? (e[key] as string) : undefined));
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length) return key;
  }
  return undefined;
}

function describe(value: unknown): string {
  return value === undefined ? 'not set' : quote(value);
}

/** JSON with sorted keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (isRec(v) ? Object.fromEntries(Object.keys(v).sort(cmp).map((k) => [k, v[k]])) : v));
}
