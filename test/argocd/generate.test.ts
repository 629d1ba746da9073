// Argo CD's own ApplicationSet code judges kyma-fleet's dist/gitops/argocd/ (issue 25): the real
// generators (Git files, Clusters, Matrix) and template rendering (goTemplate, missingkey=error) of
// argo-cd v3.2.12 turn the rendered ApplicationSets into Applications; argo-cd's Application CRD
// judges every one of them and each source path must exist in the repository at its revision; the
// real ApplicationSet controller (one round per step) creates and deletes them on the KCP test
// cluster as runtimes' clusters are registered and unregistered (scenario a). The fleets are
// rendered by the real CLI: the example fleet and a generated one of 120 runtimes. Runtimes are
// registered as a user does it: KIM's kubeconfig-<runtimeID> Secret on the KCP, then the real
// `kyma-fleet register argocd`, which writes the cluster Secrets the cluster generator selects (and
// deletes them when the kubeconfig Secret is gone). No SKR cluster is needed here: generation only
// reads the cluster Secrets; the kubeconfigs' servers are placeholders that nothing connects to.
//
// Seen failing with the property broken (each by a temporary edit of a copy of the render, kept as
// cases below where the copy can be made by the test): the cluster generator removed from the
// matrix (every runtime gets skr Applications, registered or not), a template key the generator
// does not set (`{{.name}}`, the old layout's key: missingkey=error refuses), a source path that does
// not exist, a field the Application CRD does not have (pruned: `dropped`).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { generateFleet } from '../../bench/generate-fleet';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { FleetFixture } from '../helpers/fleet-fixture';
import { argo, type ArgoContext, type CheckResult, type GenerateResult } from './argocd-fleet';
import { describeWithArgoCD } from './describe-with-argocd';
import {
  Clock, FleetRepo, REPO_URL, appSetRound, applicationNames, argoContext, bootstrapAppSets, clusterSecrets, installArgoCd, kimKubeconfig, outcomesOf,
  putKimKubeconfig, putKimKubeconfigs, registerArgoCd,
} from './landscape';

/** KIM's kubeconfig for a runtime, with a placeholder server (generation never connects to it). */
const placeholderKubeconfig = (runtimeID: string): string => kimKubeconfig(placeholderServer(runtimeID), undefined, { token: 'unused' });
const placeholderServer = (runtimeID: string): string => `https://api.${runtimeID.slice(0, 8)}.kyma.example:443`;

