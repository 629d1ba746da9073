import { describe, it, expect } from 'vitest';
import type { DocPath } from '../../../src/lib/diagnostics';
import { QUANTITY_FORMAT_WRONG } from '../../../src/lib/apimachinery-text';
import { DNS1123_LABEL_MESSAGE as LABEL, DNS1123_SUBDOMAIN_MESSAGE as SUBDOMAIN } from '../../../src/lib/k8s-names';
import type { RuleReporter } from '../../../src/extensions/types';
import { validateLayer, validateResolved } from '../../../src/extensions/registry-cache/rules';

interface Reported {
  path: DocPath;
  code: string;
  message: string;
}

function record(run: (reporter: RuleReporter) => void): Reported[] {
  const out: Reported[] = [];
  run({ report: (path, code, message) => out.push({ path: [...path], code, message }) });
  return out;
}

const layer = (value: Record<string, unknown>) => record((r) => validateLayer(value, r));
const resolved = (value: Record<string, unknown>) => record((r) => validateResolved(value, r));

/** A layer with one cache for docker.io plus `fields`. */
const oneCache = (fields: Record<string, unknown>) => ({ caches: [{ upstream: 'docker.io', ...fields }] });

const PORT = (p: string) => `port '${p}' is not valid, valid port must be in the range [1, 65535]`;
const SCHEME = "url must start with 'http://' or 'https://' scheme";

interface Row {
  title: string;
  value: Record<string, unknown>;
  expected: Reported[];
}

