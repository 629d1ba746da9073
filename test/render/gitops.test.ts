// dist/gitops/ wiring: full objects for a two-runtime fleet (one shard), shards, defaults, the SKR in
// two steps, name shortening, the Fleet.spec.gitops schema and format rules, the fields Flux and Argo CD require,
// and (when kubectl is installed) that both folders build with `kubectl kustomize`.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { parseGoDuration } from '../../src/lib/go-duration';
import { isDNS1123Label, isDNS1123Subdomain } from '../../src/lib/k8s-names';
import {
  GITOPS_DEFAULTS,
  GITOPS_OPTIONS_SCHEMA,
  type GitopsOptions,
  type GitopsRuntime,
  gitopsListFiles,
  gitopsObjectName,
  gitopsOptionProblems,
  renderGitops,
  runtimeGitopsFiles,
  resolveGitopsOptions,
  shardOf,
} from '../../src/gitops/gitops';

type Rec = Record<string, any>;

const RCC_CRD = 'registrycacheconfigs.core.kyma-project.io';
const ACME: GitopsRuntime = {
  name: 'acme-prod',
  runtimeID: '3F1E8D62-9C1A-4C4E-8A0E-2B7F6D1C9E01',
  targets: ['kcp', 'skr', 'skr-config', 'garden'],
  waitFor: [RCC_CRD],
};
const BETA: GitopsRuntime = { name: 'beta-dev', runtimeID: 'a0b1c2d3-0000-4000-8000-000000000002', targets: ['skr', 'kcp'] };
/** Listed out of order on purpose: output must not depend on input order. */
const RUNTIMES = [BETA, ACME];

/** One shard (`all`), so the full objects below stay readable; the shards have their own tests. */
const WRITTEN = {
  shards: 1,
  flux: {
    sourceRef: { kind: 'GitRepository', name: 'kyma-fleet', namespace: 'flux-system' },
    retryInterval: '2m',
    timeout: '5m',
  },
  argocd: { enabled: true, repoURL: 'https://github.com/acme/kyma-fleet.git', targetRevision: 'main' },
};

const USER_SOURCE = { kind: 'GitRepository', name: 'kyma-fleet', namespace: 'flux-system' };

/** A runtime Kustomization; `wholeSource`: as flux.artifacts whole-source writes it (the user's source, dist/ paths). */
function fluxKs(name: string, runtimeID: string, target: 'skr' | 'skr-config' | 'kcp', extra: Rec = {}, wholeSource = false): Rec {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: {
      name: `${name}-${target}`,
      namespace: 'kcp-system',
      labels: { 'kyma-fleet.dev/runtime': name, 'kyma-fleet.dev/shard': 'all', 'kyma-fleet.dev/target': target },
    },
    spec: {
      interval: '10m',
      retryInterval: '2m',
      timeout: '5m',
      ...(wholeSource
        ? { sourceRef: USER_SOURCE, path: `./dist/runtimes/${name}/${target}` }
        : { sourceRef: { kind: 'ExternalArtifact', name: `kyma-fleet-runtime-${name}` }, path: `./${name}/${target}` }),
      prune: target !== 'skr',
      deletionPolicy: 'Orphan',
      ...(target !== 'kcp' ? { kubeConfig: { secretRef: { name: `kubeconfig-${runtimeID.toLowerCase()}`, key: 'config' } } } : {}),
      ...extra,
    },
  };
}

function shardKs(wholeSource = false): Rec {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'kyma-fleet-shard-all', namespace: 'kcp-system', labels: { 'kyma-fleet.dev/shard': 'all' } },
    spec: {
      interval: '10m',
      retryInterval: '2m',
      timeout: '5m',
      ...(wholeSource
        ? { sourceRef: USER_SOURCE, path: './dist/gitops/flux/shards/all' }
        : { sourceRef: { kind: 'ExternalArtifact', name: 'kyma-fleet-shard-all' }, path: './all' }),
      prune: true,
    },
  };
}

/** The ArtifactGenerator of shard `all`: the shard's list and one folder per runtime, each its own ExternalArtifact. */
function generator(runtimes: string[]): Rec {
  const artifact = (name: string, folder: string): Rec => ({ name, originRevision: '@fleet', copy: [{ from: `@fleet/dist/${folder}`, to: '@artifact/' }] });
  return {
    apiVersion: 'source.extensions.fluxcd.io/v1beta1',
    kind: 'ArtifactGenerator',
    metadata: { name: 'kyma-fleet-shard-all', namespace: 'kcp-system', labels: { 'kyma-fleet.dev/shard': 'all' } },
    spec: {
      sources: [{ alias: 'fleet', ...USER_SOURCE }],
      artifacts: [artifact('kyma-fleet-shard-all', 'gitops/flux/shards/all'), ...runtimes.map((r) => artifact(`kyma-fleet-runtime-${r}`, `runtimes/${r}`))],
    },
  };
}

function shardApp(): Rec {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: 'kyma-fleet-shard-all',
      namespace: 'argocd',
      finalizers: ['resources-finalizer.argocd.argoproj.io'],
      labels: { 'kyma-fleet.dev/shard': 'all' },
      annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
    },
    spec: {
      project: 'default',
      source: { repoURL: 'https://github.com/acme/kyma-fleet.git', targetRevision: 'main', path: 'dist/gitops/argocd/shards/all' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      syncPolicy: {
        automated: { prune: true, selfHeal: true },
        syncOptions: ['ServerSideApply=true', 'CreateNamespace=false'],
        retry: { limit: -1, refresh: true, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } },
      },
    },
  };
}

function appSet(target: 'skr' | 'skr-config' | 'kcp'): Rec {
  const param = target === 'skr-config' ? 'skrConfigApp' : `${target}App`;
  const files = {
    git: {
      repoURL: 'https://github.com/acme/kyma-fleet.git',
      revision: 'main',
      files: [{ path: 'dist/gitops/argocd/shards/all/*.json' }],
    },
    selector: { matchExpressions: [{ key: param, operator: 'Exists' }] },
  };
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name: `kyma-fleet-${target}-all`, namespace: 'argocd', labels: { 'kyma-fleet.dev/shard': 'all', 'kyma-fleet.dev/target': target } },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators:
        target === 'kcp'
          ? [files]
          : [{ matrix: { generators: [files, { clusters: { selector: { matchLabels: { 'kyma-fleet.dev/runtime-id': '{{.runtimeID}}' } } } }] } }],
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: {
          name: `{{.${param}}}`,
          labels: { 'kyma-fleet.dev/runtime': '{{.runtime}}', 'kyma-fleet.dev/shard': 'all', 'kyma-fleet.dev/target': target },
          annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' },
        },
        spec: {
          project: 'default',
          source: {
            repoURL: 'https://github.com/acme/kyma-fleet.git',
            targetRevision: 'main',
            path: `dist/runtimes/{{.runtime}}/${target}`,
          },
          destination: target === 'kcp' ? { name: 'in-cluster' } : { server: '{{.server}}' },
          syncPolicy: {
            automated: { prune: target !== 'skr', selfHeal: true },
            syncOptions: ['ServerSideApply=true', 'CreateNamespace=false', ...(target === 'skr' ? ['ClientSideApplyMigration=false'] : [])],
            retry: { limit: -1, refresh: true, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } },
          },
        },
      },
    },
  };
}

