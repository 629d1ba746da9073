// Errors that lead to the fix (issue 26, item 5), one table row each, through `kyma-fleet validate`
// on a copy of the example fleet: the text line says what to write instead, and no regular
// expression or parser code appears in text output (a pattern is only in --output json's details).

import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetFixture } from '../helpers/fleet-fixture';
import { runtime } from '../hostile/catalogue';

let fx: FleetFixture;
afterEach(() => fx?.cleanup());

const cache = (lines: string): string => `  extensions:\n    registry-cache:\n      enabled: true\n      caches:\n${lines}`;

interface Row {
  readonly name: string;
  /** runtimes/bad.yaml from line 13 on (lines 1-12: its identity). */
  readonly extra?: string;
  /** Or the whole file. */
  readonly file?: string;
  /** Exact error lines (stderr, without the summary). */
  readonly expect: readonly string[];
}

const ROWS: readonly Row[] = [
  {
    name: 'a size without a unit suggests the unit, never a quoted number',
    extra: cache('        - upstream: docker.io\n          volume:\n            size: 10\n'),
    expect: ['fleet/runtimes/bad.yaml:19:19: error at extensions.registry-cache.caches[upstream=docker.io].volume.size: must be a quantity with a unit (got number 10): write 10Gi for 10 gibibytes (or 10G for 10×10^9 bytes); a number without a unit counts bytes [E_TYPE]'],
  },
  {
    name: '10 GB suggests 10Gi and 10G and says how they differ',
    extra: cache('        - upstream: docker.io\n          volume:\n            size: 10 GB\n'),
    expect: ['fleet/runtimes/bad.yaml:19:19: error at extensions.registry-cache.caches[upstream=docker.io].volume.size: Invalid value: "10 GB": not a Kubernetes quantity: write 10Gi (binary, 10×2^30 bytes: what disk sizes usually mean) or 10G (decimal, 10×10^9 bytes), without a space [E_QUANTITY]'],
  },
  {
    name: '500MB suggests 500Mi and 500M',
    extra: cache('        - upstream: docker.io\n          volume:\n            size: 500MB\n'),
    expect: ['fleet/runtimes/bad.yaml:19:19: error at extensions.registry-cache.caches[upstream=docker.io].volume.size: Invalid value: "500MB": not a Kubernetes quantity: write 500Mi (binary, 500×2^20 bytes: what disk sizes usually mean) or 500M (decimal, 500×10^6 bytes), without a space [E_QUANTITY]'],
  },
  {
    name: 'a scheme in an upstream says "drop https://" first',
    extra: cache('        - upstream: https://docker.io\n'),
    expect: ['fleet/runtimes/bad.yaml:17:21: error at extensions.registry-cache.caches[upstream=https://docker.io].upstream: Invalid value: "https://docker.io": drop "https://": an upstream is host[:port], without scheme: write "docker.io" [E_REGCACHE_UPSTREAM]'],
  },
  {
    name: 'a scheme and a bad port: the scheme first, in one message',
    extra: cache('        - upstream: http://quay.io:99999\n'),
    expect: [
      'fleet/runtimes/bad.yaml:17:21: error at extensions.registry-cache.caches[upstream=http://quay.io:99999].upstream: Invalid value: "http://quay.io:99999": drop "http://": an upstream is host[:port], without scheme [E_REGCACHE_UPSTREAM]',
      `fleet/runtimes/bad.yaml:17:21: error at extensions.registry-cache.caches[upstream=http://quay.io:99999].upstream: Invalid value: "http://quay.io:99999": drop "http://": an upstream is host[:port], without scheme; what is left, "quay.io:99999", is not valid either: port '99999' is not valid, valid port must be in the range [1, 65535] [E_REGCACHE_UPSTREAM]`,
    ],
  },
  {
    name: 'a suffix Kubernetes does not know (1K) suggests 1Ki and 1k',
    extra: cache('        - upstream: docker.io\n          volume:\n            size: 1K\n'),
    expect: ['fleet/runtimes/bad.yaml:19:19: error at extensions.registry-cache.caches[upstream=docker.io].volume.size: Invalid value: "1K": not a Kubernetes quantity: write 1Ki (binary, 1×2^10 bytes: what disk sizes usually mean) or 1k (decimal, 1×10^3 bytes), without a space [E_QUANTITY]'],
  },
  {
    name: 'a ConfigMap name that is not a DNS name suggests the normalized name',
    extra: '  extensions:\n    falco:\n      enabled: true\n      rules:\n        custom:\n          - configMap: Shop_Falco_Rules\n',
    expect: [`fleet/runtimes/bad.yaml:18:24: error at extensions.falco.rules.custom[0].configMap: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com') (got "Shop_Falco_Rules"); use "shop-falco-rules" [E_FALCO_RULES]`],
  },
  {
    name: 'a cache namespace that is not a DNS label suggests the normalized one',
    extra: '  extensions:\n    registry-cache:\n      enabled: true\n      namespace: Kyma_System\n      caches:\n        - upstream: docker.io\n',
    expect: [`fleet/runtimes/bad.yaml:16:18: error at extensions.registry-cache.namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc') (got "Kyma_System"); use "kyma-system" [E_REGCACHE_NAMESPACE]`],
  },
  {
    name: 'a channel pattern is said in words',
    extra: '  channel: fast1\n',
    expect: ['fleet/runtimes/bad.yaml:13:12: error at channel: must be lowercase letters only (got "fast1") [E_CHANNEL]'],
  },
  {
    name: 'a mis-indented key: at its real column, in plain words',
    file: 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\nmetadata:\n  name: bad\nspec:\n  runtimeID: 5c0ffee0-0000-4000-8000-000000000001\n  shoot:\n    name: c-bad\n   project: kyma-dev\n',
    expect: ['fleet/runtimes/bad.yaml:9:4: error: this key is indented differently from the keys before it in the same map: indent it like them (with spaces) [E_YAML_SYNTAX]'],
  },
  {
    name: 'a value running on into a more indented line',
    extra: '  channel: regular\n    modules: []\n',
    expect: ['fleet/runtimes/bad.yaml:13:12: error: a value runs on into the next line, which YAML then reads as a key: check the indentation of the next line, or quote a value that contains ": " [E_YAML_SYNTAX]'],
  },
  {
    name: 'an unclosed quote',
    extra: '  channel: "regular\n',
    expect: ['fleet/runtimes/bad.yaml:14:1: error: a quoted value is not closed: add the closing quote [E_YAML_SYNTAX]'],
  },
];

