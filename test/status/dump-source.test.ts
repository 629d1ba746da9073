// The dump source (src/observe/dump-source.ts) over the shipped sample dump and over hostile dumps:
// not a List, items missing or not a list, items without identity, duplicates, wrong runtime IDs,
// broken files, aliases, deep nesting, folders of unknown runtimes, unreadable folders (H66, H67).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { observeDumps, parseDumpFile } from '../../src/observe/dump-source';
import type { Observation } from '../../src/observe/observed';
import { rccs, refs, SAMPLE_DUMP, tmpDir } from './status-helpers';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) {
    try {
      fs.chmodSync(d, 0o755);
    } catch {
      // already gone
    }
    fs.rmSync(d, { recursive: true, force: true });
  }
  dirs = [];
});

/** A copy of the sample dump to change. */
function sampleCopy(): string {
  const d = tmpDir('kyma-fleet-dump-');
  dirs.push(d);
  fs.cpSync(SAMPLE_DUMP, d, { recursive: true });
  return d;
}

function emptyDump(...folders: string[]): string {
  const d = tmpDir('kyma-fleet-dump-');
  dirs.push(d);
  for (const f of folders) fs.mkdirSync(path.join(d, f), { recursive: true });
  return d;
}

function write(dir: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), content);
}

function observe(dir: string): Observation {
  return observeDumps(dir, refs(), { display: 'dump' });
}