describe('renderGitops: two runtimes, Flux and Argo CD', () => {
  const options = resolveGitopsOptions(WRITTEN, 'kcp-system');
  const out = renderGitops(RUNTIMES, options);

  it('writes exactly these files, in code-point order', () => {
    expect([...out.keys()]).toEqual([
      'gitops/argocd/kustomization.yaml',
      'gitops/argocd/shard-all.yaml',
      'gitops/argocd/shards/all/acme-prod.json',
      'gitops/argocd/shards/all/applicationset-kcp.yaml',
      'gitops/argocd/shards/all/applicationset-skr-config.yaml',
      'gitops/argocd/shards/all/applicationset-skr.yaml',
      'gitops/argocd/shards/all/beta-dev.json',
      'gitops/argocd/shards/all/kustomization.yaml',
      'gitops/flux/generator-all.yaml',
      'gitops/flux/kustomization.yaml',
      'gitops/flux/shard-all.yaml',
      'gitops/flux/shards/all/acme-prod-kcp.yaml',
      'gitops/flux/shards/all/acme-prod-skr-config.yaml',
      'gitops/flux/shards/all/acme-prod-skr.yaml',
      'gitops/flux/shards/all/beta-dev-kcp.yaml',
      'gitops/flux/shards/all/beta-dev-skr.yaml',
      'gitops/flux/shards/all/kustomization.yaml',
    ]);
  });

  it('writes the full objects', () => {
    const list = (resources: string[]): Rec => ({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources });
    expect(Object.fromEntries(out)).toStrictEqual({
      'gitops/flux/shards/all/acme-prod-kcp.yaml': fluxKs('acme-prod', ACME.runtimeID, 'kcp'),
      'gitops/flux/shards/all/acme-prod-skr.yaml': fluxKs('acme-prod', ACME.runtimeID, 'skr', {
        healthChecks: [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: RCC_CRD }],
      }),
      'gitops/flux/shards/all/acme-prod-skr-config.yaml': fluxKs('acme-prod', ACME.runtimeID, 'skr-config', { dependsOn: [{ name: 'acme-prod-skr' }] }),
      'gitops/flux/shards/all/beta-dev-kcp.yaml': fluxKs('beta-dev', BETA.runtimeID, 'kcp'),
      'gitops/flux/shards/all/beta-dev-skr.yaml': fluxKs('beta-dev', BETA.runtimeID, 'skr'),
      'gitops/flux/shards/all/kustomization.yaml': list(['acme-prod-kcp.yaml', 'acme-prod-skr-config.yaml', 'acme-prod-skr.yaml', 'beta-dev-kcp.yaml', 'beta-dev-skr.yaml']),
      'gitops/flux/shard-all.yaml': shardKs(),
      'gitops/flux/generator-all.yaml': generator(['acme-prod', 'beta-dev']),
      'gitops/flux/kustomization.yaml': list(['generator-all.yaml', 'shard-all.yaml']),
      'gitops/argocd/shards/all/applicationset-kcp.yaml': appSet('kcp'),
      'gitops/argocd/shards/all/applicationset-skr.yaml': appSet('skr'),
      'gitops/argocd/shards/all/applicationset-skr-config.yaml': appSet('skr-config'),
      'gitops/argocd/shards/all/kustomization.yaml': list(['applicationset-kcp.yaml', 'applicationset-skr-config.yaml', 'applicationset-skr.yaml']),
      'gitops/argocd/shard-all.yaml': shardApp(),
      'gitops/argocd/kustomization.yaml': list(['shard-all.yaml']),
      'gitops/argocd/shards/all/acme-prod.json': {
        kcpApp: 'acme-prod-kcp',
        runtime: 'acme-prod',
        runtimeID: '3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01',
        skrApp: 'acme-prod-skr',
        skrConfigApp: 'acme-prod-skr-config',
      },
      'gitops/argocd/shards/all/beta-dev.json': {
        kcpApp: 'beta-dev-kcp',
        runtime: 'beta-dev',
        runtimeID: 'a0b1c2d3-0000-4000-8000-000000000002',
        skrApp: 'beta-dev-skr',
      },
    });
  });

  it('flux.artifacts whole-source: every Kustomization reads the user\'s source at its dist/ path, and there is no generator', () => {
    const whole = renderGitops(RUNTIMES, resolveGitopsOptions({ ...WRITTEN, flux: { ...WRITTEN.flux, artifacts: 'whole-source' } }, 'kcp-system'));
    const flux = Object.fromEntries([...whole].filter(([f]) => f.startsWith('gitops/flux/')));
    expect(flux['gitops/flux/generator-all.yaml']).toBeUndefined();
    expect(flux['gitops/flux/kustomization.yaml']).toStrictEqual({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['shard-all.yaml'] });
    expect(flux['gitops/flux/shard-all.yaml']).toStrictEqual(shardKs(true));
    expect(flux['gitops/flux/shards/all/acme-prod-skr-config.yaml']).toStrictEqual(fluxKs('acme-prod', ACME.runtimeID, 'skr-config', { dependsOn: [{ name: 'acme-prod-skr' }] }, true));
    expect(flux['gitops/flux/shards/all/beta-dev-kcp.yaml']).toStrictEqual(fluxKs('beta-dev', BETA.runtimeID, 'kcp', {}, true));
    expect(gitopsListFiles(RUNTIMES, resolveGitopsOptions({ flux: { artifacts: 'whole-source' } }, 'kcp-system')).filter((f) => f.startsWith('gitops/flux/generator'))).toEqual([]);
  });

  it('never sets spec.postBuild, so Flux substitutes nothing in user strings', () => {
    for (const [file, obj] of out) {
      if (obj.apiVersion === 'kustomize.toolkit.fluxcd.io/v1') {
        expect((obj.spec as Rec).postBuild, file).toBeUndefined();
      }
    }
  });

  it('is a pure function of its input: order-independent, repeatable, input untouched', () => {
    const frozen = structuredClone(RUNTIMES);
    const again = renderGitops([...RUNTIMES].reverse(), options);
    expect([...again.entries()]).toStrictEqual([...out.entries()]);
    expect(JSON.stringify(Object.fromEntries(renderGitops(RUNTIMES, options)))).toBe(JSON.stringify(Object.fromEntries(out)));
    expect(RUNTIMES).toStrictEqual(frozen);
  });

  it('writes only the enabled appliers', () => {
    const fluxOnly = renderGitops(RUNTIMES, resolveGitopsOptions({}, 'kcp-system'));
    expect([...fluxOnly.keys()].every((k) => k.startsWith('gitops/flux/'))).toBe(true);
    const none = renderGitops(RUNTIMES, resolveGitopsOptions({ flux: { enabled: false } }, 'kcp-system'));
    expect(none.size).toBe(0);
  });

  it('skips a target a runtime does not have (Flux: no file; Argo CD: no <target>App, so the selector drops it)', () => {
    const noKcp: GitopsRuntime = { name: 'solo', runtimeID: 'b0b1c2d3-0000-4000-8000-000000000003', targets: ['skr'] };
    const res = renderGitops([noKcp], options);
    expect([...res.keys()].filter((k) => k.startsWith('gitops/flux/shards/'))).toEqual(['gitops/flux/shards/all/kustomization.yaml', 'gitops/flux/shards/all/solo-skr.yaml']);
    expect(res.get('gitops/argocd/shards/all/solo.json')).toStrictEqual({
      runtime: 'solo',
      runtimeID: 'b0b1c2d3-0000-4000-8000-000000000003',
      skrApp: 'solo-skr',
    });
  });

  it('renders an empty fleet to bootstrap files only', () => {
    const res = renderGitops([], options);
    expect(res.get('gitops/flux/kustomization.yaml')).toStrictEqual({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [] });
    expect(res.get('gitops/argocd/kustomization.yaml')).toStrictEqual({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [] });
    expect([...res.keys()]).toEqual(['gitops/argocd/kustomization.yaml', 'gitops/flux/kustomization.yaml']);
  });

  it('refuses input the validators must have refused', () => {
    expect(() => renderGitops([BETA, BETA], options)).toThrow(/listed twice/);
    expect(() => renderGitops([{ ...BETA, name: 'Not_A_Label' }], options)).toThrow(/DNS-1123/);
    expect(() => renderGitops([{ ...BETA, runtimeID: '' }], options)).toThrow(/runtimeID/);
    expect(() => renderGitops(RUNTIMES, resolveGitopsOptions({ argocd: { enabled: true } }, 'kcp-system'))).toThrow(/repoURL/);
  });
});

