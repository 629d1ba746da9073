// What Flux's source-watcher does with the ArtifactGenerators kyma-fleet renders
// (dist/gitops/flux/generator-<shard>.yaml), played by the harness, because source-watcher cannot be
// built from the Go module proxy (github.com/fluxcd/source-watcher: `403 Forbidden` for its version
// list, checked 2026-11-27; only its api/v2 module is served, whose types give the CRD: tools.ts).
// Read from source-watcher at 825fa15 (internal/controller/artifactgenerator_controller.go, internal/
// builder/builder.go), this does what the wiring relies on, the way upstream does it:
// - a generator is reconciled when its generation or its source's artifact revision changed
//   (upstream: ObservedSourcesDigest, drift detection);
// - each output artifact is built from the source's files at that revision: a copy `from` that names a
//   folder without glob characters copies it under its own name into the destination folder (`cp -r`,
//   applySingleDirectoryCopy); a missing folder fails the whole generator (BuildFailed) and changes no
//   artifact. Other copy forms (globs, files, strategies) are refused here: kyma-fleet renders none;
// - the artifact is a tarball of the staged files; its revision is `latest@<digest>`, the digest of
//   the tarball, so it changes only when the files do (upstream: Storage.Archive, then
//   `artifact.Revision = "latest@" + artifact.Digest`); `originRevision` puts the source's revision
//   in the artifact's metadata (`org.opencontainers.image.revision`);
// - every ExternalArtifact of the generator is applied and its status written on every reconcile, the
//   Ready condition stamped with the time, as upstream does (reconcileExternalArtifact), whether its
//   digest changed or not; ExternalArtifacts that left the generator are deleted
//   (findOrphanedReferences); the generator's status lists its inventory.
// What this leaves out: source-watcher's own storage and garbage collection, events, the
// pathPattern, Merge and Extract features, retries with backoff (a failed generator is tried again
// at the next change of its source or generation), and concurrency limits.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestCluster } from '../cluster/harness';
import { type ArtifactServer, tarGz } from './artifact-server';

type Obj = Record<string, any>;

const GENERATORS = '/apis/source.extensions.fluxcd.io/v1beta1/artifactgenerators';
const ORIGIN_REVISION = 'org.opencontainers.image.revision';
const MANAGER = 'source-watcher';
/** Generators reconciled at once: source-watcher's --concurrent default (cmd/main.go at 825fa15). */
const CONCURRENT = 10;

/** What one generator reconcile did (for the cost figures of the delivery bench). */
export interface GeneratorRound {
  generator: string;
  sourceRevision: string;
  artifacts: number;
  /** Artifacts whose digest differs from the generator's previous inventory. */
  changed: string[];
  error?: string;
}

