// Rules for the core settings of one layer (channel, modules), mirroring the Kyma CR schema and
// Lifecycle Manager's checks so that a bad module list fails in CI rather than in the KLM status.

import type { RuleReporter } from '../extensions/types';
import { quote } from '../lib/diagnostics';

export const CHANNEL_PATTERN = /^[a-z]+$/;
/** The module catalog's ModuleReleaseMeta.spec.moduleName pattern (maxLength 64). */
export const MODULE_NAME_PATTERN = /^([a-z]{3,}(-[a-z]{3,})*)?$/;

/** Problem with a Kyma channel value (CRD pattern, length, and KLM's refusal of "none"). */
export function channelProblem(value: string): string | undefined {
  if (value.length < 3) return `should be at least 3 chars long (got ${quote(value)})`;
  if (value.length > 32) return `should be at most 32 chars long (got ${quote(value)})`;
  if (!CHANNEL_PATTERN.test(value)) return `should match '^[a-z]+$' (got ${quote(value)})`;
  if (value === 'none') return 'value "none" is not allowed in spec.channel';
  return undefined;
}

export interface SettingsRuleOptions {
  /** Module names that extensions add; listing them as regular modules is refused. */
  readonly extensionModules: ReadonlyMap<string, string>;
}

/** Checks the core settings of one layer. `settings` passed the schema already. */
export function checkCoreSettings(settings: Readonly<Record<string, unknown>>, reporter: RuleReporter, options: SettingsRuleOptions): void {
  if (typeof settings.channel === 'string') {
    const p = channelProblem(settings.channel);
    if (p) reporter.report(['channel'], 'E_CHANNEL', p);
  }
  if (Array.isArray(settings.modules)) checkModules(settings.modules as Record<string, unknown>[], reporter, options);
}

function checkModules(modules: readonly Record<string, unknown>[], reporter: RuleReporter, options: SettingsRuleOptions): void {
  const seen = new Map<string, number>();
  modules.forEach((m, i) => {
    const name = String(m.name);
    if (name === '' || !MODULE_NAME_PATTERN.test(name)) {
      reporter.report(
        ['modules', i, 'name'],
        'E_MODULE_NAME',
        `must match the module catalog pattern '^([a-z]{3,}(-[a-z]{3,})*)?$', so no module can have this name (got ${quote(name)})`,
      );
    }
    const first = seen.get(name);
    if (first !== undefined) {
      reporter.report(['modules', i, 'name'], 'E_MODULE_DUPLICATE', `Duplicate value: ${quote(name)} (first defined at modules[${first}])`);
    } else seen.set(name, i);
    const ext = options.extensionModules.get(name);
    if (ext !== undefined) {
      reporter.report(
        ['modules', i, 'name'],
        'E_MODULE_MANAGED_BY_EXTENSION',
        `module ${quote(name)} is added by extensions.${ext}; enable the extension instead of listing the module`,
      );
    }
    if (typeof m.channel === 'string') {
      const p = channelProblem(m.channel);
      if (p) {
        const msg = m.channel === 'none' ? `invalid configuration in Kyma spec.modules for module ${name}: Channel "none" is not allowed` : p;
        reporter.report(['modules', i, 'channel'], 'E_CHANNEL', msg);
      }
    }
  });
}
