// What `kyma-fleet apply garden` writes into one Shoot, as a pure function of the live Shoot and
// the rendered entries. Shoot.spec.extensions and spec.resources are atomic lists that KIM also
// writes (kyma-gardener-apis.md §1.4-1.5), so the fleet never applies its fragment whole: it takes
// the live lists, replaces the entries of the extension types it owns (those KIM does not manage),
// appends the ones missing, and leaves every other entry as it is, in its place. The resources the
// fleet added are remembered in an annotation on the Shoot, so one it no longer references is
// removed and no one else's is ever touched. The result is a JSON Patch whose first op sets the
// resourceVersion that was read: a write over a newer Shoot fails with 409 and is planned again.

import { isDeepStrictEqual } from 'node:util';

/** A Shoot spec.extensions entry. */
export interface ShootExtensionEntry {
  readonly type: string;
  readonly providerConfig?: Record<string, unknown>;
  readonly disabled?: boolean;
}

/** A Shoot spec.resources entry. */
export interface ShootResourceEntry {
  readonly name: string;
  readonly resourceRef: { readonly apiVersion: string; readonly kind: string; readonly name: string };
}

/** The fleet's share of one Shoot: the entries of the types it owns, and the resources they reference. */
export interface OwnedShootEntries {
  /** Sorted by type; only types the fleet writes (never those KIM writes: ExtensionPlugin.shootEntryWrittenBy). */
  readonly extensions: readonly ShootExtensionEntry[];
  /** Sorted by name. */
  readonly resources: readonly ShootResourceEntry[];
}

/** On the Shoot: the names of the spec.resources entries kyma-fleet wrote, comma-separated. */
export const OWNED_RESOURCES_ANNOTATION = 'kyma-fleet.dev/shoot-resources';
/** On the Shoot, set by KIM: the runtime the Shoot belongs to. */
export const SHOOT_RUNTIME_ID_ANNOTATION = 'infrastructuremanager.kyma-project.io/runtime-id';

export type JsonPatchOp =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

export type ShootPlan =
  | { readonly kind: 'refused'; readonly reason: 'IdentityMismatch' | 'InvalidShoot' | 'ResourceConflict'; readonly message: string }
  | { readonly kind: 'unchanged'; readonly generation?: number }
  | {
      readonly kind: 'update';
      readonly ops: readonly JsonPatchOp[];
      /** Extension types whose entry is added, replaced or turned off. */
      readonly changedTypes: readonly string[];
      readonly extensions: readonly ShootExtensionEntry[];
      readonly resources: readonly ShootResourceEntry[];
    };

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON Pointer segment (RFC 6901). */
function pointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Plans the write of the fleet's entries into `live` (a Shoot as the API server returned it).
 * `runtimeID` is the runtime the fleet declares for it: a Shoot without KIM's runtime-id annotation
 * or with another one is refused, never written.
 */