export class SourceWatcherStandIn {
  /** Folder holding the repository's files at a git revision (FleetDelivery.publish registers it). */
  readonly snapshots = new Map<string, string>();
  /** Every reconcile, in order. */
  readonly rounds: GeneratorRound[] = [];
  /** ExternalArtifact requests written (apply + status), as upstream writes them. */
  writes = 0;
  private readonly observed = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly kcp: TestCluster, private readonly server: ArtifactServer, private readonly log: (line: string) => void = () => undefined) {}

  start(intervalMs = 500): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.round()
        .catch((err) => this.log(`source-watcher stand-in: ${(err as Error).message}`))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, intervalMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass over every ArtifactGenerator of the cluster. */
  async round(): Promise<void> {
    const res = await this.kcp.request('GET', GENERATORS);
    if (res.status !== 200) throw new Error(`list ArtifactGenerators: ${res.status} ${res.body.slice(0, 300)}`);
    // the sources' revisions, read once per pass (upstream watches them)
    const revisions = new Map<string, string | undefined>();
    const revisionOf = async (ns: string, name: string): Promise<string | undefined> => {
      const key = `${ns}/${name}`;
      if (!revisions.has(key)) {
        const repo = await this.kcp.request('GET', `/apis/source.toolkit.fluxcd.io/v1/namespaces/${ns}/gitrepositories/${name}`);
        // upstream: SourceFetchFailed, retried
        revisions.set(key, repo.status === 200 ? ((JSON.parse(repo.body) as Obj).status?.artifact?.revision as string | undefined) : undefined);
      }
      return revisions.get(key);
    };
    const due: Array<{ gen: Obj; key: string; state: string; revision: string; snapshot: string }> = [];
    for (const gen of (JSON.parse(res.body) as { items: Obj[] }).items) {
      if (gen.metadata.deletionTimestamp) continue;
      const src = gen.spec.sources[0] as { kind: string; name: string; namespace?: string };
      if (gen.spec.sources.length !== 1 || src.kind !== 'GitRepository') throw new Error(`${gen.metadata.name}: the stand-in reads one GitRepository source`);
      const revision = await revisionOf(src.namespace ?? gen.metadata.namespace, src.name);
      if (!revision) continue;
      const key = `${gen.metadata.namespace}/${gen.metadata.name}`;
      const state = `${gen.metadata.generation}|${revision}`;
      if (this.observed.get(key) === state) continue;
      const snapshot = this.snapshots.get(revision);
      if (!snapshot) throw new Error(`${key}: no files for revision ${revision}`);
      due.push({ gen, key, state, revision, snapshot });
    }
    // Several generators at once, as source-watcher's workers (--concurrent) reconcile them.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length) {
        const d = due[next++]!;
        this.rounds.push(await this.reconcile(d.gen, d.revision, d.snapshot));
        this.observed.set(d.key, d.state);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT }, worker));
  }

  private async reconcile(gen: Obj, sourceRevision: string, snapshot: string): Promise<GeneratorRound> {
    const ns = gen.metadata.namespace as string;
    const name = gen.metadata.name as string;
    const alias = gen.spec.sources[0].alias as string;
    const previous = new Map(((gen.status?.inventory ?? []) as Obj[]).map((r) => [r.name as string, r.digest as string]));
    const round: GeneratorRound = { generator: `${ns}/${name}`, sourceRevision, artifacts: 0, changed: [] };
    const built: Array<{ spec: Obj; data: Buffer; digest: string }> = [];
    try {
      for (const spec of gen.spec.artifacts as Obj[]) {
        const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-sw-'));
        try {
          for (const op of spec.copy as Obj[]) copyFolder(op, alias, snapshot, staging);
          const { data } = tarGz(staging);
          built.push({ spec, data, digest: `sha256:${createHash('sha256').update(data).digest('hex')}` });
        } finally {
          fs.rmSync(staging, { recursive: true, force: true });
        }
      }
    } catch (err) {
      round.error = (err as Error).message;
      await this.writeGeneratorStatus(gen, undefined, 'BuildFailed', `failed to build artifacts: ${round.error}`);
      return round;
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const inventory: Obj[] = [];
    for (const { spec, data, digest } of built) {
      const file = `${digest.slice('sha256:'.length, 'sha256:'.length + 16)}.tar.gz`;
      const artifactPath = `externalartifact/${ns}/${spec.name}/${file}`;
      this.server.serve(artifactPath, data);
      const artifact: Obj = { path: artifactPath, url: `${this.server.url}/${artifactPath}`, revision: `latest@${digest}`, digest, lastUpdateTime: now, size: data.length };
      if (spec.originRevision === `@${alias}`) artifact.metadata = { [ORIGIN_REVISION]: sourceRevision };
      const base = `/apis/source.toolkit.fluxcd.io/v1/namespaces/${ns}/externalartifacts/${spec.name}`;
      const meta = { name: spec.name, namespace: ns, labels: { 'app.kubernetes.io/managed-by': MANAGER, 'source.extensions.fluxcd.io/generator': gen.metadata.uid } };
      await this.apply(`${base}?fieldManager=${MANAGER}&force=true`, {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'ExternalArtifact',
        metadata: meta,
        spec: { sourceRef: { apiVersion: 'source.extensions.fluxcd.io/v1beta1', kind: 'ArtifactGenerator', name, namespace: ns } },
      });
      await this.apply(`${base}/status?fieldManager=${MANAGER}`, {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'ExternalArtifact',
        metadata: { name: spec.name, namespace: ns },
        status: { artifact, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: 'Artifact is ready', lastTransitionTime: now, observedGeneration: 1 }] },
      });
      inventory.push({ name: spec.name, namespace: ns, digest, filename: file });
      round.artifacts++;
      if (previous.get(spec.name) !== digest) round.changed.push(spec.name);
    }
    for (const gone of [...previous.keys()].filter((n) => !built.some((b) => b.spec.name === n))) {
      const r = await this.kcp.request('DELETE', `/apis/source.toolkit.fluxcd.io/v1/namespaces/${ns}/externalartifacts/${gone}`);
      if (r.status !== 200 && r.status !== 404) throw new Error(`delete ExternalArtifact ${ns}/${gone}: ${r.status} ${r.body.slice(0, 300)}`);
    }
    await this.writeGeneratorStatus(gen, inventory, 'Succeeded', `reconciliation finished, ${inventory.length} artifact(s)`);
    return round;
  }

  private async apply(url: string, body: Obj): Promise<void> {
    this.writes++;
    const r = await this.kcp.request('PATCH', url, { contentType: 'application/apply-patch+yaml', body });
    if (r.status !== 200 && r.status !== 201) throw new Error(`apply ${url}: ${r.status} ${r.body.slice(0, 500)}`);
  }

  private async writeGeneratorStatus(gen: Obj, inventory: Obj[] | undefined, reason: string, message: string): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const status: Obj = {
      conditions: [{ type: 'Ready', status: inventory ? 'True' : 'False', reason, message, lastTransitionTime: now, observedGeneration: gen.metadata.generation }],
    };
    if (inventory) status.inventory = inventory;
    await this.apply(`${GENERATORS.replace('/artifactgenerators', '')}/namespaces/${gen.metadata.namespace}/artifactgenerators/${gen.metadata.name}/status?fieldManager=${MANAGER}&force=true`, {
      apiVersion: 'source.extensions.fluxcd.io/v1beta1',
      kind: 'ArtifactGenerator',
      metadata: { name: gen.metadata.name, namespace: gen.metadata.namespace },
      status,
    });
  }
}

/** `@<alias>/<folder>` -> `@artifact/<dest>/`: the folder under its own name (cp -r). */
function copyFolder(op: Obj, alias: string, snapshot: string, staging: string): void {
  const from = String(op.from);
  const to = String(op.to);
  if (!from.startsWith(`@${alias}/`) || /[*?[\]]/.test(from)) throw new Error(`copy from '${from}': the stand-in copies one folder of @${alias}`);
  if (!to.startsWith('@artifact/') || !to.endsWith('/') || op.strategy !== undefined || op.exclude !== undefined) throw new Error(`copy to '${to}': the stand-in copies into a folder of @artifact/`);
  const rel = path.posix.normalize(from.slice(alias.length + 2));
  if (rel.startsWith('..') || path.posix.isAbsolute(rel)) throw new Error(`copy from '${from}': outside the source`);
  const src = path.join(snapshot, rel);
  if (!fs.existsSync(src)) throw new Error(`failed to apply copy operation from '${from}' to '${to}': source '${rel}' does not exist`);
  if (!fs.statSync(src).isDirectory()) throw new Error(`copy from '${from}': the stand-in copies folders only`);
  fs.cpSync(src, path.join(staging, to.slice('@artifact/'.length), path.posix.basename(rel)), { recursive: true });
}
