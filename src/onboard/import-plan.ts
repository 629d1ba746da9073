// What `kyma-fleet import runtimes` would do, decided from the Runtime CRs read from the KCP and the
// runtimes the fleet declares: which runtimes are new (matched by runtime ID, never by name), what
// each new file says (./runtime-cr.ts) and is called (./naming.ts), which CRs cannot be imported and
// why, and which fleet runtimes the KCP does not have. Pure: no I/O, no clock.

import { cmp } from '../lib/diagnostics';
import type { ReadObject } from '../observe/object-reader';
import { runtimeYaml } from '../scaffold/templates';
import { chooseNames } from './naming';
import { type ImportCandidate, type LabelRule, readRuntimeCr, type Refusal, runtimeIdOf } from './runtime-cr';

/** A runtime of the fleet, as the plan needs it. */
export interface FleetRuntime {
  readonly name: string;
  readonly runtimeID: string;
  readonly file: string;
}

export interface PlanOptions {
  readonly project: string;
  readonly labelRules: readonly LabelRule[];
  readonly nameTemplate: string;
  /** The $schema reference written into each new file (relative to runtimes/). */
  readonly schemaRef: string;
}

/** A runtime file to write. */
export interface PlannedRuntime {
  readonly name: string;
  /** runtimes/<name>.yaml */
  readonly relPath: string;
  readonly candidate: ImportCandidate;
  readonly text: string;
}

export interface ImportPlan {
  /** Sorted by name. */
  readonly toWrite: readonly PlannedRuntime[];
  /** Runtime CRs whose runtime ID the fleet already declares. */
  readonly managed: number;
  /** Sorted by where. */
  readonly refused: readonly Refusal[];
  /** Fleet runtimes whose runtime ID no Runtime CR has; sorted by name. */
  readonly missingFromKcp: readonly FleetRuntime[];
  /** Runtime CRs read (of the fleet's KCP namespace). */
  readonly read: number;
  /** Notes about imported runtimes (labels a rule names that the CR lacks, copies of one object). */
  readonly notes: ReadonlyArray<{ readonly where: string; readonly message: string }>;
}

/**
 * `taken`: every name the runtimes/ folder already uses (valid declarations or not), lowercase.
 * `objects`: the Runtime CRs of the fleet's KCP namespace.
 */
