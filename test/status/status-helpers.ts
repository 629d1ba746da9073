// Shared fixtures of the status tests: the example fleet, resolved and rendered, and the shipped
// sample dump (fleet-status-sample/) observed through the dump source, so that state tests start
// from realistic kubectl objects and change one thing at a time.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkFleet } from '../../src/run/check';
import type { FleetModel } from '../../src/validate/model';
import type { ResolvedRuntime } from '../../src/resolve/resolve';
import { parse } from 'yaml';
import type { Manifest } from '../../src/render/render-runtime';
import { observeDumps } from '../../src/observe/dump-source';
import type { KubeObject, Observation, ObservedRuntime } from '../../src/observe/observed';
import { runtimeRefs } from '../../src/status/report';
import { deriveStatus, type RuntimeStatus } from '../../src/status/states';
import { entryDigest, type RuntimeApplyRecord } from '../../src/apply/garden-report';
import type { ShootExtensionEntry } from '../../src/apply/shoot-entries';
import { EXAMPLE_FLEET, NOW, REPO } from '../helpers/fleet-fixture';

export const SAMPLE_DUMP = path.join(REPO, 'fleet-status-sample');

export interface Example {
  readonly model: FleetModel;
  readonly runtimes: readonly ResolvedRuntime[];
  resolved(name: string): ResolvedRuntime;
  shoot(name: string): Manifest | undefined;
}

let example: Example | undefined;
let sample: Observation | undefined;

export function loadExample(): Example {
  if (example) return example;
  const checked = checkFleet({ fleetDir: EXAMPLE_FLEET, cwd: REPO, now: new Date(NOW) });
  if (!checked.ok || !checked.model) throw new Error('example fleet is invalid');
  const model = checked.model;
  const shoots = new Map<string, Manifest | undefined>();
  example = {
    model,
    runtimes: checked.runtimes,
    resolved: (name) => {
      const r = checked.runtimes.find((x) => x.runtime.name === name);
      if (!r) throw new Error(`no runtime ${name}`);
      return r;
    },
    // The rendered Shoot fragment as committed in dist/ (test/synth.test.ts keeps dist/ equal to a render).
    shoot: (name) => {
      if (!shoots.has(name)) {
        const dir = path.join(REPO, 'dist/runtimes', name, 'garden');
        const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith('shoot-')) : undefined;
        shoots.set(name, file ? (parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Manifest) : undefined);
      }
      return shoots.get(name);
    },
  };
  return example;
}

export function refs() {
  const ex = loadExample();
  return runtimeRefs(ex.model, ex.runtimes);
}

/** The sample dump as the dump source observes it. */
export function sampleObservation(): Observation {
  sample ??= observeDumps(SAMPLE_DUMP, refs());
  return sample;
}

/** A deep, mutable copy of a runtime's observation from the sample dump. */
export type Mutable = {
  ref: ObservedRuntime['ref'];
  runtimeCR?: any;
  kcpKyma?: any;
  shoot?: any;
  skrKyma?: any;
  /** The SKR objects of the extensions' status hooks, by kind. */
  skrObjects: Map<string, any[]>;
  read: Set<'kcp' | 'garden' | 'skr'>;
  failures: Array<{ cluster: 'kcp' | 'garden' | 'skr'; reason: string; message: string }>;
};

export function observed(name: string): Mutable {
  const o = sampleObservation().runtimes.get(name);
  if (!o) throw new Error(`no observation for ${name}`);
  return structuredClone(o) as unknown as Mutable;
}

/** Derives the status of a sample runtime after `change` edited its observation. */
/**
 * What the last `apply garden` run recorded for the runtime's Falco entry: it wrote this very render
 * ('current'), an earlier one ('earlier'), or failed to write this render ('failed').
 */
export type AppliedFalco = 'current' | 'earlier' | 'failed';

export function derive(name: string, change?: (o: Mutable) => void, resolved?: ResolvedRuntime, applied?: AppliedFalco, renderedShoot?: Manifest): RuntimeStatus {
  const ex = loadExample();
  const o = observed(name);
  change?.(o);
  const shoot = renderedShoot ?? ex.shoot(name);
  return deriveStatus(o as unknown as ObservedRuntime, resolved ?? ex.resolved(name), shoot, ex.model.options.extensionModules, undefined, applied && appliedRecord(shoot, applied));
}

function appliedRecord(shoot: Manifest | undefined, applied: AppliedFalco): RuntimeApplyRecord {
  const falco = ((shoot?.spec as { extensions?: ShootExtensionEntry[] } | undefined)?.extensions ?? []).find((e) => e.type === 'shoot-falco-service');
  if (!falco) throw new Error('appliedRecord: the render has no Falco entry');
  const digest = applied === 'earlier' ? entryDigest({ ...falco, providerConfig: { ...falco.providerConfig, autoUpdate: false } }) : entryDigest(falco);
  const base = { shoot: 'garden-kyma-prod/c-3f1e8d6', entries: { 'shoot-falco-service': digest }, time: '2026-11-21T10:00:00Z' };
  return applied === 'failed'
    ? { outcome: 'Failed', ...base, reason: 'Forbidden', message: 'admission webhook "validation.falco.extensions.gardener.cloud" denied the request: version not found in possible versions' }
    : { outcome: 'Applied', ...base, generation: 4 };
}

/** The Shoot's spec.extensions entry of a type. */
export function entry(o: Mutable, type: string): any {
  return o.shoot.spec.extensions.find((e: any) => e.type === type);
}

/** The module entry of the SKR Kyma status. */
export function moduleStatus(o: Mutable, name: string): any {
  return o.skrKyma.status.modules.find((m: any) => m.name === name);
}

/** The RegistryCacheConfigs of a runtime's observation (the registry-cache status hook's SKR kind). */
export function rccs(o: { readonly skrObjects: ReadonlyMap<string, readonly any[]> }): any[] {
  return [...(o.skrObjects.get('RegistryCacheConfig') ?? [])];
}

export function rcc(o: Mutable, upstream: string): KubeObject & { spec: any; status: any } {
  const found = rccs(o).find((c: any) => c.spec.upstream === upstream);
  if (!found) throw new Error(`no RegistryCacheConfig for ${upstream}`);
  return found;
}

export function tmpDir(prefix = 'kyma-fleet-status-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