function writeGenerateResult(dir: string, r: GenerateResult): string {
  const file = path.join(dir, `generated-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(r));
  return file;
}

/** Every ApplicationSet document of the rendered dist/gitops/argocd/ (any depth), changed by `edit`, listed by one kustomization.yaml in `into`. */
function editedAppSets(repo: FleetRepo, into: string, edit: (doc: any) => void): string {
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  const listed: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml') && e.name !== 'kustomization.yaml') {
        const doc = parse(fs.readFileSync(p, 'utf8'));
        if (doc?.kind !== 'ApplicationSet') continue;
        edit(doc);
        const name = `${listed.length}-${e.name}`;
        fs.writeFileSync(path.join(into, name), stringify(doc));
        listed.push(name);
      }
    }
  };
  walk(path.join(repo.distDir, 'gitops', 'argocd'));
  expect(listed.length).toBeGreaterThan(0);
  fs.writeFileSync(path.join(into, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: listed }));
  return into;
}

// each step runs Argo CD code against real API servers; on a loaded 2-core machine a scenario takes minutes
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

describeWithArgoCD('Argo CD ApplicationSet code on the rendered wiring', () => {
  let kcp: TestCluster;
  let fixture: FleetFixture;
  let repo: FleetRepo;
  let ctx: ArgoContext;
  let tmp: string;
  let runtimes: Array<Record<string, string>>;
  const clock = new Clock();

  beforeAll(async () => {
    kcp = await startTestCluster({ crds: [] });
    await installArgoCd(kcp);
    fixture = FleetFixture.example();
    repo = new FleetRepo(fixture.dir);
    repo.enableArgoCd();
    repo.synth();
    repo.commit('render');
    ctx = argoContext(kcp, repo);
    runtimes = repo.runtimeFiles();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-argocd-'));
  });

  afterAll(async () => {
    await kcp?.stop();
    fixture?.cleanup();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const appsetDir = () => path.join(repo.distDir, 'gitops', 'argocd');

  it('the program runs argo-cd v3.2.12 with the gitops-engine it requires', async () => {
    const v = await argo<Record<string, string>>('versions', ctx);
    expect(v['github.com/argoproj/argo-cd/v3']).toBe('v3.2.12');
    expect(v['github.com/argoproj/gitops-engine']).toBe('v0.7.1-0.20260512161450-ff8d2f5207dc');
  });

  it('with no cluster registered, the generators give kcp Applications only; every one passes the Application CRD and names a folder that exists', async () => {
    const gen = await argo<GenerateResult>('generate', ctx, ['--appsets', appsetDir()]);
    expect(gen.applicationSets.filter((a) => a.error)).toEqual([]);
    const apps = gen.applicationSets.flatMap((a) => a.applications);
    const byTarget = (t: string) => apps.filter((a) => a.metadata.labels?.['kyma-fleet.dev/target'] === t).map((a) => a.metadata.name).sort();
    expect(byTarget('kcp')).toEqual(runtimes.filter((r) => r.kcpApp).map((r) => r.kcpApp).sort());
    expect(byTarget('skr')).toEqual([]);
    expect(byTarget('skr-config')).toEqual([]);
    const checked = await argo<CheckResult>('check', ctx, ['--apps', writeGenerateResult(tmp, gen)]);
    expect(checked.verdicts.length).toBe(apps.length);
    expect(checked.verdicts.filter((v) => !v.accepted || v.dropped || !v.pathExists)).toEqual([]);
  });

  it('scenario a: only runtimes whose cluster is registered get skr and skr-config Applications (the real controller creates and deletes them)', async () => {
    const [first, second] = runtimes.filter((r) => r.skrApp && r.skrConfigApp);
    expect(first && second).toBeTruthy();
    await bootstrapAppSets(kcp, ctx, repo, clock);
    let round = await appSetRound(ctx);
    expect(round.applicationSets.every((a) => a.conditions.some((c) => c.type === 'ErrorOccurred' && c.status === 'False'))).toBe(true);
    const kcpApps = runtimes.filter((r) => r.kcpApp).map((r) => r.kcpApp!);
    expect(await applicationNames(kcp)).toEqual([...kcpApps].sort());

    await putKimKubeconfig(kcp, first!.runtimeID!, placeholderKubeconfig(first!.runtimeID!));
    const reg = await registerArgoCd(kcp, repo);
    expect(outcomesOf(reg, first!.runtimeID!)).toEqual(['created']);
    expect(reg.counts.created).toBe(1);
    expect([...(await clusterSecrets(kcp)).keys()]).toEqual([`kyma-fleet-cluster-${first!.runtimeID!.toLowerCase()}`]);
    round = await appSetRound(ctx);
    expect(await applicationNames(kcp)).toEqual([...kcpApps, first!.skrApp!, first!.skrConfigApp!].sort());

    // every generated Application of the registered runtime: destination, options, retry, no finalizer
    const gen = await argo<GenerateResult>('generate', ctx, ['--appsets', appsetDir()]);
    const skr = gen.applicationSets.flatMap((a) => a.applications).filter((a) => a.metadata.labels?.['kyma-fleet.dev/target'] !== 'kcp');
    expect(skr.map((a) => a.metadata.name).sort()).toEqual([first!.skrApp!, first!.skrConfigApp!].sort());
    for (const app of gen.applicationSets.flatMap((a) => a.applications)) {
      const target = app.metadata.labels!['kyma-fleet.dev/target'];
      expect(app.metadata.finalizers ?? [], app.metadata.name).toEqual([]); // preserveResourcesOnDeletion: deleting the App deletes nothing
      expect(app.metadata.annotations?.['argocd.argoproj.io/manifest-generate-paths'], app.metadata.name).toBe('.');
      expect(app.spec.syncPolicy?.retry, app.metadata.name).toMatchObject({ limit: -1, refresh: true });
      expect(app.spec.syncPolicy?.syncOptions).toContain('ServerSideApply=true');
      if (target === 'kcp') expect(app.spec.destination).toEqual({ name: 'in-cluster' });
      else expect(app.spec.destination).toEqual({ server: placeholderServer(first!.runtimeID!) });
      expect(app.spec.source.repoURL).toBe(REPO_URL);
    }
    const checked = await argo<CheckResult>('check', ctx, ['--apps', writeGenerateResult(tmp, gen)]);
    expect(checked.verdicts.filter((v) => !v.accepted || v.dropped || !v.pathExists)).toEqual([]);

    // registering a second runtime makes its Applications appear; when the first one's kubeconfig
    // Secret is gone (deprovisioned), register removes its registration and its Applications go
    await putKimKubeconfig(kcp, second!.runtimeID!, placeholderKubeconfig(second!.runtimeID!));
    expect(outcomesOf(await registerArgoCd(kcp, repo), second!.runtimeID!)).toEqual(['created']);
    await appSetRound(ctx);
    expect(await applicationNames(kcp)).toEqual([...kcpApps, first!.skrApp!, first!.skrConfigApp!, second!.skrApp!, second!.skrConfigApp!].sort());
    await putKimKubeconfig(kcp, first!.runtimeID!, undefined);
    expect(outcomesOf(await registerArgoCd(kcp, repo), first!.runtimeID!)).toEqual(['deleted']); // one entry, with the reason it was deleted
    await appSetRound(ctx);
    expect(await applicationNames(kcp)).toEqual([...kcpApps, second!.skrApp!, second!.skrConfigApp!].sort());
  });

  it('broken on purpose: without the cluster generator every runtime gets skr Applications, registered or not', async () => {
    const dir = editedAppSets(repo, path.join(tmp, 'no-cluster-generator'), (doc) => {
      for (const g of doc.spec.generators) {
        if (g.matrix) {
          const files = g.matrix.generators.find((x: any) => x.git);
          delete g.matrix;
          Object.assign(g, files);
        }
      }
      const dest = doc.spec.template.spec.destination;
      if (dest.server === '{{.server}}') dest.server = 'https://kubernetes.default.svc';
    });
    const gen = await argo<GenerateResult>('generate', ctx, ['--appsets', dir]);
    const skrApps = gen.applicationSets.flatMap((a) => a.applications).filter((a) => a.metadata.labels?.['kyma-fleet.dev/target'] === 'skr');
    expect(skrApps.length).toBe(runtimes.filter((r) => r.skrApp).length);
  });

  it('broken on purpose: a template key the generators do not set is refused (missingkey=error); a folder that does not exist is found', async () => {
    const badKey = editedAppSets(repo, path.join(tmp, 'bad-key'), (doc) => {
      doc.spec.template.metadata.labels['kyma-fleet.dev/runtime'] = '{{.name}}-x';
    });
    const gen = await argo<GenerateResult>('generate', ctx, ['--appsets', badKey]);
    const kcpSets = gen.applicationSets.filter((a) => a.applicationSet.startsWith('kyma-fleet-kcp'));
    expect(kcpSets.length).toBeGreaterThan(0);
    for (const s of kcpSets) expect(s.error).toMatch(/map has no entry for key "name"/);

    const badPath = editedAppSets(repo, path.join(tmp, 'bad-path'), (doc) => {
      doc.spec.template.spec.source.path = doc.spec.template.spec.source.path.replace(/\/(kcp|skr|skr-config)$/, '/$1-missing');
    });
    const gen2 = await argo<GenerateResult>('generate', ctx, ['--appsets', badPath]);
    const checked = await argo<CheckResult>('check', ctx, ['--apps', writeGenerateResult(tmp, gen2)]);
    expect(checked.verdicts.length).toBeGreaterThan(0);
    expect(checked.verdicts.every((v) => v.accepted && !v.pathExists)).toBe(true);
  });

  it('d, broken on purpose: without preserveResourcesOnDeletion every Application carries the resources finalizer, so deleting it deletes what it applied', async () => {
    const dir = editedAppSets(repo, path.join(tmp, 'no-preserve'), (doc) => {
      doc.spec.syncPolicy = { ...(doc.spec.syncPolicy ?? {}), preserveResourcesOnDeletion: false };
    });
    const gen = await argo<GenerateResult>('generate', ctx, ['--appsets', dir]);
    const apps = gen.applicationSets.flatMap((a) => a.applications);
    expect(apps.length).toBeGreaterThan(0);
    // argo-cd's controller runs finalizeApplicationDeletion (controller/appcontroller.go L1191-1330)
    // for an Application with this finalizer: it deletes every object the Application manages
    for (const a of apps) expect(a.metadata.finalizers).toContain('resources-finalizer.argocd.argoproj.io');
  });

  it('a generated fleet of 120 runtimes (default shards): the Applications are exactly the runtimes\' targets, skr ones for the 40 registered runtimes only, and all pass the CRD and name folders that exist', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-argocd-gen-'));
    try {
      generateFleet(path.join(dir, 'fleet'), 120, 25);
      const big = new FleetRepo(dir);
      big.enableArgoCd();
      big.synth();
      big.commit('render');
      const bigCtx = argoContext(kcp, big);
      const all = big.runtimeFiles();
      expect(all.length).toBe(120);
      const registered = all.filter((_, i) => i % 3 === 0);
      await putKimKubeconfigs(kcp, Object.fromEntries(registered.map((r) => [r.runtimeID!, placeholderKubeconfig(r.runtimeID!)])));
      const reg = await registerArgoCd(kcp, big);
      expect(reg.counts).toMatchObject({ created: registered.length, 'not-registered': all.length - registered.length });
      const gen = await argo<GenerateResult>('generate', bigCtx, ['--appsets', path.join(big.distDir, 'gitops', 'argocd')]);
      expect(gen.applicationSets.filter((a) => a.error)).toEqual([]);
      const names = gen.applicationSets.flatMap((a) => a.applications).map((a) => a.metadata.name).sort();
      const expected = [
        ...all.filter((r) => r.kcpApp).map((r) => r.kcpApp!),
        ...registered.flatMap((r) => [r.skrApp, r.skrConfigApp].filter((x): x is string => Boolean(x))),
      ].sort();
      expect(names).toEqual(expected);
      const checked = await argo<CheckResult>('check', bigCtx, ['--apps', writeGenerateResult(tmp, gen)]);
      expect(checked.verdicts.length).toBe(expected.length);
      expect(checked.verdicts.filter((v) => !v.accepted || v.dropped || !v.pathExists)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
