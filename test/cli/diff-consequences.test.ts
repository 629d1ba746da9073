// What a change does on the clusters, through the built binary on the example fleet (issue 29):
// for every consequence class of the core (modules, Shoot reconcile, config only, runtimes joining
// and leaving) and of each extension (registry-cache, Falco, Lakom), one change to a copy of the
// fleet, rendered against the example's committed render, and the classes `diff -o json` gives per
// runtime, exactly. Reorderings and no-ops give none; a change validation refuses (a cache's
// volume size in place) stays refused; --fail-on exits 1 on a match, 0 without, 2 on an unknown
// class; the Markdown comment opens with the counts, the most costly first.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consequenceClasses } from '../../src/render/consequences';
import { EXAMPLE_FLEET, NOW, REPO, runBinary, type RunResult } from '../helpers/fleet-fixture';

const PROD = ['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1'];
const ALL = ['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-dev-1', 'acme-us-dev-2', 'acme-us-prod-1'];

let template: string;
const workspaces: string[] = [];

beforeAll(() => {
  // The base every case is compared with: the example fleet and its render.
  template = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-consequences-'));
  fs.cpSync(EXAMPLE_FLEET, path.join(template, 'fleet'), { recursive: true });
  const synth = runBinary(['synth', '--now', NOW], template);
  expect(synth.code, synth.stderr).toBe(0);
}, 120_000);

afterAll(() => {
  for (const dir of [template, ...workspaces]) fs.rmSync(dir, { recursive: true, force: true });
});

type Edit = (ws: Workspace) => void;

class Workspace {
  constructor(readonly dir: string) {}
  static copy(): Workspace {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-consequences-'));
    workspaces.push(dir);
    fs.cpSync(template, dir, { recursive: true });
    return new Workspace(dir);
  }
  file(rel: string): string {
    return path.join(this.dir, rel);
  }
  replace(rel: string, from: string, to: string): this {
    const text = fs.readFileSync(this.file(rel), 'utf8');
    if (!text.includes(from)) throw new Error(`${JSON.stringify(from)} not in ${rel}`);
    fs.writeFileSync(this.file(rel), text.replace(from, to));
    return this;
  }
  append(rel: string, text: string): this {
    fs.appendFileSync(this.file(rel), text);
    return this;
  }
  run(args: string[]): RunResult {
    return runBinary(['diff', '--now', NOW, ...args], this.dir);
  }
}

/** runtime -> its class ids, from `diff -o json`. */
function classesByRuntime(r: RunResult): Record<string, string[]> {
  expect(r.stderr).toBe('');
  const doc = JSON.parse(r.stdout) as { consequences: Array<{ id: string; runtimes: string[] }> };
  const out: Record<string, string[]> = {};
  for (const c of doc.consequences) for (const rt of c.runtimes) (out[rt] ??= []).push(c.id);
  return out;
}

const each = (runtimes: readonly string[], ids: string[]): Record<string, string[]> => Object.fromEntries(runtimes.map((r) => [r, ids]));