function warningsText(o: Observation): string[] {
  return o.warnings.map((w) => `${w.where}${w.pointer === '' ? '' : `#${w.pointer}`}: ${w.message}`);
}

const SHOOT = (name: string, ns: string, extra = ''): string =>
  `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: ${name}
  namespace: ${ns}
${extra}`;

describe('the sample dump', () => {
  it('is read without warnings; objects of runtimes outside the fleet are skipped silently', () => {
    const o = observeDumps(SAMPLE_DUMP, refs());
    expect(o.global).toBeUndefined();
    expect(o.warnings).toEqual([]);
    expect([...o.runtimes.keys()]).toEqual(refs().map((r) => r.name));
  });

  it('finds every object of a runtime: Runtime and Kyma (KCP, YAML and JSON Lists), Shoot, SKR Kyma and RegistryCacheConfigs', () => {
    const prod2 = observeDumps(SAMPLE_DUMP, refs()).runtimes.get('acme-eu-prod-2')!;
    expect([...prod2.read].sort()).toEqual(['garden', 'kcp', 'skr']);
    expect(prod2.failures).toEqual([]);
    expect(prod2.runtimeCR?.metadata.name).toBe('8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52');
    expect(prod2.kcpKyma?.metadata).toMatchObject({ name: '8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52', namespace: 'kcp-system' });
    expect(prod2.shoot?.metadata).toMatchObject({ name: 'c-8b7c6d5', namespace: 'garden-kyma-prod', generation: 42 });
    expect(prod2.skrKyma?.metadata).toMatchObject({ name: 'default', namespace: 'kyma-system' });
    expect(rccs(prod2).map((c) => `${c.metadata.namespace}/${c.metadata.name}`)).toEqual([
      'kyma-system/docker.io',
      'kyma-system/europe-docker.pkg.dev',
      'kyma-system/ghcr.io',
    ]);
  });

  it('reads a multi-document YAML file (a Kyma, ---, a List)', () => {
    const dev1 = observeDumps(SAMPLE_DUMP, refs()).runtimes.get('acme-eu-dev-1')!;
    expect(dev1.skrKyma?.metadata.name).toBe('default');
    expect(rccs(dev1)).toHaveLength(2);
  });

  it('marks the SKR of a runtime without a runtimes/<name>/ folder as not dumped', () => {
    const sandbox = observeDumps(SAMPLE_DUMP, refs()).runtimes.get('acme-eu-sandbox')!;
    expect([...sandbox.read].sort()).toEqual(['garden', 'kcp']);
    expect(sandbox.failures).toEqual([{ cluster: 'skr', reason: 'NotDumped', message: 'the dump has no runtimes/acme-eu-sandbox/ folder' }]);
  });
});

describe('global failures (exit 5)', () => {
  it('a dump folder that does not exist', () => {
    const o = observeDumps('/nonexistent/kyma-fleet-dump', refs(), { display: 'missing-dump' });
    expect(o.global).toEqual({ reason: 'UnreadableDump', message: 'dump folder missing-dump cannot be read (ENOENT)' });
    expect(o.runtimes.size).toBe(0);
  });

  it('a file instead of a folder', () => {
    const d = emptyDump();
    write(d, 'file.yaml', 'a: 1\n');
    expect(observe(path.join(d, 'file.yaml')).global?.message).toBe('dump folder dump is not a folder');
  });

  it('a folder with none of kcp/, garden/ and runtimes/', () => {
    const d = emptyDump('shoots');
    expect(observe(d).global?.message).toMatch(/holds none of kcp\/, garden\/ and runtimes\/; is --from the right folder\?/);
  });

  it('kcp/ as a file', () => {
    const d = emptyDump('garden', 'runtimes');
    write(d, 'kcp', 'x');
    expect(observe(d).global).toEqual({ reason: 'UnreadableDump', message: 'dump/kcp is not a folder' });
  });

  it.skipIf(process.getuid?.() === 0)('a folder that cannot be listed', () => {
    const d = sampleCopy();
    fs.chmodSync(path.join(d, 'garden'), 0o000);
    try {
      expect(observe(d).global).toEqual({ reason: 'UnreadableDump', message: 'dump/garden cannot be read (EACCES)' });
    } finally {
      fs.chmodSync(path.join(d, 'garden'), 0o755);
    }
  });
});

describe('missing cluster folders', () => {
  it('no kcp/ and no runtimes/: those clusters are NotDumped for every runtime', () => {
    const d = sampleCopy();
    fs.rmSync(path.join(d, 'kcp'), { recursive: true });
    fs.rmSync(path.join(d, 'runtimes'), { recursive: true });
    const o = observe(d);
    expect(o.global).toBeUndefined();
    for (const r of o.runtimes.values()) {
      expect([...r.read]).toEqual(['garden']);
      expect(r.failures).toEqual([
        { cluster: 'kcp', reason: 'NotDumped', message: 'the dump has no kcp/ folder' },
        { cluster: 'skr', reason: 'NotDumped', message: 'the dump has no runtimes/ folder' },
      ]);
    }
  });

  it('an empty garden/ folder: read, and every Shoot is simply not found', () => {
    const d = emptyDump('garden');
    const o = observe(d);
    const r = o.runtimes.get('acme-eu-prod-1')!;
    expect(r.read.has('garden')).toBe(true);
    expect(r.shoot).toBeUndefined();
  });
});

describe('hostile shapes: warnings with file and JSON pointer, never a crash', () => {
  it('a document that is not an object or List', () => {
    const d = emptyDump('garden');
    write(d, 'garden/scalar.yaml', 'just a string\n');
    write(d, 'garden/array.json', '[1, 2]');
    expect(warningsText(observe(d))).toEqual([
      'dump/garden/array.json: not a Kubernetes object or List (a list); not read',
      'dump/garden/scalar.yaml: not a Kubernetes object or List (a string); not read',
    ]);
  });

  it('a List without items, with items that are not a list, a List inside a List', () => {
    const d = emptyDump('garden');
    write(d, 'garden/a.yaml', 'apiVersion: v1\nkind: List\nmetadata: {}\n');
    write(d, 'garden/b.json', JSON.stringify({ apiVersion: 'v1', kind: 'ShootList', items: { a: 1 } }));
    write(d, 'garden/c.yaml', 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n');
    expect(warningsText(observe(d))).toEqual([
      'dump/garden/a.yaml#/items: List without items; nothing read',
      'dump/garden/b.json#/items: items of the ShootList is not a list (a map); nothing read',
      'dump/garden/c.yaml#/items/0: a List inside a List is not read',
    ]);
  });

  it('items without apiVersion, kind, metadata or metadata.name; bad generation and labels', () => {
    const d = emptyDump('garden');
    write(
      d,
      'garden/shoots.yaml',
      `apiVersion: v1
kind: List
items:
- 42
- kind: Shoot
  metadata: {name: a, namespace: garden-kyma-prod}
- apiVersion: core.gardener.cloud/v1beta1
  metadata: {name: b}
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
  metadata: {namespace: garden-kyma-prod}
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
  metadata: {name: c-3f1e8d6, namespace: garden-kyma-prod, generation: "many", labels: [x]}
`,
    );
    const o = observe(d);
    expect(warningsText(o)).toEqual([
      'dump/garden/shoots.yaml#/items/0: item is not an object (a number); not read',
      'dump/garden/shoots.yaml#/items/1/apiVersion: item has no apiVersion; not read',
      'dump/garden/shoots.yaml#/items/2/kind: item has no kind; not read',
      'dump/garden/shoots.yaml#/items/3/metadata: item has no metadata; not read',
      'dump/garden/shoots.yaml#/items/4/metadata/name: Shoot without metadata.name; not read',
      'dump/garden/shoots.yaml#/items/5/metadata/generation: metadata.generation is not a non-negative integer; ignored',
      'dump/garden/shoots.yaml#/items/5/metadata/labels: metadata.labels is not a map; ignored',
    ]);
    // The last item still counts: its identity is fine.
    expect(o.runtimes.get('acme-eu-prod-1')!.shoot?.metadata).toEqual({ name: 'c-3f1e8d6', namespace: 'garden-kyma-prod' });
  });

  it('objects of kinds a folder does not hold: one warning per file and kind', () => {
    const d = emptyDump('garden');
    const secret = (n: string) => `- apiVersion: v1\n  kind: Secret\n  metadata: {name: ${n}, namespace: garden-kyma-prod}\n`;
    write(d, 'garden/mixed.yaml', `apiVersion: v1\nkind: List\nitems:\n${secret('a')}${secret('b')}- apiVersion: infrastructuremanager.kyma-project.io/v1\n  kind: Runtime\n  metadata: {name: x, namespace: kcp-system}\n`);
    expect(warningsText(observe(d))).toEqual([
      'dump/garden/mixed.yaml#/items/0: 2 objects of kind Secret (v1) ignored: garden/ is read for Shoots',
      'dump/garden/mixed.yaml#/items/2: an object of kind Runtime (infrastructuremanager.kyma-project.io/v1) ignored: garden/ is read for Shoots',
    ]);
  });

  it('a Shoot of another API group is not a Shoot', () => {
    const d = emptyDump('garden');
    write(d, 'garden/s.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod').replace('core.gardener.cloud/v1beta1', 'example.com/v1'));
    const o = observe(d);
    expect(o.runtimes.get('acme-eu-prod-1')!.shoot).toBeUndefined();
    expect(warningsText(o)).toEqual(['dump/garden/s.yaml: an object of kind Shoot (example.com/v1) ignored: garden/ is read for Shoots']);
  });

  it('a Kyma in runtimes/<name>/ that is not kyma-system/default', () => {
    const d = emptyDump('runtimes/acme-eu-prod-1');
    write(d, 'runtimes/acme-eu-prod-1/k.yaml', 'apiVersion: operator.kyma-project.io/v1beta2\nkind: Kyma\nmetadata: {name: other, namespace: kyma-system}\n');
    const o = observe(d);
    expect(o.runtimes.get('acme-eu-prod-1')!.skrKyma).toBeUndefined();
    expect(warningsText(o)).toEqual(['dump/runtimes/acme-eu-prod-1/k.yaml: Kyma kyma-system/other ignored: the Kyma CR of a runtime is kyma-system/default']);
  });

  it('a folder for a runtime that is not in the fleet, stray files, other file types', () => {
    const d = sampleCopy();
    write(d, 'runtimes/acme-eu-gone/kyma.yaml', 'x: 1\n');
    write(d, 'runtimes/notes.txt', 'hello');
    write(d, 'garden/README.md', '# shoots');
    expect(warningsText(observe(d))).toEqual([
      'dump/garden/README.md: ignored: only .yaml, .yml and .json files are read',
      'dump/runtimes/acme-eu-gone/: no runtime "acme-eu-gone" in the fleet; folder not read',
      'dump/runtimes/notes.txt: ignored: runtimes/ holds one folder per runtime',
    ]);
  });

  it('a Shoot with status missing and conditions not a list is read as it is (states judge it)', () => {
    const d = emptyDump('garden');
    write(d, 'garden/s.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', 'spec: {}\n'));
    write(d, 'garden/t.yaml', SHOOT('c-8b7c6d5', 'garden-kyma-prod', 'status:\n  conditions: "all good"\n'));
    const o = observe(d);
    expect(o.warnings).toEqual([]);
    expect(o.runtimes.get('acme-eu-prod-1')!.shoot?.status).toBeUndefined();
    expect(o.runtimes.get('acme-eu-prod-2')!.shoot?.status).toEqual({ conditions: 'all good' });
  });
});

