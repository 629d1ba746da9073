// The harness of the delivery tests: a KCP (a test cluster, test/cluster/harness.ts) with the real
// Flux CRDs and the real kustomize-controller v1.9.6 running against it (controller.ts), the source
// played by artifact-server.ts (source-controller cannot be built from the proxy: see there), and the
// runtimes ("SKR") as further test clusters the runtime Kustomizations reach through their
// `kubeconfig-<runtimeID>` Secret (key `config`) in their own namespace, holding the SKR cluster's
// admin kubeconfig (https://127.0.0.1:<port>, the controller runs on this machine).
//
// It is generic over the wiring: a FleetDelivery packs a workspace (the fleet and the dist/ the CLI
// rendered, as a repository would hold them), publishes it as the GitRepository the render references
// (kind, name and namespace read from the rendered Kustomizations), and bootstraps exactly ONE root
// Kustomization at <flux.path>/gitops/flux as docs/applying.md "Flux bootstrap" tells a user to.
// Everything below the root (shard Kustomizations, runtime Kustomizations, objects) is then the
// controller's doing; the tests only read what it did.
//
// What stands in for other components (each where the real one cannot run here):
// - source-controller: artifact-server.ts;
// - KEB: the full Runtime CR is created beforehand (test/flux/cluster-steps.ts kebRuntime) for every
//   Runtime fragment the render has, as KEB creates it at provisioning;
// - KIM: the kubeconfig-<runtimeID> Secrets, made here from the SKR test cluster's admin kubeconfig;
// - lifecycle-manager and the modules: the tests install the RegistryCacheConfig CRD on the SKR and
//   write the Kyma CR the way KLM does (see the scenario file).
// One SKR test cluster per runtime: every runtime's Kyma CR is kyma-system/default.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTestCluster, type TestCluster } from '../cluster/harness';
import { waitUntil } from '../cluster/processes';
import { KEB_MANAGER, kebRuntime } from '../flux/cluster-steps';
import { ArtifactServer, type Artifact } from './artifact-server';
import { startController, type RunningController } from './controller';
import { readFluxTree, runtimeIdOf, type FluxTree, type Obj } from './flux-tree';
import { SourceWatcherStandIn } from './source-watcher';
import { ensureFluxControllerBinaries, fluxControllerBinariesFromEnv, fluxCrdFiles } from './tools';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const CRDS = {
  kyma: 'kymas.operator.kyma-project.io',
  registryCacheConfig: 'registrycacheconfigs.core.kyma-project.io',
  runtime: 'runtimes.infrastructuremanager.kyma-project.io',
} as const;

/** A Kustomization as the controller left it. */
export interface KsStatus {
  namespace: string;
  name: string;
  generation: number;
  observedGeneration?: number;
  ready?: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastAppliedRevision?: string;
  lastAttemptedRevision?: string;
  inventory: string[];
  labels: Record<string, string>;
  deleting: boolean;
}

function toStatus(o: Obj): KsStatus {
  const ready = ((o.status?.conditions ?? []) as Obj[]).find((c) => c.type === 'Ready');
  return {
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    generation: o.metadata.generation,
    observedGeneration: o.status?.observedGeneration,
    ready: ready?.status,
    reason: ready?.reason,
    message: ready?.message,
    lastAppliedRevision: o.status?.lastAppliedRevision,
    lastAttemptedRevision: o.status?.lastAttemptedRevision,
    inventory: ((o.status?.inventory?.entries ?? []) as Obj[]).map((e) => e.id as string),
    labels: o.metadata.labels ?? {},
    deleting: Boolean(o.metadata.deletionTimestamp),
  };
}

export function formatStatus(s: KsStatus): string {
  return `${s.namespace}/${s.name}: Ready=${s.ready ?? '-'} ${s.reason ?? ''} applied=${s.lastAppliedRevision ?? '-'} attempted=${s.lastAttemptedRevision ?? '-'}${s.deleting ? ' (deleting)' : ''} ${(s.message ?? '').slice(0, 300)}`;
}