describe('renderGitops without the lists (synth keeps them while the runtimes and targets are the same)', () => {
  const variants: ReadonlyArray<[string, Record<string, unknown>]> = [
    ['Flux only', {}],
    ['Flux and Argo CD', WRITTEN],
    ['Argo CD only', { ...WRITTEN, flux: { ...WRITTEN.flux, enabled: false } }],
    ['neither', { flux: { enabled: false } }],
  ];
  const SOLO: GitopsRuntime = { name: 'solo', runtimeID: 'b0b1c2d3-0000-4000-8000-000000000003', targets: ['skr'] };
  for (const [name, written] of variants) {
    it(`${name}: the whole rendering is the lists (gitopsListFiles) plus each runtime's own files, kept or not`, () => {
      const options = resolveGitopsOptions(written, 'kcp-system');
      const runtimes = [BETA, ACME, SOLO];
      const all = renderGitops(runtimes, options);
      const lists = gitopsListFiles(runtimes, options);
      // Every file is a list or some runtime's own file, and nothing else.
      expect([...all.keys()].sort()).toEqual([...lists, ...runtimes.flatMap((r) => runtimeGitopsFiles(r, options))].sort());
      for (const kept of [new Set<string>(), new Set(['acme-prod']), new Set(runtimes.map((r) => r.name))]) {
        const own = renderGitops(runtimes, options, kept, false);
        const expected = [...renderGitops(runtimes, options, kept)].filter(([file]) => !lists.includes(file));
        expect(JSON.stringify([...own])).toBe(JSON.stringify(expected));
      }
    });
  }
});

describe('resolveGitopsOptions', () => {
  it('applies every default; flux.namespace follows kcpNamespace', () => {
    const expected: GitopsOptions = {
      shards: 256,
      flux: {
        enabled: true,
        namespace: 'kcp-system',
        sourceRef: { kind: 'GitRepository', name: 'kyma-fleet' },
        path: './dist',
        interval: '10m',
        prune: true,
        artifacts: 'per-runtime',
      },
      argocd: {
        enabled: false,
        namespace: 'argocd',
        project: 'default',
        targetRevision: 'HEAD',
        path: 'dist',
        skrClusterName: 'kyma-{{runtimeID}}',
        kcpCluster: 'in-cluster',
      },
    };
    expect(resolveGitopsOptions(undefined, 'kcp-system')).toStrictEqual(expected);
    expect(resolveGitopsOptions({}, 'kcp-system')).toStrictEqual(expected);
    expect(resolveGitopsOptions({ flux: {}, argocd: {}, garden: {} }, 'kcp-system')).toStrictEqual(expected);
    expect(resolveGitopsOptions(undefined, 'kcp-dev').flux.namespace).toBe('kcp-dev');
  });

  it('keeps what is written and normalizes a trailing slash of paths', () => {
    const o = resolveGitopsOptions(
      {
        flux: { enabled: false, namespace: 'fleet', sourceRef: { kind: 'OCIRepository', name: 'dist' }, path: './out/', interval: '1h', prune: false, artifacts: 'whole-source' },
        argocd: { enabled: true, namespace: 'gitops', project: 'kyma', repoURL: 'git@github.com:acme/fleet.git', targetRevision: 'v1', path: 'out/', skrClusterName: 'skr-{{name}}', kcpCluster: 'kcp' },
      },
      'kcp-system',
    );
    expect(o).toStrictEqual({
      shards: 256,
      flux: { enabled: false, namespace: 'fleet', sourceRef: { kind: 'OCIRepository', name: 'dist' }, path: './out', interval: '1h', prune: false, artifacts: 'whole-source' },
      argocd: { enabled: true, namespace: 'gitops', project: 'kyma', repoURL: 'git@github.com:acme/fleet.git', targetRevision: 'v1', path: 'out', skrClusterName: 'skr-{{name}}', kcpCluster: 'kcp' },
    });
  });

  it('matches the defaults the schema documents', () => {
    const s = GITOPS_OPTIONS_SCHEMA as Rec;
    expect(s.properties.flux.properties.enabled.default).toBe(GITOPS_DEFAULTS.flux.enabled);
    expect(s.properties.flux.properties.path.default).toBe(GITOPS_DEFAULTS.flux.path);
    expect(s.properties.flux.properties.interval.default).toBe(GITOPS_DEFAULTS.flux.interval);
    expect(s.properties.flux.properties.prune.default).toBe(GITOPS_DEFAULTS.flux.prune);
    expect(s.properties.flux.properties.artifacts.default).toBe(GITOPS_DEFAULTS.flux.artifacts);
    expect(s.properties.flux.properties.sourceRef.default).toStrictEqual(GITOPS_DEFAULTS.flux.sourceRef);
    for (const k of ['enabled', 'namespace', 'project', 'targetRevision', 'path', 'skrClusterName', 'kcpCluster'] as const) {
      expect(s.properties.argocd.properties[k].default, k).toBe(GITOPS_DEFAULTS.argocd[k]);
    }
  });

  it('the defaults pass the format rules', () => {
    expect(gitopsOptionProblems(structuredClone(GITOPS_DEFAULTS))).toEqual([]);
  });
});

describe('root paths', () => {
  it('"." is the repository root for both appliers', () => {
    const o = resolveGitopsOptions({ flux: { path: './' }, argocd: { enabled: true, repoURL: 'https://g.example/r.git', path: '.' } }, 'kcp-system');
    const res = renderGitops([BETA], o);
    const shard = shardOf('beta-dev', 256);
    expect((res.get(`gitops/flux/generator-${shard}.yaml`)!.spec as Rec).artifacts.map((a: Rec) => a.copy[0].from)).toStrictEqual([`@fleet/gitops/flux/shards/${shard}`, '@fleet/runtimes/beta-dev']);
    const whole = renderGitops([BETA], resolveGitopsOptions({ flux: { path: './', artifacts: 'whole-source' } }, 'kcp-system'));
    expect((whole.get(`gitops/flux/shards/${shard}/beta-dev-skr.yaml`)!.spec as Rec).path).toBe('./runtimes/beta-dev/skr');
    expect((whole.get(`gitops/flux/shard-${shard}.yaml`)!.spec as Rec).path).toBe(`./gitops/flux/shards/${shard}`);
    const set = res.get(`gitops/argocd/shards/${shard}/applicationset-kcp.yaml`) as Rec;
    expect((res.get(`gitops/argocd/shard-${shard}.yaml`)!.spec as Rec).source.path).toBe(`gitops/argocd/shards/${shard}`);
    expect(set.spec.generators[0].git.files).toStrictEqual([{ path: `gitops/argocd/shards/${shard}/*.json` }]);
    expect(set.spec.template.spec.source.path).toBe('runtimes/{{.runtime}}/kcp');
  });
});

describe('the SKR in two steps', () => {
  const options = resolveGitopsOptions(WRITTEN, 'kcp-system');
  const out = renderGitops(RUNTIMES, options);

  it('skr-config depends on skr; skr waits for the CRDs the config objects need and never prunes', () => {
    const skr = out.get('gitops/flux/shards/all/acme-prod-skr.yaml') as Rec;
    const config = out.get('gitops/flux/shards/all/acme-prod-skr-config.yaml') as Rec;
    expect(skr.spec.prune).toBe(false);
    expect(skr.spec.healthChecks).toStrictEqual([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: RCC_CRD }]);
    expect(config.spec.dependsOn).toStrictEqual([{ name: skr.metadata.name }]);
    expect(config.spec.prune).toBe(true);
    expect(config.spec.kubeConfig).toStrictEqual(skr.spec.kubeConfig);
  });

  it('a runtime without skr-config/ has no such Kustomization and its skr waits for nothing', () => {
    expect(out.has('gitops/flux/shards/all/beta-dev-skr-config.yaml')).toBe(false);
    expect((out.get('gitops/flux/shards/all/beta-dev-skr.yaml') as Rec).spec.healthChecks).toBeUndefined();
    expect(out.get('gitops/argocd/shards/all/beta-dev.json')!.skrConfigApp).toBeUndefined();
  });

  it('config objects that need no CRD (Falco rule ConfigMaps) give skr no health checks', () => {
    const falcoOnly: GitopsRuntime = { name: 'falco-only', runtimeID: 'd0b1c2d3-0000-4000-8000-000000000005', targets: ['skr', 'skr-config'], waitFor: [] };
    const res = renderGitops([falcoOnly], options);
    expect((res.get('gitops/flux/shards/all/falco-only-skr.yaml') as Rec).spec.healthChecks).toBeUndefined();
    expect((res.get('gitops/flux/shards/all/falco-only-skr-config.yaml') as Rec).spec.dependsOn).toStrictEqual([{ name: 'falco-only-skr' }]);
  });

  it('garden/ is never wired, whatever the runtime has', () => {
    expect([...out.keys()].some((k) => k.includes('garden'))).toBe(false);
    expect(Object.values(Object.fromEntries(out)).some((o) => JSON.stringify(o).includes('/garden'))).toBe(false);
  });

  it('every Argo CD Application retries without end on the newest revision; skr ones do not prune', () => {
    for (const t of ['kcp', 'skr', 'skr-config']) {
      const retry = (out.get(`gitops/argocd/shards/all/applicationset-${t}.yaml`) as Rec).spec.template.spec.syncPolicy.retry;
      expect(retry, t).toStrictEqual({ limit: -1, refresh: true, backoff: { duration: '30s', factor: 2, maxDuration: '10m' } });
    }
    expect((out.get('gitops/argocd/shards/all/applicationset-skr.yaml') as Rec).spec.template.spec.syncPolicy.automated.prune).toBe(false);
  });
});