/** [what changes, the edit, runtime -> classes in the review's order]. */
const CASES: Array<[string, Edit, Record<string, string[]>]> = [
  // registry-cache
  [
    'production drops its docker.io cache: cache removed (images lost), a Shoot reconcile',
    (w) => w.replace('fleet/groups/production.yaml', '          - upstream: docker.io\n            volume:\n              size: 50Gi\n', '          - upstream: docker.io\n            enabled: false\n'),
    each(PROD, ['cache-removed', 'shoot-reconcile']),
  ],
  [
    'a runtime gets a cache for quay.io: cache added',
    (w) => w.append('fleet/runtimes/acme-eu-dev-1.yaml', '  extensions:\n    registry-cache:\n      caches:\n        - upstream: quay.io\n'),
    { 'acme-eu-dev-1': ['cache-added', 'shoot-reconcile'] },
  ],
  [
    'a runtime turns registry-cache off: its caches and the module go',
    (w) => w.append('fleet/runtimes/acme-eu-sandbox.yaml', '  extensions:\n    registry-cache:\n      enabled: false\n'),
    { 'acme-eu-sandbox': ['module-removed', 'cache-removed', 'shoot-reconcile'] },
  ],
  [
    "a cache's garbage collection TTL: nothing lost, a Shoot reconcile only",
    (w) => w.replace('fleet/fleet.yaml', 'ttl: 168h', 'ttl: 336h'),
    // acme-us-dev-1 has no caches.
    each(['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-dev-2', 'acme-us-prod-1'], ['shoot-reconcile']),
  ],
  [
    "KIM syncs the caches itself from now on: the Runtime CR fragments go (prune-protected, nothing deleted), config only",
    (w) => w.replace('fleet/fleet.yaml', 'registryCacheSync: false', 'registryCacheSync: true'),
    each(ALL, ['config-only']),
  ],
  // Falco
  [
    'Falco enabled on a development runtime: a node agent on every node, its module installed',
    (w) => w.append('fleet/runtimes/acme-eu-dev-1.yaml', '  extensions:\n    falco:\n      enabled: true\n      falcoVersion: 0.42.1\n'),
    { 'acme-eu-dev-1': ['node-agent-added', 'module-installed', 'shoot-reconcile'] },
  ],
  [
    'Falco disabled on the development runtime that runs it: the node agent and its module go',
    (w) => w.replace('fleet/runtimes/acme-us-dev-2.yaml', '    falco:\n      enabled: true\n', '    falco:\n      enabled: false\n'),
    { 'acme-us-dev-2': ['module-removed', 'node-agent-removed', 'shoot-reconcile'] },
  ],
  [
    "Falco's destinations change where it runs: the node agent changes on every node",
    (w) => w.replace('fleet/groups/production.yaml', '          - name: logging\n          - name: stdout\n', '          - name: logging\n'),
    each(PROD, ['node-agent-updated', 'shoot-reconcile']),
  ],
  [
    "a custom Falco rules file's content: the node agent changes, the Shoot does not",
    (w) => w.append('fleet/rules/acme-shell-in-container.yaml', '\n- list: acme_extra_shells\n  items: [zsh]\n'),
    each(PROD, ['node-agent-updated']),
  ],
  // Lakom
  [
    'Lakom scope KubeSystem -> Cluster in production: enforcement widened',
    (w) => {
      w.replace('fleet/groups/production.yaml', 'scope: KubeSystem', 'scope: Cluster');
      w.replace('fleet/fleet.yaml', '  kcpNamespace: kcp-system\n', '  kcpNamespace: kcp-system\n  lakom:\n    allowClusterScope: true\n');
    },
    each(PROD, ['enforcement-widened', 'shoot-reconcile']),
  ],
  [
    'Lakom turned on again on the runtime that had it off: enforcement widened',
    (w) => w.replace('fleet/runtimes/acme-us-dev-1.yaml', '    lakom:\n      enabled: false\n', ''),
    { 'acme-us-dev-1': ['enforcement-widened', 'shoot-reconcile'] },
  ],
  [
    "production's scope left to the landscape: enforcement narrowed",
    (w) => w.replace('fleet/groups/production.yaml', '        scope: KubeSystem\n', ''),
    each(PROD, ['enforcement-narrowed', 'shoot-reconcile']),
  ],
  [
    'Lakom turned off for the whole fleet: enforcement narrowed where it was on',
    (w) => w.replace('fleet/fleet.yaml', '      lakom:\n        enabled: true\n', '      lakom:\n        enabled: false\n'),
    // acme-us-dev-1 had it off already.
    each(['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-dev-2', 'acme-us-prod-1'], ['enforcement-narrowed', 'shoot-reconcile']),
  ],
  [
    "production's trusted keys Secret replaced: trusted keys changed",
    (w) => w.replace('fleet/groups/production.yaml', 'trustedKeysSecretName: acme-cosign-keys', 'trustedKeysSecretName: acme-cosign-keys-2026'),
    each(PROD, ['trusted-keys-changed', 'shoot-reconcile']),
  ],
  // Kyma modules
  [
    'a module added to a runtime: module installed',
    (w) => w.append('fleet/runtimes/acme-eu-dev-1.yaml', '    - name: telemetry\n'),
    { 'acme-eu-dev-1': ['module-installed'] },
  ],
  [
    'a module removed from production: module removed (deletes its resources)',
    (w) => w.replace('fleet/groups/production.yaml', '    modules:\n      - name: telemetry\n', ''),
    each(PROD, ['module-removed']),
  ],
  [
    "a runtime's Kyma channel: its modules move to the other channel's versions",
    (w) => w.replace('fleet/runtimes/acme-eu-dev-1.yaml', '  channel: fast\n', '  channel: regular\n'),
    { 'acme-eu-dev-1': ['module-updated'] },
  ],
  [
    "one module's channel",
    (w) => w.replace('fleet/runtimes/acme-eu-dev-1.yaml', '    - name: serverless\n      channel: fast\n', '    - name: serverless\n      channel: regular\n'),
    { 'acme-eu-dev-1': ['module-updated'] },
  ],
  // Runtimes joining and leaving
  [
    'a runtime joins the fleet',
    (w) =>
      fs.writeFileSync(
        w.file('fleet/runtimes/acme-eu-dev-9.yaml'),
        fs.readFileSync(w.file('fleet/runtimes/acme-eu-dev-1.yaml'), 'utf8').replace('name: acme-eu-dev-1', 'name: acme-eu-dev-9').replace('1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63', '9d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c69').replace('name: c-1d2c3b4', 'name: c-9d2c3b4'),
      ),
    { 'acme-eu-dev-9': ['runtime-added'] },
  ],
  ['a runtime leaves the fleet', (w) => fs.rmSync(w.file('fleet/runtimes/acme-eu-sandbox.yaml')), { 'acme-eu-sandbox': ['runtime-removed'] }],
  // No class
  [
    'the fleet files reordered (modules, groups, keys): the render is the same, no class',
    (w) => {
      w.replace('fleet/fleet.yaml', '      - name: api-gateway\n      - name: istio\n      - name: btp-operator\n', '      - name: btp-operator\n      - name: istio\n      - name: api-gateway\n');
      w.replace('fleet/groups/production.yaml', '          - name: logging\n          - name: stdout\n', '          - name: stdout\n          - name: logging\n');
    },
    {},
  ],
  [
    "the base render's lists and keys reordered by hand: the files differ, nothing is done on a cluster",
    (w) => {
      // The Kyma CR's modules and the Shoot's extensions of one runtime, as another tool might write them.
      w.replace('dist/runtimes/acme-eu-dev-1/skr/kyma-default.yaml', '    - managed: true\n      name: api-gateway\n    - managed: true\n      name: btp-operator\n', '    - managed: true\n      name: btp-operator\n    - name: api-gateway\n      managed: true\n');
      const shoot = 'dist/runtimes/acme-eu-dev-1/garden/shoot-c-1d2c3b4.yaml';
      w.replace(shoot, '    - disabled: true\n      type: shoot-falco-service\n', '    - type: shoot-falco-service\n      disabled: true\n');
      w.replace(shoot, '# Generated by kyma-fleet', '# Generated by hand, then by kyma-fleet');
    },
    {},
  ],
];

