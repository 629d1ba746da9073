// Structural validation of one fleet document with ajv, and the translation of ajv's errors into
// diagnostics that name the file, line, column and field, with hints for the usual YAML traps
// (YAML 1.1 booleans, version numbers read as floats, null for "unset").

import * as fs from 'node:fs';
import * as path from 'node:path';
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { sha256 } from '../lib/digest';
import { EXTENSIONS } from '../extensions';
import type { ExtensionPlugin } from '../extensions/types';
import { type Diagnostic, type DocPath, type FieldNaming, formatField, quote } from '../lib/diagnostics';
import { documentNaming } from './field-naming';
import { closestMatch, editDistance } from '../lib/suggest';
import type { PositionIndex } from '../lib/yaml/positions';
import { type FleetKind, schemaFor } from './schema';

/** Extension types KIM sets on every Shoot itself; the fleet must never configure them. */
export const KIM_MANAGED_EXTENSIONS = [
  'shoot-auditlog-service',
  'shoot-dns-service',
  'shoot-cert-service',
  'shoot-oidc-service',
  'shoot-networking-filter',
  'acl',
  'shoot-nvidia-openshell',
] as const;

const CORE_HINTS: Record<string, string> = {
  'modules.version': 'Kyma does not accept module versions (the field is pruned); pin a channel instead',
  'modules.managed': 'the fleet manages every module it lists',
};

type Validators = Record<FleetKind, ValidateFunction>;
const cache = new WeakMap<readonly ExtensionPlugin<any>[], Validators>();

export const FLEET_KINDS: readonly FleetKind[] = ['Fleet', 'RuntimeGroup', 'KymaRuntime'];

const AJV_OPTIONS = {
  strict: true,
  allErrors: true,
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  ownProperties: true,
  verbose: true,
} as const;

/** The ajv every fleet schema is compiled with (at run time, and at build time with `source` for standalone code). */
export function newFleetAjv(code?: { source: boolean }): Ajv {
  // Loaded here, not at the top: a run with the build-time validators never compiles a schema (ajv takes ~40 ms to load).
  const { default: AjvClass } = require('ajv') as typeof import('ajv');
  return new AjvClass({ ...AJV_OPTIONS, ...(code ? { code } : {}) });
}

/**
 * sha256 of what the validators are made from (the fleet schemas of these extensions, the ajv
 * options and version): the build-time validators apply only while it matches.
 */
export function schemasDigest(extensions: readonly ExtensionPlugin<any>[]): string {
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;
  return sha256(JSON.stringify({ ajvVersion, options: AJV_OPTIONS, schemas: FLEET_KINDS.map((k) => schemaFor(k, extensions)) }));
}

/**
 * The validators compiled at build time (scripts/write-validators.ts) for the built-in extensions,
 * when they exist and were built from the current schemas; undefined otherwise (running from the
 * TypeScript sources, or a stale build).
 */
export function prebuiltValidators(extensions: readonly ExtensionPlugin<any>[]): Validators | undefined {
  if (extensions !== EXTENSIONS) return undefined;
  for (const candidate of [path.join(__dirname, '..', '..', 'generated', 'fleet-validators.js'), path.join(__dirname, '..', '..', 'lib', 'generated', 'fleet-validators.js')]) {
    if (!fs.existsSync(candidate)) continue;
    const mod = require(candidate) as Partial<Validators> & { schemasDigest?: string };
    if (mod.schemasDigest !== schemasDigest(extensions) || FLEET_KINDS.some((k) => typeof mod[k] !== 'function')) return undefined;
    return { Fleet: mod.Fleet!, RuntimeGroup: mod.RuntimeGroup!, KymaRuntime: mod.KymaRuntime! };
  }
  return undefined;
}

/** The validators compiled now (what the build-time ones must equal). */
export function compileValidators(extensions: readonly ExtensionPlugin<any>[]): Validators {
  const ajv = newFleetAjv();
  return {
    Fleet: ajv.compile(schemaFor('Fleet', extensions)),
    RuntimeGroup: ajv.compile(schemaFor('RuntimeGroup', extensions)),
    KymaRuntime: ajv.compile(schemaFor('KymaRuntime', extensions)),
  };
}

function validators(extensions: readonly ExtensionPlugin<any>[]): Validators {
  let v = cache.get(extensions);
  if (!v) {
    v = prebuiltValidators(extensions) ?? compileValidators(extensions);
    cache.set(extensions, v);
  }
  return v;
}