describe('duplicates', () => {
  it('keep the object with the higher metadata.generation, whatever the file order', () => {
    const d = emptyDump('garden');
    write(d, 'garden/a.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 9\n'));
    write(d, 'garden/b.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 12\n'));
    const o = observe(d);
    expect(o.runtimes.get('acme-eu-prod-1')!.shoot?.metadata.generation).toBe(12);
    expect(warningsText(o)).toEqual([
      'dump/garden/b.yaml: duplicate Shoot garden-kyma-prod/c-3f1e8d6 (also at dump/garden/a.yaml); using the one at dump/garden/b.yaml (higher metadata.generation), ignoring dump/garden/a.yaml',
    ]);
    fs.renameSync(path.join(d, 'garden/a.yaml'), path.join(d, 'garden/z.yaml'));
    expect(observe(d).runtimes.get('acme-eu-prod-1')!.shoot?.metadata.generation).toBe(12);
  });

  it('then the higher resourceVersion (numerically), then the first in file order', () => {
    const d = emptyDump('garden');
    write(d, 'garden/a.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 3\n  resourceVersion: "900"\n'));
    write(d, 'garden/b.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 3\n  resourceVersion: "1000"\n'));
    const o = observe(d);
    expect((o.runtimes.get('acme-eu-prod-1')!.shoot!.metadata as { resourceVersion?: string }).resourceVersion).toBe('1000');
    expect(o.warnings[0]!.message).toContain('(higher metadata.resourceVersion)');

    const e = emptyDump('garden');
    write(e, 'garden/list.yaml', `apiVersion: v1\nkind: List\nitems:\n- ${SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  uid: first\n').replace(/\n(?=.)/g, '\n  ')}- ${SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  uid: second\n').replace(/\n(?=.)/g, '\n  ')}`);
    const p = observe(e);
    expect(p.runtimes.get('acme-eu-prod-1')!.shoot?.metadata.uid).toBe('first');
    expect(warningsText(p)).toEqual([
      'dump/garden/list.yaml#/items/1: duplicate Shoot garden-kyma-prod/c-3f1e8d6 (also at dump/garden/list.yaml#/items/0); using the one at dump/garden/list.yaml#/items/0 (the same generation and resourceVersion; the first in file order), ignoring dump/garden/list.yaml#/items/1',
    ]);
  });

  it('duplicate RegistryCacheConfigs in one runtime folder', () => {
    const d = sampleCopy();
    fs.copyFileSync(path.join(d, 'runtimes/acme-eu-prod-1/registrycacheconfigs.yaml'), path.join(d, 'runtimes/acme-eu-prod-1/again.yaml'));
    const o = observe(d);
    expect(rccs(o.runtimes.get('acme-eu-prod-1')!)).toHaveLength(2);
    expect(o.warnings.map((w) => w.message.replace(/ \(.*$/, ''))).toEqual([
      'duplicate RegistryCacheConfig kyma-system/docker.io',
      'duplicate RegistryCacheConfig kyma-system/europe-docker.pkg.dev',
    ]);
  });
});