// Catalogue items of kyma-gardener-apis.md §10 (1-19) that are about the value of a cache.
const catalogue: Row[] = [
  {
    title: '#1 upstream with a scheme',
    value: { caches: [{ upstream: 'https://docker.io' }] },
    expected: [
      {
        path: ['caches', 0, 'upstream'],
        code: 'E_REGCACHE_UPSTREAM',
        message: `Invalid value: "https://docker.io": ${SUBDOMAIN} (an upstream is host[:port], without scheme)`,
      },
    ],
  },
  {
    title: '#2 upstream in upper case',
    value: { caches: [{ upstream: 'Docker.IO' }] },
    expected: [{ path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "Docker.IO": ${SUBDOMAIN}` }],
  },
  {
    title: '#3 upstream with a path',
    value: { caches: [{ upstream: 'ghcr.io/my-org' }] },
    expected: [
      {
        path: ['caches', 0, 'upstream'],
        code: 'E_REGCACHE_UPSTREAM',
        message: `Invalid value: "ghcr.io/my-org": ${SUBDOMAIN} (an upstream is host[:port], without a path)`,
      },
    ],
  },
  {
    title: '#4 upstream port 0',
    value: { caches: [{ upstream: 'my-registry.io:0' }] },
    expected: [
      { path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "my-registry.io:0": ${PORT('0')}` },
    ],
  },
  {
    title: '#5 upstream port 65536',
    value: { caches: [{ upstream: 'my-registry.io:65536' }] },
    expected: [
      {
        path: ['caches', 0, 'upstream'],
        code: 'E_REGCACHE_UPSTREAM',
        message: `Invalid value: "my-registry.io:65536": ${PORT('65536')}`,
      },
    ],
  },
  {
    title: '#6 two caches with the same upstream',
    value: { caches: [{ upstream: 'docker.io' }, { upstream: 'docker.io', volume: { size: '20Gi' } }] },
    expected: [
      {
        path: ['caches', 1, 'upstream'],
        code: 'E_REGCACHE_DUPLICATE',
        message: 'Duplicate value: "docker.io" (first defined at caches[0])',
      },
    ],
  },
  {
    title: '#8 empty upstream',
    value: { caches: [{ upstream: '' }] },
    expected: [{ path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "": ${SUBDOMAIN}` }],
  },
  {
    title: '#9 remoteURL without scheme',
    value: oneCache({ remoteURL: 'registry-1.docker.io' }),
    expected: [
      { path: ['caches', 0, 'remoteURL'], code: 'E_REGCACHE_URL', message: `Invalid value: "registry-1.docker.io": ${SCHEME}` },
    ],
  },
  {
    title: '#10 remoteURL with ftp scheme',
    value: oneCache({ remoteURL: 'ftp://my-registry.io' }),
    expected: [
      { path: ['caches', 0, 'remoteURL'], code: 'E_REGCACHE_URL', message: `Invalid value: "ftp://my-registry.io": ${SCHEME}` },
    ],
  },
  {
    title: '#11 remoteURL with a path',
    value: oneCache({ remoteURL: 'https://registry.example.com/v2/' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message: 'Invalid value: "https://registry.example.com/v2/": url must not contain a path',
      },
    ],
  },
  {
    title: '#12 remoteURL with user info (password redacted)',
    value: oneCache({ remoteURL: 'https://user:pw@registry.example.com' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message: 'Invalid value: "https://user:***@registry.example.com": url must not contain user info',
      },
    ],
  },
  {
    title: '#13 remoteURL with query parameters',
    value: oneCache({ remoteURL: 'https://registry.example.com?x=1' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message: 'Invalid value: "https://registry.example.com?x=1": url must not contain query parameters',
      },
    ],
  },
  {
    title: '#13 remoteURL with a fragment',
    value: oneCache({ remoteURL: 'https://registry.example.com#frag' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message: 'Invalid value: "https://registry.example.com#frag": url must not contain a fragment',
      },
    ],
  },
  {
    title: '#14 remoteURL with a port that is no number',
    value: oneCache({ remoteURL: 'https://registry.example.com:abc' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message:
          'Invalid value: "https://registry.example.com:abc": ' +
          'failed to parse url: parse "https://registry.example.com:abc": invalid port ":abc" after host',
      },
    ],
  },
  {
    title: '#15 httpProxy without scheme',
    value: oneCache({ proxy: { httpProxy: 'proxy.corp:3128' } }),
    expected: [
      { path: ['caches', 0, 'proxy', 'httpProxy'], code: 'E_REGCACHE_URL', message: `Invalid value: "proxy.corp:3128": ${SCHEME}` },
    ],
  },
  {
    title: '#16 volume size "0"',
    value: oneCache({ volume: { size: '0' } }),
    expected: [{ path: ['caches', 0, 'volume', 'size'], code: 'E_QUANTITY', message: 'Invalid value: "0": must be greater than 0' }],
  },
  {
    title: '#16 volume size "-5Gi"',
    value: oneCache({ volume: { size: '-5Gi' } }),
    expected: [
      { path: ['caches', 0, 'volume', 'size'], code: 'E_QUANTITY', message: 'Invalid value: "-5Gi": must be greater than 0' },
    ],
  },
  {
    title: '#16 volume size "10GB"',
    value: oneCache({ volume: { size: '10GB' } }),
    expected: [
      {
        path: ['caches', 0, 'volume', 'size'],
        code: 'E_QUANTITY',
        message: `Invalid value: "10GB": ${QUANTITY_FORMAT_WRONG}`,
      },
    ],
  },
  {
    title: '#17 storageClassName with upper case and underscore',
    value: oneCache({ volume: { storageClassName: 'Premium_SSD' } }),
    expected: [
      {
        path: ['caches', 0, 'volume', 'storageClassName'],
        code: 'E_REGCACHE_STORAGE_CLASS',
        message: `Invalid value: "Premium_SSD": ${SUBDOMAIN}`,
      },
    ],
  },
  {
    title: '#18 negative ttl',
    value: oneCache({ garbageCollection: { ttl: '-1h' } }),
    expected: [
      {
        path: ['caches', 0, 'garbageCollection', 'ttl'],
        code: 'E_DURATION',
        message: 'Invalid value: "-1h0m0s": ttl must be a non-negative duration',
      },
    ],
  },
  {
    title: '#19 ttl in days',
    value: oneCache({ garbageCollection: { ttl: '7d' } }),
    expected: [
      {
        path: ['caches', 0, 'garbageCollection', 'ttl'],
        code: 'E_DURATION',
        message: 'Invalid value: "7d": time: unknown unit "d" in duration "7d"',
      },
    ],
  },
];

// Further cases of each rule.
const rules: Row[] = [
  // E_REGCACHE_UPSTREAM
  {
    title: 'upstream with an empty port',
    value: { caches: [{ upstream: 'docker.io:' }] },
    expected: [{ path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "docker.io:": ${SUBDOMAIN}` }],
  },
  {
    title: 'upstream with a bad host and a bad port (two faults, two messages, as GRC)',
    value: { caches: [{ upstream: 'My_Registry:0' }] },
    expected: [
      { path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "My_Registry:0": ${PORT('0')}` },
      { path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "My_Registry:0": ${SUBDOMAIN}` },
    ],
  },
  {
    title: 'upstream host longer than 253 bytes',
    value: { caches: [{ upstream: `${'a'.repeat(254)}:5000` }] },
    expected: [
      {
        path: ['caches', 0, 'upstream'],
        code: 'E_REGCACHE_UPSTREAM',
        message: `Invalid value: "${'a'.repeat(254)}:5000": must be no more than 253 characters`, // shown whole, as upstream shows it
      },
    ],
  },
  {
    title: 'upstream with user info (redacted)',
    value: { caches: [{ upstream: 'user:secret@docker.io' }] },
    expected: [
      { path: ['caches', 0, 'upstream'], code: 'E_REGCACHE_UPSTREAM', message: `Invalid value: "user:***@docker.io": ${SUBDOMAIN}` },
    ],
  },
  {
    title: 'upstream with a scheme and a path reports the scheme only',
    value: { caches: [{ upstream: 'https://ghcr.io/my-org' }] },
    expected: [
      {
        path: ['caches', 0, 'upstream'],
        code: 'E_REGCACHE_UPSTREAM',
        message: `Invalid value: "https://ghcr.io/my-org": ${SUBDOMAIN} (an upstream is host[:port], without scheme)`,
      },
    ],
  },
  // E_REGCACHE_DUPLICATE
  {
    title: 'three caches with the same upstream',
    value: { caches: [{ upstream: 'ghcr.io' }, { upstream: 'docker.io' }, { upstream: 'docker.io' }, { upstream: 'docker.io' }] },
    expected: [
      {
        path: ['caches', 2, 'upstream'],
        code: 'E_REGCACHE_DUPLICATE',
        message: 'Duplicate value: "docker.io" (first defined at caches[1])',
      },
      {
        path: ['caches', 3, 'upstream'],
        code: 'E_REGCACHE_DUPLICATE',
        message: 'Duplicate value: "docker.io" (first defined at caches[1])',
      },
    ],
  },
  {
    title: 'a disabled entry is still a duplicate in the same list',
    value: { caches: [{ upstream: 'docker.io' }, { upstream: 'docker.io', enabled: false }] },
    expected: [
      {
        path: ['caches', 1, 'upstream'],
        code: 'E_REGCACHE_DUPLICATE',
        message: 'Duplicate value: "docker.io" (first defined at caches[0])',
      },
    ],
  },
  // E_REGCACHE_URL
  {
    title: 'httpsProxy with user info, a path and a fragment',
    value: oneCache({ proxy: { httpsProxy: 'https://u:pw@proxy.corp/x#y' } }),
    expected: ['url must not contain a path', 'url must not contain user info', 'url must not contain a fragment'].map(
      (m) => ({
        path: ['caches', 0, 'proxy', 'httpsProxy'],
        code: 'E_REGCACHE_URL',
        message: `Invalid value: "https://u:***@proxy.corp/x#y": ${m}`,
      }),
    ),
  },
  {
    title: 'remoteURL that does not parse never echoes the password',
    value: oneCache({ remoteURL: 'https://u:secret@registry.example.com:abc' }),
    expected: [
      {
        path: ['caches', 0, 'remoteURL'],
        code: 'E_REGCACHE_URL',
        message:
          'Invalid value: "https://u:***@registry.example.com:abc": ' +
          'failed to parse url: parse "https://u:***@registry.example.com:abc": invalid port ":abc" after host',
      },
    ],
  },
  {
    title: 'remoteURL with port 0 and an upper-case host',
    value: oneCache({ remoteURL: 'https://Registry.example.com:0' }),
    expected: [PORT('0'), SUBDOMAIN].map((m) => ({
      path: ['caches', 0, 'remoteURL'],
      code: 'E_REGCACHE_URL',
      message: `Invalid value: "https://Registry.example.com:0": ${m}`,
    })),
  },
  {
    title: 'remoteURL without host',
    value: oneCache({ remoteURL: 'https://' }),
    expected: [{ path: ['caches', 0, 'remoteURL'], code: 'E_REGCACHE_URL', message: `Invalid value: "https://": ${SUBDOMAIN}` }],
  },
  // E_QUANTITY
  {
    title: 'volume size "0Gi"',
    value: oneCache({ volume: { size: '0Gi' } }),
    expected: [{ path: ['caches', 0, 'volume', 'size'], code: 'E_QUANTITY', message: 'Invalid value: "0": must be greater than 0' }],
  },
  {
    title: 'volume size "10gi"',
    value: oneCache({ volume: { size: '10gi' } }),
    expected: [
      {
        path: ['caches', 0, 'volume', 'size'],
        code: 'E_QUANTITY',
        message: `Invalid value: "10gi": ${QUANTITY_FORMAT_WRONG}`,
      },
    ],
  },
  // E_REGCACHE_STORAGE_CLASS
  {
    title: 'storageClassName with a trailing dot',
    value: oneCache({ volume: { storageClassName: 'fast.' } }),
    expected: [
      {
        path: ['caches', 0, 'volume', 'storageClassName'],
        code: 'E_REGCACHE_STORAGE_CLASS',
        message: `Invalid value: "fast.": ${SUBDOMAIN}`,
      },
    ],
  },
  // E_DURATION
  {
    title: 'ttl in ISO 8601',
    value: oneCache({ garbageCollection: { ttl: 'P7D' } }),
    expected: [
      {
        path: ['caches', 0, 'garbageCollection', 'ttl'],
        code: 'E_DURATION',
        message: 'Invalid value: "P7D": time: invalid duration "P7D"',
      },
    ],
  },
  {
    title: 'ttl that is no duration',
    value: oneCache({ garbageCollection: { ttl: 'abc' } }),
    expected: [
      {
        path: ['caches', 0, 'garbageCollection', 'ttl'],
        code: 'E_DURATION',
        message: 'Invalid value: "abc": time: invalid duration "abc"',
      },
    ],
  },
  {
    title: 'ttl without unit',
    value: oneCache({ garbageCollection: { ttl: '168' } }),
    expected: [
      {
        path: ['caches', 0, 'garbageCollection', 'ttl'],
        code: 'E_DURATION',
        message: 'Invalid value: "168": time: missing unit in duration "168"',
      },
    ],
  },
  // E_SECRET_NAME
  {
    title: 'secretReferenceName with KIM\'s reserved "reg-cache-"',
    value: oneCache({ secretReferenceName: 'reg-cache-docker' }),
    expected: [
      {
        path: ['caches', 0, 'secretReferenceName'],
        code: 'E_SECRET_NAME',
        message:
          'must not contain "reg-cache-": KIM reserves that for the secrets it copies to the Garden project ' +
          '(got "reg-cache-docker")',
      },
    ],
  },
  {
    title: 'secretReferenceName with "reg-cache-" in the middle',
    value: oneCache({ secretReferenceName: 'my-reg-cache-creds' }),
    expected: [
      {
        path: ['caches', 0, 'secretReferenceName'],
        code: 'E_SECRET_NAME',
        message:
          'must not contain "reg-cache-": KIM reserves that for the secrets it copies to the Garden project ' +
          '(got "my-reg-cache-creds")',
      },
    ],
  },
  {
    title: 'secretReferenceName that is no DNS-1123 subdomain',
    value: oneCache({ secretReferenceName: 'Docker_Creds' }),
    expected: [
      { path: ['caches', 0, 'secretReferenceName'], code: 'E_SECRET_NAME', message: `${SUBDOMAIN} (got "Docker_Creds")` },
    ],
  },
  {
    title: 'secretReferenceName with both faults',
    value: oneCache({ secretReferenceName: 'reg-cache-Docker' }),
    expected: [
      SUBDOMAIN,
      'must not contain "reg-cache-": KIM reserves that for the secrets it copies to the Garden project',
    ].map((m) => ({
      path: ['caches', 0, 'secretReferenceName'],
      code: 'E_SECRET_NAME',
      message: `${m} (got "reg-cache-Docker")`,
    })),
  },
  // E_REGCACHE_NAMESPACE
  {
    title: 'namespace in upper case',
    value: { namespace: 'Kyma-System' },
    expected: [{ path: ['namespace'], code: 'E_REGCACHE_NAMESPACE', message: `${LABEL} (got "Kyma-System")` }],
  },
  {
    title: 'namespace with a dot',
    value: { namespace: 'kyma.system' },
    expected: [{ path: ['namespace'], code: 'E_REGCACHE_NAMESPACE', message: 'must not contain dots (got "kyma.system")' }],
  },
  {
    title: 'empty namespace',
    value: { namespace: '' },
    expected: [{ path: ['namespace'], code: 'E_REGCACHE_NAMESPACE', message: `${LABEL} (got "")` }],
  },
];