/** Validates one document against the schema of its kind. Returns diagnostics; never throws. */
export function checkDocumentSchema(
  kind: FleetKind,
  data: unknown,
  file: string,
  positions: PositionIndex,
  extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS,
): Diagnostic[] {
  const validate = validators(extensions)[kind];
  if (validate(data)) return [];
  const out: Diagnostic[] = [];
  const naming = documentNaming(kind, data, extensions);
  for (const e of validate.errors ?? []) {
    const d = translate(e, file, positions, extensions, naming);
    if (d) out.push(d);
  }
  return out;
}

function pathOf(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s));
}

function translate(
  e: ErrorObject,
  file: string,
  positions: PositionIndex,
  extensions: readonly ExtensionPlugin<any>[],
  naming: FieldNaming,
): Diagnostic | undefined {
  const path = pathOf(e.instancePath);
  const diag = (code: string, at: DocPath, message: string, where: 'key' | 'value' = 'value'): Diagnostic => {
    const pos = where === 'key' ? positions.keyAt(at) : positions.valueAt(at);
    return { severity: 'error', code, file, line: pos.line, col: pos.col, field: formatField(at, naming), message };
  };
  switch (e.keyword) {
    case 'required': {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      return diag('E_REQUIRED', [...path, missing], 'Required value: field is required');
    }
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const at = [...path, key];
      const known = Object.keys(((e.parentSchema as { properties?: object }) ?? {}).properties ?? {});
      if (path[path.length - 1] === 'extensions') return unknownExtension(key, at, diag, extensions);
      const hint = hintFor(at, extensions);
      const guess = closestMatch(key, known);
      let msg = `unknown field ${quote(key)}`;
      if (hint) msg += `: ${hint}`;
      else if (guess) msg += ` (did you mean ${quote(guess)}?)`;
      return diag('E_UNKNOWN_FIELD', at, msg, 'key');
    }
    case 'type': {
      const expected = String((e.params as { type: string | string[] }).type);
      return diag('E_TYPE', path, typeMessage(expected, e.data, positions.numberSourceAt(path), isQuantityField(e.parentSchema)));
    }
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => quote(v)).join(', ');
      return diag('E_ENUM', path, `Unsupported value: ${quote(e.data)}: supported values: ${allowed}`);
    }
    case 'const':
      // apiVersion and kind are checked before the schema, with a better message.
      return undefined;
    case 'maxLength':
      return diag('E_TOO_LONG', path, `must be at most ${(e.params as { limit: number }).limit} characters (got ${String(e.data).length})`);
    case 'maxItems':
    case 'maxProperties':
      return diag('E_TOO_MANY', path, `must have at most ${(e.params as { limit: number }).limit} entries`);
    case 'minItems':
    case 'minProperties':
      return diag('E_REQUIRED', path, `must have at least ${(e.params as { limit: number }).limit} entries`);
    case 'minimum':
    case 'maximum':
      return diag('E_RANGE', path, `${e.message} (got ${quote(e.data)})`);
    default:
      return diag('E_SCHEMA', path, `${e.message ?? 'is invalid'} (got ${quote(e.data)})`);
  }
}

function unknownExtension(
  key: string,
  at: DocPath,
  diag: (code: string, at: DocPath, message: string, where?: 'key' | 'value') => Diagnostic,
  extensions: readonly ExtensionPlugin<any>[],
): Diagnostic {
  const supported = extensions.map((x) => x.name);
  if ((KIM_MANAGED_EXTENSIONS as readonly string[]).includes(key)) {
    return diag(
      'E_EXTENSION_OPERATOR_MANAGED',
      at,
      `extension ${quote(key)} is managed by KIM (Kyma Infrastructure Manager) on every Shoot and cannot be configured by the fleet; supported: ${supported.join(', ')}`,
      'key',
    );
  }
  const suggestion = suggestExtension(key, extensions);
  const hint = !suggestion
    ? ''
    : suggestion.asShootType
      ? ` (did you mean ${quote(suggestion.plugin.name)}? the Shoot extension ${suggestion.plugin.shootExtensionType} is configured as extensions.${suggestion.plugin.name})`
      : ` (did you mean ${quote(suggestion.plugin.name)}?)`;
  return diag('E_EXTENSION_UNKNOWN', at, `unknown extension ${quote(key)}${hint}; supported: ${supported.join(', ')}`, 'key');
}

/**
 * The part of a Shoot extension type that names the extension, in one spelling: the `shoot-` prefix
 * and the `-service` suffix (or a typo of it, or `-svc`) left out (shoot-<x>-service -> <x>).
 */
