// Every Flux Kustomization and Argo CD ApplicationSet kyma-fleet renders is valid against the real
// CRD schemas (imports/schemas, from `npm run import` over ../shared/crds), checked the way
// `kubectl apply --validate=strict` checks: unknown fields are errors, enums and types hold. The
// wiring is built from the CRDs' generated types (src/gitops/gitops.ts), so these are the checks
// that the types and the written YAML agree; the negative cases prove the check bites. The real API
// server's verdict on the same objects is test/flux/server-validation.test.ts.

import { describe, expect, it } from 'vitest';
import { renderGitops, resolveGitopsOptions, shardOf, type GitopsRuntime } from '../../src/gitops/gitops';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO } from '../helpers/fleet-fixture';
import { ManifestValidator } from '../helpers/manifest-validator';
import { readCurrentDist } from '../helpers/read-dist';

type Rec = Record<string, any>;

const validator = new ManifestValidator();

const RUNTIMES: GitopsRuntime[] = [
  { name: 'acme-prod', runtimeID: '3F1E8D62-9C1A-4C4E-8A0E-2B7F6D1C9E01', targets: ['kcp', 'skr', 'skr-config', 'garden'], waitFor: ['registrycacheconfigs.core.kyma-project.io'] },
  { name: 'beta-dev', runtimeID: 'a0b1c2d3-0000-4000-8000-000000000002', targets: ['skr', 'kcp'] },
];

/** Every option the wiring has, set: retries, timeouts, a namespaced source, both controllers. */
const EVERY_OPTION = resolveGitopsOptions(
  {
    flux: { sourceRef: { kind: 'OCIRepository', name: 'fleet', namespace: 'flux-system' }, path: 'deploy', interval: '5m', retryInterval: '2m', timeout: '5m', prune: false },
    argocd: { enabled: true, repoURL: 'https://github.com/acme/kyma-fleet.git', targetRevision: 'v1.2.3', path: 'deploy', project: 'fleet' },
  },
  'kcp-system',
);

/**
 * The Application CRD is not among the imported ones; an Application is an ApplicationSet's template
 * (metadata and spec), so a shard Application is checked as the template of an otherwise empty
 * ApplicationSet.
 */
function asImported(o: Rec): Rec {
  if (o.kind !== 'Application') return o;
  const { name: _n, namespace: _ns, ...templateMetadata } = o.metadata as Rec;
  return {
    apiVersion: o.apiVersion,
    kind: 'ApplicationSet',
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace },
    spec: { generators: [{ list: { elements: [] } }], template: { metadata: { ...templateMetadata, name: o.metadata.name }, spec: o.spec } },
  };
}

function gitopsObjects(files: ReadonlyMap<string, unknown> | Record<string, unknown>): Rec[] {
  const entries = files instanceof Map ? [...files.values()] : Object.values(files);
  return entries.filter((o): o is Rec => typeof o === 'object' && o !== null && ['Kustomization', 'ApplicationSet', 'Application'].includes((o as Rec).kind) && (o as Rec).apiVersion !== 'kustomize.config.k8s.io/v1beta1');
}

describe('Flux and Argo CD objects against their CRD schemas', () => {
  it('every object of a wiring with every option set is valid', () => {
    const objects = gitopsObjects(renderGitops(RUNTIMES, EVERY_OPTION) as never);
    const shards = new Set(RUNTIMES.map((r) => shardOf(r.name, EVERY_OPTION.shards))).size;
    expect(objects.filter((o) => o.kind === 'Kustomization')).toHaveLength(5 + shards);
    expect(objects.filter((o) => o.kind === 'ApplicationSet')).toHaveLength(3 * shards);
    for (const o of objects) expect(validator.problems(asImported(o)), `${o.kind} ${o.metadata.name}`).toEqual([]);
  });

  it('every object of the example fleet\'s committed dist/gitops/ is valid (test/synth.test.ts keeps it current)', () => {
    const { files } = readCurrentDist(path.join(REPO, 'dist'));
    const objects = [...files]
      .filter(([rel]) => rel.startsWith('gitops/') && rel.endsWith('.yaml'))
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as Rec))
      .filter((o) => o.apiVersion !== 'kustomize.config.k8s.io/v1beta1')
      // The ArtifactGenerator CRD is not among ../shared/crds: it is generated from source-watcher's API
      // with Go (test/flux-controller/tools.ts), and the API server judges the generators with it in
      // test/flux/server-validation.test.ts and test/flux-controller/.
      .filter((o) => o.kind !== 'ArtifactGenerator');
    expect(objects.filter((o) => o.kind === 'Kustomization').length).toBeGreaterThan(10);
    const sets = objects.filter((o) => o.kind === 'ApplicationSet').length;
    expect(sets).toBeGreaterThanOrEqual(3);
    expect(sets % 3).toBe(0);
    for (const o of objects) expect(validator.problems(asImported(o)), `${o.kind} ${o.metadata.name}`).toEqual([]);
  });

  it.each<[string, (o: Rec) => void, RegExp]>([
    ['a Flux field the CRD does not have', (o) => (o.spec.retryIntervall = '1m'), /must NOT have additional properties \(retryIntervall\)/],
    ['a deletionPolicy outside the enum', (o) => (o.spec.deletionPolicy = 'Keep'), /spec\/deletionPolicy must be equal to one of the allowed values/],
    ['a source kind Flux does not know', (o) => (o.spec.sourceRef.kind = 'HelmRepository'), /spec\/sourceRef\/kind must be equal to one of the allowed values/],
    ['prune as a string', (o) => (o.spec.prune = 'false'), /spec\/prune must be boolean/],
    ['the cdk8s property name instead of the wire name', (o) => (o.spec.kubeConfig = { secretRef: { name: 'x', keyName: 'config' } }), /additional properties \(keyName\)/],
  ])('the check refuses a Kustomization with %s', (_label, mutate, message) => {
    const ks = gitopsObjects(renderGitops(RUNTIMES, EVERY_OPTION) as never).find((o) => o.kind === 'Kustomization')!;
    const copy = structuredClone(ks);
    mutate(copy);
    expect(validator.problems(copy).join('\n')).toMatch(message);
  });

  it.each<[string, (o: Rec) => void, RegExp]>([
    ['repoUrl (the generated type\'s name) instead of repoURL', (o) => { o.spec.template.spec.source.repoUrl = o.spec.template.spec.source.repoURL; delete o.spec.template.spec.source.repoURL; }, /additional properties \(repoUrl\)/],
    ['a retry limit that is not an integer', (o) => (o.spec.template.spec.syncPolicy.retry = { limit: 'forever' }), /retry\/limit must be integer/],
    ['no generators', (o) => delete o.spec.generators, /must have required property 'generators'/],
  ])('the check refuses an ApplicationSet with %s', (_label, mutate, message) => {
    const set = gitopsObjects(renderGitops(RUNTIMES, EVERY_OPTION) as never).find((o) => o.kind === 'ApplicationSet')!;
    const copy = structuredClone(set);
    mutate(copy);
    expect(validator.problems(copy).join('\n')).toMatch(message);
  });
});