export function planImport(objects: readonly ReadObject[], fleet: readonly FleetRuntime[], taken: ReadonlySet<string>, options: PlanOptions): ImportPlan {
  const notes: Array<{ where: string; message: string }> = [];
  const refused: Refusal[] = [];
  const known = new Map(fleet.map((r) => [r.runtimeID.toLowerCase(), r]));

  // One object per runtime ID: copies of the same object (a dump holding it twice) collapse into
  // the newest; two different objects claiming one runtime ID are both refused.
  const byId = new Map<string, ReadObject[]>();
  const withoutId: ReadObject[] = [];
  for (const o of objects) {
    const id = runtimeIdOf(o.obj)?.toLowerCase();
    if (id === undefined) withoutId.push(o);
    else if (byId.has(id)) byId.get(id)!.push(o);
    else byId.set(id, [o]);
  }
  const unique: ReadObject[] = [...withoutId];
  for (const [id, group] of byId) {
    if (group.length === 1) {
      unique.push(group[0]!);
      continue;
    }
    const names = new Set(group.map((o) => `${o.obj.metadata.namespace ?? ''}/${o.obj.metadata.name}`));
    if (names.size === 1) {
      const newest = [...group].sort(newestFirst)[0]!;
      notes.push({ where: newest.where, message: `${group.length} copies of Runtime CR ${[...names][0]} (also at ${group.filter((o) => o !== newest).map((o) => o.where).join(', ')}); the one with the highest generation and resourceVersion is used` });
      unique.push(newest);
      continue;
    }
    if (known.has(id)) {
      unique.push(group[0]!); // the fleet manages it already; which CR is right is not import's question
      continue;
    }
    for (const o of group) {
      const others = group.filter((x) => x !== o).map((x) => `${x.obj.metadata.namespace ?? ''}/${x.obj.metadata.name} (${x.where})`);
      refused.push({ where: o.where, object: `${o.obj.metadata.namespace ?? ''}/${o.obj.metadata.name}`, runtimeID: runtimeIdOf(o.obj)!, reason: `runtime ID ${id} is also claimed by ${others.join(', ')}; not imported until one Runtime CR remains` });
    }
  }

  const seen = new Set<string>(refused.flatMap((r) => (r.runtimeID ? [r.runtimeID.toLowerCase()] : [])));
  let managed = 0;
  const candidates: ImportCandidate[] = [];
  for (const o of unique) {
    const id = runtimeIdOf(o.obj)?.toLowerCase();
    if (id !== undefined && known.has(id)) {
      managed++;
      seen.add(id);
      continue;
    }
    const reading = readRuntimeCr(o.obj, o.where, { project: options.project, labelRules: options.labelRules });
    if (!reading.ok) {
      refused.push(reading.refusal);
      if (reading.refusal.runtimeID) seen.add(reading.refusal.runtimeID.toLowerCase());
      continue;
    }
    seen.add(reading.candidate.runtimeID.toLowerCase());
    candidates.push(reading.candidate);
    if (reading.candidate.missingLabels.length > 0) {
      const missing = reading.candidate.missingLabels;
      notes.push({ where: o.where, message: `no label ${missing.join(', ')}: the runtime is imported without ${options.labelRules.filter((r) => missing.includes(r.from)).map((r) => r.label).join(', ')}` });
    }
  }

  const names = chooseNames(
    options.nameTemplate,
    candidates.map((c) => ({ runtimeID: c.runtimeID, region: c.region, shootName: c.shoot.name, plan: c.plan, subaccountID: c.subaccountID, globalAccountID: c.globalAccountID })),
    taken,
  );
  const toWrite: PlannedRuntime[] = [];
  for (const c of candidates) {
    const name = names.get(c.runtimeID);
    if (name === undefined) {
      refused.push({ where: c.where, object: c.object, runtimeID: c.runtimeID, reason: 'no unique name: another runtime ID has the same hex digits' });
      continue;
    }
    const text = runtimeYaml({
      name,
      schemaRef: options.schemaRef,
      comments: [`Imported from the Kyma Control Plane by \`kyma-fleet import runtimes\` (Runtime CR ${c.object}).`],
      labels: c.labels,
      runtimeID: c.runtimeID,
      globalAccountID: c.globalAccountID,
      subaccountID: c.subaccountID,
      region: c.region,
      shoot: c.shoot,
    });
    toWrite.push({ name, relPath: `runtimes/${name}.yaml`, candidate: c, text });
  }
  toWrite.sort((a, b) => cmp(a.name, b.name));
  refused.sort((a, b) => cmp(a.where, b.where) || cmp(a.reason, b.reason));
  notes.sort((a, b) => cmp(a.where, b.where) || cmp(a.message, b.message));
  const missingFromKcp = fleet.filter((r) => !seen.has(r.runtimeID.toLowerCase())).sort((a, b) => cmp(a.name, b.name));
  return { toWrite, managed, refused, missingFromKcp, read: objects.length, notes };
}

/** Higher metadata.generation first, then higher resourceVersion, then the first read. */
function newestFirst(a: ReadObject, b: ReadObject): number {
  const ga = a.obj.metadata.generation ?? -1;
  const gb = b.obj.metadata.generation ?? -1;
  if (ga !== gb) return gb - ga;
  const ra = rv(a);
  const rb = rv(b);
  if (ra !== rb) return rb > ra ? 1 : -1;
  return 0;
}

function rv(o: ReadObject): bigint {
  const v = (o.obj.metadata as { resourceVersion?: unknown }).resourceVersion;
  return typeof v === 'string' && /^[0-9]{1,30}$/.test(v) ? BigInt(v) : -1n;
}