describe('the SKR kinds of the status hooks', () => {
  const RCC = { group: 'core.kyma-project.io', version: 'v1beta1', plural: 'registrycacheconfigs', kind: 'RegistryCacheConfig' };
  const WIDGET = { group: 'widgets.example.dev', version: 'v1', plural: 'widgets', kind: 'Widget' };
  const widgets = [
    'apiVersion: v1',
    'kind: List',
    'items:',
    '- {apiVersion: widgets.example.dev/v1, kind: Widget, metadata: {name: w2, namespace: b}}',
    '- {apiVersion: widgets.example.dev/v1, kind: Widget, metadata: {name: w1, namespace: a}}',
    '- {apiVersion: widgets.example.dev/v1, kind: Widget, metadata: {name: w3}}',
    '- {apiVersion: example.dev/v1, kind: Widget, metadata: {name: w4, namespace: a}}',
    '',
  ].join('\n');

  it('reads every declared kind into skrObjects (by group and kind, namespaced, sorted); other kinds are named as ignored', () => {
    const d = sampleCopy();
    fs.writeFileSync(path.join(d, 'runtimes/acme-eu-prod-1/widgets.yaml'), widgets);
    const o = observeDumps(d, refs(), { display: 'dump', skrKinds: [RCC, WIDGET] });
    const r = o.runtimes.get('acme-eu-prod-1')!;
    expect([...r.skrObjects.keys()]).toEqual(['RegistryCacheConfig', 'Widget']);
    expect(r.skrObjects.get('Widget')!.map((w) => `${w.metadata.namespace}/${w.metadata.name}`)).toEqual(['a/w1', 'b/w2']);
    expect(rccs(r)).toHaveLength(2);
    expect(warningsText(o)).toEqual([
      'dump/runtimes/acme-eu-prod-1/widgets.yaml#/items/2: Widget w3 ignored: it has no namespace',
      'dump/runtimes/acme-eu-prod-1/widgets.yaml#/items/3: an object of kind Widget (example.dev/v1) ignored: runtimes/acme-eu-prod-1/ is read for the Kyma CR kyma-system/default, RegistryCacheConfigs and Widgets',
    ]);
  });

  it('by default reads the kinds of the registered extensions only', () => {
    const d = sampleCopy();
    fs.writeFileSync(path.join(d, 'runtimes/acme-eu-prod-1/widgets.yaml'), widgets);
    const o = observe(d);
    expect([...o.runtimes.get('acme-eu-prod-1')!.skrObjects.keys()]).toEqual(['RegistryCacheConfig']);
    expect(warningsText(o)).toEqual([
      'dump/runtimes/acme-eu-prod-1/widgets.yaml#/items/0: 3 objects of kind Widget (widgets.example.dev/v1) ignored: runtimes/acme-eu-prod-1/ is read for the Kyma CR kyma-system/default and RegistryCacheConfigs',
      'dump/runtimes/acme-eu-prod-1/widgets.yaml#/items/3: an object of kind Widget (example.dev/v1) ignored: runtimes/acme-eu-prod-1/ is read for the Kyma CR kyma-system/default and RegistryCacheConfigs',
    ]);
  });
});

