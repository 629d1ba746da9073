// One assembly of a rendered runtime's record (src/run/record.ts): its targets are what the render
// returned (RenderedFleet.wiring), and they name exactly the folders the render wrote. sameWiring
// tells whether a run's runtimes and their targets are exactly a record's, however they are matched.

import { describe, expect, it } from 'vitest';
import { renderFleet } from '../../src/render/render-fleet';
import { checkFleet } from '../../src/run/check';
import { renderedRuntimeRecord, sameWiring } from '../../src/run/record';
import type { RunRecord, RuntimeRecord } from '../../src/run/run-record';
import type { RuntimeEntry } from '../../src/run/stages';
import { EXAMPLE_FLEET, NOW, REPO } from '../helpers/fleet-fixture';

describe('a rendered runtime record', () => {
  const checked = checkFleet({ fleetDir: EXAMPLE_FLEET, cwd: REPO, now: new Date(NOW) });
  const rendered = renderFleet(checked.model!, checked.runtimes, undefined, new Map(), false);

  it('lists as targets exactly the target folders the render wrote, for every runtime', () => {
    expect(checked.runtimes.length).toBeGreaterThan(3);
    for (const r of checked.runtimes) {
      const record = renderedRuntimeRecord(checked, r, rendered.wiring.get(r.runtime.name)?.targets ?? []);
      const folders = new Set([...rendered.files.keys()].filter((f) => f.startsWith(`runtimes/${r.runtime.name}/`)).map((f) => f.split('/')[2]));
      expect([...record.targets].sort(), r.runtime.name).toEqual([...folders].sort());
      expect(record.relPath).toBe(`runtimes/${r.runtime.name}.yaml`);
      expect(record.identity.name).toBe(r.runtime.name);
      expect('file' in record.identity).toBe(false);
    }
  });

  it('keeps the runtime\'s own file as \'\' in its diagnostics (display paths depend on the working folder), other files as they are', () => {
    const r = checked.runtimes[0]!;
    const own = { severity: 'warning' as const, code: 'W_X', file: r.runtime.file, line: 3, col: 5, field: 'channel', message: 'own' };
    const group = { ...own, file: 'fleet/groups/production.yaml', message: 'from a group' };
    const record = renderedRuntimeRecord({ ...checked, runtimeDiagnostics: new Map([[r.runtime.file, [own, group]]]) }, r, []);
    expect(record.diagnostics).toEqual([{ ...own, file: '' }, group]);
  });
});

describe('sameWiring', () => {
  const at = { name: { line: 1, col: 1 }, runtimeID: { line: 2, col: 1 }, shootName: { line: 3, col: 1 } };
  const runtime = (name: string, targets: string[] = ['skr', 'kcp']): RuntimeRecord => ({
    digest: `d-${name}`,
    identity: { name, runtimeID: `id-${name}`, shoot: { name: `c-${name}`, project: 'p' }, at },
    diagnostics: [],
    input: `i-${name}`,
    targets: targets as RuntimeRecord['targets'],
  });
  const rows = { 'runtimes/a.yaml': runtime('a'), 'runtimes/b.yaml': runtime('b', ['skr', 'skr-config', 'kcp', 'garden']), 'runtimes/c.yaml': runtime('c') };
  const record = { runtimes: rows } as unknown as RunRecord;
  // The record's own objects, as a run that read no runtime file again has them.
  const own = (): RuntimeEntry[] => Object.entries(rows).map(([relPath, r]) => ({ relPath, record: r, kept: true, recorded: true }));
  const replaced = (rel: string, entry: Partial<RuntimeEntry> & { record: RuntimeRecord }): RuntimeEntry[] => own().map((e) => (e.relPath === rel ? { ...e, kept: false, recorded: false, ...entry } : e));

  it.each<[string, RuntimeEntry[], boolean]>([
    ['the record\'s own runtimes', own(), true],
    ['a runtime read again, the same name and targets in another order', replaced('runtimes/b.yaml', { record: runtime('b', ['garden', 'kcp', 'skr-config', 'skr']) }), true],
    ['a runtime file renamed, its runtime the same', replaced('runtimes/b.yaml', { relPath: 'runtimes/b-renamed.yaml', record: runtime('b', ['skr', 'skr-config', 'kcp', 'garden']) }), true],
    ['a runtime with a target more', replaced('runtimes/a.yaml', { record: runtime('a', ['skr', 'kcp', 'garden']) }), false],
    ['a runtime with a target less', replaced('runtimes/b.yaml', { record: runtime('b', ['skr', 'kcp', 'garden']) }), false],
    ['a runtime renamed in its own file', replaced('runtimes/c.yaml', { record: runtime('d') }), false],
    ['a runtime renamed in a renamed file', replaced('runtimes/c.yaml', { relPath: 'runtimes/d.yaml', record: runtime('d') }), false],
    ['a runtime fewer', own().slice(1), false],
    ['a runtime more', [...own(), { relPath: 'runtimes/d.yaml', record: runtime('d'), kept: false }], false],
    ['a runtime file swapped for a new one of another name', [...own().slice(1), { relPath: 'runtimes/d.yaml', record: runtime('d'), kept: false }], false],
  ])('%s', (_label, entries, expected) => {
    expect(sameWiring(entries, record)).toBe(expected);
  });

  it('a target the record names that this program does not know is never the same, not even for the record\'s own object', () => {
    const odd = { ...rows, 'runtimes/a.yaml': runtime('a', ['skr', 'elsewhere']) };
    const entries = Object.entries(odd).map(([relPath, r]) => ({ relPath, record: r, kept: true }));
    expect(sameWiring(entries, { runtimes: odd } as unknown as RunRecord)).toBe(false);
  });
});
