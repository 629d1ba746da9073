// Names of imported runtimes: a DNS-1123 label made from a template (default
// `{plan}-{region}-{shoot}`, e.g. aws-eu-central-1-c-8b7c6d5), and a deterministic rule when names
// collide: every runtime of a colliding group, and a runtime whose name an existing fleet file
// already has, gets `-<first 8 hex digits of its runtime ID>`; should that collide too, the whole
// runtime ID (32 hex digits). The result depends only on the set of inputs, never on their order.
// Documented in docs/onboarding.md. Pure.

import { cmp } from '../lib/diagnostics';
import { DNS1123_LABEL_MAX_LENGTH } from '../lib/k8s-names';
import { WINDOWS_RESERVED } from '../validate/validate';

export const DEFAULT_NAME_TEMPLATE = '{plan}-{region}-{shoot}';
/** Placeholders of --name-template. */
export const NAME_PLACEHOLDERS = ['plan', 'region', 'shoot', 'id', 'subaccount', 'global-account'] as const;
type Placeholder = (typeof NAME_PLACEHOLDERS)[number];

/** What a name template may use of a runtime. */
export interface NameInput {
  readonly runtimeID: string;
  readonly region: string;
  readonly shootName: string;
  readonly plan?: string;
  readonly subaccountID: string;
  readonly globalAccountID: string;
}

/** Checks a --name-template; returns the problem, or undefined when it is usable. */
export function nameTemplateProblem(template: string): string | undefined {
  if (template.length === 0 || template.length > 200) return 'must be 1 to 200 characters';
  const unknown = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).filter((p) => !(NAME_PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length > 0) return `unknown placeholder {${unknown[0]}}; use ${NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`;
  if (/[{}]/.test(template.replace(/\{[^{}]*\}/g, ''))) return 'has an unmatched { or }';
  if (!/\{(shoot|id)\}/.test(template)) return 'must contain {shoot} or {id}, so that names of different runtimes differ';
  return undefined;
}

/** The name before collision handling: the template filled in, made a DNS-1123 label. */
export function baseName(template: string, input: NameInput): string {
  const values: Record<Placeholder, string> = {
    plan: input.plan ?? 'kyma',
    region: input.region,
    shoot: input.shootName,
    id: idDigits(input.runtimeID).slice(0, 8),
    subaccount: input.subaccountID,
    'global-account': input.globalAccountID,
  };
  const filled = template.replace(/\{([^{}]*)\}/g, (_, p: string) => values[p as Placeholder] ?? '');
  return toLabel(filled, DNS1123_LABEL_MAX_LENGTH) || `runtime-${values.id}`;
}

/**
 * Chooses the names of new runtimes. `taken`: names the fleet already has (file names of
 * runtimes/, lowercase). Returns the name of each runtime ID, or none for the (adversarial) case
 * of two runtime IDs with the same 32 hex digits, which the caller reports.
 */
export function chooseNames(template: string, inputs: readonly NameInput[], taken: ReadonlySet<string>): Map<string, string> {
  const byBase = new Map<string, NameInput[]>();
  for (const input of [...inputs].sort((a, b) => cmp(a.runtimeID.toLowerCase(), b.runtimeID.toLowerCase()))) {
    const base = baseName(template, input);
    const group = byBase.get(base);
    if (group) group.push(input);
    else byBase.set(base, [input]);
  }
  const names = new Map<string, string>();
  const firstTry = new Map<string, NameInput[]>();
  for (const [base, group] of byBase) {
    const clash = group.length > 1 || taken.has(base) || WINDOWS_RESERVED.test(base);
    for (const input of group) {
      const name = clash ? withSuffix(base, idDigits(input.runtimeID).slice(0, 8)) : base;
      const list = firstTry.get(name);
      if (list) list.push(input);
      else firstTry.set(name, [input]);
    }
  }
  // A suffixed name can meet another runtime's name or an existing file: then the long suffix.
  const second = new Map<string, NameInput[]>();
  for (const [name, group] of firstTry) {
    const clash = group.length > 1 || taken.has(name);
    for (const input of group) {
      const final = clash ? withSuffix(baseName(template, input), idDigits(input.runtimeID)) : name;
      const list = second.get(final);
      if (list) list.push(input);
      else second.set(final, [input]);
    }
  }
  for (const [name, group] of second) {
    if (group.length === 1 && !taken.has(name)) names.set(group[0]!.runtimeID, name);
  }
  return names;
}

/** `base-suffix`, the base cut so that the whole stays a DNS-1123 label. */
function withSuffix(base: string, suffix: string): string {
  const room = DNS1123_LABEL_MAX_LENGTH - suffix.length - 1;
  const head = base.slice(0, room).replace(/-+$/, '');
  return head === '' ? `r-${suffix}` : `${head}-${suffix}`;
}

/** The runtime ID's hex digits, lowercase. */
function idDigits(runtimeID: string): string {
  return runtimeID.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/** Lowercase, runs of anything but [a-z0-9] become one '-', no '-' at either end, at most `max` characters. */
function toLabel(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
}