describe('errors that lead to the fix', () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      fx = FleetFixture.example();
      fx.write('runtimes/bad.yaml', row.file ?? runtime('bad', row.extra));
      const r = await fx.validate();
      expect(r.code).toBe(1);
      const lines = r.errLines.filter((l) => !/^fleet: \d+ errors?/.test(l));
      expect(lines).toEqual(row.expect);
      // No regular expression, no parser code in text.
      expect(r.stderr).not.toMatch(/regex|regular expression|\[a-z0-9\]|\^\[|BAD_INDENT|[A-Z]+_[A-Z_]+: /);
    });
  }

  it('--output json keeps the pattern in details, and only there', async () => {
    fx = FleetFixture.example();
    fx.write('runtimes/bad.yaml', runtime('bad', '  extensions:\n    falco:\n      enabled: true\n      rules:\n        custom:\n          - configMap: Shop_Falco_Rules\n'));
    const r = await fx.validate('--output', 'json');
    const [d] = JSON.parse(r.stdout).diagnostics as Array<{ message: string; details?: { pattern: string } }>;
    expect(d!.details).toEqual({ pattern: '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*' });
    expect(d!.message).not.toContain('[a-z0-9]');
    expect(d!.message).toContain('use "shop-falco-rules"');
  });
});

describe('a duplicate runtime ID names the file that is new in the working tree', () => {
  const copy = (f: FleetFixture): void => {
    f.write('runtimes/acme-eu-prod-9.yaml', f.read('runtimes/acme-eu-prod-1.yaml').replace('name: acme-eu-prod-1', 'name: acme-eu-prod-9'));
  };
  const git = (dir: string, ...args: string[]): void => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  const hasGit = spawnSync('git', ['--version']).status === 0;

  it.skipIf(!hasGit)('in a git repository: only on the copy, naming the file git already has', async () => {
    fx = FleetFixture.example();
    git(fx.dir, 'init', '-q');
    git(fx.dir, 'add', 'fleet');
    git(fx.dir, 'commit', '-q', '-m', 'fleet');
    copy(fx);
    const r = await fx.validate();
    expect(r.code).toBe(1);
    const dups = r.errLines.filter((l) => l.includes('E_DUPLICATE_RUNTIME_ID'));
    expect(dups).toEqual([
      'fleet/runtimes/acme-eu-prod-9.yaml:10:14: error at runtimeID: runtime ID "3f1e8d62-9c1a-4c4e-8a0e-2b7f6d1c9e01" is already declared in fleet/runtimes/acme-eu-prod-1.yaml:10:14, which git already has; this file is new (a copy?): give it its own runtime\'s values or delete it [E_DUPLICATE_RUNTIME_ID]',
    ]);
    // The original, untouched file is never blamed.
    expect(r.stderr).not.toMatch(/^fleet\/runtimes\/acme-eu-prod-1\.yaml/m);
  });

  it('outside a repository (or without git): on both files, saying git cannot tell', async () => {
    fx = FleetFixture.example();
    copy(fx);
    const r = await fx.validate(); // the fixture lives under the system temp folder, outside any repository
    const dups = r.errLines.filter((l) => l.includes('E_DUPLICATE_RUNTIME_ID'));
    expect(dups.map((l) => l.slice(0, l.indexOf(':')))).toEqual(['fleet/runtimes/acme-eu-prod-1.yaml', 'fleet/runtimes/acme-eu-prod-9.yaml']);
    for (const l of dups) expect(l).toContain('(git cannot tell which file is new)');
  });
});