describe('name shortening', () => {
  const hash8 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 8);
  const n63 = `r${'a'.repeat(40)}-${'b'.repeat(21)}`; // 63 characters
  const n56 = 'x'.repeat(56);
  const n57 = 'y'.repeat(57);

  it('keeps <name>-<target> when it fits in 63 characters', () => {
    expect(gitopsObjectName('acme-prod', 'garden')).toBe('acme-prod-garden');
    expect(gitopsObjectName(n56, 'garden')).toBe(`${n56}-garden`); // exactly 63
    expect(gitopsObjectName(n57, 'skr')).toBe(`${n57}-skr`); // 61
  });

  it('cuts the name and adds 8 hex of sha256(name) before the target, 63 characters exactly', () => {
    expect(n63).toHaveLength(63);
    expect(gitopsObjectName(n57, 'garden')).toBe(`${'y'.repeat(47)}-${hash8(n57)}-garden`);
    expect(gitopsObjectName(n63, 'skr')).toBe(`r${'a'.repeat(40)}-${'b'.repeat(8)}-${hash8(n63)}-skr`);
    expect(gitopsObjectName(n63, 'garden')).toBe(`r${'a'.repeat(40)}-${'b'.repeat(5)}-${hash8(n63)}-garden`);
    // A cut that ends on "-" drops it rather than writing "--".
    const dashed = `r${'a'.repeat(45)}-${'c'.repeat(16)}`;
    expect(dashed).toHaveLength(63);
    expect(gitopsObjectName(dashed, 'garden')).toBe(`r${'a'.repeat(45)}-${hash8(dashed)}-garden`);
    expect(gitopsObjectName(dashed, 'skr')).toBe(`r${'a'.repeat(45)}-ccc-${hash8(dashed)}-skr`);
    for (const t of ['skr', 'kcp', 'garden'] as const) {
      const name = gitopsObjectName(n57, t);
      expect(name.length).toBeLessThanOrEqual(63);
      expect(isDNS1123Label(name), name).toBe(true);
    }
  });

  it('gives two long names with the same prefix different names', () => {
    const a = `${'p'.repeat(60)}-a1`;
    const b = `${'p'.repeat(60)}-b2`;
    expect(gitopsObjectName(a, 'kcp')).not.toBe(gitopsObjectName(b, 'kcp'));
  });

  it('uses the short names for Kustomizations and Applications, the full name for files, labels and paths', () => {
    const long: GitopsRuntime = { name: n63, runtimeID: 'c0b1c2d3-0000-4000-8000-000000000004', targets: ['skr', 'skr-config', 'kcp'] };
    const out = renderGitops([long], resolveGitopsOptions(WRITTEN, 'kcp-system'));
    const ks = out.get(`gitops/flux/shards/all/${n63}-skr-config.yaml`) as Rec;
    expect(ks.metadata.name).toBe(gitopsObjectName(n63, 'skr-config'));
    expect(ks.metadata.labels['kyma-fleet.dev/runtime']).toBe(n63);
    expect(ks.spec.path).toBe(`./${n63}/skr-config`);
    expect(ks.spec.sourceRef.name).toBe(`kyma-fleet-runtime-${n63}`);
    expect(ks.spec.dependsOn).toStrictEqual([{ name: gitopsObjectName(n63, 'skr') }]);
    const data = out.get(`gitops/argocd/shards/all/${n63}.json`)!;
    expect(data.skrApp).toBe(gitopsObjectName(n63, 'skr'));
    expect(data.kcpApp).toBe(gitopsObjectName(n63, 'kcp'));
    expect(data.skrConfigApp).toBe(gitopsObjectName(n63, 'skr-config'));
  });

  it('refuses a runtime whose plain name equals another runtime\'s short name', () => {
    const long = `${'z'.repeat(60)}`; // 60 + "-skr-config" > 63
    const short = gitopsObjectName(long, 'skr-config').replace(/-skr-config$/, ''); // 52 characters
    const o = resolveGitopsOptions({}, 'kcp-system');
    expect(() =>
      renderGitops(
        [
          { name: long, runtimeID: 'u1', targets: ['skr-config'] },
          { name: short, runtimeID: 'u2', targets: ['skr-config'] },
        ],
        o,
      ),
    ).toThrow(/shared by/);
  });
});

describe('GITOPS_OPTIONS_SCHEMA', () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  const validate = ajv.compile(GITOPS_OPTIONS_SCHEMA);

  it('compiles in ajv strict mode and accepts the documented example and the defaults', () => {
    expect(validate((GITOPS_OPTIONS_SCHEMA.examples as unknown[])[0])).toBe(true);
    expect(validate(structuredClone(GITOPS_DEFAULTS))).toBe(true);
    expect(validate({})).toBe(true);
    expect(
      validate({
        flux: { enabled: true, namespace: 'kcp-system', sourceRef: { kind: 'Bucket', name: 'b', namespace: 'flux-system' }, path: './dist', interval: '10m', retryInterval: '2m', timeout: '5m', prune: true },
        argocd: { enabled: true, namespace: 'argocd', project: 'default', repoURL: 'https://x.example/r.git', targetRevision: 'main', path: 'dist', skrClusterName: 'kyma-{{runtimeID}}', kcpCluster: 'in-cluster' },
        garden: { enabled: true, kubeConfigSecret: 'garden-kubeconfig' },
      }),
      JSON.stringify(validate.errors),
    ).toBe(true);
  });

  it.each([
    [{ fluxx: {} }, ''],
    [{ flux: { intervall: '1m' } }, '/flux'],
    [{ flux: { sourceRef: { kind: 'GitRepository', name: 'n', ref: 'main' } } }, '/flux/sourceRef'],
    [{ argocd: { server: 'https://kubernetes.default.svc' } }, '/argocd'],
    [{ garden: { secret: 'x' } }, '/garden'],
  ])('rejects the unknown field in %j', (value, at) => {
    expect(validate(value)).toBe(false);
    expect(validate.errors!.map((e) => [e.keyword, e.instancePath])).toContainEqual(['additionalProperties', at]);
  });

  it.each([
    [{ flux: { enabled: 'true' } }, '/flux/enabled', 'type'],
    [{ flux: { sourceRef: { kind: 'HelmRepository', name: 'x' } } }, '/flux/sourceRef/kind', 'enum'],
    [{ flux: { sourceRef: { kind: 'GitRepository' } } }, '/flux/sourceRef', 'required'],
    [{ flux: { interval: 'x'.repeat(33) } }, '/flux/interval', 'maxLength'],
    [{ argocd: { repoURL: 5 } }, '/argocd/repoURL', 'type'],
  ])('rejects %j', (value, at, keyword) => {
    expect(validate(value)).toBe(false);
    expect(validate.errors!.map((e) => [e.keyword, e.instancePath])).toContainEqual([keyword, at]);
  });

  it('types every node, bounds every string, documents every property, uses no pattern', () => {
    const problems: string[] = [];
    const allowed = new Set(['type', 'title', 'description', 'examples', 'default', 'additionalProperties', 'properties', 'required', 'enum', 'maxLength']);
    const visit = (s: Rec, where: string): void => {
      for (const k of Object.keys(s)) if (!allowed.has(k)) problems.push(`${where}: keyword ${k}`);
      if (s.type === undefined) problems.push(`${where}: no type`);
      if (s.type === 'string' && s.maxLength === undefined) problems.push(`${where}: string without maxLength`);
      if (s.type === 'object' && s.additionalProperties !== false) problems.push(`${where}: additionalProperties not false`);
      for (const [k, child] of Object.entries((s.properties as Record<string, Rec>) ?? {})) {
        if (typeof child.description !== 'string' || child.description === '') problems.push(`${where}.${k}: no description`);
        visit(child, `${where}.${k}`);
      }
    };
    visit(GITOPS_OPTIONS_SCHEMA as Rec, 'gitops');
    expect(problems).toEqual([]);
  });
});

