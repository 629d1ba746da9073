// One assembly of a rendered runtime's record (src/run/record.ts): its targets are what the render
// returned (RenderedFleet.wiring), and they name exactly the folders the render wrote.

import { describe, expect, it } from 'vitest';
import { renderFleet } from '../../src/render/render-fleet';
import { checkFleet } from '../../src/run/check';
import { renderedRuntimeRecord } from '../../src/run/record';
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
