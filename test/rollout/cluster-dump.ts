// Test helper of the rollout scenarios: a folder of kubectl dumps (the layout `status --from`
// reads) in which every runtime's clusters show a given render of dist/ in effect: the Shoot
// carries the rendered extension entries and is reconciled, the Runtime CR is Ready with the
// rendered spec, the SKR Kyma lists the rendered modules as Ready, and every rendered
// RegistryCacheConfig is Ready. A dump made from an older dist/ is "a status taken before the
// change". `adjust` changes objects of one runtime (e.g. a failed Shoot operation). Also the two
// readers the rollout scenarios share: a folder as a map of its files, and the runtimes of a fleet.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { INDEX_FILE } from '../../src/write/dist-writer';
import { indexWithoutRecord } from '../helpers/read-dist';

export interface DumpRuntime {
  readonly name: string;
  readonly runtimeID: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
}

type Obj = Record<string, any>;

export interface DumpAdjust {
  shoot?(shoot: Obj): void;
  runtime?(runtime: Obj): void;
  kyma?(kyma: Obj): void;
}

function objects(dir: string): Obj[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort()
    .map((f) => parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Obj);
}

/** Writes `out` (kcp/, garden/, runtimes/<name>/) from the render in `dist` of these runtimes. */
export function writeDumpFromDist(dist: string, runtimes: readonly DumpRuntime[], out: string, adjust: Readonly<Record<string, DumpAdjust>> = {}): void {
  fs.rmSync(out, { recursive: true, force: true });
  const shoots: Obj[] = [];
  const runtimeCRs: Obj[] = [];
  for (const rt of runtimes) {
    const base = path.join(dist, 'runtimes', rt.name);
    const id = rt.runtimeID.toLowerCase();
    const fix = adjust[rt.name] ?? {};

    const shoot = objects(path.join(base, 'garden')).find((o) => o.kind === 'Shoot')!;
    shoot.metadata = { ...shoot.metadata, generation: 3, annotations: { 'infrastructuremanager.kyma-project.io/runtime-id': rt.runtimeID } };
    shoot.status = { observedGeneration: 3, lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, lastUpdateTime: '2026-11-20T00:00:00Z' } };
    fix.shoot?.(shoot);
    shoots.push(shoot);

    const fragment = objects(path.join(base, 'kcp')).find((o) => o.kind === 'Runtime');
    const runtimeCR: Obj = {
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'Runtime',
      metadata: { name: id, namespace: 'kcp-system', generation: 2, labels: { 'kyma-project.io/runtime-id': rt.runtimeID } },
      spec: { ...(fragment?.spec ?? {}), shoot: { name: shoot.metadata.name } },
      status: { state: 'Ready', conditions: [{ type: 'Provisioned', status: 'True', reason: 'Provisioned', message: 'runtime provisioned', lastTransitionTime: '2026-11-20T00:00:00Z' }] },
    };
    fix.runtime?.(runtimeCR);
    runtimeCRs.push(runtimeCR);

    const skr = path.join(out, 'runtimes', rt.name);
    fs.mkdirSync(skr, { recursive: true });
    const kyma = objects(path.join(base, 'skr')).find((o) => o.kind === 'Kyma')!;
    kyma.metadata = {
      ...kyma.metadata,
      generation: 2,
      labels: { 'kyma-project.io/global-account-id': rt.globalAccountID, 'kyma-project.io/subaccount-id': rt.subaccountID },
    };
    kyma.status = { state: 'Ready', modules: (kyma.spec.modules ?? []).map((m: Obj) => ({ name: m.name, channel: kyma.spec.channel, state: 'Ready' })) };
    fix.kyma?.(kyma);
    const configs = objects(path.join(base, 'skr-config'))
      .filter((o) => o.kind === 'RegistryCacheConfig')
      .map((o) => ({ ...o, metadata: { ...o.metadata, generation: 1 }, status: { state: 'Ready', conditions: [{ type: 'RegistryCacheConfigured', status: 'True', observedGeneration: 1, reason: 'Configured', message: 'configured' }] } }));
    fs.writeFileSync(path.join(skr, 'objects.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: [kyma, ...configs] }));
  }
  fs.mkdirSync(path.join(out, 'garden'), { recursive: true });
  fs.mkdirSync(path.join(out, 'kcp'), { recursive: true });
  fs.writeFileSync(path.join(out, 'garden', 'shoots.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: shoots }));
  fs.writeFileSync(path.join(out, 'kcp', 'runtimes.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: runtimeCRs }));
}

/** Every file under a folder, by path relative to it (a missing folder: none). */
/**
 * Like fileTree, with dist/'s index read without its record of how the files were rendered
 * (test/helpers/read-dist.ts indexWithoutRecord): renders from other fleet-wide inputs that give the same files compare equal.
 */
export function renderedTree(distDir: string): Map<string, string> {
  const out = fileTree(distDir);
  const index = out.get(INDEX_FILE);
  if (index !== undefined) out.set(INDEX_FILE, indexWithoutRecord(index));
  return out;
}

export function fileTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.set(r, fs.readFileSync(path.join(d, e.name), 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}

/** The runtimes of the fleet folder `fleetDir` as a dump needs them. */
export function dumpRuntimesOf(fleetDir: string): DumpRuntime[] {
  return fs
    .readdirSync(path.join(fleetDir, 'runtimes'))
    .sort()
    .map((f) => {
      const d = parse(fs.readFileSync(path.join(fleetDir, 'runtimes', f), 'utf8'));
      return { name: d.metadata.name, runtimeID: d.spec.runtimeID, globalAccountID: d.spec.globalAccountID, subaccountID: d.spec.subaccountID };
    });
}