export function planShootEntries(live: unknown, runtimeID: string, owned: OwnedShootEntries): ShootPlan {
  if (!isRec(live) || !isRec(live.metadata) || !isRec(live.spec)) return refused('InvalidShoot', 'the Shoot has no metadata or spec');
  const meta = live.metadata;
  const annotations = isRec(meta.annotations) ? meta.annotations : undefined;
  const declared = annotations?.[SHOOT_RUNTIME_ID_ANNOTATION];
  if (typeof declared !== 'string' || declared === '') {
    return refused('IdentityMismatch', `the Shoot has no ${SHOOT_RUNTIME_ID_ANNOTATION} annotation, so it cannot be identified as runtime ${runtimeID}'s; nothing written`);
  }
  if (declared.toLowerCase() !== runtimeID.toLowerCase()) {
    return refused('IdentityMismatch', `the Shoot belongs to runtime ${declared} (annotation ${SHOOT_RUNTIME_ID_ANNOTATION}), the fleet declares ${runtimeID}; nothing written`);
  }
  const resourceVersion = meta.resourceVersion;
  if (typeof resourceVersion !== 'string' || resourceVersion === '') return refused('InvalidShoot', 'the Shoot has no metadata.resourceVersion');
  const generation = typeof meta.generation === 'number' ? meta.generation : undefined;

  const spec = live.spec;
  const liveExtensions = spec.extensions ?? [];
  const liveResources = spec.resources ?? [];
  if (!Array.isArray(liveExtensions) || !liveExtensions.every((e) => isRec(e) && typeof e.type === 'string')) {
    return refused('InvalidShoot', 'spec.extensions is not a list of entries with a type');
  }
  if (!Array.isArray(liveResources) || !liveResources.every((r) => isRec(r) && typeof r.name === 'string')) {
    return refused('InvalidShoot', 'spec.resources is not a list of entries with a name');
  }

  // Extensions: owned types replaced in place, missing ones appended, everything else untouched.
  const wanted = new Map(owned.extensions.map((e) => [e.type, e]));
  const placed = new Set<string>();
  const extensions: unknown[] = [];
  for (const entry of liveExtensions as Rec[]) {
    const type = entry.type as string;
    const mine = wanted.get(type);
    if (mine === undefined) extensions.push(entry);
    else if (!placed.has(type)) {
      extensions.push(toPlain(mine));
      placed.add(type);
    }
    // A second entry of an owned type (Gardener refuses duplicates) is dropped with the write.
  }
  for (const e of owned.extensions) if (!placed.has(e.type)) extensions.push(toPlain(e));
  const changedTypes = owned.extensions
    .filter((e) => !isDeepStrictEqual((liveExtensions as Rec[]).filter((x) => x.type === e.type), [toPlain(e)]))
    .map((e) => e.type);

  // Resources: the fleet's own (remembered in the annotation) replaced or removed; others kept.
  const before = new Set(String(annotations?.[OWNED_RESOURCES_ANNOTATION] ?? '').split(',').filter((n) => n !== ''));
  const wantedResources = new Map(owned.resources.map((r) => [r.name, r]));
  const resources: unknown[] = [];
  const kept = new Set<string>();
  for (const r of liveResources as Rec[]) {
    const name = r.name as string;
    const mine = wantedResources.get(name);
    if (mine !== undefined) {
      if (!before.has(name) && !isDeepStrictEqual(r, toPlain(mine))) {
        return refused(
          'ResourceConflict',
          `spec.resources already has an entry ${JSON.stringify(name)} that kyma-fleet did not write, with another resourceRef; rename the Secret the fleet references, nothing written`,
        );
      }
      if (!kept.has(name)) resources.push(toPlain(mine));
      kept.add(name);
    } else if (!before.has(name)) resources.push(r);
  }
  for (const r of owned.resources) if (!kept.has(r.name)) resources.push(toPlain(r));
  const ownedNames = owned.resources.map((r) => r.name).sort().join(',');

  const sameExtensions = isDeepStrictEqual(extensions, liveExtensions);
  const sameResources = isDeepStrictEqual(resources, liveResources);
  const sameAnnotation = (annotations?.[OWNED_RESOURCES_ANNOTATION] ?? '') === ownedNames;
  if (sameExtensions && sameResources && sameAnnotation) return { kind: 'unchanged', ...(generation === undefined ? {} : { generation }) };

  const ops: JsonPatchOp[] = [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }];
  if (!sameExtensions) ops.push({ op: spec.extensions === undefined ? 'add' : 'replace', path: '/spec/extensions', value: extensions });
  if (!sameResources) {
    if (resources.length === 0) ops.push({ op: 'remove', path: '/spec/resources' });
    else ops.push({ op: spec.resources === undefined ? 'add' : 'replace', path: '/spec/resources', value: resources });
  }
  if (!sameAnnotation) {
    const path = `/metadata/annotations/${pointerSegment(OWNED_RESOURCES_ANNOTATION)}`;
    if (ownedNames === '') ops.push({ op: 'remove', path });
    else if (annotations === undefined) ops.push({ op: 'add', path: '/metadata/annotations', value: { [OWNED_RESOURCES_ANNOTATION]: ownedNames } });
    else ops.push({ op: annotations[OWNED_RESOURCES_ANNOTATION] === undefined ? 'add' : 'replace', path, value: ownedNames });
  }
  return {
    kind: 'update',
    ops,
    changedTypes,
    extensions: extensions as ShootExtensionEntry[],
    resources: resources as ShootResourceEntry[],
  };
}

function refused(reason: 'IdentityMismatch' | 'InvalidShoot' | 'ResourceConflict', message: string): ShootPlan {
  return { kind: 'refused', reason, message };
}

/** A plain-data copy without undefined fields (what the server stores and returns). */
function toPlain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
