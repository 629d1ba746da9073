// Rules that only make sense on the merged result of all layers: fleet policies, extensions that
// are configured but never enabled, and each extension's resolved rules (e.g. combinations of values
// that only the merged result shows). Diagnostics point at the file and line that set the offending value.

import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin, RuleReporter } from '../extensions/types';
import { type Diagnostic, quote } from '../lib/diagnostics';
import { selectorMatches } from '../lib/labels';
import type { FleetModel } from '../validate/model';
import { checkCatalogResolved } from './catalog-channels';
import { type Assignment, findAssignment, keyedListsOf, type ResolvedRuntime, type Source, toResolvedSegments } from './resolve';
import { sourceField } from './source-field';

/** Locates a resolved path through provenance; defaults are reported on the runtime's name. */
function locate(
  model: FleetModel,
  resolved: ResolvedRuntime,
  segments: readonly string[],
  extensions: readonly ExtensionPlugin<any>[],
): Pick<Diagnostic, 'file' | 'line' | 'col' | 'field'> & { source?: Source } {
  const a: Assignment | undefined = findAssignment(resolved.assignments, segments);
  if (a && a.source.kind === 'layer') {
    return { file: a.source.file, line: a.source.line, col: a.source.col, field: sourceField(model, resolved, a.source, extensions), source: a.source };
  }
  const pos = resolved.runtime.positions.valueAt(['metadata', 'name']);
  return { file: resolved.runtime.file, line: pos.line, col: pos.col, field: 'metadata.name' };
}

/**
 * The previous render's SKR manifests of a runtime (for transition rules); undefined skips them.
 * `kinds`: only manifests of these kinds are needed (all when undefined).
 */
export type PreviousRender = (runtime: ResolvedRuntime, kinds?: readonly string[]) => readonly Record<string, unknown>[] | undefined;

export function checkResolved(
  model: FleetModel,
  runtimes: readonly ResolvedRuntime[],
  extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS,
  previous: PreviousRender = () => undefined,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const specs = keyedListsOf(extensions);
  for (const r of runtimes) {
    checkPolicies(model, r, out, extensions);
    checkCatalogResolved(model, r, out, extensions);
    if (r.settings.channel === undefined) {
      const pos = r.runtime.positions.valueAt(['spec']);
      out.push({
        severity: 'error',
        code: 'E_CHANNEL',
        file: r.runtime.file,
        line: pos.line,
        col: pos.col,
        field: 'channel',
        message: `spec.channel: Required value: no layer sets the Kyma channel of runtime ${quote(r.runtime.name)}; set channel in fleet.yaml defaults`,
      });
    }
    for (const [name, ext] of Object.entries(r.settings.extensions)) {
      if (ext.state === 'unset') {
        const where = locate(model, r, ['extensions', name], extensions);
        out.push({
          severity: 'warning',
          code: 'W_EXTENSION_NOT_ENABLED',
          ...where,
          message: `extensions.${name} is configured for runtime ${quote(r.runtime.name)} but no layer sets enabled: true, so it stays off`,
        });
      }
      const plugin = extensions.find((e) => e.name === name);
      if (ext.state !== 'enabled' || !plugin) continue;
      const reporter: RuleReporter = {
        report(path, code, message, options) {
          const where = locate(model, r, toResolvedSegments(ext.config, name, path, specs), extensions);
          const suffix = where.source ? '' : ` (a default of ${name})`;
          out.push({ severity: options?.severity ?? 'error', code, file: where.file, line: where.line, col: where.col, field: where.field, message: message + suffix });
        },
      };
      const env = {
        state: model.extensionState.get(name),
        files: model.files,
        now: model.now,
        runtime: { name: r.runtime.name, runtimeID: r.runtime.runtimeID },
      };
      plugin.validateResolved?.(ext.config, reporter, { ...env, ...(ext.emptiedLists ? { emptiedLists: ext.emptiedLists } : {}) });
      const before = plugin.validateTransition ? previous(r, plugin.transitionKinds) : undefined;
      if (before) plugin.validateTransition!(ext.config, before, reporter, env);
    }
  }
  return out;
}

/** Fleet policies: an overlay may not switch off an extension a policy requires. */
function checkPolicies(model: FleetModel, r: ResolvedRuntime, out: Diagnostic[], extensions: readonly ExtensionPlugin<any>[]): void {
  for (const policy of model.options.policies) {
    if (!selectorMatches(policy.selector, r.runtime.labels)) continue;
    for (const ext of policy.requireExtensions) {
      const state = r.settings.extensions[ext]?.state ?? 'unset';
      if (state === 'enabled') continue;
      const where = locate(model, r, ['extensions', ext, 'enabled'], extensions);
      const how = state === 'disabled' ? 'it is disabled here' : 'no layer enables it';
      out.push({
        severity: 'error',
        code: 'E_POLICY',
        ...(where.source ? where : { ...where }),
        message: `policy ${quote(policy.name)} requires extension ${ext} on runtime ${quote(r.runtime.name)}, but ${how}`,
      });
    }
  }
}