describe('gitopsOptionProblems', () => {
  const codes = (options: unknown): [string, string][] => gitopsOptionProblems(options).map(([p, c]) => [p.join('.'), c]);

  it.each([
    ['10m'],
    ['1m'],
    ['60s'],
    ['1h30m'],
    ['90000ms'],
    ['2h'],
  ])('accepts the interval %j', (interval) => {
    expect(gitopsOptionProblems({ flux: { interval } })).toEqual([]);
  });

  it.each([
    ['10', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "10")'],
    ['10 m', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "10 m")'],
    ['1.5m', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "1.5m")'],
    ['1d', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "1d")'],
    ['PT10M', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "PT10M")'],
    ['-5m', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "-5m")'],
    ['m', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "m")'],
    ['', 'must be a duration of digits and units ms, s, m or h, e.g. "10m" or "1h30m" (got "")'],
    ['0s', 'must be longer than 0s (got "0s")'],
    ['30s', 'must be at least 1m: Flux reconciles every interval and documents 60 seconds as the minimum (got "30s")'],
    ['59999ms', 'must be at least 1m: Flux reconciles every interval and documents 60 seconds as the minimum (got "59999ms")'],
    ['99999999999h', 'time: invalid duration "99999999999h": the value is too large'],
  ])('refuses the interval %j', (interval, message) => {
    expect(gitopsOptionProblems({ flux: { interval } })).toEqual([[['gitops', 'flux', 'interval'], 'E_GITOPS_DURATION', message]]);
  });

  it('allows short retryInterval and timeout but not zero or malformed ones', () => {
    expect(gitopsOptionProblems({ flux: { retryInterval: '30s', timeout: '500ms' } })).toEqual([]);
    expect(codes({ flux: { retryInterval: '0m', timeout: '5 m' } })).toEqual([
      ['gitops.flux.retryInterval', 'E_GITOPS_DURATION'],
      ['gitops.flux.timeout', 'E_GITOPS_DURATION'],
    ]);
  });

  it('agrees with Go on every accepted duration', () => {
    for (const d of ['1h', '1m30s', '1ms', '5m0s', '1h1m1s1ms']) {
      expect(parseGoDuration(d).ok, d).toBe(true);
      expect(gitopsOptionProblems({ flux: { retryInterval: d } }), d).toEqual([]);
    }
  });

  it.each([
    [{ flux: { namespace: 'KCP' } }, 'gitops.flux.namespace', 'E_GITOPS_NAME'],
    [{ flux: { namespace: 'kcp.system' } }, 'gitops.flux.namespace', 'E_GITOPS_NAME'],
    [{ flux: { namespace: 'a'.repeat(64) } }, 'gitops.flux.namespace', 'E_GITOPS_NAME'],
    [{ flux: { sourceRef: { kind: 'GitRepository', name: 'Kyma_Fleet' } } }, 'gitops.flux.sourceRef.name', 'E_GITOPS_NAME'],
    [{ flux: { sourceRef: { kind: 'GitRepository', name: 'x', namespace: '-flux' } } }, 'gitops.flux.sourceRef.namespace', 'E_GITOPS_NAME'],
    [{ argocd: { namespace: 'Argo' } }, 'gitops.argocd.namespace', 'E_GITOPS_NAME'],
    [{ argocd: { project: 'My Project' } }, 'gitops.argocd.project', 'E_GITOPS_NAME'],
  ])('refuses the bad name in %j', (options, at, code) => {
    expect(codes(options)).toEqual([[at, code]]);
  });

  it('refuses a source name with a dot while the ArtifactGenerators read it, and says what to do', () => {
    const dotted = { kind: 'GitRepository', name: 'fleet.acme' };
    expect(gitopsOptionProblems({ flux: { sourceRef: dotted } })).toEqual([
      [['gitops', 'flux', 'sourceRef', 'name'], 'E_GITOPS_NAME', 'must not contain "." while flux.artifacts is per-runtime: the ArtifactGenerator that reads the source refuses dots in its name; rename the source or set flux.artifacts to whole-source (got "fleet.acme")'],
    ]);
    expect(codes({ flux: { sourceRef: dotted, artifacts: 'per-runtime' } })).toEqual([['gitops.flux.sourceRef.name', 'E_GITOPS_NAME']]);
    expect(gitopsOptionProblems({ flux: { sourceRef: dotted, artifacts: 'whole-source' } })).toEqual([]);
  });

  it('names the apimachinery rule in a name message', () => {
    expect(gitopsOptionProblems({ flux: { namespace: 'KCP' } })[0]![2]).toBe(
      "must be a DNS-1123 label: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') (got \"KCP\")",
    );
  });

  it.each([
    [{ argocd: { enabled: true } }, [['gitops.argocd.repoURL', 'E_GITOPS_REQUIRED']]],
    [{ argocd: { enabled: false } }, []],
    [{ argocd: {} }, []],
    [{ garden: { enabled: true } }, [['gitops.garden.enabled', 'E_GITOPS_GARDEN']]],
    [{ garden: { enabled: true, kubeConfigSecret: 'garden-kubeconfig' } }, [['gitops.garden.enabled', 'E_GITOPS_GARDEN']]],
    [{ garden: { enabled: false, kubeConfigSecret: 'garden-kubeconfig' } }, []],
  ])('requires what an enabled feature needs: %j', (options, expected) => {
    expect(codes(options)).toEqual(expected);
  });

  it('says why the garden wiring is gone and what replaces it', () => {
    expect(gitopsOptionProblems({ garden: { enabled: true } })[0]![2]).toMatch(/no longer supported: .*KIM also writes.*kyma-fleet apply garden/);
  });

  it('says what the missing repoURL is', () => {
    expect(gitopsOptionProblems({ argocd: { enabled: true } })).toEqual([
      [['gitops', 'argocd', 'repoURL'], 'E_GITOPS_REQUIRED', 'is required when argocd.enabled is true: the git URL of the repository that holds dist/'],
    ]);
  });

  it.each([
    ['https://github.com/acme/kyma-fleet.git'],
    ['http://git.internal:8080/kyma/fleet'],
    ['ssh://git@github.com/acme/kyma-fleet.git'],
    ['git@github.com:acme/kyma-fleet.git'],
    ['git://git.example/fleet.git'],
  ])('accepts the repoURL %j', (repoURL) => {
    expect(gitopsOptionProblems({ argocd: { enabled: true, repoURL } })).toEqual([]);
  });

  it.each([
    ['github.com/acme/fleet', 'E_GITOPS_URL'],
    ['ftp://example.com/fleet', 'E_GITOPS_URL'],
    ['oci://registry.example/fleet', 'E_GITOPS_URL'],
    ['https:///path-only', 'E_GITOPS_URL'],
    ['https://github.com/acme/fleet.git?ref=main', 'E_GITOPS_URL'],
    ['https://github.com/{{.name}}/fleet.git', 'E_GITOPS_URL'],
    ['https://github.com/acme/my fleet.git', 'E_GITOPS_URL'],
    ['https://user:s3cret@github.com/acme/fleet.git', 'E_SECRET_INLINE'],
    ['https://ghp_token@github.com/acme/fleet.git', 'E_SECRET_INLINE'],
    ['ssh://git:pw@github.com/acme/fleet.git', 'E_SECRET_INLINE'],
  ])('refuses the repoURL %j', (repoURL, code) => {
    expect(codes({ argocd: { repoURL } })).toEqual([['gitops.argocd.repoURL', code]]);
  });

  it('never echoes a credential', () => {
    const [problem] = gitopsOptionProblems({ argocd: { repoURL: 'https://user:s3cret@github.com/acme/fleet.git' } });
    expect(problem![2]).not.toContain('s3cret');
    expect(problem![2]).toContain('user:***@github.com');
  });

  it.each([
    [{ flux: { path: './dist' } }, []],
    [{ flux: { path: 'dist' } }, []],
    [{ flux: { path: './clusters/kcp/dist/' } }, []],
    [{ flux: { path: '.' } }, []],
    [{ flux: { path: '/dist' } }, [['gitops.flux.path', 'E_GITOPS_PATH']]],
    [{ flux: { path: './../dist' } }, [['gitops.flux.path', 'E_GITOPS_PATH']]],
    [{ flux: { path: 'a//b' } }, [['gitops.flux.path', 'E_GITOPS_PATH']]],
    [{ flux: { path: './${DIST}' } }, [['gitops.flux.path', 'E_GITOPS_PATH']]],
    [{ flux: { path: '' } }, [['gitops.flux.path', 'E_GITOPS_PATH']]],
    [{ argocd: { path: 'dist' } }, []],
    [{ argocd: { path: './dist' } }, [['gitops.argocd.path', 'E_GITOPS_PATH']]],
    [{ argocd: { path: 'dist/*' } }, [['gitops.argocd.path', 'E_GITOPS_PATH']]],
  ])('checks the path in %j', (options, expected) => {
    expect(codes(options)).toEqual(expected);
  });

  it.each([
    ['kyma-{{runtimeID}}', undefined],
    ['{{name}}', undefined],
    ['skr-{{name}}-{{runtimeID}}', undefined],
    ['kyma', 'must contain {{name}} or {{runtimeID}}, or every runtime would be synced to the same cluster (got "kyma")'],
    ['kyma-{{.runtimeID}}', 'unknown placeholder "{{.runtimeID}}"; use {{name}} or {{runtimeID}} (got "kyma-{{.runtimeID}}")'],
    ['kyma-{{shoot}}', 'unknown placeholder "{{shoot}}"; use {{name}} or {{runtimeID}} (got "kyma-{{shoot}}")'],
    ['kyma-{{name}', 'has an unclosed placeholder; use {{name}} or {{runtimeID}} (got "kyma-{{name}")'],
    ['kyma-{name}', 'may use "{" and "}" only in the placeholders {{name}} and {{runtimeID}} (got "kyma-{name}")'],
    ['kyma {{name}}', 'must be printable ASCII without spaces outside the placeholders (got "kyma {{name}}")'],
  ])('checks the skrClusterName %j', (skrClusterName, message) => {
    expect(gitopsOptionProblems({ argocd: { skrClusterName } })).toEqual(
      message === undefined ? [] : [[['gitops', 'argocd', 'skrClusterName'], 'E_GITOPS_TEMPLATE', message]],
    );
  });

  it.each([
    [{ argocd: { targetRevision: 'main' } }, []],
    [{ argocd: { targetRevision: 'release/1.2' } }, []],
    [{ argocd: { targetRevision: '' } }, [['gitops.argocd.targetRevision', 'E_GITOPS_VALUE']]],
    [{ argocd: { targetRevision: 'feature {{x}}' } }, [['gitops.argocd.targetRevision', 'E_GITOPS_VALUE']]],
    [{ argocd: { kcpCluster: '{{.kcp}}' } }, [['gitops.argocd.kcpCluster', 'E_GITOPS_VALUE']]],
    [{ argocd: { kcpCluster: 'in cluster' } }, [['gitops.argocd.kcpCluster', 'E_GITOPS_VALUE']]],
  ])('checks go-template-safe literals in %j', (options, expected) => {
    expect(codes(options)).toEqual(expected);
  });

  it('reports every problem of a file, not only the first', () => {
    expect(
      codes({
        flux: { namespace: 'X', interval: '5s', path: '/abs' },
        argocd: { enabled: true, skrClusterName: 'same' },
        garden: { enabled: true },
      }),
    ).toEqual([
      ['gitops.flux.namespace', 'E_GITOPS_NAME'],
      ['gitops.flux.path', 'E_GITOPS_PATH'],
      ['gitops.flux.interval', 'E_GITOPS_DURATION'],
      ['gitops.argocd.repoURL', 'E_GITOPS_REQUIRED'],
      ['gitops.argocd.skrClusterName', 'E_GITOPS_TEMPLATE'],
      ['gitops.garden.enabled', 'E_GITOPS_GARDEN'],
    ]);
  });

  it('leaves values of the wrong type to the schema', () => {
    expect(gitopsOptionProblems({ flux: { interval: 10, namespace: null, sourceRef: 'x' }, argocd: 'yes', garden: [] })).toEqual([]);
    expect(gitopsOptionProblems(undefined)).toEqual([]);
    expect(gitopsOptionProblems('gitops')).toEqual([]);
  });
});