describe('identity (H67)', () => {
  it('an SKR Kyma labelled with another runtime ID: the SKR is not read (IdentityMismatch)', () => {
    const d = sampleCopy();
    const file = path.join(d, 'runtimes/acme-eu-prod-1/kyma.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  labels:\n', '  labels:\n    kyma-project.io/runtime-id: 8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52\n'));
    const r = observe(d).runtimes.get('acme-eu-prod-1')!;
    expect(r.read.has('skr')).toBe(false);
    expect(r.skrKyma).toBeUndefined();
    expect(r.skrObjects).toEqual(new Map());
    expect(r.failures).toEqual([
      {
        cluster: 'skr',
        reason: 'IdentityMismatch',
        message:
          'runtimes/acme-eu-prod-1/ holds the Kyma CR of runtime 8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d52 (label kyma-project.io/runtime-id), the fleet says 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01: a dump of the wrong cluster',
      },
    ]);
  });

  it('the same label in another case matches', () => {
    const d = sampleCopy();
    const file = path.join(d, 'runtimes/acme-eu-prod-1/kyma.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  labels:\n', '  labels:\n    kyma-project.io/runtime-id: 3F1E8D62-9C1A-4C4E-8A0E-2B7F6D1C9E01\n'));
    expect(observe(d).runtimes.get('acme-eu-prod-1')!.read.has('skr')).toBe(true);
  });

  it('a Shoot annotated with another runtime ID, a Runtime labelled with another one', () => {
    const d = sampleCopy();
    const shoots = path.join(d, 'garden/shoots-kyma-prod.yaml');
    fs.writeFileSync(shoots, fs.readFileSync(shoots, 'utf8').replace('runtime-id: 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01', 'runtime-id: 00000000-0000-4000-8000-000000000001'));
    const runtimes = path.join(d, 'kcp/runtimes.yaml');
    fs.writeFileSync(runtimes, fs.readFileSync(runtimes, 'utf8').replace('kyma-project.io/runtime-id: 4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c84', 'kyma-project.io/runtime-id: 00000000-0000-4000-8000-000000000002'));
    const o = observe(d);
    expect(o.runtimes.get('acme-eu-prod-1')!.failures).toEqual([
      {
        cluster: 'garden',
        reason: 'IdentityMismatch',
        message: 'Shoot garden-kyma-prod/c-3f1e8d6 belongs to runtime 00000000-0000-4000-8000-000000000001 (annotation infrastructuremanager.kyma-project.io/runtime-id), the fleet says 3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01',
      },
    ]);
    expect(o.runtimes.get('acme-us-prod-1')!.failures.map((f) => `${f.cluster} ${f.reason}`)).toEqual(['kcp IdentityMismatch']);
  });
});