describe('validateLayer: catalogue items of kyma-gardener-apis.md §10', () => {
  it.each(catalogue)('$title', ({ value, expected }) => {
    expect(layer(value)).toEqual(expected);
  });
});

describe('validateLayer: each rule', () => {
  it.each(rules)('$title', ({ value, expected }) => {
    expect(layer(value)).toEqual(expected);
  });
});

describe('validateLayer: valid values', () => {
  it.each([
    { title: 'an empty layer', value: {} },
    { title: 'only enabled', value: { enabled: true } },
    { title: 'a disabled extension', value: { enabled: false } },
    { title: 'an empty cache list', value: { caches: [] } },
    {
      title: 'every field set',
      value: {
        enabled: true,
        namespace: 'kyma-system',
        caches: [
          {
            upstream: 'docker.io',
            remoteURL: 'https://registry-1.docker.io',
            volume: { size: '100Gi', storageClassName: 'default' },
            garbageCollection: { ttl: '168h' },
            secretReferenceName: 'docker-hub-credentials',
            proxy: { httpProxy: 'http://proxy.corp.example:3128', httpsProxy: 'https://proxy.corp.example:3129/' },
            enabled: true,
          },
          { upstream: 'my-registry.io:5000', volume: { size: '1.5Gi' }, garbageCollection: { ttl: '0s' } },
          { upstream: 'ghcr.io', volume: { size: '+10Gi' }, garbageCollection: { ttl: '1h30m' } },
          { upstream: 'quay.io', enabled: false },
        ],
      },
    },
  ])('accepts $title', ({ value }) => {
    expect(layer(value)).toEqual([]);
  });
});