// What a real controller needs, as the docs state it (looked up through the docs search):
// Flux kustomize.toolkit.fluxcd.io/v1 Kustomization, https://fluxcd.io/flux/components/kustomize/kustomizations/
//   (fluxcd/kustomize-controller docs/spec/v1/kustomizations.md): metadata.name "must be a valid
//   DNS subdomain name"; `.spec.interval` "is a required field", a Go duration; `.spec.prune`
//   "is a required boolean field"; `.spec.sourceRef` "has two required fields: kind
//   (GitRepository, OCIRepository, Bucket) and name", `.namespace` for cross-namespace sources;
//   `.spec.kubeConfig.secretRef` "must exist in the same namespace as the Kustomization", bytes
//   read from `.secretRef.key` (default `value` or `value.yaml`); `.spec.deletionPolicy` one of
//   MirrorPrune, Delete, WaitForTermination, Orphan.
// Argo CD argoproj.io/v1alpha1 ApplicationSet,
//   https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/applicationset-specification/,
//   .../applicationset/Generators-Git/, .../applicationset/Template/,
//   .../applicationset/Application-Deletion/: generators + template; the git generator needs
//   repoURL, revision and files[].path; goTemplateOptions ["missingkey=error"] with goTemplate;
//   the template is an Application: metadata.name, spec.project, spec.source {repoURL,
//   targetRevision, path}, spec.destination {server or name}; `.syncPolicy.preserveResourcesOnDeletion`
//   sits on the ApplicationSet spec; sync options ServerSideApply=true and CreateNamespace=false
//   (https://argo-cd.readthedocs.io/en/release-2.5/user-guide/sync-options/).
function fluxProblems(o: Rec, file: string): string[] {
  const p: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) p.push(`${file}: ${what}`);
  };
  need(o.apiVersion === 'kustomize.toolkit.fluxcd.io/v1' && o.kind === 'Kustomization', 'apiVersion/kind');
  need(isDNS1123Subdomain(o.metadata?.name ?? '') && o.metadata.name.length <= 63, 'metadata.name (DNS subdomain, a label value)');
  need(isDNS1123Label(o.metadata?.namespace ?? ''), 'metadata.namespace');
  need(typeof o.spec?.interval === 'string' && parseGoDuration(o.spec.interval).ok, 'spec.interval (Go duration)');
  need(typeof o.spec?.prune === 'boolean', 'spec.prune (boolean)');
  need(['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'].includes(o.spec?.sourceRef?.kind), 'spec.sourceRef.kind');
  // source-watcher writes an ExternalArtifact in its generator's namespace, the Kustomizations' own.
  if (o.spec?.sourceRef?.kind === 'ExternalArtifact') need(o.spec.sourceRef.namespace === undefined, 'spec.sourceRef.namespace (an ExternalArtifact is in the same namespace)');
  need(isDNS1123Subdomain(o.spec?.sourceRef?.name ?? ''), 'spec.sourceRef.name');
  need(typeof o.spec?.path === 'string' && !o.spec.path.startsWith('/'), 'spec.path (relative)');
  // Runtime Kustomizations orphan what they applied; shard Kustomizations keep Flux's default (MirrorPrune).
  need(o.metadata?.labels?.['kyma-fleet.dev/runtime'] === undefined ? o.spec?.deletionPolicy === undefined : o.spec?.deletionPolicy === 'Orphan', 'spec.deletionPolicy');
  for (const k of ['retryInterval', 'timeout']) {
    if (o.spec?.[k] !== undefined) need(parseGoDuration(o.spec[k]).ok, `spec.${k}`);
  }
  if (o.spec?.kubeConfig !== undefined) {
    need(isDNS1123Subdomain(o.spec.kubeConfig.secretRef?.name ?? ''), 'spec.kubeConfig.secretRef.name');
    need(o.spec.kubeConfig.secretRef?.key === 'config', 'spec.kubeConfig.secretRef.key (KIM writes "config"; Flux defaults to "value")');
  }
  need(o.spec?.postBuild === undefined, 'no spec.postBuild');
  for (const d of o.spec?.dependsOn ?? []) need(isDNS1123Subdomain(d.name ?? '') && d.name.length <= 63 && d.namespace === undefined, 'spec.dependsOn[].name (same namespace)');
  for (const h of o.spec?.healthChecks ?? []) need(typeof h.apiVersion === 'string' && typeof h.kind === 'string' && isDNS1123Subdomain(h.name ?? ''), 'spec.healthChecks[]');
  return p;
}

