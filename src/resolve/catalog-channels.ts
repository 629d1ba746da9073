// The module catalog checks that need the resolved settings of a runtime: a module listed without
// its own channel runs on the runtime's channel, which may be one the module does not offer; and
// an enabled extension adds its Kyma module (Fleet.spec.extensionModules or the extension's
// default), which must be a catalog module offered on that channel. Each finding points at the
// file and line that listed the module (or enabled the extension) and does not name the runtime,
// so a fault in a shared layer is one line, not one per runtime. Pure.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { type Diagnostic, quote } from '../lib/diagnostics';
import { catalogChannelProblem, catalogModuleProblem } from '../validate/catalog-rules';
import type { FleetModel } from '../validate/model';
import { moduleCatalogOf } from '../validate/module-catalog';
import { channelProblem } from '../validate/settings-rules';
import { type Assignment, type ResolvedRuntime } from './resolve';
import { sourceField } from './source-field';

export function checkCatalogResolved(model: FleetModel, r: ResolvedRuntime, out: Diagnostic[], extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): void {
  const { catalog } = moduleCatalogOf(model.files);
  const channel = r.settings.channel;
  // A channel no module offers is reported where it is set (../validate/catalog-rules.ts).
  if (!catalog || channel === undefined || channelProblem(channel) !== undefined || !catalog.channels.includes(channel)) return;
  const at = (a: Assignment | undefined, what: string): Pick<Diagnostic, 'file' | 'line' | 'col' | 'field'> => {
    if (a && a.source.kind === 'layer') return { file: a.source.file, line: a.source.line, col: a.source.col, field: sourceField(model, r, a.source, extensions) };
    const pos = r.runtime.positions.valueAt(['metadata', 'name']);
    return { file: r.runtime.file, line: pos.line, col: pos.col, field: what };
  };
  for (const m of r.settings.modules) {
    if (m.channel !== undefined || !catalog.modules.has(m.name)) continue; // explicit channels and unknown names: the layer rules
    const problem = catalogChannelProblem(m.name, channel, catalog);
    if (!problem) continue;
    const a = r.assignments.find((x) => x.path[0] === 'modules' && x.path[2] === 'name' && x.value === m.name);
    out.push({ severity: 'error', code: 'E_MODULE_CHANNEL', ...at(a, 'modules'), message: `${problem}; the runtimes that list it are on channel ${quote(channel)}: set its channel` });
  }
  for (const e of extensions) {
    if (r.settings.extensions[e.name]?.state !== 'enabled') continue;
    const name = model.options.extensionModules[e.name];
    if (name === false || name === undefined) continue;
    const written = typeof (model.options.spec.extensionModules as Record<string, unknown> | undefined)?.[e.name] === 'string';
    const enabledAt = r.assignments.find((x) => x.path[0] === 'extensions' && x.path[1] === e.name && x.path[2] === 'enabled');
    // A module named in fleet.yaml is checked there (../validate/catalog-rules.ts); its channel here.
    const problem = written ? undefined : catalogModuleProblem(name, catalog);
    if (problem) {
      out.push({
        severity: 'error',
        code: problem.code,
        ...at(enabledAt, `extensions.${e.name}`),
        message: `extensions.${e.name} adds ${problem.message.replace(/^module ("[^"]*") is /, 'module $1, which is ')}; name the catalog's module with extensionModules.${e.name} in fleet.yaml, or false for none`,
      });
      continue;
    }
    if (!catalog.modules.has(name)) continue;
    const p = catalogChannelProblem(name, channel, catalog);
    if (p) out.push({ severity: 'error', code: 'E_MODULE_CHANNEL', ...at(enabledAt, `extensions.${e.name}`), message: `extensions.${e.name} adds ${p}, the channel of the runtimes that enable it` });
  }
}