describe('files that cannot be parsed', () => {
  it('a broken file in garden/: runtimes whose Shoot is elsewhere are fine, the others are InvalidData, not "not found"', () => {
    const d = sampleCopy();
    fs.writeFileSync(path.join(d, 'garden/shoots-kyma-dev.json'), '{"apiVersion": "v1", "kind": "List", "items": [');
    const o = observe(d);
    expect(warningsText(o)[0]).toMatch(/^dump\/garden\/shoots-kyma-dev\.json: not valid JSON: .*; not read$/);
    expect(o.runtimes.get('acme-eu-prod-1')!.read.has('garden')).toBe(true);
    const dev = o.runtimes.get('acme-eu-dev-1')!;
    expect(dev.read.has('garden')).toBe(false);
    expect(dev.failures[0]).toMatchObject({ cluster: 'garden', reason: 'InvalidData' });
    expect(dev.failures[0]!.message).toMatch(/^1 file of the dump could not be read: dump\/garden\/shoots-kyma-dev\.json: not valid JSON/);
  });

  it('a broken file in runtimes/<name>/ makes that SKR InvalidData', () => {
    const d = sampleCopy();
    write(d, 'runtimes/acme-eu-prod-1/extra.yaml', 'a: [1, 2\n');
    const r = observe(d).runtimes.get('acme-eu-prod-1')!;
    expect(r.read.has('skr')).toBe(false);
    expect(r.failures[0]).toMatchObject({ cluster: 'skr', reason: 'InvalidData' });
  });

  it.each([
    ['anchors and aliases', 'a: &x {b: 1}\nc: *x\n', /not valid YAML/],
    ['duplicate keys', 'a: 1\na: 2\n', /not valid YAML: .*(unique|Map keys)/i],
    ['unknown tags', 'a: !!binary aGVsbG8=\n', /not valid YAML/],
    ['YAML 1.1 merge keys are plain keys, not merges', 'base: &b {x: 1}\nm:\n  <<: *b\n', /not valid YAML/],
    ['deep nesting', '['.repeat(5000) + ']'.repeat(5000), /nesting deeper than 100 levels/],
    ['not UTF-8', '\u00ff', /not UTF-8/],
  ])('refuses %s', (_t, text, message) => {
    const bytes = text === '\u00ff' ? Buffer.from([0xff, 0xfe, 0x00]) : Buffer.from(text, 'utf8');
    const r = parseDumpFile(bytes, false);
    expect('error' in r && r.error).toMatch(message);
  });

  it('parses JSON with a duplicate-free, prototype-free result and YAML 1.2 scalars', () => {
    const r = parseDumpFile(Buffer.from('{"__proto__": {"polluted": true}, "a": 1}'), true) as { documents: unknown[] };
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(r.documents[0] as object)).toEqual(['__proto__', 'a']);
    const y = parseDumpFile(Buffer.from('a: no\nb: 017\nc: on\n'), false) as { documents: unknown[] };
    expect(y.documents[0]).toEqual({ a: 'no', b: 17, c: 'on' });
  });

  it('takes JSON saved as .yaml through the JSON parser, and YAML flow mappings through the YAML one', () => {
    expect(parseDumpFile(Buffer.from('  {"kind": "List", "items": []}'), false)).toEqual({ documents: [{ kind: 'List', items: [] }] });
    expect(parseDumpFile(Buffer.from('{kind: List, items: []}'), false)).toEqual({ documents: [{ kind: 'List', items: [] }] });
    expect(parseDumpFile(Buffer.from('{"a": "[[[[" , "b": ' + '['.repeat(101) + ']'.repeat(101) + '}'), true)).toEqual({ error: 'nesting deeper than 100 levels; not read' });
    expect(parseDumpFile(Buffer.from('{"a": "' + '['.repeat(500) + '"}'), true)).toEqual({ documents: [{ a: '['.repeat(500) }] });
  });

  it('reads documents separated by --- with empty documents in between', () => {
    const r = parseDumpFile(Buffer.from('---\na: 1\n---\n---\nb: 2\n...\n'), false) as { documents: unknown[] };
    expect(r.documents.filter((x) => x !== null)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('refuses symbolic links that leave the dump folder', () => {
    const d = emptyDump('garden');
    const outside = tmpDir('kyma-fleet-outside-');
    dirs.push(outside);
    write(outside, 'shoot.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod'));
    fs.symlinkSync(path.join(outside, 'shoot.yaml'), path.join(d, 'garden/link.yaml'));
    const o = observe(d);
    expect(warningsText(o)).toEqual(['dump/garden/link.yaml: symbolic link points outside the dump folder; not read']);
    expect(o.runtimes.get('acme-eu-prod-1')!.shoot).toBeUndefined();
  });

  it('sanitises file names and messages shown in warnings', () => {
    const d = emptyDump('garden');
    write(d, 'garden/evil\u001b[31m.yaml', 'x\n');
    write(d, 'garden/kind.json', JSON.stringify({ apiVersion: 'v1\u001b]0;title\u0007', kind: 'Secret\n\u001b[2JX', metadata: { name: 'a' } }));
    const w = warningsText(observe(d));
    expect(w).toEqual([
      'dump/garden/evil.yaml: not a Kubernetes object or List (a string); not read',
      'dump/garden/kind.json: an object of kind Secret X (v1) ignored: garden/ is read for Shoots',
    ]);
  });
});

describe('determinism', () => {
  it('gives the same observation and warnings whatever order files are created in', () => {
    const a = emptyDump('garden');
    const b = emptyDump('garden');
    const files: Array<[string, string]> = [
      ['garden/1.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 4\n')],
      ['garden/2.yaml', SHOOT('c-3f1e8d6', 'garden-kyma-prod', '  generation: 4\n  uid: two\n')],
      ['garden/3.yaml', 'nonsense\n'],
    ];
    for (const [rel, c] of files) write(a, rel, c);
    for (const [rel, c] of [...files].reverse()) write(b, rel, c);
    const oa = observe(a);
    const ob = observe(b);
    expect(warningsText(oa)).toEqual(warningsText(ob));
    expect(oa.runtimes.get('acme-eu-prod-1')!.shoot).toEqual(ob.runtimes.get('acme-eu-prod-1')!.shoot);
  });
});