describe('kyma-fleet diff: what each change does on the clusters (example fleet, built binary)', () => {
  it.each(CASES)('%s', (_what, edit, expected) => {
    const w = Workspace.copy();
    edit(w);
    const r = w.run(['-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(classesByRuntime(r)).toEqual(expected);
  });

  it("a cache moved to another namespace is refused (E_CACHE_NAMESPACE_MOVED): the webhook's upstream uniqueness makes the apply fail for good", () => {
    const w = Workspace.copy().append('fleet/runtimes/acme-eu-dev-1.yaml', '  extensions:\n    registry-cache:\n      namespace: cache-system\n');
    const r = w.run([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^fleet\/runtimes\/acme-eu-dev-1\.yaml:\d+:\d+: error at extensions\.registry-cache\.namespace: cannot move the RegistryCacheConfig of "docker\.io", "europe-docker\.pkg\.dev" from namespace "kyma-system" to "cache-system" in one synth: .* \[E_CACHE_NAMESPACE_MOVED\]$/m,
    );
    // Caches turned on in another namespace where there were none move nothing.
    const fresh = Workspace.copy().replace('fleet/runtimes/acme-us-dev-1.yaml', '    registry-cache:\n      enabled: false\n', '    registry-cache:\n      enabled: true\n      namespace: cache-system\n');
    const added = fresh.run(['-o', 'json']);
    expect(added.code, added.stdout).toBe(0);
    expect(classesByRuntime(added)).toEqual({ 'acme-us-dev-1': ['module-installed', 'cache-added', 'shoot-reconcile'] });
  });

  it("a cache's volume size changed in place is still refused (E_IMMUTABLE_FIELD), not classed", () => {
    const w = Workspace.copy().replace('fleet/groups/production.yaml', 'size: 50Gi', 'size: 80Gi');
    const r = w.run(['-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('E_IMMUTABLE_FIELD');
    expect(r.stdout).not.toContain('"consequences"');
  });
});

describe('kyma-fleet diff --fail-on', () => {
  const removeCache: Edit = (w) => w.replace('fleet/groups/production.yaml', '          - upstream: docker.io\n            volume:\n              size: 50Gi\n', '          - upstream: docker.io\n            enabled: false\n');

  it('exits 1 when a runtime has a class it names (an id, or a severity), 0 when none has', () => {
    const w = Workspace.copy();
    removeCache(w);
    expect(w.run(['--fail-on', 'cache-removed']).code).toBe(1);
    expect(w.run(['--fail-on', 'destructive', '--output', 'markdown']).code).toBe(1);
    expect(w.run(['--fail-on', 'node-agent-added,module-removed']).code).toBe(0);
    expect(w.run(['--fail-on', 'disruptive']).code).toBe(0);
    const json = w.run(['--fail-on', 'node-agent-added, cache-removed', '-o', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, failOn: { classes: ['cache-removed', 'node-agent-added'], matched: ['cache-removed'] } });
    // Without --fail-on the same change exits 0.
    expect(w.run([]).code).toBe(0);
  });

  it('exits 0 on a dist/ that is up to date', () => {
    const w = Workspace.copy();
    expect(w.run(['--fail-on', 'destructive'])).toMatchObject({ code: 0, stdout: 'dist/ is up to date\n' });
  });

  it('an unknown class, or none, is a usage error (exit 2) that lists the valid ids', () => {
    const w = Workspace.copy();
    const r = w.run(['--fail-on', 'cache-removed,cache-deleted']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: --fail-on: unknown consequence class "cache-deleted"; valid: module-removed, cache-removed, .*config-only, or a severity for all of its classes: destructive, disruptive, routine\n$/);
    for (const id of ['shoot-reconcile', 'module-installed', 'node-agent-added', 'enforcement-widened', 'runtime-removed']) expect(r.stderr).toContain(id);
    expect(w.run(['--fail-on', ',']).code).toBe(2);
  });
});

describe('the consequences in the text and Markdown output', () => {
  it('the comment opens with the counts, the most costly first, runtimes named, and says what --fail-on stopped', () => {
    const w = Workspace.copy();
    w.replace('fleet/groups/production.yaml', '          - upstream: docker.io\n            volume:\n              size: 50Gi\n', '          - upstream: docker.io\n            enabled: false\n');
    w.append('fleet/runtimes/acme-eu-dev-1.yaml', '  extensions:\n    falco:\n      enabled: true\n      falcoVersion: 0.42.1\n');
    const r = w.run(['--output', 'markdown', '--fail-on', 'destructive']);
    expect(r.code).toBe(1);
    const md = r.stdout;
    expect(md).toMatch(/^### kyma-fleet: changes to `dist\/`\n\n[^\n]+\n\n#### What the change does on the clusters\n\n\| consequence \| severity \| runtimes \|\n/);
    const rows = md.match(/^\| .* \| (destructive|disruptive|routine) \| \d+ \|$/gm)!;
    expect(rows).toEqual([
      '| **cache removed (images lost)** `cache-removed` | destructive | 3 |',
      '| **node agent added (DaemonSet)** `node-agent-added` | disruptive | 1 |',
      '| module installed `module-installed` | routine | 1 |',
      '| Shoot reconcile `shoot-reconcile` | routine | 4 |',
    ]);
    expect(md).toContain('- **cache removed (images lost)** in 3 runtimes: `acme-eu-prod-1`, `acme-eu-prod-2`, `acme-us-prod-1`. The registry cache and its volume are deleted');
    expect(md).toContain('**This change needs an explicit approval** (`--fail-on`): cache removed (images lost) (`cache-removed`).');
    // Before the runtime lists and the patches.
    expect(md.indexOf('#### What the change does')).toBeLessThan(md.indexOf('**Changed runtimes:**'));
  });

  it('the text output (and --output-file) lists every class with every runtime before the summary line', () => {
    const w = Workspace.copy();
    w.replace('fleet/groups/production.yaml', '    modules:\n      - name: telemetry\n', '');
    const r = w.run(['--output-file', 'full.diff']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nconsequences:\n {2}module-removed \(destructive: module removed \(deletes its resources\)\): 3 runtimes: acme-eu-prod-1, acme-eu-prod-2, acme-us-prod-1\n\d+ added, \d+ changed, \d+ removed files; runtimes: 0 new, 3 changed, 0 removed\n$/);
    expect(fs.readFileSync(w.file('full.diff'), 'utf8')).toBe(r.stdout);
  });

  it('with rollout rings, the counts per ring (a fleet-wide change before rollout start reaches every ring)', () => {
    const w = Workspace.copy();
    const rings = '  rollout:\n    rings:\n      - name: canary\n        selector: {matchLabels: {tier: sandbox}}\n        bake: 24h\n      - name: early\n        selector: {matchLabels: {tier: development}}\n        bake: 48h\n';
    w.replace('fleet/fleet.yaml', '  kcpNamespace: kcp-system\n', `  kcpNamespace: kcp-system\n${rings}`);
    w.replace('fleet/fleet.yaml', '      lakom:\n        enabled: true\n', '      lakom:\n        enabled: false\n');
    const r = w.run(['--output', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '| consequence | severity | runtimes | canary | early | rest |\n|---|---|---:|---:|---:|---:|\n' +
        '| enforcement narrowed `enforcement-narrowed` | routine | 6 | 1 | 2 | 3 |\n' +
        '| Shoot reconcile `shoot-reconcile` | routine | 6 | 1 | 2 | 3 |\n',
    );
  });

  it('no class, no section: a change of the GitOps wiring only', () => {
    const w = Workspace.copy().replace('fleet/fleet.yaml', '      interval: 10m\n', '      interval: 15m\n');
    const md = w.run(['--output', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('### kyma-fleet: changes to `dist/`');
    expect(md.stdout).not.toContain('What the change does');
    expect(JSON.parse(w.run(['-o', 'json']).stdout).consequences).toEqual([]);
  });
});

it('the cases cover every class of the core and of every extension, and every runtime of the example fleet', () => {
  const classes = new Set(CASES.flatMap(([, , e]) => Object.values(e).flat()));
  expect([...classes].sort()).toEqual(consequenceClasses().map((c) => c.id).sort());
  const runtimes = new Set(CASES.flatMap(([, , e]) => Object.keys(e)));
  expect(ALL.filter((r) => !runtimes.has(r))).toEqual([]);
});

it('docs/ci.md lists every class, in the order of the review, with its label and severity', () => {
  const doc = fs.readFileSync(path.join(REPO, 'docs/ci.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` (.+?) \| (destructive|disruptive|routine) \|/gm)].map((m) => [m[1], m[2], m[3]]);
  expect(rows).toEqual(consequenceClasses().map((c) => [c.id, c.label, c.severity]));
});
