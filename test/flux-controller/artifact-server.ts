// The Flux source side of the delivery tests: what source-controller would do for a GitRepository,
// played by the harness, because source-controller itself cannot be built from the Go module proxy.
// source-controller v1.9.6 imports github.com/fluxcd/pkg/artifact v0.18.3 (config, digest, server,
// storage), and the proxy refuses that module (`403 Forbidden … This module version is not available`,
// also v0.18.2, v0.18.4 and v0.19.0; checked 2026-11-27), so `go build github.com/fluxcd/source-controller`
// cannot resolve. This is what kustomize-controller's own tests do instead (internal/controller/
// suite_test.go with github.com/fluxcd/pkg/testserver's ArtifactServer): serve a tar.gz of a folder
// over HTTP and write the GitRepository's `status.artifact` (url, revision, digest, lastUpdateTime,
// path, size) and a Ready condition through the status subresource, with server-side apply as field
// manager `source-controller`. kustomize-controller then fetches the URL, checks the digest and
// unpacks it exactly as it does from source-controller.
//
// What this leaves out of the real source path: cloning from git, `.sourceignore`/`spec.ignore`,
// include, verification, source-controller's own conditions (Reconciling, ArtifactInStorage), its
// garbage collection of old artifacts, and its events. The tarball holds the folder's regular files
// (no .git; mode 0644, fixed mtime), as source-controller's archive of a checkout does.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';

/** What source-controller publishes for one revision (meta.Artifact). */
export interface Artifact {
  /** The tarball's file name under the server root (also `status.artifact.path`). */
  path: string;
  url: string;
  /** `<branch>@sha1:<40 hex>`, as source-controller writes a git revision. */
  revision: string;
  /** `sha256:<hex>` of the tarball; kustomize-controller verifies it after the download. */
  digest: string;
  /** Bytes of the tarball. */
  size: number;
  /** Files packed. */
  files: number;
}

// ---- a small ustar writer (regular files and folders; PAX records for names ustar cannot hold) ----

const BLOCK = 512;
/** A fixed modification time, so that the same tree packs to the same bytes (2026-01-01T00:00:00Z). */
const MTIME = 1767225600;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, opts: { size: number; type: '0' | '5' | 'x'; prefix?: string }): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(opts.type === '5' ? 0o755 : 0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(opts.size, 12), 124, 'ascii');
  h.write(octal(MTIME, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // checksum placeholder: eight spaces
  h.write(opts.type, 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  if (opts.prefix) h.write(opts.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest, 0)];
}

/** ustar name/prefix split (name <= 100 bytes, prefix <= 155), or undefined when none exists. */
function splitName(name: string): { name: string; prefix?: string } | undefined {
  if (Buffer.byteLength(name) <= 100) return { name };
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest.length > 0) return { name: rest, prefix };
  }
  return undefined;
}

/** A PAX extended header carrying `path` (for names longer than ustar can split). */
function paxPath(name: string): Buffer[] {
  const body = ` path=${name}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  const record = Buffer.from(`${len}${body}`, 'utf8');
  return [header('PaxHeader', { size: record.length, type: 'x' }), ...padded(record)];
}

function entry(name: string, type: '0' | '5', data?: Buffer): Buffer[] {
  const split = splitName(name);
  const size = data?.length ?? 0;
  const head = split ? [header(split.name, { size, type, prefix: split.prefix })] : [...paxPath(name), header(name.slice(0, 100), { size, type })];
  return data ? [...head, ...padded(data)] : head;
}

/** The regular files and folders under `root`, relative, sorted; `.git` is left out. */
function walk(root: string, rel = ''): Array<{ rel: string; dir: boolean }> {
  const out: Array<{ rel: string; dir: boolean }> = [];
  const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name === '.git') continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push({ rel: r, dir: true }, ...walk(root, r));
    else if (e.isFile()) out.push({ rel: r, dir: false });
  }
  return out;
}

/** A gzipped tarball of a folder's tree (paths relative to the folder). */
export function tarGz(root: string): { data: Buffer; files: number } {
  const parts: Buffer[] = [];
  let files = 0;
  for (const e of walk(root)) {
    if (e.dir) parts.push(...entry(`${e.rel}/`, '5'));
    else {
      parts.push(...entry(e.rel, '0', fs.readFileSync(path.join(root, e.rel))));
      files++;
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK, 0));
  return { data: gzipSync(Buffer.concat(parts), { level: 6 }), files };
}

// ---- the server ----

export class ArtifactServer {
  /** Bytes of artifact bodies sent (every download by kustomize-controller counts). */
  bytesServed = 0;
  /** Artifact downloads answered (200). */
  downloads = 0;
  private readonly artifacts = new Map<string, Buffer>();
  private commits = 0;
  private lastRevision = '';

  private constructor(private readonly server: http.Server, readonly url: string) {}

  static async start(): Promise<ArtifactServer> {
    let self: ArtifactServer | undefined;
    const server = http.createServer((req, res) => self!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (!address || typeof address !== 'object') throw new Error('artifact server: no address');
    self = new ArtifactServer(server, `http://127.0.0.1:${address.port}`);
    return self;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0]!.replace(/^\/+/, ''));
    const data = this.artifacts.get(name);
    if (!data || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': String(data.length) });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    this.downloads++;
    this.bytesServed += data.length;
    const count = this.byName.get(name) ?? { downloads: 0, bytes: 0 };
    count.downloads++;
    count.bytes += data.length;
    this.byName.set(name, count);
    res.end(data);
  }

  /** Serves `data` at `<url>/<name>` (the source-watcher stand-in's ExternalArtifacts). */
  serve(name: string, data: Buffer): void {
    this.artifacts.set(name, data);
  }

  /** Downloads and bytes per served name (e.g. `gitrepository/<digest>.tar.gz`, `externalartifact/<ns>/<name>/<digest>.tar.gz`). */
  readonly byName = new Map<string, { downloads: number; bytes: number }>();

  /**
   * Packs `root` as a new commit on `branch` and serves it. The revision changes with every call
   * whose tree differs from the previous one (as a commit would); the same tree gives the same one.
   */
  publish(root: string, branch = 'main'): Artifact {
    const { data, files } = tarGz(root);
    const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    const name = `gitrepository/${digest.slice('sha256:'.length, 'sha256:'.length + 16)}.tar.gz`;
    this.artifacts.set(name, data);
    const previous = this.lastRevision;
    let revision = previous;
    if (!previous.endsWith(`#${digest}`)) {
      this.commits++;
      revision = `${branch}@sha1:${createHash('sha1').update(`${this.commits}\0${digest}`).digest('hex')}#${digest}`;
      this.lastRevision = revision;
    }
    return { path: name, url: `${this.url}/${name}`, revision: revision.split('#')[0]!, digest, size: data.length, files };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