describe('validateLayer: values the schema reports', () => {
  it.each([
    { title: 'a numeric size', value: oneCache({ volume: { size: 10 } }) },
    { title: 'a numeric ttl', value: oneCache({ garbageCollection: { ttl: 168 } }) },
    { title: 'a numeric upstream', value: { caches: [{ upstream: 5000 }] } },
    { title: 'caches that is no list', value: { caches: 'docker.io' } },
    { title: 'a cache that is no map', value: { caches: [null, 'docker.io', ['x']] } },
    { title: 'volume that is no map', value: oneCache({ volume: '10Gi', garbageCollection: null, proxy: [] }) },
    { title: 'a namespace that is no string', value: { namespace: 42 } },
    { title: 'an upstream over the schema cap', value: { caches: [{ upstream: 'A'.repeat(260) }] } },
    { title: 'a remoteURL over the schema cap', value: oneCache({ remoteURL: `ftp://${'a'.repeat(2050)}` }) },
    { title: 'a storageClassName over the schema cap', value: oneCache({ volume: { storageClassName: 'A'.repeat(254) } }) },
    { title: 'a namespace over the schema cap', value: { namespace: 'N'.repeat(64) } },
  ])('leaves $title to the schema (no second report)', ({ value }) => {
    expect(layer(value)).toEqual([]);
  });

  it('counts code points like ajv: 200 × "é" is within the cap of 253 and checked by the rule', () => {
    const name = 'é'.repeat(200);
    expect(layer(oneCache({ secretReferenceName: name })).map((d) => d.message.slice(0, 36))).toEqual([
      'must be no more than 253 characters ',
      'a lowercase RFC 1123 subdomain must ',
    ]);
  });
});

