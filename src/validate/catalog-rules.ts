// Checks module names and channels against the fleet's module catalog (./module-catalog.ts), when
// the fleet has one: what Lifecycle Manager would only report at apply time (`no ModuleReleaseMeta
// found for module …`, `no versions found for channel …`, a mandatory module listed) fails
// validation at the file and line of the entry, with a suggestion for a likely typo. These are
// the checks of one layer; a module whose channel comes from the runtime's channel is checked on
// the resolved settings (../resolve/catalog-channels.ts). Without a catalog nothing here runs. Pure.

import type { RuleReporter } from '../extensions/types';
import { quote } from '../lib/diagnostics';
import { closestMatch } from '../lib/suggest';
import type { ModuleCatalog } from './module-catalog';
import { channelProblem, MODULE_NAME_PATTERN } from './settings-rules';

/** ` ; did you mean "x"?` for a likely typo, else ''. */
function didYouMean(word: string, candidates: readonly string[]): string {
  const best = closestMatch(word, candidates);
  return best === undefined ? '' : `; did you mean ${quote(best)}?`;
}

function listed(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}

/** Why `name` is not a module the catalog offers for a Kyma CR, or undefined when it is. */
export function catalogModuleProblem(name: string, catalog: ModuleCatalog): { code: string; message: string } | undefined {
  const m = catalog.modules.get(name);
  if (!m) {
    return { code: 'E_MODULE_UNKNOWN', message: `module ${quote(name)} is not in the module catalog (${catalog.file})${didYouMean(name, [...catalog.modules.keys()])}` };
  }
  if (m.mandatory) {
    return { code: 'E_MODULE_MANDATORY', message: `module ${quote(name)} is mandatory: Lifecycle Manager installs it on every runtime and refuses it in spec.modules` };
  }
  return undefined;
}

/** Why module `name` cannot run on `channel`, or undefined when the catalog offers it there. */
export function catalogChannelProblem(name: string, channel: string, catalog: ModuleCatalog): string | undefined {
  const m = catalog.modules.get(name);
  if (!m || m.mandatory || m.channels.includes(channel)) return undefined;
  if (!catalog.channels.includes(channel)) {
    return `channel ${quote(channel)} is offered by no module of the module catalog (channels: ${listed(catalog.channels)})${didYouMean(channel, catalog.channels)}`;
  }
  return `module ${quote(name)} has no channel ${quote(channel)} in the module catalog (it has: ${listed(m.channels)})${didYouMean(channel, m.channels)}`;
}

/**
 * The catalog checks of one layer's `channel` and `modules`. A value the format rules refuse
 * (./settings-rules.ts) and a repeated module name are theirs alone: no second finding here.
 */
export function checkLayerAgainstCatalog(settings: Readonly<Record<string, unknown>>, reporter: RuleReporter, catalog: ModuleCatalog): void {
  if (typeof settings.channel === 'string' && channelProblem(settings.channel) === undefined && !catalog.channels.includes(settings.channel)) {
    reporter.report(
      ['channel'],
      'E_CHANNEL_UNKNOWN',
      `channel ${quote(settings.channel)} is offered by no module of the module catalog (channels: ${listed(catalog.channels)})${didYouMean(settings.channel, catalog.channels)}`,
    );
  }
  if (!Array.isArray(settings.modules)) return;
  const seen = new Set<string>();
  (settings.modules as Array<Record<string, unknown>>).forEach((m, i) => {
    if (typeof m?.name !== 'string' || m.enabled === false || !MODULE_NAME_PATTERN.test(m.name) || m.name === '' || seen.has(m.name)) return;
    seen.add(m.name);
    const problem = catalogModuleProblem(m.name, catalog);
    if (problem) return reporter.report(['modules', i, 'name'], problem.code, problem.message);
    if (typeof m.channel === 'string' && channelProblem(m.channel) === undefined) {
      const p = catalogChannelProblem(m.name, m.channel, catalog);
      if (p) reporter.report(['modules', i, 'channel'], 'E_MODULE_CHANNEL', p);
    }
  });
}

/** Module names written in Fleet.spec.extensionModules must be catalog modules too. */
export function checkExtensionModulesAgainstCatalog(fleetSpec: Readonly<Record<string, unknown>>, reporter: RuleReporter, catalog: ModuleCatalog): void {
  const written = fleetSpec.extensionModules;
  if (typeof written !== 'object' || written === null) return;
  for (const [ext, name] of Object.entries(written as Record<string, unknown>)) {
    if (typeof name !== 'string' || name === '') continue;
    const problem = catalogModuleProblem(name, catalog);
    if (problem) reporter.report(['extensionModules', ext], problem.code, problem.message);
  }
}