export function extensionTypeCore(text: string): string {
  const tokens = text.toLowerCase().split(/[-_.]+/).filter((t) => t !== '');
  if (tokens.length > 1 && tokens[0] === 'shoot') tokens.shift();
  const last = tokens[tokens.length - 1];
  if (tokens.length > 1 && last !== undefined && (last === 'svc' || editDistance(last, 'service') <= 2)) tokens.pop();
  return tokens.join('-');
}

/**
 * Which extension an unknown key under `extensions` probably means, and whether the key was its
 * Shoot extension type (users write the type shoot-<x>-service where the fleet name <x> goes).
 * Types are compared by the part that names the extension, never as whole strings: two types that
 * differ only in that part are as close as a typo, yet name different extensions.
 */
export function suggestExtension(key: string, extensions: readonly ExtensionPlugin<any>[]): { plugin: ExtensionPlugin<any>; asShootType: boolean } | undefined {
  const flat = (text: string): string => text.toLowerCase().replace(/[-_.]/g, '');
  const asType = (plugin: ExtensionPlugin<any>) => ({ plugin, asShootType: plugin.name !== plugin.shootExtensionType });
  const exact = extensions.find((x) => flat(x.shootExtensionType) === flat(key));
  if (exact) return asType(exact);
  const core = extensionTypeCore(key);
  // Written as a Shoot type (a shoot- prefix or a -service suffix): match the parts that name extensions.
  if (core !== key.toLowerCase().split(/[-_.]+/).filter((t) => t !== '').join('-')) {
    const match = closestMatch(core, extensions.map((x) => extensionTypeCore(x.shootExtensionType)));
    const plugin = extensions.find((x) => extensionTypeCore(x.shootExtensionType) === match);
    if (plugin) return asType(plugin);
  }
  const names = extensions.map((x) => x.name);
  const name = closestMatch(key, names) ?? closestMatch(core, names);
  const plugin = extensions.find((x) => x.name === name);
  return plugin ? { plugin, asShootType: false } : undefined;
}

/** Looks up a hint for an unknown field by its dotted path (list indices dropped). */
function hintFor(at: DocPath, extensions: readonly ExtensionPlugin<any>[]): string | undefined {
  const names = at.filter((s): s is string => typeof s === 'string');
  const i = names.indexOf('extensions');
  if (i >= 0 && names.length > i + 2) {
    const ext = extensions.find((x) => x.name === names[i + 1]);
    return ext?.unknownFieldHints?.[names.slice(i + 2).join('.')];
  }
  const j = names.indexOf('modules');
  if (j >= 0) return CORE_HINTS[names.slice(j).join('.')];
  return undefined;
}

const YAML11_BOOLEANS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF']);
const YAML11_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `${typeof value} ${quote(value)}`;
}

/** A field whose value is a Kubernetes quantity (its schema says so in its description). */
function isQuantityField(schema: unknown): boolean {
  const description = (schema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' && /\bKubernetes quantity\b/.test(description);
}

function typeMessage(expected: string, value: unknown, numberSource: string | undefined, quantity = false): string {
  const want = expected
    .split(',')
    .map((t) => ({ object: 'a map', array: 'a list', integer: 'an integer', boolean: 'a boolean', string: 'a string', number: 'a number' })[t] ?? t)
    .join(' or ');
  if (value === null) return `must be ${want}, not null: remove the field or give it a value`;
  if (expected.includes('boolean') && typeof value === 'string' && YAML11_BOOLEANS.has(value)) {
    return `must be ${want} (got string ${quote(value)}): YAML 1.1 word ${quote(value)} is a string in YAML 1.2; write ${YAML11_TRUE.has(value)} instead`;
  }
  if (expected.includes('string') && typeof value === 'number' && quantity) {
    // A bare number is a count of bytes once quoted ("10" is ten bytes), and a size cannot change
    // once applied: suggest the unit, never the quoted number.
    const src = numberSource ?? String(value);
    return `must be a quantity with a unit (got number ${src}): write ${src}Gi for ${src} gibibytes (or ${src}G for ${src}×10^9 bytes); a number without a unit counts bytes`;
  }
  if (expected.includes('string') && typeof value === 'number') {
    const src = numberSource ?? String(value);
    return `must be ${want} (got number ${src}); quote it: "${src}"`;
  }
  if (expected.includes('string') && typeof value === 'boolean') {
    return `must be ${want} (got boolean ${value}); quote it if you mean the word`;
  }
  return `must be ${want} (got ${describe(value)})`;
}
