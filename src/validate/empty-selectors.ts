// Selectors that select nothing (issue 26, item 4): a group, policy or rollout ring whose selector
// matches no runtime of the fleet is valid but almost always a typo (`geo: europe` where the runtimes
// carry `geo: eu`), and it fails silently: the group's settings reach no runtime, a policy checks
// nothing. A warning (never an error: a group for runtimes still to come is legitimate) at the
// selector, naming the labels the nearest runtimes do carry for the keys the selector asks about.
// Only over the whole fleet: a part or shard of a large run sees some runtimes only.

import { type Diagnostic, formatField } from '../lib/diagnostics';
import { type LabelSelector, type LabelSelectorRequirement, selectorMatches } from '../lib/labels';
import type { PositionIndex } from '../lib/yaml/positions';
import { fleetSpecNaming } from './field-naming';
import type { FleetModel, GroupDeclaration } from './model';

/** A runtime as the check sees it: its name and labels. */
export interface LabelledRuntime {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A selector of the fleet, where it is written. */
interface SelectorSite {
  readonly what: string;
  readonly selector: LabelSelector;
  readonly file: string;
  readonly positions: PositionIndex;
  readonly path: ReadonlyArray<string | number>;
  readonly field: string;
}

/** Every group, policy and rollout ring selector of the model that matches none of `runtimes`. */
export function emptySelectorWarnings(model: FleetModel, runtimes: readonly LabelledRuntime[]): Diagnostic[] {
  const sites: SelectorSite[] = groupSites(model.groups);
  // Policies and rings named by their name, as every diagnostic of fleet.yaml names them.
  const naming = fleetSpecNaming(model.options.spec);
  const fleetSite = (what: string, selector: LabelSelector, path: ReadonlyArray<string | number>): SelectorSite =>
    ({ what, selector, file: model.fleetFile, positions: model.fleetPositions, path, field: formatField(path, naming) });
  for (const p of model.options.policies) {
    sites.push(fleetSite(`policy ${JSON.stringify(p.name)}`, p.selector, ['spec', 'policies', p.index, 'selector']));
  }
  (model.options.rollout?.rings ?? []).forEach((ring, i) => {
    sites.push(fleetSite(`rollout ring ${JSON.stringify(ring.name)}`, ring.selector, ['spec', 'rollout', 'rings', i, 'selector']));
  });
  return unmatched(sites, runtimes, `the ${runtimes.length} runtimes of the fleet`);
}

/**
 * `import runtimes`' report: the groups whose selector matches none of the runtimes it imports
 * (e.g. init's `production` group, when the Runtime CRs carry no such label), with the labels the
 * imported runtimes carry.
 */
export function groupsMissedBy(groups: readonly GroupDeclaration[], imported: readonly LabelledRuntime[]): Diagnostic[] {
  return unmatched(groupSites(groups), imported, `the ${imported.length} imported runtimes`);
}

function groupSites(groups: readonly GroupDeclaration[]): SelectorSite[] {
  return groups.map((g) => ({ what: `group ${JSON.stringify(g.name)}`, selector: g.selector, file: g.file, positions: g.positions, path: ['spec', 'selector'], field: 'selector' }));
}

function unmatched(sites: readonly SelectorSite[], runtimes: readonly LabelledRuntime[], set: string): Diagnostic[] {
  if (runtimes.length === 0) return [];
  const out: Diagnostic[] = [];
  for (const site of sites) {
    if (runtimes.some((r) => selectorMatches(site.selector, r.labels))) continue;
    const found = nearest(site.selector, runtimes);
    // At the requirement the nearest runtimes miss (the typo, usually), else at the selector.
    const at = site.positions.valueAt(found.at ? [...site.path, ...found.at] : site.path);
    out.push({
      severity: 'warning',
      code: 'W_SELECTOR_MATCHES_NONE',
      file: site.file,
      line: at.line,
      col: at.col,
      field: site.field,
      message: `the selector of ${site.what} matches none of ${set}${found.text}`,
    });
  }
  return out;
}

/** A requirement of a selector (matchLabels as `In` with one value), with its path under the selector. */
type Requirement = LabelSelectorRequirement & { readonly at: ReadonlyArray<string | number> };

function requirements(selector: LabelSelector): Requirement[] {
  return [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]): Requirement => ({ key, operator: 'In', values: [value], at: ['matchLabels', key] })),
    ...(selector.matchExpressions ?? []).map((q, i): Requirement => ({ ...q, at: ['matchExpressions', i] })),
  ];
}

/**
 * "; the nearest runtimes (…) carry geo: eu, …": the runtimes failing the fewest requirements, and
 * what they carry for the keys of the requirements they fail.
 */
function nearest(selector: LabelSelector, runtimes: readonly LabelledRuntime[]): { text: string; at?: ReadonlyArray<string | number> } {
  const reqs = requirements(selector);
  const failed = (r: LabelledRuntime): Requirement[] => reqs.filter((q) => !selectorMatches({ matchExpressions: [q] }, r.labels));
  let best = Infinity;
  let closest: Array<{ r: LabelledRuntime; misses: Requirement[] }> = [];
  for (const r of runtimes) {
    const misses = failed(r);
    if (misses.length < best) {
      best = misses.length;
      closest = [];
    }
    if (misses.length === best) closest.push({ r, misses });
  }
  if (closest.length === 0) return { text: '' };
  // Independent of the order of runtimes, files and selector terms: by runtime name and label key.
  const byKey = (a: Requirement, b: Requirement): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  closest.sort((a, b) => (a.r.name < b.r.name ? -1 : a.r.name > b.r.name ? 1 : 0));
  // Per key the selector asks about and the nearest runtimes miss: the values they carry, most common first.
  const keys = [...new Set(closest.flatMap((c) => c.misses.map((q) => q.key)))].sort();
  const parts: string[] = [];
  for (const key of keys) {
    const counts = new Map<string, number>();
    for (const { r } of closest) {
      const v = Object.prototype.hasOwnProperty.call(r.labels, key) ? `${key}: ${r.labels[key]}` : `no ${key} label`;
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    parts.push(sorted.slice(0, 5).map(([v, n]) => `${v} (${n})`).join(', ') + (sorted.length > 5 ? `, … ${sorted.length - 5} more` : ''));
  }
  const names = closest.map((c) => c.r.name).sort();
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? `, … ${names.length - 3} more` : '');
  const who = closest.length === runtimes.length ? 'the runtimes' : `the nearest runtimes (${shown})`;
  return { text: `; ${who} carry ${parts.join('; ')}`, at: [...closest[0]!.misses].sort(byKey)[0]!.at };
}