export interface LandscapeOptions {
  /** --requeue-dependency of the controller (default: its own 30s). */
  requeueDependency?: string;
  concurrent?: number;
  extraControllerArgs?: string[];
  log?: (line: string) => void;
}

export class FluxLandscape {
  private readonly skrs: TestCluster[] = [];

  private constructor(
    readonly dir: string,
    readonly kcp: TestCluster,
    readonly controller: RunningController,
    readonly artifacts: ArtifactServer,
    readonly sourceWatcher: SourceWatcherStandIn,
    private readonly log: (line: string) => void,
  ) {}

  /** A KCP test cluster with the Flux CRDs and the Runtime CRD, the artifact server and the controller. */
  static async start(opts: LandscapeOptions = {}): Promise<FluxLandscape> {
    const log = opts.log ?? (() => undefined);
    const binaries = fluxControllerBinariesFromEnv() ?? (await ensureFluxControllerBinaries(log));
    const crdFiles = fluxCrdFiles();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-flux-controller-'));
    let kcp: TestCluster | undefined;
    let artifacts: ArtifactServer | undefined;
    try {
      kcp = await startTestCluster({ crds: [CRDS.runtime], log });
      await kcp.kubectl(['apply', '--server-side', '--field-manager=flux-install', ...[...crdFiles, binaries.artifactGeneratorCrd].flatMap((f) => ['-f', f])]);
      await waitForCrdsServed(kcp, ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io', 'ocirepositories.source.toolkit.fluxcd.io', 'buckets.source.toolkit.fluxcd.io', 'externalartifacts.source.toolkit.fluxcd.io', 'artifactgenerators.source.extensions.fluxcd.io']);
      artifacts = await ArtifactServer.start();
      const controller = await startController({
        binary: binaries.kustomizeController,
        kubeconfig: kcp.adminKubeconfig,
        dir,
        requeueDependency: opts.requeueDependency,
        concurrent: opts.concurrent,
        // As Flux installs it with source-watcher: kustomize-controller v1.9.6 reads ExternalArtifacts only behind this gate (internal/features).
        extraArgs: ['--feature-gates=ExternalArtifact=true', ...(opts.extraControllerArgs ?? [])],
      });
      const sourceWatcher = new SourceWatcherStandIn(kcp, artifacts, log);
      sourceWatcher.start();
      log(`kustomize-controller ${controller.pid} on ${kcp.server}; artifacts at ${artifacts.url}`);
      return new FluxLandscape(dir, kcp, controller, artifacts, sourceWatcher, log);
    } catch (err) {
      await artifacts?.stop();
      await kcp?.stop();
      throw err;
    }
  }

  /** A new runtime ("SKR") cluster with the Kyma CRD and kyma-system, stopped with the landscape or by stopSkr. */
  async startSkr(): Promise<TestCluster> {
    const skr = await startTestCluster({ crds: [CRDS.kyma], log: this.log });
    this.skrs.push(skr);
    await applyJson(skr, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } }, 'kyma-fleet-test');
    return skr;
  }

  async stopSkr(skr: TestCluster): Promise<void> {
    await skr.stop();
    this.skrs.splice(this.skrs.indexOf(skr), 1);
  }

  /** Every Kustomization on the KCP (all namespaces, or one). */
  async kustomizations(namespace?: string): Promise<KsStatus[]> {
    const r = await this.kcp.kubectl(['get', 'kustomizations.kustomize.toolkit.fluxcd.io', ...(namespace ? ['-n', namespace] : ['-A']), '-o', 'json']);
    return ((JSON.parse(r.stdout) as { items: Obj[] }).items).map(toStatus);
  }

  async kustomization(namespace: string, name: string): Promise<KsStatus | undefined> {
    const o = await getObject(this.kcp, 'kustomizations.kustomize.toolkit.fluxcd.io', namespace, name);
    return o ? toStatus(o) : undefined;
  }

  /** What `flux reconcile kustomization` does: the requestedAt annotation, which the controller watches. */
  async requestReconcile(namespace: string, name: string): Promise<string> {
    const token = new Date().toISOString();
    await this.kcp.kubectl(['annotate', '--overwrite', '-n', namespace, `kustomizations.kustomize.toolkit.fluxcd.io/${name}`, `reconcile.fluxcd.io/requestedAt=${token}`]);
    return token;
  }

  /**
   * Polls `check` (every 500 ms) until it returns something other than undefined/false; on timeout
   * fails with every Kustomization's status and the controller's log tail.
   */
  async waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError = '';
    for (;;) {
      try {
        const v = await check();
        if (v !== undefined && v !== false) return v;
      } catch (err) {
        lastError = (err as Error).message;
      }
      if (Date.now() > deadline) {
        const ks = await this.kustomizations().catch(() => []);
        throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}\n`
          + `Kustomizations:\n${ks.map(formatStatus).join('\n')}\ncontroller log (${this.controller.logFile}):\n${this.controller.logTail(30)}`);
      }
      await sleep(500);
    }
  }

  async stop(): Promise<void> {
    await this.sourceWatcher.stop();
    await this.controller.stop();
    await this.artifacts.stop();
    for (const skr of [...this.skrs]) await skr.stop();
    await this.kcp.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * One fleet delivered through the landscape: its workspace (fleet/ and the rendered dist/) is the
 * repository; publish() makes its current content the source's newest revision.
 */
export class FleetDelivery {
  tree: FluxTree;
  artifact?: Artifact;
  /** Artifacts published, in order. */
  readonly revisions: Artifact[] = [];

  constructor(readonly landscape: FluxLandscape, readonly workspace: string, readonly distDir = path.join(workspace, 'dist')) {
    this.tree = readFluxTree(workspace, distDir);
  }

  get sourceRef() {
    return this.tree.sourceRef;
  }

  /** The root Kustomization a user bootstraps (docs/applying.md): in the source's namespace. */
  get root(): { namespace: string; name: string } {
    return { namespace: this.tree.sourceRef.namespace, name: 'kyma-fleet' };
  }

  /** The namespaces the render needs on the KCP (the Kustomizations' and the source's) and KEB's Runtime CRs. */
  async prepareKcp(): Promise<void> {
    const kcp = this.landscape.kcp;
    const namespaces = new Set([this.sourceRef.namespace, ...this.tree.all.map((n) => n.namespace)]);
    for (const leaf of this.tree.leaves) for (const o of leaf.objects) if (o.metadata?.namespace) namespaces.add(o.metadata.namespace);
    for (const name of namespaces) await applyJson(kcp, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, 'kyma-fleet-test');
    const runtimes = this.tree.leaves.filter((n) => !n.kubeConfigSecret).flatMap((n) => n.objects.filter((o) => o.kind === 'Runtime'))
      .map((o) => kebRuntime(o.metadata.name, o.metadata.namespace));
    if (runtimes.length > 0) await applyJson(kcp, { apiVersion: 'v1', kind: 'List', items: runtimes }, KEB_MANAGER);
  }

  /** KIM's `kubeconfig-<runtimeID>` Secret for a runtime, holding the SKR cluster's admin kubeconfig. */
  async connect(runtime: string, skr: TestCluster): Promise<string> {
    const id = runtimeIdOf(this.tree, runtime);
    const namespaces = new Set(this.tree.leaves.filter((n) => n.runtime === runtime && n.kubeConfigSecret).map((n) => n.namespace));
    for (const namespace of namespaces) {
      await applyJson(this.landscape.kcp, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `kubeconfig-${id}`, namespace },
        type: 'Opaque',
        stringData: { config: fs.readFileSync(skr.adminKubeconfig, 'utf8') },
      }, 'kim');
    }
    return id;
  }

  /** Re-reads the render (after a new synth into the workspace), packs it and makes it the newest revision. */
  async publish(): Promise<Artifact> {
    this.tree = readFluxTree(this.workspace, this.distDir);
    const artifact = this.landscape.artifacts.publish(this.workspace);
    // The files of this revision, for the source-watcher stand-in (what it would fetch from the artifact).
    if (!this.landscape.sourceWatcher.snapshots.has(artifact.revision)) {
      const snapshot = path.join(this.landscape.dir, 'revisions', `${this.landscape.sourceWatcher.snapshots.size}`);
      fs.cpSync(this.workspace, snapshot, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
      this.landscape.sourceWatcher.snapshots.set(artifact.revision, snapshot);
    }
    const { kind, name, namespace } = this.sourceRef;
    if (kind !== 'GitRepository') throw new Error(`the render references a ${kind}; the harness plays a GitRepository`);
    const kcp = this.landscape.kcp;
    // what a user bootstraps (docs/applying.md step 1); the URL is never contacted here
    await applyJson(kcp, {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name, namespace },
      spec: { interval: '1m', url: 'https://git.example/acme/kyma-fleet.git', ref: { branch: 'main' } },
    }, 'kubectl');
    const current = await getObject(kcp, 'gitrepositories.source.toolkit.fluxcd.io', namespace, name);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const res = await kcp.request('PATCH', `/apis/source.toolkit.fluxcd.io/v1/namespaces/${namespace}/gitrepositories/${name}/status?fieldManager=source-controller&force=true`, {
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name, namespace },
        status: {
          observedGeneration: current?.metadata.generation ?? 1,
          conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: `stored artifact for revision '${artifact.revision}'`, lastTransitionTime: now, observedGeneration: current?.metadata.generation ?? 1 }],
          artifact: { path: artifact.path, url: artifact.url, revision: artifact.revision, digest: artifact.digest, lastUpdateTime: now, size: artifact.size },
        },
      },
    });
    if (res.status !== 200) throw new Error(`GitRepository status write failed (${res.status}): ${res.body}`);
    this.artifact = artifact;
    this.revisions.push(artifact);
    return artifact;
  }

  /** The one root Kustomization of docs/applying.md "Flux bootstrap" (applied with kubectl, as a person would). */
  async bootstrap(): Promise<void> {
    const { kind, name } = this.sourceRef;
    await applyJson(this.landscape.kcp, {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: this.root.name, namespace: this.root.namespace },
      spec: { interval: '10m', sourceRef: { kind, name }, path: this.tree.rootPath, prune: true },
    }, 'kubectl');
  }

  /** Every Kustomization of the render (root excluded) with its status, undefined where it does not exist. */
  async statuses(): Promise<Map<string, KsStatus | undefined>> {
    const live = new Map((await this.landscape.kustomizations()).map((s) => [`${s.namespace}/${s.name}`, s]));
    return new Map(this.tree.all.map((n) => [`${n.namespace}/${n.name}`, live.get(`${n.namespace}/${n.name}`)]));
  }

  /**
   * The revision a Kustomization of the render should apply now: the newest published one, or, for one
   * that reads an ExternalArtifact, that artifact's revision once its generator has cut it from the
   * newest published one (undefined before).
   */
  async revisionOf(n: { namespace: string; name?: string; artifact?: string }): Promise<string | undefined> {
    const key = { namespace: n.namespace, name: n.name ?? '', artifact: n.artifact };
    return (await this.revisionsOf([key])).get(`${key.namespace}/${key.name}`);
  }


  /**
   * True when the root and every Kustomization of the render have applied the revision they should
   * (revisionOf) and none is failing: Ready, or Unknown while a periodic re-reconcile runs. At a
   * thousand runtimes the interval's reconciles keep some Kustomization in progress at any moment, so
   * "all Ready at once" may never be seen there (the delivery bench uses this).
   */
  allApplied(): Promise<boolean> {
    return this.applied(false);
  }

  /** strict: Ready=True everywhere (allReady); else Ready or Unknown while a re-reconcile runs (allApplied). */
  private async applied(strict: boolean): Promise<boolean> {
    const ok = (ready: KsStatus['ready']): boolean => (strict ? ready === 'True' : ready !== undefined && ready !== 'False');
    const root = await this.landscape.kustomization(this.root.namespace, this.root.name);
    if (!root || !ok(root.ready) || root.lastAppliedRevision !== this.artifact?.revision) return false;
    const live = await this.statuses();
    const wanted = await this.revisionsOf(this.tree.all);
    for (const n of this.tree.all) {
      const s = live.get(`${n.namespace}/${n.name}`);
      if (!s || !ok(s.ready) || s.observedGeneration !== s.generation) return false;
      const want = wanted.get(`${n.namespace}/${n.name}`);
      if (want === undefined || s.lastAppliedRevision !== want) return false;
    }
    return true;
  }

  /** revisionOf for many Kustomizations with one list of the ExternalArtifacts. */
  private async revisionsOf(nodes: readonly { namespace: string; name: string; artifact?: string }[]): Promise<Map<string, string | undefined>> {
    const r = await this.landscape.kcp.kubectl(['get', 'externalartifacts.source.toolkit.fluxcd.io', '-A', '-o', 'json']);
    const byName = new Map(((JSON.parse(r.stdout) as { items: Obj[] }).items).map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.status?.artifact as Obj | undefined]));
    const out = new Map<string, string | undefined>();
    for (const n of nodes) {
      if (!n.artifact) {
        out.set(`${n.namespace}/${n.name}`, this.artifact?.revision);
        continue;
      }
      const a = byName.get(`${n.namespace}/${n.artifact}`);
      out.set(`${n.namespace}/${n.name}`, a && a.metadata?.['org.opencontainers.image.revision'] === this.artifact?.revision ? (a.revision as string) : undefined);
    }
    return out;
  }

  /** True when the root and every Kustomization of the render are Ready at the revision it should apply (revisionOf). */
  allReady(): Promise<boolean> {
    return this.applied(true);
  }

}

// ---- small cluster helpers ----

export async function applyJson(cluster: TestCluster, obj: Obj, manager: string): Promise<void> {
  await cluster.kubectl(['apply', '--server-side', '--force-conflicts', `--field-manager=${manager}`, '-f', '-'], { input: JSON.stringify(obj) });
}

/** An object as stored (managedFields included), or undefined when the server says NotFound. */
export async function getObject(cluster: TestCluster, resource: string, namespace: string | undefined, name: string): Promise<Obj | undefined> {
  const r = await cluster.kubectl(['get', resource, name, ...(namespace ? ['-n', namespace] : []), '-o', 'json', '--show-managed-fields'], { check: false });
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${resource} ${name}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as Obj;
}

/** Waits until each CRD is Established and every served version lists (as the cluster harness does). */
export async function waitForCrdsServed(cluster: TestCluster, names: readonly string[]): Promise<void> {
  for (const name of names) {
    let crd: Obj | undefined;
    await waitUntil(`CRD ${name} Established`, async () => {
      const res = await cluster.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      if (res.status !== 200) return false;
      crd = JSON.parse(res.body) as Obj;
      return ((crd.status?.conditions ?? []) as Obj[]).some((c) => c.type === 'Established' && c.status === 'True');
    }, { timeoutMs: 60_000, watched: [] });
    for (const v of (crd!.spec.versions as Obj[]).filter((x) => x.served)) {
      await waitUntil(`CRD ${name} ${v.name} served`, async () =>
        (await cluster.request('GET', `/apis/${crd!.spec.group}/${v.name}/${crd!.spec.names.plural}?limit=1`)).status === 200, { timeoutMs: 60_000, watched: [] });
    }
  }
}
