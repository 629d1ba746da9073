// The record `kyma-fleet apply garden` leaves in the status folder (fleet/status/garden-apply.json):
// per runtime, what the last run did to its Shoot (applied, unchanged, refused, failed), which
// rendered entries that was (by digest), the Shoot generation it wrote and when. `kyma-fleet status`
// reads it to tell an entry that was never applied (Progressing, NotApplied) or that the Shoot's
// admission refused (Failed, with the server's message) from one that drifted after it was applied.
// Written atomically (temporary file, fsync, rename) under the status folder's lock.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import { writeFileAtomic } from '../write/fsync';
import type { ShootExtensionEntry } from './shoot-entries';

export const GARDEN_REPORT_FILE = 'garden-apply.json';

export type ApplyOutcome = 'Applied' | 'Unchanged' | 'Refused' | 'Failed';

export interface RuntimeApplyRecord {
  readonly outcome: ApplyOutcome;
  /** `<namespace>/<name>` of the Shoot. */
  readonly shoot: string;
  /** Digest of each rendered entry the run wanted on the Shoot (entryDigest), by extension type. */
  readonly entries: Readonly<Record<string, string>>;
  /** metadata.generation of the Shoot after the write (Applied) or as read (Unchanged). */
  readonly generation?: number;
  /** Why it was refused or failed: IdentityMismatch, Forbidden, NotFound, Timeout, Conflict, Invalid, … */
  readonly reason?: string;
  /** One line, sanitised; the server's message where it sent one. */
  readonly message?: string;
  /** RFC 3339 time of the run. */
  readonly time: string;
  /** The run wrote outside the change window of the runtime's ring: the `--override-window` reason. */
  readonly windowOverride?: string;
}

export interface GardenApplyReport {
  readonly apiVersion: 'kyma-fleet.dev/v1alpha1';
  readonly kind: 'GardenApplyReport';
  /** By runtime name, sorted. */
  readonly runtimes: Readonly<Record<string, RuntimeApplyRecord>>;
}

/** JSON with object keys sorted at every level: one text for one value. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries.sort(([a], [b]) => cmp(a, b)).map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Identifies one rendered Shoot entry, whatever the key order. The spec.resources entries it needs
 * are named by its providerConfig (and each points at the Secret of its own name), so they are
 * covered.
 */
export function entryDigest(entry: ShootExtensionEntry): string {
  return `sha256:${sha256(canonicalJson(entry))}`;
}

/** Reads the report of the last run; undefined when there is none or it is not one (then status ignores it). */
export function readGardenReport(statusDir: string): GardenApplyReport | undefined {
  let text: string;
  try {
    const file = path.join(statusDir, GARDEN_REPORT_FILE);
    if (!fs.lstatSync(file).isFile()) return undefined;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as GardenApplyReport;
    if (v?.kind !== 'GardenApplyReport' || v.apiVersion !== 'kyma-fleet.dev/v1alpha1' || typeof v.runtimes !== 'object' || v.runtimes === null) return undefined;
    return v;
  } catch {
    return undefined;
  }
}

/**
 * The report after a run: the previous records of the fleet's runtimes that this run did not
 * touch, this run's records, nothing of runtimes the fleet no longer has.
 */
export function mergeGardenReport(previous: GardenApplyReport | undefined, fleetRuntimes: ReadonlySet<string>, records: ReadonlyMap<string, RuntimeApplyRecord>): GardenApplyReport {
  const all = new Map<string, RuntimeApplyRecord>();
  for (const [name, r] of Object.entries(previous?.runtimes ?? {})) if (fleetRuntimes.has(name)) all.set(name, r);
  for (const [name, r] of records) all.set(name, r);
  const runtimes: Record<string, RuntimeApplyRecord> = {};
  for (const name of [...all.keys()].sort(cmp)) runtimes[name] = all.get(name)!;
  return { apiVersion: 'kyma-fleet.dev/v1alpha1', kind: 'GardenApplyReport', runtimes };
}

/** Writes the report atomically; a problem (one line) when it cannot. */
export function writeGardenReport(statusDir: string, report: GardenApplyReport): string | undefined {
  try {
    fs.mkdirSync(statusDir, { recursive: true });
    writeFileAtomic(path.join(statusDir, GARDEN_REPORT_FILE), JSON.stringify(report, null, 2) + '\n');
    return undefined;
  } catch (e) {
    return `cannot write ${GARDEN_REPORT_FILE} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}
