// A throw-away repository for the delivery tests: a generated fleet (bench/generate-fleet.ts) in
// <dir>/src/fleet, rendered by the real CLI (`node bin/kyma-fleet.js synth --fleet fleet --out dist`)
// into <dir>/src/dist; every synth then copies src/ to <dir>/repo/, the repository FleetDelivery packs
// as the source. A test that plays a bad commit edits the copy in repo/ only, so the CLI never sees
// an edited dist/ of its own. Each workspace may get its own KCP namespace
// (the fleet's kcpNamespace), so that several fleets are delivered by one controller without their
// Kustomizations, Secrets or Runtime CRs meeting.
//
// KYMA_FLEET_FLUX_CONTROLLER_CLI names another kyma-fleet binary (default: this repo's bin/kyma-fleet.js,
// which runs lib/: `npm run build` first), e.g. one built from another commit.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { generateFleet, NOW } from '../../bench/generate-fleet';
import { PROJECT_ROOT } from '../cluster/paths';

/** The CLI as users run it (it loads lib/), found from the project root so the compiled bench finds it too. */
const BIN = path.join(PROJECT_ROOT, 'bin', 'kyma-fleet.js');

export class FleetWorkspace {
  private constructor(readonly dir: string) {}

  /** A generated fleet of `runtimes` runtimes (seeded), its KCP namespace set to `kcpNamespace`. */
  static generate(opts: { runtimes: number; seed: number; kcpNamespace?: string; prefix?: string }): FleetWorkspace {
    const ws = new FleetWorkspace(fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? 'kyma-fleet-flux-ws-')));
    generateFleet(ws.fleetDir, opts.runtimes, opts.seed);
    if (opts.kcpNamespace) ws.replace('fleet.yaml', 'kcpNamespace: kcp-system', `kcpNamespace: ${opts.kcpNamespace}`);
    return ws;
  }

  /** The fleet the CLI reads. */
  get fleetDir(): string {
    return path.join(this.dir, 'src', 'fleet');
  }

  /** The repository as published: a copy of src/ (fleet/ and dist/) made by the last synth. */
  get repoDir(): string {
    return path.join(this.dir, 'repo');
  }

  /** dist/ inside the published repository. */
  get distDir(): string {
    return path.join(this.repoDir, 'dist');
  }

  /** The runtime names of the fleet (its runtimes/ files). */
  runtimes(): string[] {
    return fs.readdirSync(path.join(this.fleetDir, 'runtimes')).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
  }

  replace(rel: string, from: string, to: string): void {
    const file = path.join(this.fleetDir, rel);
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes(from)) throw new Error(`${rel}: ${JSON.stringify(from)} not found`);
    fs.writeFileSync(file, text.replace(from, to));
  }

  removeRuntime(name: string): void {
    fs.rmSync(path.join(this.fleetDir, 'runtimes', `${name}.yaml`));
  }

  /** Runs the real CLI's synth in src/, then copies src/ to repo/; throws with its output when it fails. */
  synth(): { seconds: number } {
    const bin = process.env.KYMA_FLEET_FLUX_CONTROLLER_CLI ? path.resolve(process.env.KYMA_FLEET_FLUX_CONTROLLER_CLI) : BIN;
    const started = Date.now();
    const r = spawnSync(process.execPath, [bin, 'synth', '--fleet', 'fleet', '--out', 'dist', '--now', NOW], { cwd: path.join(this.dir, 'src'), encoding: 'utf8', timeout: 30 * 60_000, maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`kyma-fleet synth failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    const seconds = (Date.now() - started) / 1000;
    fs.rmSync(this.repoDir, { recursive: true, force: true });
    fs.cpSync(path.join(this.dir, 'src'), this.repoDir, { recursive: true });
    return { seconds };
  }

  /** Rewrites one YAML document file of repo/ (a test's bad commit; see each use). */
  editYaml(file: string, edit: (doc: Record<string, any>) => void): void {
    const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
    edit(doc);
    fs.writeFileSync(file, stringify(doc));
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
