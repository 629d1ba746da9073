// `kyma-fleet status` as operators and CI run it: the real binary over the shipped sample dump.
// The committed fleet/status/ is the golden output (regenerate with UPDATE_GOLDEN=1); exit codes
// 0/1/2/4/5; nothing rewritten when nothing changed; a failed read keeps the last known state;
// the fleet loader never reads fleet/status/.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FleetFixture, NOW, REPO, runBinary, testProcessEnv } from '../helpers/fleet-fixture';
import { SAMPLE_DUMP, tmpDir } from './status-helpers';

const GOLDEN = path.join(REPO, 'fleet/status');

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function fixture(): FleetFixture {
  const fx = FleetFixture.example();
  cleanups.push(() => fx.cleanup());
  return fx;
}

function scratch(): string {
  const d = tmpDir();
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

function listFiles(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
}

function stamps(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => {
        const st = fs.statSync(path.join(dir, f));
        return [f, `${st.ino}:${st.mtimeMs}`];
      }),
  );
}

/** A copy of the sample dump in the fixture workspace, as `dump/`. */
function dumpIn(fx: FleetFixture): string {
  const d = path.join(fx.dir, 'dump');
  fs.cpSync(SAMPLE_DUMP, d, { recursive: true });
  return d;
}

describe('kyma-fleet status on the example fleet and the sample dump', () => {
  it('writes the committed fleet/status/ (the golden output, status.html included; regenerate with npm run test:update)', () => {
    const out = scratch();
    const r = runBinary(['status', '--from', 'fleet-status-sample', '--write', out, '--now', NOW, '--html'], REPO);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    if (process.env.UPDATE_GOLDEN === '1') {
      fs.mkdirSync(GOLDEN, { recursive: true });
      for (const f of fs.readdirSync(GOLDEN)) if (!fs.existsSync(path.join(out, f))) fs.rmSync(path.join(GOLDEN, f));
      for (const f of fs.readdirSync(out)) fs.copyFileSync(path.join(out, f), path.join(GOLDEN, f));
    }
    expect(listFiles(out)).toEqual(listFiles(GOLDEN));
    expect(r.stdout.split('\n').at(-2)).toBe(`${out}/: 7 runtimes (2 Ready, 1 Progressing, 1 Failed, 1 Drifted, 1 Disabled, 1 Unknown); 9 files written`);
  });

  it('shows every state of the contract in the sample', () => {
    const states = new Set<string>();
    for (const f of fs.readdirSync(GOLDEN).filter((x) => x.endsWith('.yaml'))) {
      const doc = parse(fs.readFileSync(path.join(GOLDEN, f), 'utf8'));
      for (const e of Object.values(doc.extensions) as Array<{ state: string }>) states.add(e.state);
    }
    expect([...states].sort()).toEqual(['Disabled', 'Drifted', 'Failed', 'Progressing', 'Ready', 'Unknown']);
    const summary = fs.readFileSync(path.join(GOLDEN, 'SUMMARY.md'), 'utf8');
    expect(summary).toContain('| registry-cache | 2 | 1 | 1 | 1 | 1 | 1 |');
    expect(summary).toContain('| falco | 3 | 1 | 0 | 0 | 3 | 0 |');
  });

  it('prints one line per extension that is not Ready or Disabled, then a summary line', () => {
    const fx = fixture();
    dumpIn(fx);
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.replace(/\): .*$/, ')'))).toEqual([
      'acme-eu-prod-2: registry-cache: Drifted (ShootConfigDrift)',
      'acme-eu-sandbox: registry-cache: Unknown (NotDumped)',
      'acme-us-dev-2: falco: Progressing (ShootGenerationStale)',
      'acme-us-dev-2: lakom: Progressing (ShootGenerationStale)',
      'acme-us-dev-2: registry-cache: Progressing (ShootGenerationStale)',
      'acme-us-prod-1: registry-cache: Failed (RegistryCacheConfigFailed)',
      'out/: 7 runtimes (2 Ready, 1 Progressing, 1 Failed, 1 Drifted, 1 Disabled, 1 Unknown); 8 files written',
      '',
    ]);
  });

  it('prints the full status with --output json', () => {
    const fx = fixture();
    dumpIn(fx);
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--output', 'json', '--now', NOW]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ ok: true, statusDir: 'out/', runtimes: 7, removed: [], warnings: [] });
    expect(j.counts).toEqual({ Ready: 2, Progressing: 1, Failed: 1, Drifted: 1, Disabled: 1, Unknown: 1 });
    expect(j.written).toHaveLength(8);
    expect(j.status.map((s: { name: string; state: string }) => `${s.name}=${s.state}`)).toEqual([
      'acme-eu-dev-1=Ready',
      'acme-eu-prod-1=Ready',
      'acme-eu-prod-2=Drifted',
      'acme-eu-sandbox=Unknown',
      'acme-us-dev-1=Disabled',
      'acme-us-dev-2=Progressing',
      'acme-us-prod-1=Failed',
    ]);
    expect(j.status[6].extensions['registry-cache']).toEqual({
      state: 'Failed',
      reason: 'RegistryCacheConfigFailed',
      message:
        'RegistryCacheConfig kyma-system/us-docker.pkg.dev: state Failed, condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed): failed to sync secret kyma-system/gar-us-pull to the Garden cluster: secrets "gar-us-pull" not found',
      lastTransitionTime: NOW,
    });
  });

  it('writes into <fleet>/status by default; a second run rewrites nothing, also later', () => {
    const fx = fixture();
    dumpIn(fx);
    fx.remove('status');
    expect(fx.runBinary(['status', '--from', 'dump', '--now', NOW, '--html']).code).toBe(0);
    expect(listFiles(fx.path('status'))).toEqual(listFiles(GOLDEN));
    const before = stamps(fx.path('status'));
    const again = fx.runBinary(['status', '--from', 'dump', '--now', '2026-12-01T08:00:00Z', '--html']);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n').at(-2)).toBe('fleet/status/: 7 runtimes (2 Ready, 1 Progressing, 1 Failed, 1 Drifted, 1 Disabled, 1 Unknown); up to date, nothing written');
    expect(stamps(fx.path('status'))).toEqual(before);
  });

  it('moves a timestamp only where a state changed, and keeps the last known state of a failed read', () => {
    const fx = fixture();
    const dump = dumpIn(fx);
    fx.remove('status');
    expect(fx.runBinary(['status', '--from', 'dump', '--now', NOW]).code).toBe(0);
    const before = stamps(fx.path('status'));
    // The SKR of acme-eu-prod-1 can no longer be dumped; acme-us-dev-2's Shoot caught up.
    fs.rmSync(path.join(dump, 'runtimes/acme-eu-prod-1'), { recursive: true });
    const shoots = path.join(dump, 'garden/shoots-kyma-dev.json');
    const j = JSON.parse(fs.readFileSync(shoots, 'utf8'));
    for (const s of j.items) if (s.metadata.name === 'c-9f8e7d6') s.status.observedGeneration = 15;
    fs.writeFileSync(shoots, JSON.stringify(j, null, 4));
    const later = '2026-11-25T10:00:00Z';
    const r = fx.runBinary(['status', '--from', 'dump', '--now', later]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('acme-eu-prod-1: registry-cache: Unknown (NotDumped; stale, last known Ready since 2026-11-22T00:00:00Z): runtime cluster (SKR) not read: the dump has no runtimes/acme-eu-prod-1/ folder');
    const after = stamps(fx.path('status'));
    const changed = Object.keys(after).filter((f) => after[f] !== before[f]).sort();
    expect(changed).toEqual(['SUMMARY.md', 'acme-eu-prod-1.yaml', 'acme-us-dev-2.yaml']);
    const prod1 = parse(fx.read('status/acme-eu-prod-1.yaml'));
    expect(prod1.state).toBe('Unknown');
    expect(prod1.extensions['registry-cache']).toEqual({
      state: 'Unknown',
      reason: 'NotDumped',
      message: 'runtime cluster (SKR) not read: the dump has no runtimes/acme-eu-prod-1/ folder',
      lastTransitionTime: later,
      stale: true,
      lastKnown: { state: 'Ready', reason: 'Reconciled', message: expect.stringContaining('2 RegistryCacheConfigs Ready'), lastTransitionTime: NOW },
    });
    // Falco reads its module state from the KCP Kyma when the SKR is missing: still Ready, same time.
    expect(prod1.extensions.falco).toMatchObject({ state: 'Ready', lastTransitionTime: NOW });
    const dev2 = parse(fx.read('status/acme-us-dev-2.yaml'));
    expect(dev2.extensions['registry-cache']).toMatchObject({ state: 'Ready', lastTransitionTime: later });
    expect(fx.read('status/SUMMARY.md')).toContain(`Last state change: ${later}.`);
  });

  it('removes the status file of a runtime that left the fleet, and leaves other files alone', () => {
    const fx = fixture();
    dumpIn(fx);
    fx.write('status/notes.md', 'team notes\n').write('status/custom.yaml', 'mine: true\n');
    fx.remove('runtimes/acme-us-dev-1.yaml');
    const r = fx.runBinary(['status', '--from', 'dump', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('dump/runtimes/acme-us-dev-1/: warning: no runtime "acme-us-dev-1" in the fleet; folder not read\n');
    expect(fs.existsSync(fx.path('status/acme-us-dev-1.yaml'))).toBe(false);
    expect(fx.read('status/notes.md')).toBe('team notes\n');
    expect(fx.read('status/custom.yaml')).toBe('mine: true\n');
    expect(r.stdout.split('\n').at(-2)).toMatch(/; 1 file written, 1 file removed$/);
  });

  it('keeps hostile cluster text inert: sanitised in the YAML, escaped in SUMMARY.md', () => {
    const fx = fixture();
    const dump = dumpIn(fx);
    const file = path.join(dump, 'runtimes/acme-us-prod-1/registrycacheconfigs.yaml');
    const doc = parse(fs.readFileSync(file, 'utf8'));
    const hostile = '\u001b[31mFAILED\u001b[0m\nsee ${SECRET} <script>alert(1)</script> | [x](https://evil.example) ' + 'A'.repeat(1024 * 1024);
    doc.items[1].status.conditions[0].message = hostile;
    fs.writeFileSync(file, JSON.stringify(doc)); // JSON is YAML
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--now', NOW]);
    expect(r.code).toBe(0);
    const text = fs.readFileSync(path.join(fx.dir, 'out/acme-us-prod-1.yaml'), 'utf8');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    const message: string = parse(text).extensions['registry-cache'].message;
    expect(message).toMatch(/^RegistryCacheConfig kyma-system\/us-docker\.pkg\.dev: state Failed, condition RegistryCacheConfigured False \(RegistryCacheGardenClusterConfigurationFailed\): FAILED see \$\{SECRET\} <script>alert\(1\)<\/script> \| \[x\]\(https:\/\/evil\.example\) AAAA/);
    expect(Array.from(message)).toHaveLength(512);
    expect(fs.statSync(path.join(fx.dir, 'out/acme-us-prod-1.yaml')).size).toBeLessThan(4096);
    const summary = fs.readFileSync(path.join(fx.dir, 'out/SUMMARY.md'), 'utf8');
    expect(summary).toContain('FAILED see \\${SECRET} &lt;script&gt;alert(1)&lt;/script&gt; \\| \\[x\\](https://evil.example)');
    expect(summary).not.toContain('<script>');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('reports hostile dump shapes as warnings with file and JSON pointer, and still writes the report', () => {
    const fx = fixture();
    const dump = dumpIn(fx);
    fs.writeFileSync(path.join(dump, 'garden/broken-list.yaml'), 'apiVersion: v1\nkind: List\nitems: {}\n');
    fs.writeFileSync(path.join(dump, 'kcp/strays.yaml'), 'apiVersion: v1\nkind: List\nitems:\n- kind: Runtime\n  metadata: {name: x}\n');
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.errLines).toEqual([
      'dump/garden/broken-list.yaml#/items: warning: items of the List is not a list (a map); nothing read',
      'dump/kcp/strays.yaml#/items/0/apiVersion: warning: item has no apiVersion; not read',
    ]);
  });

  it('ignores a broken previous status file with a warning and replaces it', () => {
    const fx = fixture();
    dumpIn(fx);
    fx.write('status/acme-eu-prod-1.yaml', '# written by kyma-fleet status; do not edit\napiVersion: [\n');
    const r = fx.runBinary(['status', '--from', 'dump', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.errLines).toEqual([expect.stringMatching(/^fleet\/status\/acme-eu-prod-1\.yaml: warning: previous status ignored: not valid YAML/)]);
    expect(fx.read('status/acme-eu-prod-1.yaml')).toBe(fs.readFileSync(path.join(GOLDEN, 'acme-eu-prod-1.yaml'), 'utf8'));
  });
});

describe('exit codes', () => {
  it.each([
    // Without --from, status reads live clusters through the kubeconfig kubectl would use (none here: no HOME, no KUBECONFIG).
    [['status'], 'error: status reads kubectl dumps (--from DIR) or live clusters through a kubeconfig: no kubeconfig: no --kubeconfig, no $KUBECONFIG; give --kubeconfig FILE or set KUBECONFIG'],
    [['status', '--from', 'dump', '--kubeconfig', 'k'], 'error: --kubeconfig applies only to live clusters, not to --from DIR (kubectl dumps)'],
    [['status', '--from', 'dump', '--kcp-context', 'kcp', '--allow-exec'], 'error: --kcp-context, --allow-exec apply only to live clusters, not to --from DIR (kubectl dumps)'],
    [['status', '--kubeconfig', 'k', '--kcp-context', 'a', '--garden-context', 'b', '--concurrency', '0'], 'error: --concurrency must be a whole number from 1 to 256 (got "0")'],
    [['status', '--kubeconfig', 'k', '--kcp-context', 'a', '--garden-context', 'b', '--timeout', 'soon'], 'error: --timeout must be a number of seconds above 0 and at most 3600 (got "soon")'],
    [['status', '--from', 'dump', '--now', 'yesterday'], 'error: --now must be an RFC 3339 time such as 2026-11-22T00:00:00Z (got "yesterday")'],
    [['status', '--from', 'dump', '--output', 'yaml'], "error: option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are text, json."],
  ])('2 for usage mistakes: %j', (args, message) => {
    const fx = fixture();
    const r = fx.runBinary(args);
    expect(r.code).toBe(2);
    expect(r.errLines[0]).toBe(message);
    expect(r.stdout).toBe('');
  });

  it('2 when this build has no live source', () => {
    const fx = fixture();
    fs.writeFileSync(path.join(fx.dir, 'k'), 'apiVersion: v1\nkind: Config\n'); // readable: the run gets as far as loading the live source
    const build = scratch();
    fs.cpSync(path.join(REPO, 'lib'), path.join(build, 'lib'), { recursive: true });
    fs.cpSync(path.join(REPO, 'bin'), path.join(build, 'bin'), { recursive: true });
    fs.copyFileSync(path.join(REPO, 'package.json'), path.join(build, 'package.json'));
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(build, 'node_modules'));
    fs.rmSync(path.join(build, 'lib/src/observe/live-source.js'), { force: true });
    const r = runBinary(['status', '--kubeconfig', 'k', '--kcp-context', 'a', '--garden-context', 'b', '--now', NOW], fx.dir);
    const local = require('node:child_process').spawnSync(process.execPath, [path.join(build, 'bin/kyma-fleet.js'), 'status', '--kubeconfig', 'k', '--kcp-context', 'a', '--garden-context', 'b', '--now', NOW], {
      cwd: fx.dir,
      encoding: 'utf8',
      env: testProcessEnv(),
    });
    expect(local.status).toBe(2);
    expect(local.stderr).toMatch(/^error: live cluster reading is not available in this build \(Cannot find module '\.\.\/\.\.\/observe\/live-source'\); use --from DIR with kubectl dumps\n$/);
    expect(fs.existsSync(fx.path('status/SUMMARY.md'))).toBe(true); // the copied golden, untouched
    expect(r.code).not.toBe(70); // with the live source present: whatever it decides, not a crash
  });

  it('5 when the dump folder cannot be read; nothing is written', () => {
    const fx = fixture();
    fx.remove('status');
    const r = fx.runBinary(['status', '--from', 'no-such-dump', '--now', NOW]);
    expect(r.code).toBe(5);
    expect(r.errLines).toEqual(['status: error: UnreadableDump: dump folder no-such-dump cannot be read (ENOENT) (nothing written)']);
    expect(fs.existsSync(fx.path('status'))).toBe(false);
  });

  it('5 when the dump holds none of kcp/, garden/, runtimes/ (a wrong --from)', () => {
    const fx = fixture();
    fs.mkdirSync(path.join(fx.dir, 'empty'));
    const r = fx.runBinary(['status', '--from', 'empty', '--now', NOW]);
    expect(r.code).toBe(5);
    expect(r.errLines[0]).toMatch(/holds none of kcp\/, garden\/ and runtimes\//);
  });

  it('1 for an invalid fleet; nothing is written', () => {
    const fx = fixture();
    dumpIn(fx);
    fx.remove('status');
    fx.replace('runtimes/acme-eu-prod-1.yaml', 'runtimeID: 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01', 'runtimeID: not-a-uuid');
    const r = fx.runBinary(['status', '--from', 'dump', '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.errLines.at(-1)).toBe('fleet: the fleet is invalid; status needs a valid fleet (nothing written)');
    expect(r.errLines[0]).toMatch(/^fleet\/runtimes\/acme-eu-prod-1\.yaml:\d+:\d+: error at runtimeID/);
    expect(fs.existsSync(fx.path('status'))).toBe(false);
  });

  it('4 when --write points at files kyma-fleet did not write (e.g. the runtime declarations)', () => {
    const fx = fixture();
    dumpIn(fx);
    const before = fx.read('runtimes/acme-eu-dev-1.yaml');
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'fleet/runtimes', '--now', NOW]);
    expect(r.code).toBe(4);
    expect(r.errLines).toEqual([
      'fleet/runtimes/: error: fleet/runtimes/acme-eu-dev-1.yaml was not written by kyma-fleet status (no header line); refusing to replace it: move it away or check --write [E_STATUS_NOT_OWNED]',
    ]);
    expect(fx.read('runtimes/acme-eu-dev-1.yaml')).toBe(before);
  });

  it('0 with Unknown runtimes: a dump with only garden/', () => {
    const fx = fixture();
    const dump = dumpIn(fx);
    fs.rmSync(path.join(dump, 'kcp'), { recursive: true });
    fs.rmSync(path.join(dump, 'runtimes'), { recursive: true });
    const r = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--now', NOW]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').at(-2)).toBe('out/: 7 runtimes (1 Drifted, 1 Disabled, 5 Unknown); 8 files written');
  });
});

describe('the fleet loader never reads fleet/status/', () => {
  it('garbage in fleet/status/ does not change what validate reports', () => {
    const clean = fixture();
    clean.remove('status');
    const dirty = fixture();
    dirty
      .write('status/broken.yaml', 'apiVersion: [\n\u0000\u0007')
      .write('status/acme-evil.yaml', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\nmetadata:\n  name: acme-evil\nspec:\n  runtimeID: nope\n')
      .write('status/fleet.yaml', 'kind: Fleet\n')
      .write('status/SUMMARY.md', '<!-- --> garbage');
    const a = clean.runBinary(['validate', '--output', 'json', '--now', NOW]);
    const b = dirty.runBinary(['validate', '--output', 'json', '--now', NOW]);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(JSON.parse(b.stdout)).toMatchObject({ ok: true, errors: 0, warnings: 0, runtimes: 7 });
  });

  it('the committed fleet/status/ does not change synth output (dist/ stays up to date)', () => {
    const r = runBinary(['synth', '--check', '--now', NOW], REPO);
    expect(r.code).toBe(0);
  });
});
