// Field paths as `kyma-fleet explain` writes them (issue 26, item 5), one table row per kind of list:
// through `kyma-fleet validate --output json` on a copy of the example fleet, the `field` of each
// finding names an entry of a list with an identifying key by that key (caches by upstream; modules,
// Falco destinations, policies, rollout rings and catalog modules by name), whichever stage found
// it (YAML schema, layer rules, secret scan, resolved rules located through provenance, the module
// catalog); an entry of a list without a key, or whose key is missing, not a string or repeated,
// by its position. Lakom's settings have no list. The CLI test that a diagnostic and `explain` name
// the same field alike is ./field-paths-explain.test.ts.

import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';
import { runtime } from '../hostile/catalogue';

let fx: FleetFixture | undefined;
afterEach(() => {
  fx?.cleanup();
  fx = undefined;
});

const caches = (lines: string): string => `  extensions:\n    registry-cache:\n      enabled: true\n      caches:\n${lines}`;
const falco = (lines: string): string => `  extensions:\n    falco:\n      enabled: true\n${lines}`;

interface Row {
  readonly list: string;
  readonly name: string;
  /** Changes the copy of the example fleet. */
  readonly edit: (f: FleetFixture) => void;
  readonly code: string;
  /** The `field` of every finding with `code`, in output order. */
  readonly fields: readonly string[];
}

const bad = (extra: string) => (f: FleetFixture): void => void f.write('runtimes/bad.yaml', runtime('bad', extra));