function appSetProblems(o: Rec, file: string): string[] {
  const p: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) p.push(`${file}: ${what}`);
  };
  need(o.apiVersion === 'argoproj.io/v1alpha1' && o.kind === 'ApplicationSet', 'apiVersion/kind');
  need(isDNS1123Subdomain(o.metadata?.name ?? '') && isDNS1123Label(o.metadata?.namespace ?? ''), 'metadata');
  need(o.spec?.goTemplate === true && JSON.stringify(o.spec.goTemplateOptions) === '["missingkey=error"]', 'goTemplate');
  need(Array.isArray(o.spec?.generators) && o.spec.generators.length === 1, 'spec.generators');
  const matrix = o.spec?.generators?.[0]?.matrix?.generators;
  const git = matrix ? matrix[0]?.git : o.spec?.generators?.[0]?.git;
  if (matrix) need(matrix.length === 2 && typeof matrix[1]?.clusters?.selector?.matchLabels?.['kyma-fleet.dev/runtime-id'] === 'string', 'matrix: git files and the cluster generator by runtime ID');
  need(typeof git?.repoURL === 'string' && typeof git?.revision === 'string', 'git generator repoURL and revision');
  need(Array.isArray(git?.files) && git.files.every((f: Rec) => typeof f.path === 'string' && /\/gitops\/argocd\/shards\/[0-9a-f]+\/\*\.json$|\/gitops\/argocd\/shards\/all\/\*\.json$/.test(f.path)), 'git generator files[].path');
  need(o.spec?.syncPolicy?.preserveResourcesOnDeletion === true, 'spec.syncPolicy.preserveResourcesOnDeletion');
  const t = o.spec?.template;
  need(typeof t?.metadata?.name === 'string' && t.metadata.name !== '', 'template.metadata.name');
  need(typeof t?.spec?.project === 'string', 'template.spec.project');
  need(typeof t?.spec?.source?.repoURL === 'string' && typeof t.spec.source.path === 'string' && typeof t.spec.source.targetRevision === 'string', 'template.spec.source');
  need(typeof t?.spec?.destination?.name === 'string' || typeof t?.spec?.destination?.server === 'string', 'template.spec.destination');
  need(t?.spec?.syncPolicy?.syncOptions?.includes('ServerSideApply=true') && t.spec.syncPolicy.syncOptions.includes('CreateNamespace=false'), 'sync options');
  need(typeof t?.spec?.syncPolicy?.automated?.prune === 'boolean' && t.spec.syncPolicy.automated.selfHeal === true, 'automated sync');
  need(t?.spec?.syncPolicy?.retry?.limit === -1 && t.spec.syncPolicy.retry.refresh === true, 'retry without end on the newest revision (retry.refresh, Argo CD 3.2)');
  need(t?.metadata?.annotations?.['argocd.argoproj.io/manifest-generate-paths'] === '.', 'manifest-generate-paths');
  return p;
}

