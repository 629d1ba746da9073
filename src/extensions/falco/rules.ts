// The Falco admission webhook's checks (kyma-gardener-apis.md §7.2, §10 items 33-47), run in CI on
// the fleet so a bad setting fails here, with file and line, instead of at Shoot admission. Each
// rule is a small named function; messages keep the webhook's wording, with our field names
// (`configMap`/`file` for the webhook's `shootConfigMap`/`resourceName`).
//
// - validateLayer: what one layer's value can decide alone (names, duplicates in one list, file
//   references, `rules: {}`, version syntax when there is no FalcoProfile);
// - validateResolved: what depends on the merged settings (empty rules, destination combinations and
//   the warnings of ./destination-warnings.ts,
//   every destination disabled, the effective version against the FalcoProfile).
//
// Rules tolerate values of the wrong shape (the schema reports those) and skip them.

import { quote } from '../../lib/diagnostics';
import { KIM_RESERVED_NAME_PART } from '../../lib/k8s-names';
import { parseFleetYaml, type ParsedYaml } from '../../lib/yaml/parse-yaml';
import type { AuxFile, RuleEnvironment, RuleReporter } from '../types';
import { bare, dns1123SubdomainProblem, rulesConfigMapName } from './names';
import { baseName, classifyFleetPath } from './paths';
import type { FalcoState } from './profile';
import { warnAboutDestinations } from './destination-warnings';
import { DESTINATIONS, STANDARD_RULES } from './schema';

type Env = RuleEnvironment<FalcoState>;

/** A rules file must leave room for the ConfigMap around it within the 1 MiB object limit. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024 - 1024;

/** Output key of each destination (`multiple enabled destinations use the same output key`). */
export const OUTPUT_KEYS: Readonly<Record<string, string>> = {
  logging: 'loki',
  otlp: 'otlp',
  custom: 'webhook',
  opensearch: 'elasticsearch',
  splunk: 'splunk',
  central: 'webhook',
};

const RULES_DIR = 'rules/';
const VERSION_SYNTAX = /^\d+\.\d+\.\d+$/;

// ---------------------------------------------------------------------------------------------
// One layer

export function validateLayer(value: Record<string, unknown>, reporter: RuleReporter, env: Env): void {
  checkVersionSyntax(value.falcoVersion, reporter, env);
  const rules = asRecord(value.rules);
  if (rules) {
    checkRulesMapNotEmpty(rules, reporter);
    const standard = stringItems(rules.standard);
    checkStandardRuleNames(standard, reporter);
    checkStandardRuleDuplicates(standard, reporter);
    const custom = customRuleItems(rules.custom);
    checkCustomRuleSource(custom, reporter);
    checkCustomRuleDuplicates(custom, reporter);
    checkCustomRuleConfigMapNames(custom, reporter);
    checkCustomRuleFiles(custom, reporter, env);
  }
  const destinations = destinationItems(value.destinations);
  checkDestinationNames(destinations, reporter);
  checkDestinationDuplicates(destinations, reporter);
  checkDestinationSecretNames(destinations, reporter);
}

/** Without a FalcoProfile, a version can only be checked for its form. */
function checkVersionSyntax(version: unknown, reporter: RuleReporter, env: Env): void {
  if (env.state?.profileConfigured || typeof version !== 'string' || VERSION_SYNTAX.test(version)) return;
  reporter.report(['falcoVersion'], 'E_FALCO_VERSION', `must be a version MAJOR.MINOR.PATCH such as "0.42.1" (got ${quote(version)})`);
}

/**
 * `rules: {}` says "no rules" (the mutator only defaults a missing `rules`). Checked per layer
 * because an empty map adds nothing to the merged settings, where the default would then apply.
 */
