// The FalcoProfile snapshot the fleet gives for version checks (`Fleet.spec.falcoProfile`). The
// admission webhook reads the profile "falco" live from the Garden cluster; offline, the renderer
// can only check against a copy of it. This file turns that copy into the version list the rules
// and defaults use: a pure parser of the document, plus the plug-in's `prepare`, which finds and
// parses the file and reports every problem at its line in the profile file.

import { type DocPath, quote } from '../../lib/diagnostics';
import { parseFleetYaml } from '../../lib/yaml/parse-yaml';
import type { PrepareInput } from '../types';
import { classifyFleetPath } from './paths';

export const FALCO_PROFILE_API_VERSION = 'falco.gardener.cloud/v1alpha1';
export const FALCO_PROFILE_KIND = 'FalcoProfile';

export const CLASSIFICATIONS = ['preview', 'supported', 'deprecated'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

export interface FalcoVersionEntry {
  /** Semantic version as listed, e.g. '0.42.1'. */
  readonly version: string;
  readonly classification: Classification;
  /** Expiration date as written in the profile (RFC 3339 with a time zone), if any. */
  readonly expirationDate?: string;
  /** `expirationDate` in milliseconds since the epoch. */
  readonly expiresAt?: number;
}

export interface FalcoProfile {
  /** `spec.versions.falco` in file order. */
  readonly versions: readonly FalcoVersionEntry[];
}

/** A problem of the profile document, at a path inside it. */
export interface ProfileProblem {
  readonly path: DocPath;
  readonly message: string;
}

/** What `prepare` digests for the rules and defaults. */
export interface FalcoState {
  /** True when `Fleet.spec.falcoProfile` names a file (even if that file turned out unusable). */
  readonly profileConfigured: boolean;
  /** The parsed profile; undefined when none is configured or it has problems (already reported). */
  readonly profile?: FalcoProfile;
}

export const NO_PROFILE: FalcoState = Object.freeze({ profileConfigured: false });

/** The FalcoProfile CRD's version pattern (semantic versioning 2.0.0). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** RFC 3339 date-time with a mandatory time zone (without one, the instant would depend on TZ). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses a FalcoProfile document (already read by the YAML gate). Pure; never throws. */
export function parseFalcoProfile(data: unknown): { profile?: FalcoProfile; problems: ProfileProblem[] } {
  const problems: ProfileProblem[] = [];
  const problem = (path: DocPath, message: string): void => {
    problems.push({ path, message: `${fieldText(path)} ${message}` });
  };
  if (!isRecord(data)) {
    problems.push({ path: [], message: `a FalcoProfile must be a mapping with apiVersion, kind and spec (got ${kindOf(data)})` });
    return { problems };
  }
  if (data.apiVersion !== FALCO_PROFILE_API_VERSION) {
    problem(['apiVersion'], `must be ${quote(FALCO_PROFILE_API_VERSION)} (got ${quote(data.apiVersion)})`);
  }
  if (data.kind !== FALCO_PROFILE_KIND) {
    problem(['kind'], `must be ${quote(FALCO_PROFILE_KIND)} (got ${quote(data.kind)})`);
  }
  const spec = data.spec;
  const versionsNode = isRecord(spec) ? spec.versions : undefined;
  const falco = isRecord(versionsNode) ? versionsNode.falco : undefined;
  if (falco === undefined || falco === null) {
    const at: DocPath = !isRecord(spec) ? ['spec'] : !isRecord(versionsNode) ? ['spec', 'versions'] : ['spec', 'versions', 'falco'];
    problems.push({ path: at, message: 'spec.versions.falco is missing: the FalcoProfile lists no Falco versions' });
    return { problems };
  }
  if (!Array.isArray(falco)) {
    problem(['spec', 'versions', 'falco'], `must be a list of versions (got ${kindOf(falco)})`);
    return { problems };
  }
  if (falco.length === 0) {
    problem(['spec', 'versions', 'falco'], 'lists no Falco versions');
  }

  const versions: FalcoVersionEntry[] = [];
  const seen = new Map<string, number>();
  falco.forEach((item: unknown, i: number) => {
    const entry = parseVersionEntry(item, ['spec', 'versions', 'falco', i], problem);
    if (!entry) return;
    const first = seen.get(entry.version);
    if (first !== undefined) {
      problem(['spec', 'versions', 'falco', i, 'version'], `duplicates spec.versions.falco[${first}] (version ${quote(entry.version)})`);
      return;
    }
    seen.set(entry.version, i);
    versions.push(entry);
  });
  return problems.length > 0 ? { problems } : { profile: { versions }, problems };
}

function parseVersionEntry(
  item: unknown,
  at: DocPath,
  problem: (path: DocPath, message: string) => void,
): FalcoVersionEntry | undefined {
  if (!isRecord(item)) {
    problem(at, `must be a mapping with version and classification (got ${kindOf(item)})`);
    return undefined;
  }
  let ok = true;
  const { version, classification, expirationDate } = item;
  if (typeof version !== 'string' || !SEMVER.test(version)) {
    problem([...at, 'version'], `must be a semantic version such as "0.42.1" (got ${quote(version)})`);
    ok = false;
  }
  if (typeof classification !== 'string' || !(CLASSIFICATIONS as readonly string[]).includes(classification)) {
    problem([...at, 'classification'], `must be one of preview, supported, deprecated (got ${quote(classification)})`);
    ok = false;
  }
  let expiresAt: number | undefined;
  if (expirationDate !== undefined) {
    expiresAt = typeof expirationDate === 'string' ? parseDateTime(expirationDate) : undefined;
    if (expiresAt === undefined) {
      problem([...at, 'expirationDate'], `must be an RFC 3339 date and time with a time zone such as "2026-07-31T23:59:59Z" (got ${quote(expirationDate)})`);
      ok = false;
    }
  }
  if (!ok) return undefined;
  return expiresAt === undefined
    ? { version: version as string, classification: classification as Classification }
    : { version: version as string, classification: classification as Classification, expirationDate: expirationDate as string, expiresAt };
}

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined if it is not one. */
export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined; // 2026-02-30
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Orders two semantic versions (as the extension does with go-version): numeric major, minor,
 * patch; a pre-release sorts before its release; build metadata is ignored.
 */
export function compareVersions(a: string, b: string): number {
  const pa = splitVersion(a);
  const pb = splitVersion(b);
  for (let i = 0; i < 3; i++) {
    const d = pa.core[i]! - pb.core[i]!;
    if (d !== 0) return Math.sign(d);
  }
  if (pa.pre.length === 0 || pb.pre.length === 0) return Math.sign(pb.pre.length - pa.pre.length);
  for (let i = 0; i < Math.max(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn && Number(x) !== Number(y)) return Math.sign(Number(x) - Number(y));
    if (xn !== yn) return xn ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function splitVersion(v: string): { core: number[]; pre: string[] } {
  const noBuild = v.split('+')[0]!;
  const dash = noBuild.indexOf('-');
  const core = (dash < 0 ? noBuild : noBuild.slice(0, dash)).split('.').map(Number);
  const pre = dash < 0 ? [] : noBuild.slice(dash + 1).split('.');
  return { core, pre };
}

/** Fleet-relative path of the FalcoProfile file, when the Fleet sets a safe one. */
export function falcoProfilePath(fleetSpec: Readonly<Record<string, unknown>>): string | undefined {
  const ref = fleetSpec.falcoProfile;
  return typeof ref === 'string' && ref !== '' && classifyFleetPath(ref) === undefined ? ref : undefined;
}

/** The plug-in's `prepare`: finds, parses and checks the FalcoProfile file the Fleet names. */
export function prepareFalcoState(input: PrepareInput): FalcoState {
  const ref = input.fleetSpec.falcoProfile;
  if (typeof ref !== 'string' || ref === '') return NO_PROFILE; // the Fleet schema reports a wrong type
  const broken: FalcoState = { profileConfigured: true };

  const pathProblem = classifyFleetPath(ref);
  if (pathProblem !== undefined) {
    input.fleetReporter.report(
      ['falcoProfile'],
      pathProblem === 'outside-root' ? 'E_PATH_OUTSIDE_ROOT' : 'E_FALCO_PROFILE',
      `must be a path inside the fleet folder (got ${quote(ref)})`,
    );
    return broken;
  }
  const file = input.files.get(ref);
  if (file === undefined) {
    input.fleetReporter.report(['falcoProfile'], 'E_FALCO_PROFILE', `FalcoProfile file ${quote(ref)} not found in the fleet folder`);
    return broken;
  }

  const parsed = parseFleetYaml(file.bytes, file.file);
  const parseErrors = parsed.diagnostics.filter((d) => d.severity === 'error');
  for (const d of parseErrors) input.reportInFile(ref, d.line, d.col, d.code, d.message);
  if (parsed.data === undefined || parseErrors.length > 0) return broken;

  const { profile, problems } = parseFalcoProfile(parsed.data);
  for (const p of problems) {
    const at = parsed.positions.valueAt(p.path);
    input.reportInFile(ref, at.line, at.col, 'E_FALCO_PROFILE', p.message);
  }
  return profile === undefined ? broken : { profileConfigured: true, profile };
}

function fieldText(path: DocPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${quote(v)}`;
}