describe('controller requirements', () => {
  const options = resolveGitopsOptions(WRITTEN, 'kcp-system');
  const long: GitopsRuntime = { name: 'q'.repeat(63), runtimeID: 'd0b1c2d3-0000-4000-8000-000000000005', targets: ['skr', 'skr-config', 'kcp', 'garden'], waitFor: [RCC_CRD] };
  const out = renderGitops([...RUNTIMES, long], options) as Map<string, Rec>;

  it('every Flux Kustomization has what kustomize-controller requires', () => {
    const problems: string[] = [];
    let n = 0;
    for (const [file, obj] of out) {
      if (file.startsWith('gitops/flux/') && obj.kind === 'Kustomization' && obj.apiVersion !== 'kustomize.config.k8s.io/v1beta1') {
        problems.push(...fluxProblems(obj, file));
        n++;
      }
    }
    expect(n).toBe(9); // 8 runtime Kustomizations and the shard's
    expect(problems).toEqual([]);
  });

  it('every ExternalArtifact a Kustomization reads is cut by its shard\'s ArtifactGenerator, holding the folder the Kustomization applies', () => {
    const gen = out.get('gitops/flux/generator-all.yaml') as Rec;
    // The ArtifactGenerator CRD (source-watcher api v1beta1): names, aliases and copy paths by its patterns, at most 1000 artifacts.
    const ALIAS = /^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$/;
    expect(gen.spec.sources).toHaveLength(1);
    expect(ALIAS.test(gen.spec.sources[0].alias)).toBe(true);
    expect(gen.spec.artifacts.length).toBeLessThanOrEqual(1000);
    const cut = new Map<string, string>();
    for (const a of gen.spec.artifacts as Rec[]) {
      expect(isDNS1123Subdomain(a.name), a.name).toBe(true);
      expect(a.copy).toHaveLength(1);
      expect(a.copy[0].from).toMatch(/^@fleet\/dist\/[a-z0-9/.-]+$/); // a folder, no glob: cp -r semantics
      expect(a.copy[0].to).toBe('@artifact/');
      cut.set(a.name, a.copy[0].from.replace('@fleet/', ''));
    }
    const problems: string[] = [];
    for (const [file, obj] of out) {
      if (!file.startsWith('gitops/flux/') || obj.apiVersion !== 'kustomize.toolkit.fluxcd.io/v1') continue;
      const spec = obj.spec as Rec;
      const folder = cut.get(spec.sourceRef.name);
      if (folder === undefined) {
        problems.push(`${file}: reads ${spec.sourceRef.name}, which no generator cuts`);
        continue;
      }
      // The artifact holds the copied folder under its own name (cp -r <folder> @artifact/).
      const inArtifact = path.posix.join(folder, '..', spec.path);
      const expected = /\/shard-/.test(file) ? 'dist/gitops/flux/shards/all' : `dist/runtimes/${obj.metadata.labels['kyma-fleet.dev/runtime']}/${obj.metadata.labels['kyma-fleet.dev/target']}`;
      if (inArtifact !== expected) problems.push(`${file}: applies ${inArtifact}, expected ${expected}`);
    }
    expect(problems).toEqual([]);
    expect(cut.size).toBe(1 + 3); // the shard's list and the three runtimes
  });

  it('every ApplicationSet has what the ApplicationSet controller requires, and every parameter it uses exists', () => {
    const problems: string[] = [];
    const data = [...out].filter(([f]) => f.startsWith('gitops/argocd/shards/') && f.endsWith('.json')).map(([, d]) => d);
    // What Argo CD's cluster generator sets for each cluster Secret it selects.
    const CLUSTER_PARAMS = ['name', 'nameNormalized', 'server', 'project'];
    for (const t of ['skr', 'skr-config', 'kcp']) {
      const file = `gitops/argocd/shards/all/applicationset-${t}.yaml`;
      const set = out.get(file) as Rec;
      problems.push(...appSetProblems(set, file));
      const used = [...JSON.stringify(set.spec.template).matchAll(/\{\{\.([A-Za-z]+)\}\}/g)].map((m) => m[1]!);
      const matrix = set.spec.generators[0].matrix?.generators;
      const key = (matrix ? matrix[0] : set.spec.generators[0]).selector.matchExpressions[0].key as string;
      for (const d of data.filter((x) => key in x)) {
        // A key of the file that the cluster generator also sets would collide in the matrix.
        if (matrix) for (const k of Object.keys(d)) if (CLUSTER_PARAMS.includes(k)) problems.push(`${file}: ${d.runtime} sets ${k}, a cluster generator parameter`);
        for (const u of used) if (typeof d[u] !== 'string' && !(matrix && CLUSTER_PARAMS.includes(u))) problems.push(`${file}: ${d.runtime} lacks {{.${u}}}`);
        expect(isDNS1123Label(d[key]), d[key]).toBe(true);
      }
    }
    expect(problems).toEqual([]);
  });
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const hasKubectl = kubectl.status === 0;

describe.skipIf(!hasKubectl)('kubectl kustomize', () => {
  const yamlOf = (obj: unknown): string =>
    stringify(obj, { version: '1.1', aliasDuplicateObjects: false, lineWidth: 0, sortMapEntries: true });

  function build(files: Map<string, Record<string, unknown>>, folder: string): unknown[] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-gitops-'));
    try {
      for (const [rel, obj] of files) {
        const file = path.join(dir, rel);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, rel.endsWith('.json') ? `${JSON.stringify(obj, null, 2)}\n` : yamlOf(obj));
      }
      const res = spawnSync('kubectl', ['kustomize', path.join(dir, folder)], { encoding: 'utf8' });
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      return parseAllDocuments(res.stdout).map((d) => d.toJS());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  const options = resolveGitopsOptions(WRITTEN, 'kcp-system');
  const out = renderGitops(RUNTIMES, options);

  it('builds gitops/flux into the shard Kustomizations, and each shard folder into its runtime Kustomizations, unchanged', () => {
    const built = build(out, 'gitops/flux');
    const expected = [...out].filter(([f]) => /^gitops\/flux\/(shard|generator)-[^/]+\.yaml$/.test(f)).map(([, o]) => o);
    const key = (o: any): string => `${o.kind}/${o.metadata.name}`;
    expect([...built].sort((a: any, b: any) => key(a).localeCompare(key(b)))).toStrictEqual(
      [...expected].sort((a: any, b: any) => key(a).localeCompare(key(b))),
    );
    const shard = build(out, 'gitops/flux/shards/all');
    const runtimeKs = [...out].filter(([f]) => f.startsWith('gitops/flux/shards/all/') && !f.endsWith('/kustomization.yaml')).map(([, o]) => o);
    expect([...shard].sort((a: any, b: any) => key(a).localeCompare(key(b)))).toStrictEqual(
      [...runtimeKs].sort((a: any, b: any) => key(a).localeCompare(key(b))),
    );
  });

  it('builds gitops/argocd into the shard Applications, and each shard folder into its ApplicationSets only (the runtime JSON files are data)', () => {
    expect(build(out, 'gitops/argocd')).toStrictEqual([out.get('gitops/argocd/shard-all.yaml')]);
    const built = build(out, 'gitops/argocd/shards/all') as Rec[];
    expect(built.map((o) => o.metadata.name).sort()).toEqual(['kyma-fleet-kcp-all', 'kyma-fleet-skr-all', 'kyma-fleet-skr-config-all']);
    expect(built.find((o) => o.metadata.name === 'kyma-fleet-skr-all')).toStrictEqual(out.get('gitops/argocd/shards/all/applicationset-skr.yaml'));
  });
});

describe('shards', () => {
  const hex = (s: string): string => createHash('sha256').update(s).digest('hex');
  const many: GitopsRuntime[] = Array.from({ length: 300 }, (_, i) => ({
    name: `rt-${i}`,
    runtimeID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    targets: ['skr', 'skr-config', 'kcp'],
    waitFor: [RCC_CRD],
  }));

  it('a runtime belongs to the shard named by the first hex digits of the SHA-256 of its name', () => {
    expect(shardOf('acme-prod', 1)).toBe('all');
    expect(shardOf('acme-prod', 16)).toBe(hex('acme-prod').slice(0, 1));
    expect(shardOf('acme-prod', 256)).toBe(hex('acme-prod').slice(0, 2));
    expect(shardOf('acme-prod', 4096)).toBe(hex('acme-prod').slice(0, 3));
  });

  it('the root lists exactly the non-empty shards; each shard lists exactly its runtimes\' Kustomizations', () => {
    const options = resolveGitopsOptions({ shards: 16 }, 'kcp-system');
    const out = renderGitops(many, options);
    const shards = [...new Set(many.map((r) => shardOf(r.name, 16)))].sort();
    expect((out.get('gitops/flux/kustomization.yaml') as Rec).resources).toEqual(shards.flatMap((s) => [`generator-${s}.yaml`, `shard-${s}.yaml`]).sort());
    for (const s of shards) {
      const mine = many.filter((r) => shardOf(r.name, 16) === s);
      expect((out.get(`gitops/flux/shards/${s}/kustomization.yaml`) as Rec).resources).toEqual(
        mine.flatMap((r) => [`${r.name}-kcp.yaml`, `${r.name}-skr-config.yaml`, `${r.name}-skr.yaml`]).sort(),
      );
      const ks = out.get(`gitops/flux/shard-${s}.yaml`) as Rec;
      expect(ks.metadata.name).toBe(`kyma-fleet-shard-${s}`);
      expect(ks.spec.sourceRef).toStrictEqual({ kind: 'ExternalArtifact', name: `kyma-fleet-shard-${s}` });
      expect(ks.spec.path).toBe(`./${s}`);
      expect(ks.spec.prune).toBe(true);
      const gen = out.get(`gitops/flux/generator-${s}.yaml`) as Rec;
      expect(gen.spec.artifacts.map((a: Rec) => a.name)).toEqual([`kyma-fleet-shard-${s}`, ...mine.map((r) => `kyma-fleet-runtime-${r.name}`).sort()]);
      for (const r of mine) expect((out.get(`gitops/flux/shards/${s}/${r.name}-skr.yaml`) as Rec).metadata.labels['kyma-fleet.dev/shard']).toBe(s);
    }
  });

  it('adding and removing runtimes changes only the lists of their own shards', () => {
    const options = resolveGitopsOptions({ argocd: { enabled: true, repoURL: 'https://g.example/r.git' } }, 'kcp-system');
    const before = renderGitops(many, options);
    const added: GitopsRuntime = { name: 'newcomer', runtimeID: 'f0000000-0000-4000-8000-000000000001', targets: ['skr', 'kcp'] };
    const removed = many[17]!;
    const after = renderGitops([...many.filter((r) => r !== removed), added], options);
    const touched = new Set([shardOf(added.name, 256), shardOf(removed.name, 256)]);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((f) => JSON.stringify(before.get(f)) !== JSON.stringify(after.get(f)));
    for (const f of changed) {
      const shard = /shards\/([0-9a-f]+)\/|(?:shard|generator)-([0-9a-f]+)\.yaml/.exec(f);
      const id = shard ? (shard[1] ?? shard[2]) : undefined;
      // The two root lists change only when a shard appears or empties.
      if (id === undefined) expect(['gitops/flux/kustomization.yaml', 'gitops/argocd/kustomization.yaml'], f).toContain(f);
      else expect(touched.has(id), f).toBe(true);
    }
    expect(changed.length).toBeGreaterThan(0);
  });

  it('Argo CD: one Application per shard, applying three ApplicationSets that read only its shard\'s generator files', () => {
    const options = resolveGitopsOptions({ shards: 16, argocd: { enabled: true, repoURL: 'https://g.example/r.git' } }, 'kcp-system');
    const out = renderGitops(many, options);
    const shards = [...new Set(many.map((r) => shardOf(r.name, 16)))].sort();
    const sets = [...out.keys()].filter((f) => /^gitops\/argocd\/shards\/[0-9a-f]+\/applicationset-/.test(f));
    expect(sets).toHaveLength(3 * shards.length);
    expect((out.get('gitops/argocd/kustomization.yaml') as Rec).resources).toEqual(shards.map((s) => `shard-${s}.yaml`));
    for (const s of shards) {
      const set = out.get(`gitops/argocd/shards/${s}/applicationset-skr.yaml`) as Rec;
      expect(set.spec.generators[0].matrix.generators[0].git.files).toStrictEqual([{ path: `dist/gitops/argocd/shards/${s}/*.json` }]);
      const files = [...out.keys()].filter((f) => f.startsWith(`gitops/argocd/shards/${s}/`) && f.endsWith('.json'));
      expect(files.map((f) => path.basename(f, '.json'))).toEqual(many.filter((r) => shardOf(r.name, 16) === s).map((r) => r.name).sort());
    }
  });
});