const ROWS: readonly Row[] = [
  // Keyed: the explain form.
  {
    list: 'registry-cache caches (by upstream)',
    name: 'a value the schema refuses',
    edit: bad(caches('        - upstream: docker.io\n          volume:\n            size: 10\n        - upstream: quay.io\n          volume:\n            size: 10Gi\n')),
    code: 'E_TYPE',
    fields: ['extensions.registry-cache.caches[upstream=docker.io].volume.size'],
  },
  {
    list: 'registry-cache caches (by upstream)',
    name: 'a layer rule, on the second entry',
    edit: bad(caches('        - upstream: docker.io\n        - upstream: quay.io\n          garbageCollection:\n            ttl: 7d\n')),
    code: 'E_DURATION',
    fields: ['extensions.registry-cache.caches[upstream=quay.io].garbageCollection.ttl'],
  },
  {
    list: 'registry-cache caches (by upstream)',
    name: 'the secret scan',
    edit: bad(caches('        - upstream: ghcr.io\n          password: hunter2hunter2\n')),
    code: 'E_SECRET_INLINE',
    fields: ['extensions.registry-cache.caches[upstream=ghcr.io].password'],
  },
  {
    list: 'registry-cache caches (by upstream)',
    name: 'two groups of equal priority that disagree (the resolver, in a group file)',
    edit: (f) =>
      f.write(
        'groups/fast-lane.yaml',
        'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeGroup\nmetadata:\n  name: fast-lane\nspec:\n  selector:\n    matchLabels:\n      geo: eu\n  priority: 10\n  settings:\n    extensions:\n      registry-cache:\n        caches:\n          - upstream: quay.io\n          - upstream: europe-docker.pkg.dev\n            volume:\n              size: 40Gi\n',
      ),
    code: 'E_OVERRIDE_CONFLICT',
    fields: ['settings.extensions.registry-cache.caches[upstream=europe-docker.pkg.dev].volume.size'],
  },
  {
    list: 'registry-cache caches (by upstream)',
    name: 'a key value that is not a plain word is a JSON string',
    edit: bad(caches('        - upstream: "docker io"\n')),
    code: 'E_REGCACHE_UPSTREAM',
    fields: ['extensions.registry-cache.caches[upstream="docker io"].upstream'],
  },
  {
    list: 'modules (by name)',
    name: 'in a runtime: the schema',
    edit: bad('  modules:\n    - name: istio\n    - name: serverless\n      customResourcePolicy: Delete\n'),
    code: 'E_ENUM',
    fields: ['modules[name=serverless].customResourcePolicy'],
  },
  {
    list: 'modules (by name)',
    name: 'in fleet.yaml defaults: against the module catalog',
    edit: (f) => f.replace('fleet.yaml', '- name: btp-operator\n', '- name: btp-operatr\n'),
    code: 'E_MODULE_UNKNOWN',
    fields: ['defaults.modules[name=btp-operatr].name'],
  },
  {
    list: 'modules (by name)',
    name: 'in a group: a resolved check located through provenance',
    edit: (f) => f.replace('groups/production.yaml', '      - name: telemetry\n', '      - name: docker-registry\n      - name: telemetry\n'),
    code: 'E_MODULE_CHANNEL',
    fields: ['settings.modules[name=docker-registry].name'],
  },
  {
    list: 'Falco destinations (by name)',
    name: 'a resolved rule located through provenance',
    edit: bad(falco('      destinations:\n        - name: stdout\n        - name: logging\n        - name: custom\n')),
    code: 'E_FALCO_DESTINATION',
    fields: ['extensions.falco.destinations[name=logging].name', 'extensions.falco.destinations[name=custom].name'],
  },
  {
    list: 'Falco destinations (by name)',
    name: 'an unknown field in an entry',
    edit: bad(falco('      destinations:\n        - name: stdout\n          colour: red\n')),
    code: 'E_UNKNOWN_FIELD',
    fields: ['extensions.falco.destinations[name=stdout].colour'],
  },
  {
    list: 'fleet.yaml policies (by name)',
    name: 'an unknown extension required',
    edit: (f) => f.replace('fleet.yaml', '        - falco\n', '        - falko\n'),
    code: 'E_EXTENSION_UNKNOWN',
    fields: ['policies[name=production-runs-falco].requireExtensions[0]'],
  },
  {
    list: 'fleet.yaml rollout rings (by name)',
    name: 'a bad bake time',
    edit: (f) => f.append('fleet.yaml', '  rollout:\n    rings:\n      - name: canary\n        selector:\n          matchLabels:\n            tier: development\n        bake: 1d\n'),
    code: 'E_ROLLOUT_BAKE',
    fields: ['rollout.rings[name=canary].bake'],
  },
  {
    list: 'module catalog modules (by name)',
    name: 'a module name the catalog may not hold',
    edit: (f) => f.replace('catalog/modules.yaml', '- name: istio\n', '- name: Istio\n'),
    code: 'E_CATALOG',
    fields: ['modules[name=Istio].name'],
  },
  // Where a key cannot name the entry: its position.
  {
    list: 'registry-cache caches (by upstream)',
    name: 'the key is missing',
    edit: bad(caches('        - volume:\n            size: 10Gi\n')),
    code: 'E_REQUIRED',
    fields: ['extensions.registry-cache.caches[0].upstream'],
  },
  {
    list: 'registry-cache caches (by upstream)',
    name: 'the key is repeated',
    edit: bad(caches('        - upstream: docker.io\n        - upstream: quay.io\n        - upstream: docker.io\n')),
    code: 'E_REGCACHE_DUPLICATE',
    fields: ['extensions.registry-cache.caches[2].upstream'],
  },
  {
    list: 'modules (by name)',
    name: 'the key is not a string',
    edit: bad('  modules:\n    - name: 42\n'),
    code: 'E_TYPE',
    fields: ['modules[0].name'],
  },
  {
    list: 'fleet.yaml rollout rings (by name)',
    name: 'the key is repeated',
    edit: (f) =>
      f.append('fleet.yaml', '  rollout:\n    rings:\n      - name: canary\n        selector: {matchLabels: {tier: development}}\n        bake: 1h\n      - name: canary\n        selector: {matchLabels: {tier: sandbox}}\n        bake: 1h\n'),
    code: 'E_ROLLOUT_RING_DUPLICATE',
    fields: ['rollout.rings[1].name'],
  },
  // Lists without an identifying key: always the position.
  {
    list: 'Falco custom rules (no key: a file or a ConfigMap)',
    name: 'a missing rules file',
    edit: bad(falco('      rules:\n        custom:\n          - file: rules/acme-shell-in-container.yaml\n          - file: rules/missing.yaml\n')),
    code: 'E_FALCO_RULES_FILE',
    fields: ['extensions.falco.rules.custom[1].file'],
  },
  {
    list: 'Falco standard rules (a list of names)',
    name: 'an unknown rule set',
    edit: bad(falco('      rules:\n        standard: [falco-rules, falco-default-rules]\n')),
    code: 'E_FALCO_RULES',
    fields: ['extensions.falco.rules.standard[1]'],
  },
  {
    list: 'selector matchExpressions (key is not unique)',
    name: 'an operator the selector does not know',
    edit: (f) => f.replace('groups/production.yaml', '    matchLabels:\n      tier: production\n', '    matchExpressions:\n      - key: tier\n        operator: Equals\n        values: [production]\n'),
    code: 'E_ENUM',
    fields: ['selector.matchExpressions[0].operator'],
  },
];

describe('diagnostics name list entries as explain does', () => {
  for (const row of ROWS) {
    it(`${row.list}: ${row.name}`, async () => {
      fx = FleetFixture.example();
      row.edit(fx);
      const r = await fx.validate('--output', 'json');
      const diagnostics = JSON.parse(r.stdout).diagnostics as Array<{ code: string; field: string; file: string; line: number; col: number; message: string }>;
      expect(diagnostics.filter((d) => d.code === row.code).map((d) => d.field), JSON.stringify(diagnostics, null, 1)).toEqual(row.fields);
      // The text line carries the same field.
      const text = await fx.validate();
      for (const field of row.fields) expect(text.stderr).toContain(` at ${field}: `);
    });
  }
});
