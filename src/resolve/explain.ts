// `explain`: one runtime's resolved settings, each value with the file:line of the layer that set
// it and the values it overrode. Pure formatting of a ResolvedRuntime (text and JSON).

import { cmp } from '../lib/diagnostics';
import type { FleetModel } from '../validate/model';
import { displayPath, type ResolvedRuntime, type Source } from './resolve';

export interface ExplainedValue {
  readonly path: string;
  readonly value: unknown;
  readonly source: ExplainedSource;
  readonly overrides: ReadonlyArray<{ readonly value: unknown; readonly source: ExplainedSource }>;
}

export interface ExplainedSource {
  readonly layer: 'defaults' | 'group' | 'runtime' | 'extension-default';
  readonly name: string;
  /** file:line:col, or undefined for built-in defaults. */
  readonly location?: string;
}

export interface Explanation {
  readonly name: string;
  readonly file: string;
  readonly runtimeID: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
  readonly region: string;
  readonly shoot: { readonly name: string; readonly namespace: string };
  readonly labels: Readonly<Record<string, string>>;
  readonly layers: ReadonlyArray<{ readonly layer: string; readonly name: string; readonly priority?: number; readonly file: string }>;
  readonly extensions: ReadonlyArray<{ readonly name: string; readonly state: string; readonly module?: string }>;
  readonly modules: ReadonlyArray<{ readonly name: string; readonly channel?: string; readonly customResourcePolicy?: string }>;
  readonly values: readonly ExplainedValue[];
}

function explainSource(s: Source): ExplainedSource {
  if (s.kind === 'default') return { layer: 'extension-default', name: s.extension };
  return { layer: s.layer, name: s.name, location: `${s.file}:${s.line}:${s.col}` };
}

export function explainRuntime(fleetModel: FleetModel, r: ResolvedRuntime): Explanation {
  // Resolved at its rollout ring's revision: the defaults are that revision's fleet.yaml.
  const model = r.revisionModel ?? fleetModel;
  const rt = r.runtime;
  return {
    name: rt.name,
    file: rt.file,
    runtimeID: rt.runtimeID,
    globalAccountID: rt.globalAccountID,
    subaccountID: rt.subaccountID,
    region: rt.region,
    shoot: { name: rt.shoot.name, namespace: `garden-${rt.shoot.project}` },
    labels: rt.labels,
    layers: [
      { layer: 'defaults', name: 'defaults', file: model.fleetFile },
      ...r.groups.map((g) => ({ layer: 'group', name: g.name, priority: g.priority, file: g.file })),
      { layer: 'runtime', name: rt.name, file: rt.file },
    ],
    extensions: Object.entries(r.settings.extensions)
      .sort(([a], [b]) => cmp(a, b))
      .map(([name, e]) => {
        const module = model.options.extensionModules[name];
        return { name, state: e.state, ...(e.state === 'enabled' && module ? { module } : {}) };
      }),
    modules: r.settings.modules.map((m) => ({ ...m })),
    values: r.assignments.map((a) => ({
      path: displayPath(a.path),
      value: a.value,
      source: explainSource(a.source),
      overrides: a.overridden.map((o) => ({ value: o.value, source: explainSource(o.source) })),
    })),
  };
}

function where(s: ExplainedSource): string {
  if (s.layer === 'extension-default') return `default of ${s.name}`;
  const label = s.layer === 'group' ? `group ${s.name}` : s.layer;
  return `${s.location} (${label})`;
}

export function formatExplanation(e: Explanation): string {
  const lines: string[] = [];
  lines.push(`runtime ${e.name} (${e.file})`);
  const ident: [string, string][] = [
    ['runtimeID', e.runtimeID],
    ['globalAccountID', e.globalAccountID],
    ['subaccountID', e.subaccountID],
    ['region', e.region],
    ['shoot', `${e.shoot.namespace}/${e.shoot.name}`],
    ['labels', Object.entries(e.labels).map(([k, v]) => `${k}=${v}`).join(', ') || '(none)'],
  ];
  for (const [k, v] of ident) lines.push(`  ${k.padEnd(16)} ${v}`);
  lines.push('', 'layers, lowest first:');
  for (const l of e.layers) {
    const label = l.layer === 'group' ? `group ${l.name} (priority ${l.priority})` : l.layer;
    lines.push(`  ${label.padEnd(34)} ${l.file}`);
  }
  lines.push('', 'extensions:');
  if (e.extensions.length === 0) lines.push('  (none)');
  for (const x of e.extensions) lines.push(`  ${x.name.padEnd(16)} ${x.state}${x.module ? ` (Kyma module ${x.module})` : ''}`);
  lines.push('', 'values:');
  const rendered = e.values.map((v) => `${v.path} = ${JSON.stringify(v.value)}`);
  const width = Math.min(72, Math.max(0, ...rendered.map((s) => s.length)));
  e.values.forEach((v, i) => {
    let line = `  ${rendered[i]!.padEnd(width)}  ${where(v.source)}`;
    // Text shows only real overrides; lower layers that restate a key or value are in the JSON.
    const changed = v.overrides.filter((o) => JSON.stringify(o.value) !== JSON.stringify(v.value));
    if (changed.length > 0) {
      line += `; overrides ${changed.map((o) => `${JSON.stringify(o.value)} from ${where(o.source)}`).join(', ')}`;
    }
    lines.push(line);
  });
  return lines.join('\n') + '\n';
}
