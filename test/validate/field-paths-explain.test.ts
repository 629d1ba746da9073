// A diagnostic and `kyma-fleet explain` name the same field alike (issue 26, item 5), through the
// built CLI (bin/kyma-fleet.js, `npm run build` first) on a copy of the example fleet: for every
// finding of `validate --output json` at a value that `explain --output json` lists (the value a
// layer set, or a lower layer's value it overrode, at the same file:line:col), the finding's `field`
// is explain's path below the layer's settings: `<path>` in a runtime file, `settings.<path>` in a
// group, `defaults.<path>` in fleet.yaml. Each case also names the fields it must meet, so that a
// run that matches nothing fails.

import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

let fx: FleetFixture | undefined;
afterEach(() => {
  fx?.cleanup();
  fx = undefined;
});

interface Finding {
  readonly code: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly field: string;
}

interface ExplainedSource {
  readonly layer: string;
  readonly location?: string;
}

interface Explanation {
  readonly values: ReadonlyArray<{ readonly path: string; readonly source: ExplainedSource; readonly overrides: ReadonlyArray<{ readonly source: ExplainedSource }> }>;
}

const SETTINGS_PREFIX: Record<string, string> = { runtime: '', group: 'settings.', defaults: 'defaults.' };

interface Case {
  readonly name: string;
  readonly edit: (f: FleetFixture) => void;
  readonly runtime: string;
  /** Fields of findings that must be met in explain's output, as `explain path` (the layer prefix added by the test). */
  readonly mustMeet: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: 'caches of a runtime file (by upstream)',
    edit: (f) => f.replace('runtimes/acme-eu-prod-2.yaml', 'size: 100Gi', 'size: 100GB').replace('runtimes/acme-eu-prod-2.yaml', 'ttl: 72h', 'ttl: 3d'),
    runtime: 'acme-eu-prod-2',
    mustMeet: ['extensions.registry-cache.caches[upstream=docker.io].volume.size', 'extensions.registry-cache.caches[upstream=ghcr.io].garbageCollection.ttl'],
  },
  {
    name: 'Falco destinations of a group, modules and an overridden cache of fleet.yaml',
    edit: (f) =>
      f
        .replace('groups/production.yaml', '          - name: stdout\n', '          - name: stdout\n          - name: custom\n')
        .replace('fleet.yaml', '      - name: istio\n', '      - name: istio\n        channel: fsat\n')
        .replace('fleet.yaml', 'size: 20Gi', 'size: 20GB'),
    runtime: 'acme-eu-prod-1',
    mustMeet: [
      'extensions.falco.destinations[name=logging].name',
      'extensions.falco.destinations[name=stdout].name',
      'extensions.falco.destinations[name=custom].name',
      'modules[name=istio].channel',
      'extensions.registry-cache.caches[upstream=docker.io].volume.size',
    ],
  },
];

describe('a diagnostic names a field as explain does (built CLI)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      fx = FleetFixture.example();
      c.edit(fx);
      const validate = fx.runBinary(['validate', '--now', NOW, '--output', 'json']);
      const findings = JSON.parse(validate.stdout).diagnostics as Finding[];
      const explain = fx.runBinary(['explain', c.runtime, '--now', NOW, '--output', 'json']);
      const explanation = JSON.parse(explain.stdout) as Explanation;
      // Every value explain lists, and every lower-layer value it overrode, by file:line:col.
      const byLocation = new Map<string, { path: string; layer: string }>();
      for (const v of explanation.values) {
        for (const s of [v.source, ...v.overrides.map((o) => o.source)]) if (s.location) byLocation.set(s.location, { path: v.path, layer: s.layer });
      }
      const met: string[] = [];
      for (const d of findings) {
        const value = byLocation.get(`${d.file}:${d.line}:${d.col}`);
        if (!value) continue;
        expect(d.field, `${d.code} at ${d.file}:${d.line}:${d.col}`).toBe(`${SETTINGS_PREFIX[value.layer]}${value.path}`);
        met.push(value.path);
      }
      expect([...new Set(met)].sort()).toEqual([...c.mustMeet].sort());
    });
  }
});
