// `status` compares the KCP's Runtime CRs with the fleet: the sample dump (fleet-status-sample/) has
// one Runtime CR outside the fleet; dropping a fleet runtime's CR makes it "without a Runtime CR";
// a broken kcp/ file hides the section (an incomplete read proves nothing). The comparison itself,
// and the caps of long lists.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import * as os from 'node:os';
import { compareInventory, makeInventory } from '../../src/observe/inventory';
import { observeLive } from '../../src/observe/live-source';
import { FakeKubeApi, status as apiStatus } from '../status/fake-kube-api';
import { inventoryMarkdown, MAX_INVENTORY_ROWS } from '../../src/status/inventory-section';
import { FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';
import { KCP_NAMESPACE, landscapeRuntime, runtimeCR } from './kcp-dump';

const SAMPLE = path.join(REPO, 'fleet-status-sample');
const OUTSIDE = '5e4d3c2b-1a09-4877-9665-544332211000';

describe('status: the KCP and the fleet', () => {
  let fx: FleetFixture;
  beforeEach(() => {
    fx = FleetFixture.example();
    fs.cpSync(SAMPLE, path.join(fx.dir, 'dump'), { recursive: true });
  });
  afterEach(() => fx.cleanup());

  const status = () => fx.run(['status', '--from', 'dump', '--write', 'out', '--html', '--now', NOW]);
  const read = (f: string) => fs.readFileSync(path.join(fx.dir, 'out', f), 'utf8');

  it('lists the Runtime CR the fleet does not manage in SUMMARY.md and the status page', async () => {
    const r = await status();
    expect(r.code, r.stderr).toBe(0);
    const summary = read('SUMMARY.md');
    expect(summary).toContain('8 Runtime CRs in kcp-system: 7 managed by the fleet, 1 not managed; 0 fleet runtimes without a Runtime CR.');
    expect(summary).toMatch(new RegExp(`\\| ${OUTSIDE} \\| kcp-system/${OUTSIDE} \\| c-5e4d3c2 \\|`));
    expect(read('status.html')).toContain(`<td>${OUTSIDE}</td>`);
  });

  it('carries the same comparison in status --output json', async () => {
    const r = await fx.run(['status', '--from', 'dump', '--write', 'out', '--output', 'json', '--now', NOW]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { inventory?: { namespace: string; managed: number; unmanaged: Array<{ runtimeID: string; object: string; shootName?: string }>; missing: unknown[] } };
    expect(doc.inventory).toMatchObject({ namespace: 'kcp-system', managed: 7, missing: [] });
    expect(doc.inventory!.unmanaged).toEqual([expect.objectContaining({ runtimeID: OUTSIDE, object: `kcp-system/${OUTSIDE}`, shootName: 'c-5e4d3c2' })]);
  });

  it('lists a fleet runtime whose Runtime CR the KCP lacks', async () => {
    const file = path.join(fx.dir, 'dump/kcp/runtimes.yaml');
    const list = parse(fs.readFileSync(file, 'utf8')) as { items: Array<{ metadata: { name: string } }> };
    list.items = list.items.filter((o) => o.metadata.name !== '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63');
    fs.writeFileSync(file, stringify(list));
    const r = await status();
    expect(r.code, r.stderr).toBe(0);
    expect(read('SUMMARY.md')).toContain('| acme-eu-dev-1 | 1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c63 |');
  });

  it('leaves the section out when a kcp/ file could not be read', async () => {
    fs.writeFileSync(path.join(fx.dir, 'dump/kcp/broken.yaml'), 'a: [');
    const r = await status();
    expect(r.code, r.stderr).toBe(0);
    expect(read('SUMMARY.md')).not.toContain('## The KCP and the fleet');
    const json = await fx.run(['status', '--from', 'dump', '--write', 'out', '--output', 'json', '--now', NOW]);
    expect(JSON.parse(json.stdout)).not.toHaveProperty('inventory');
  });
});

describe('the comparison', () => {
  const refs = [0, 1, 2].map((i) => {
    const r = landscapeRuntime(i);
    return { name: `rt-${i}`, runtimeID: r.runtimeID.toUpperCase(), kcpNamespace: KCP_NAMESPACE, shootName: r.shootName, shootNamespace: 'garden-p' };
  });

  it('matches by runtime ID, whatever the case, and sorts both lists', () => {
    const inv = makeInventory(KCP_NAMESPACE, [1, 2, 3, 4].map((i) => runtimeCR(landscapeRuntime(i)) as never));
    const c = compareInventory(refs, inv);
    expect(c.managed).toBe(2);
    expect(c.missing.map((r) => r.name)).toEqual(['rt-0']);
    expect(c.unmanaged.map((u) => u.runtimeID).sort()).toEqual([landscapeRuntime(3).runtimeID, landscapeRuntime(4).runtimeID].sort());
  });

  it('caps long lists and keeps the counts exact', () => {
    const many = Array.from({ length: MAX_INVENTORY_ROWS + 25 }, (_, i) => runtimeCR(landscapeRuntime(100 + i)) as never);
    const lines = inventoryMarkdown(compareInventory(refs, makeInventory(KCP_NAMESPACE, many)));
    expect(lines.filter((l) => l.startsWith('| ') && !l.startsWith('| Runtime') && !l.startsWith('| ---'))).toHaveLength(MAX_INVENTORY_ROWS + refs.length);
    expect(lines).toContain('… and 25 more.');
    expect(lines[2]).toContain(`${MAX_INVENTORY_ROWS + 25} Runtime CRs in kcp-system: 0 managed by the fleet, ${MAX_INVENTORY_ROWS + 25} not managed; 3 fleet runtimes without a Runtime CR.`);
  });
});

describe('status, live: one LIST of the KCP namespace for the inventory', () => {
  let kcp: FakeKubeApi;
  let garden: FakeKubeApi;
  let dir: string;
  let kubeconfig: string;
  const refs = [0, 1, 9].map((i) => {
    const r = landscapeRuntime(i);
    return { name: `rt-${i}`, runtimeID: r.runtimeID, kcpNamespace: KCP_NAMESPACE, shootName: r.shootName, shootNamespace: 'garden-p' };
  });

  beforeEach(async () => {
    kcp = await FakeKubeApi.start({ token: 'kcp-token' });
    garden = await FakeKubeApi.start({ token: 'garden-token' });
    kcp.add('runtimes', ...[0, 1, 2, 3].map((i) => runtimeCR(landscapeRuntime(i))));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-inventory-'));
    kubeconfig = path.join(dir, 'kubeconfig.json');
    const entry = (name: string, server: string) => ({ name, server });
    const entries = [entry('kcp', kcp.url), entry('garden', garden.url)];
    fs.writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server, 'insecure-skip-tls-verify': true } })),
        users: entries.map((e) => ({ name: `${e.name}-user`, user: { token: `${e.name}-token` } })),
        contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: `${e.name}-user` } })),
        'current-context': 'kcp',
      }),
    );
  });
  afterEach(async () => {
    await kcp.close();
    await garden.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const observe = (inventory: boolean) => observeLive(refs, { kubeconfig, kcpContext: 'kcp', gardenContext: 'garden', backoffMs: 10, retries: 0, inventory });

  it('lists every Runtime CR of the namespace once and compares it with the fleet', async () => {
    const obs = await observe(true);
    expect(obs.global).toBeUndefined();
    const lists = kcp.requests.filter((r) => r.path === `/apis/infrastructuremanager.kyma-project.io/v1/namespaces/${KCP_NAMESPACE}/runtimes`);
    expect(lists).toHaveLength(1);
    const c = compareInventory(refs, obs.inventory!);
    expect(c.managed).toBe(2);
    expect(c.unmanaged.map((u) => u.runtimeID).sort()).toEqual([landscapeRuntime(2).runtimeID, landscapeRuntime(3).runtimeID].sort());
    expect(c.missing.map((m) => m.name)).toEqual(['rt-9']);
  });

  it('sends no LIST without inventory, and reports none when the LIST is forbidden', async () => {
    const without = await observe(false);
    expect(without.inventory).toBeUndefined();
    expect(kcp.requests.filter((r) => r.path.endsWith(`/namespaces/${KCP_NAMESPACE}/runtimes`))).toEqual([]);
    kcp.script((r) => r.path.endsWith(`/namespaces/${KCP_NAMESPACE}/runtimes`), apiStatus(403, 'Forbidden', 'runtimes is forbidden'));
    const forbidden = await observe(true);
    expect(forbidden.global).toBeUndefined();
    expect(forbidden.inventory).toBeUndefined();
    expect(forbidden.warnings.some((w) => w.message.includes("the KCP's Runtime CRs could not be listed") && w.message.includes('403'))).toBe(true);
  });
});