describe('validateLayer: messages', () => {
  const all = [...catalogue, ...rules].flatMap((row) => layer(row.value));

  it('show the value: as apimachinery does where they mirror upstream, else ending with (got <value>)', () => {
    for (const d of all) {
      if (d.code === 'E_REGCACHE_DUPLICATE') continue;
      if (d.code === 'E_SECRET_NAME' || d.code === 'E_REGCACHE_NAMESPACE') expect(d.message).toMatch(/ \(got ".*"\)$/);
      else expect(d.message).toMatch(/^Invalid value: ".*": /);
    }
  });

  it('never contain a password from a URL', () => {
    const diags = layer({
      caches: [
        { upstream: 'u:hunter2@docker.io', remoteURL: 'https://u:hunter2@registry-1.docker.io/v2' },
        { upstream: 'ghcr.io', proxy: { httpProxy: 'http://u:hunter2@proxy:abc', httpsProxy: 'u:hunter2@proxy' } },
      ],
    });
    expect(diags.length).toBeGreaterThan(0);
    for (const d of diags) expect(d.message).not.toContain('hunter2');
  });
});

describe('validateResolved', () => {
  const NO_CACHES = {
    path: ['enabled'],
    code: 'E_REGCACHE_NO_CACHES',
    message: 'caches: Required value: at least one cache must be provided',
  };

  it.each([
    { title: '#7 an empty cache list', value: { enabled: true, caches: [] } },
    { title: 'no cache list', value: { enabled: true, namespace: 'kyma-system' } },
    { title: 'only disabled caches', value: { enabled: true, caches: [{ upstream: 'docker.io', enabled: false }] } },
  ])('refuses $title, at the layer that enabled the extension', ({ value }) => {
    expect(resolved(value)).toEqual([NO_CACHES]);
  });

  it.each([
    { title: 'one cache', value: { enabled: true, caches: [{ upstream: 'docker.io' }] } },
    {
      title: 'one enabled cache besides a disabled one',
      value: { enabled: true, caches: [{ upstream: 'docker.io', enabled: false }, { upstream: 'ghcr.io', enabled: true }] },
    },
    { title: 'a disabled extension', value: { enabled: false } },
  ])('accepts $title', ({ value }) => {
    expect(resolved(value)).toEqual([]);
  });
});