function checkRulesMapNotEmpty(rules: Record<string, unknown>, reporter: RuleReporter): void {
  if (Object.keys(rules).length === 0) reporter.report(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed');
}

function checkStandardRuleNames(standard: readonly Item<string>[], reporter: RuleReporter): void {
  for (const { index, value } of standard) {
    if (!(STANDARD_RULES as readonly string[]).includes(value)) {
      reporter.report(['rules', 'standard', index], 'E_FALCO_RULES', `unknown standard rule ${bare(value)}`);
    }
  }
}

function checkStandardRuleDuplicates(standard: readonly Item<string>[], reporter: RuleReporter): void {
  const seen = new Set<string>();
  for (const { index, value } of standard) {
    if (seen.has(value)) reporter.report(['rules', 'standard', index], 'E_FALCO_RULES', 'duplicate entry in standard rules');
    seen.add(value);
  }
}

/** Exactly one of `configMap` and `file` (the webhook: shootConfigMap and resourceName). */
function checkCustomRuleSource(custom: readonly CustomRuleItem[], reporter: RuleReporter): void {
  for (const rule of custom) {
    if (rule.configMap !== undefined && rule.file !== undefined) {
      reporter.report(['rules', 'custom', rule.index], 'E_FALCO_RULES', 'found custom rule with both configMap and file defined');
    } else if (rule.configMap === undefined && rule.file === undefined) {
      reporter.report(['rules', 'custom', rule.index], 'E_FALCO_RULES', 'found custom rule with neither configMap nor file defined');
    }
  }
}

function checkCustomRuleDuplicates(custom: readonly CustomRuleItem[], reporter: RuleReporter): void {
  const seen = new Set<string>();
  for (const rule of custom) {
    for (const field of ['configMap', 'file'] as const) {
      const v = rule[field];
      if (v === undefined) continue;
      const key = `${field}\u0000${v}`;
      if (seen.has(key)) reporter.report(['rules', 'custom', rule.index, field], 'E_FALCO_RULES', 'duplicate entry in custom rules');
      seen.add(key);
    }
  }
}

function checkCustomRuleConfigMapNames(custom: readonly CustomRuleItem[], reporter: RuleReporter): void {
  for (const rule of custom) {
    if (rule.configMap === undefined) continue;
    const problem = dns1123SubdomainProblem(rule.configMap);
    if (problem) reporter.report(['rules', 'custom', rule.index, 'configMap'], 'E_FALCO_RULES', problem);
  }
}

/** A `file` reference: a plain path under rules/, an existing .yaml file that fits a ConfigMap and parses. */
function checkCustomRuleFiles(custom: readonly CustomRuleItem[], reporter: RuleReporter, env: Env): void {
  for (const rule of custom) {
    if (rule.file === undefined) continue;
    const path = ['rules', 'custom', rule.index, 'file'];
    const problem = rulesFileProblem(rule.file, env.files);
    if (problem) reporter.report(path, problem.code, problem.message);
  }
}

/** The first problem of a rules file reference, checked in order; never echoes file content. */
export function rulesFileProblem(ref: string, files: ReadonlyMap<string, AuxFile>): { code: string; message: string } | undefined {
  const shape = classifyFleetPath(ref);
  if (shape === 'outside-root') {
    return { code: 'E_PATH_OUTSIDE_ROOT', message: `must be a path under rules/ inside the fleet folder (got ${quote(ref)})` };
  }
  if (!ref.startsWith(RULES_DIR)) {
    return { code: 'E_FALCO_RULES_FILE', message: `must be a path under rules/ inside the fleet folder (got ${quote(ref)})` };
  }
  if (shape === 'not-plain') {
    return {
      code: 'E_FALCO_RULES_FILE',
      message: `must be a plain path of names made of letters, digits, ".", "-" and "_", separated by "/" (got ${quote(ref)})`,
    };
  }
  if (!ref.endsWith('.yaml')) {
    return { code: 'E_FALCO_RULES_FILE', message: `rule file ${baseName(ref)} is not a yaml file` };
  }
  const file = files.get(ref);
  if (file === undefined) return { code: 'E_FALCO_RULES_FILE', message: `rules file ${quote(ref)} not found` };
  if (file.bytes.length > MAX_RULES_FILE_BYTES) {
    return {
      code: 'E_FALCO_RULES_FILE',
      message:
        `rules file ${quote(ref)} is ${file.bytes.length} bytes; the limit is ${MAX_RULES_FILE_BYTES} bytes ` +
        '(1 MiB - 1 KiB) so that its ConfigMap fits the 1 MiB limit',
    };
  }
  const parsed = parseRulesFile(file);
  const error = parsed.diagnostics.find((d) => d.severity === 'error');
  if (error) {
    const what = error.code === 'E_EMPTY_FILE' ? 'the file holds no YAML document' : error.message;
    return { code: 'E_FALCO_RULES_FILE', message: `rules file ${quote(ref)} is not valid YAML: line ${error.line}, column ${error.col}: ${what}` };
  }
  return undefined;
}

/** Parse results by file, so a rules file referenced by many layers is parsed once (pure memo). */
const parsedRulesFiles = new WeakMap<AuxFile, ParsedYaml>();

function parseRulesFile(file: AuxFile): ParsedYaml {
  let parsed = parsedRulesFiles.get(file);
  if (parsed === undefined) {
    parsed = parseFleetYaml(file.bytes, file.file);
    parsedRulesFiles.set(file, parsed);
  }
  return parsed;
}

function checkDestinationNames(destinations: readonly DestinationItem[], reporter: RuleReporter): void {
  for (const d of destinations) {
    if (!(DESTINATIONS as readonly string[]).includes(d.name)) {
      reporter.report(['destinations', d.index, 'name'], 'E_FALCO_DESTINATION', `unknown event destination: ${bare(d.name)}`);
    }
  }
}

/** Within one layer's list, disabled entries included (layers merge the list by name). */
function checkDestinationDuplicates(destinations: readonly DestinationItem[], reporter: RuleReporter): void {
  const seen = new Set<string>();
  for (const d of destinations) {
    if (seen.has(d.name)) reporter.report(['destinations', d.index, 'name'], 'E_FALCO_DESTINATION', 'duplicate entry in event destinations');
    seen.add(d.name);
  }
}

function checkDestinationSecretNames(destinations: readonly DestinationItem[], reporter: RuleReporter): void {
  for (const d of destinations) {
    if (d.resourceSecretName === undefined) continue;
    const problem = dns1123SubdomainProblem(d.resourceSecretName);
    if (problem) reporter.report(['destinations', d.index, 'resourceSecretName'], 'E_FALCO_DESTINATION', problem);
    // The Secret becomes a Shoot resource of that name; KIM's next patch would remove it, and the
    // destination would then fail admission with "... config <name> not found in resources".
    if (d.resourceSecretName.includes(KIM_RESERVED_NAME_PART)) {
      reporter.report(
        ['destinations', d.index, 'resourceSecretName'],
        'E_FALCO_DESTINATION',
        `must not contain ${quote(KIM_RESERVED_NAME_PART)}: KIM removes the Shoot resources whose name contains it (got ${quote(d.resourceSecretName)})`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Resolved settings of one runtime (keyed lists sorted by key, disabled entries removed)

export function validateResolved(value: Record<string, unknown>, reporter: RuleReporter, env: Env & { readonly emptiedLists?: readonly string[] }): void {
  checkVersionInProfile(value.falcoVersion, reporter, env);
  checkRulesNotEmpty(value.rules, reporter);
  const enabled = destinationItems(value.destinations).filter((d) => d.enabled);
  checkOutputKeys(enabled, reporter);
  warnAboutDestinations(enabled, env.emptiedLists, reporter);
  checkLoggingWithCustom(enabled, reporter);
  checkSecretConfigured(enabled, 'custom', 'custom event destination is set but no custom config is defined', reporter);
  checkSecretConfigured(enabled, 'splunk', 'splunk event destination is set but no secret config is defined', reporter);
  checkRulesConfigMapNames(value.rules, reporter);
}

/** Two rules files must not derive the same ConfigMap name (rules/team/web.yaml and rules/team-web.yaml). */
function checkRulesConfigMapNames(rulesValue: unknown, reporter: RuleReporter): void {
  const custom = asRecord(rulesValue)?.custom;
  if (!Array.isArray(custom)) return;
  const seen = new Map<string, string>();
  custom.forEach((rule: unknown, i) => {
    const file = asRecord(rule)?.file;
    if (typeof file !== 'string') return;
    const name = rulesConfigMapName(file);
    const other = seen.get(name);
    if (other !== undefined && other !== file) {
      reporter.report(['rules', 'custom', i, 'file'], 'E_OUTPUT_COLLISION', `rules files ${quote(other)} and ${quote(file)} would both be rendered as ConfigMap ${quote(name)}; rename one of them`);
    } else seen.set(name, file);
  });
}

/** The effective version must be listed in the FalcoProfile and not deprecated past its expiry. */
function checkVersionInProfile(version: unknown, reporter: RuleReporter, env: Env): void {
  const profile = env.state?.profile;
  if (profile === undefined || typeof version !== 'string') return;
  const entry = profile.versions.find((v) => v.version === version);
  if (entry === undefined) {
    reporter.report(['falcoVersion'], 'E_FALCO_VERSION', `version not found in possible versions (got ${quote(version)})`);
  } else if (entry.classification === 'deprecated' && entry.expiresAt !== undefined && entry.expiresAt < env.now.getTime()) {
    reporter.report(
      ['falcoVersion'],
      'E_FALCO_VERSION',
      `chosen version is marked as deprecated (got ${quote(version)}, expired ${entry.expirationDate ?? ''})`,
    );
  }
}

/** Both lists empty (or `rules: {}`); a left-out `rules` gets the default [falco-rules] instead. */
function checkRulesNotEmpty(rulesValue: unknown, reporter: RuleReporter): void {
  const rules = asRecord(rulesValue);
  if (!rules) return;
  const count = (Array.isArray(rules.standard) ? rules.standard.length : 0) + (Array.isArray(rules.custom) ? rules.custom.length : 0);
  if (count === 0) reporter.report(['rules'], 'E_FALCO_RULES', 'falco deployment without any rules is not allowed');
}

/** Two enabled destinations may not write to the same output (central and custom: webhook). */
function checkOutputKeys(enabled: readonly DestinationItem[], reporter: RuleReporter): void {
  const seen = new Set<string>();
  for (const d of enabled) {
    const key = OUTPUT_KEYS[d.name];
    if (key === undefined) continue;
    if (seen.has(key)) {
      reporter.report(['destinations', d.index, 'name'], 'E_FALCO_DESTINATION', `multiple enabled destinations use the same output key ${quote(key)}`);
    }
    seen.add(key);
  }
}

/** Reported on the later of the two entries, like the other pair conflicts. */
function checkLoggingWithCustom(enabled: readonly DestinationItem[], reporter: RuleReporter): void {
  const logging = enabled.find((d) => d.name === 'logging');
  const custom = enabled.find((d) => d.name === 'custom');
  if (!logging || !custom) return;
  const later = logging.index > custom.index ? logging : custom;
  reporter.report(['destinations', later.index, 'name'], 'E_FALCO_DESTINATION', 'logging and custom destinations cannot be used together');
}

/** custom and splunk need `resourceSecretName` (opensearch is not checked at admission). */
function checkSecretConfigured(enabled: readonly DestinationItem[], name: string, message: string, reporter: RuleReporter): void {
  for (const d of enabled) {
    if (d.name === name && d.resourceSecretName === undefined) {
      reporter.report(['destinations', d.index, 'name'], 'E_FALCO_DESTINATION', message);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading values of unknown shape

interface Item<T> {
  readonly index: number;
  readonly value: T;
}

interface CustomRuleItem {
  readonly index: number;
  readonly configMap?: string;
  readonly file?: string;
}

interface DestinationItem {
  readonly index: number;
  readonly name: string;
  readonly resourceSecretName?: string;
  readonly enabled: boolean;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A string that counts as set: the webhook treats an empty name as not defined. */
function setString(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function stringItems(list: unknown): Item<string>[] {
  if (!Array.isArray(list)) return [];
  const out: Item<string>[] = [];
  list.forEach((value: unknown, index: number) => {
    if (typeof value === 'string') out.push({ index, value });
  });
  return out;
}

function customRuleItems(list: unknown): CustomRuleItem[] {
  if (!Array.isArray(list)) return [];
  const out: CustomRuleItem[] = [];
  list.forEach((item: unknown, index: number) => {
    const rec = asRecord(item);
    if (!rec) return;
    const configMap = setString(rec.configMap);
    const file = setString(rec.file);
    out.push({ index, ...(configMap !== undefined && { configMap }), ...(file !== undefined && { file }) });
  });
  return out;
}

function destinationItems(list: unknown): DestinationItem[] {
  if (!Array.isArray(list)) return [];
  const out: DestinationItem[] = [];
  list.forEach((item: unknown, index: number) => {
    const rec = asRecord(item);
    if (!rec || typeof rec.name !== 'string') return;
    const resourceSecretName = setString(rec.resourceSecretName);
    out.push({ index, name: rec.name, enabled: rec.enabled !== false, ...(resourceSecretName !== undefined && { resourceSecretName }) });
  });
  return out;
}
