// A realistic Kyma Control Plane, generated deterministically for the onboarding tests: Runtime CRs
// the way KEB creates them (labels, full spec the CRD requires) for several plans, providers and
// regions, a few hostile ones (missing or malformed labels, a name that is not a DNS label, two CRs
// claiming one runtime ID, one being deleted, one in another namespace), ModuleReleaseMeta objects
// and the Garden's FalcoProfile. Nothing of it is committed: tests write it into a temp folder laid
// out like the status dumps (kcp/, garden/).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { uuidV5 } from '../../src/lib/uuid';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; spec?: any; status?: any };

export const PROJECT = 'kyma-prod';
export const KCP_NAMESPACE = 'kcp-system';

/** Plans as KEB names them, with the provider and the regions they run in. */
const PLANS = [
  { plan: 'aws', provider: 'AWS', type: 'aws', regions: [['eu-central-1', 'cf-eu10'], ['us-east-1', 'cf-us10'], ['ap-southeast-1', 'cf-ap11']] },
  { plan: 'azure', provider: 'Azure', type: 'azure', regions: [['westeurope', 'cf-eu20'], ['eastus', 'cf-us20']] },
  { plan: 'gcp', provider: 'GCP', type: 'gcp', regions: [['europe-west3', 'cf-eu30'], ['us-central1', 'cf-us30']] },
  { plan: 'sap-converged-cloud', provider: 'SapConvergedCloud', type: 'openstack', regions: [['eu-de-1', 'cf-eu10']] },
  { plan: 'azure_lite', provider: 'Azure', type: 'azure', regions: [['westeurope', 'cf-eu20']] },
] as const;

export interface RuntimeSpecInput {
  readonly runtimeID: string;
  readonly plan: string;
  readonly provider: string;
  readonly providerType: string;
  readonly region: string;
  readonly platformRegion: string;
  readonly shootName: string;
  readonly globalAccountID: string;
  readonly subaccountID: string;
}

/** A Runtime CR as KEB creates it (every field the CRD requires, the labels KIM requires). */
export function runtimeCR(r: RuntimeSpecInput, namespace = KCP_NAMESPACE): Obj {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: r.runtimeID.toLowerCase(),
      namespace,
      labels: {
        'kyma-project.io/broker-plan-id': uuidV5(`plan-${r.plan}`),
        'kyma-project.io/broker-plan-name': r.plan,
        'kyma-project.io/global-account-id': r.globalAccountID,
        'kyma-project.io/instance-id': uuidV5(`instance-${r.runtimeID}`),
        'kyma-project.io/platform-region': r.platformRegion,
        'kyma-project.io/provider': r.provider,
        'kyma-project.io/region': r.region,
        'kyma-project.io/runtime-id': r.runtimeID,
        'kyma-project.io/shoot-name': r.shootName,
        'kyma-project.io/subaccount-id': r.subaccountID,
        'operator.kyma-project.io/kyma-name': r.runtimeID.toLowerCase(),
      },
    },
    spec: {
      security: { administrators: ['admin@example.com'], networking: { filter: { egress: { enabled: false } } } },
      shoot: {
        name: r.shootName,
        networking: { nodes: '10.250.0.0/22', pods: '10.96.0.0/13', services: '10.104.0.0/13', type: 'calico' },
        platformRegion: r.platformRegion,
        provider: { type: r.providerType, workers: [{ machine: { type: 'm6i.large' }, maximum: 3, minimum: 1, name: 'cpu-worker-0', zones: [`${r.region}a`] }] },
        purpose: 'production',
        region: r.region,
        secretBindingName: `sap-${r.providerType}-kyma`,
      },
    },
  };
}

/** The i-th well-formed runtime of the landscape. */
export function landscapeRuntime(i: number): RuntimeSpecInput {
  const p = PLANS[i % PLANS.length]!;
  const [region, platformRegion] = p.regions[Math.floor(i / PLANS.length) % p.regions.length]!;
  const runtimeID = uuidV5(`runtime-${i}`);
  return {
    runtimeID,
    plan: p.plan,
    provider: p.provider,
    providerType: p.type,
    region,
    platformRegion,
    shootName: `c-${runtimeID.replace(/-/g, '').slice(0, 7)}`,
    globalAccountID: uuidV5(`ga-${i % 7}`),
    subaccountID: uuidV5(`sa-${i}`),
  };
}

/** What a generated landscape holds, for the tests' expectations. */
export interface Landscape {
  readonly runtimes: readonly Obj[];
  /** Runtime IDs of the CRs that can be imported. */
  readonly importable: readonly string[];
  /** Where each hostile CR is and what it has wrong (a word the refusal must name). */
  readonly hostile: ReadonlyArray<{ readonly name: string; readonly says: string }>;
}

/**
 * `count` runtimes; every 40th from 10 on is hostile in one of several ways, plus two CRs that
 * claim one runtime ID and one in another namespace.
 */
export function generateLandscape(count: number): Landscape {
  const runtimes: Obj[] = [];
  const importable: string[] = [];
  const hostile: Array<{ name: string; says: string }> = [];
  const faults = [
    (o: Obj) => (delete o.metadata.labels['kyma-project.io/global-account-id'], 'global-account-id'),
    (o: Obj) => ((o.metadata.labels['kyma-project.io/subaccount-id'] = ''), 'subaccount-id'),
    (o: Obj) => ((o.spec.shoot.name = 'C_Not.A-Label'), (o.metadata.labels['kyma-project.io/shoot-name'] = 'C_Not.A-Label'), 'DNS-1123'),
    (o: Obj) => ((o.metadata.labels['kyma-project.io/runtime-id'] = 'not-a-uuid'), 'not a UUID'),
    (o: Obj) => ((o.metadata.deletionTimestamp = '2026-11-20T10:00:00Z'), 'being deleted'),
    (o: Obj) => ((o.metadata.labels['kyma-project.io/provider'] = 'AWS '.repeat(20).trim()), 'kyma-project.io/provider'),
    (o: Obj) => ((o.metadata.name = o.metadata.name.toUpperCase()), 'is not the lowercase runtime ID'),
  ];
  let f = 0;
  for (let i = 0; i < count; i++) {
    const r = landscapeRuntime(i);
    const o = runtimeCR(r);
    if (i % 40 === 10) {
      const says = faults[f++ % faults.length]!(o);
      hostile.push({ name: o.metadata.name, says });
    } else importable.push(r.runtimeID);
    runtimes.push(o);
  }
  // Two different CRs claiming one runtime ID: neither is imported.
  const twin = landscapeRuntime(count + 1);
  const a = runtimeCR(twin);
  const b = runtimeCR({ ...twin, shootName: 'c-twin000' });
  b.metadata.name = 'twin-of-' + twin.runtimeID.slice(0, 8);
  runtimes.push(a, b);
  hostile.push({ name: a.metadata.name, says: 'also claimed' }, { name: b.metadata.name, says: 'also claimed' });
  // A Runtime CR of another namespace is not the fleet's.
  runtimes.push(runtimeCR(landscapeRuntime(count + 2), 'kcp-other'));
  return { runtimes, importable, hostile };
}

/** ModuleReleaseMeta objects of a KCP (channels as KLM serves them; one mandatory module). */
export function moduleReleaseMetas(namespace = KCP_NAMESPACE): Obj[] {
  const mrm = (moduleName: string, spec: Record<string, unknown>): Obj => ({
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'ModuleReleaseMeta',
    metadata: { name: moduleName, namespace },
    spec: { moduleName, ocmComponentName: `kyma-project.io/module/${moduleName}`, ...spec },
  });
  const channels = (...pairs: Array<[string, string]>) => ({ channels: pairs.map(([channel, version]) => ({ channel, version })) });
  return [
    mrm('api-gateway', channels(['regular', '3.1.2'], ['fast', '3.2.0'], ['experimental', '3.3.0-rc1'])),
    mrm('btp-operator', channels(['regular', '1.2.8'], ['fast', '1.2.9'])),
    mrm('istio', channels(['regular', '1.14.1'], ['fast', '1.15.0'])),
    mrm('telemetry', channels(['regular', '1.40.0'], ['fast', '1.41.0'])),
    mrm('registry-cache', channels(['regular', '0.9.0'], ['fast', '0.10.0'])),
    mrm('falco', channels(['regular', '0.2.0'], ['fast', '0.3.0'])),
    mrm('serverless', channels(['regular', '1.7.2'], ['fast', '1.8.0'])),
    mrm('docker-registry', channels(['fast', '0.9.0'])),
    mrm('template-operator', { mandatory: { version: '1.0.4' } }),
  ];
}

/** A FalcoProfile object as the Garden serves it (the fields of the CRD, images left out). */
export function falcoProfile(versions: ReadonlyArray<{ version: string; classification: string; expirationDate?: string }>): Obj {
  return {
    apiVersion: 'falco.gardener.cloud/v1alpha1',
    kind: 'FalcoProfile',
    metadata: { name: 'falco' },
    spec: { versions: { falco: versions.map((v) => ({ ...v, rulesVersion: v.version })) } },
  };
}

/** Writes a dump folder: kcp/ (Runtime CRs split over a YAML and a JSON List, the ModuleReleaseMetas) and garden/. */
export function writeDump(dir: string, content: { runtimes?: readonly Obj[]; metas?: readonly Obj[]; garden?: readonly Obj[] }): string {
  fs.mkdirSync(path.join(dir, 'kcp'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'garden'), { recursive: true });
  const runtimes = content.runtimes ?? [];
  const half = Math.ceil(runtimes.length / 2);
  fs.writeFileSync(path.join(dir, 'kcp', 'runtimes-1.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: runtimes.slice(0, half) }));
  fs.writeFileSync(path.join(dir, 'kcp', 'runtimes-2.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: runtimes.slice(half) }));
  if (content.metas) fs.writeFileSync(path.join(dir, 'kcp', 'modulereleasemetas.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: content.metas }));
  for (const [i, o] of (content.garden ?? []).entries()) fs.writeFileSync(path.join(dir, 'garden', `object-${i}.yaml`), stringify(o));
  return dir;
}
