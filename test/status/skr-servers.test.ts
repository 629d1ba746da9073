// The allow list of runtime API servers (src/lib/skr-servers.ts), table-driven: which patterns
// fleet.yaml may declare, and which kubeconfig server URLs they let through. The hostile rows are
// URLs that a substring or regex match would let through, or that point the client elsewhere than
// they seem to (query, fragment, path, user info, backslash, ports, case, lookalike suffixes).

import { describe, expect, it } from 'vitest';
import { checkSkrServer, parseSkrServerPattern, parseSkrServerPatterns } from '../../src/lib/skr-servers';
import { FleetFixture } from '../helpers/fleet-fixture';

describe('parseSkrServerPattern', () => {
  it.each([
    ['*.kyma.ondemand.com', { host: 'kyma.ondemand.com', wildcard: true, port: undefined }],
    ['api.c-1a2b3c.kyma.ondemand.com', { host: 'api.c-1a2b3c.kyma.ondemand.com', wildcard: false, port: undefined }],
    ['*.Kyma.OnDemand.com:6443', { host: 'kyma.ondemand.com', wildcard: true, port: 6443 }],
    ['127.0.0.1:*', { host: '127.0.0.1', wildcard: false, port: '*' }],
    ['[::1]:*', { host: '[::1]', wildcard: false, port: '*' }],
    ['[0:0::1]', { host: '[::1]', wildcard: false, port: undefined }],
  ])('accepts %s', (text, expected) => {
    expect(parseSkrServerPattern(text)).toEqual({ text, ...expected });
  });

  it.each([
    ['', /1 to 260 characters/],
    ['https://api.example.com', /not a URL/],
    ['api.example.com/path', /not a URL/],
    ['user@api.example.com', /not a URL/],
    ['*.com', /every host of a top-level domain/],
    ['*', /only as the whole leftmost label/],
    ['api.*.example.com', /only as the whole leftmost label/],
    ['**.example.com', /only as the whole leftmost label/],
    ['a..example.com', /not a valid DNS name/],
    ['-a.example.com', /not a valid DNS name/],
    ['example.com.', /not a valid DNS name/],
    ['1.2.3', /not a valid DNS name/],
    ['*.10.0.0.1', /not a valid DNS name|needs a domain name/],
    ['*.127.0.0.1', /needs a domain name, not an IP address/],
    ['::1', /in brackets/],
    ['[::1', /in brackets/],
    ['api.example.com:0', /port must be 1 to 65535/],
    ['api.example.com:65536', /port must be 1 to 65535/],
    ['api.example.com:08', /port must be 1 to 65535/],
    ['api.example.com:1:2', /a port goes last/],
    ['api example.com', /not a URL/],
  ])('refuses %j', (text, why) => {
    const r = parseSkrServerPattern(text);
    expect(typeof r).toBe('string');
    expect(r).toMatch(why);
  });

  it('parseSkrServerPatterns throws RangeError for an invalid pattern', () => {
    expect(() => parseSkrServerPatterns(['*.kyma.ondemand.com', '*.com'])).toThrow(RangeError);
  });
});

describe('checkSkrServer', () => {
  const landscape = parseSkrServerPatterns(['*.kyma.ondemand.com']);
  type Row = readonly [url: string, allowed: boolean, host?: string];

  const LANDSCAPE: Row[] = [
    ['https://api.c-1a2b3c.kyma.ondemand.com', true],
    ['https://api.c-1a2b3c.kyma.ondemand.com/', true],
    ['https://api.c-1a2b3c.kyma.ondemand.com:443', true], // the default port written out
    ['https://API.C-1A2B3C.KYMA.ONDEMAND.COM', true], // DNS names ignore case
    ['https://api.c-1a2b3c.kyma.ondemand.com.', true], // the fully qualified form of the same name
    ['https://api%2Ec-1.kyma.ondemand.com', true], // percent-decoded: the same host the client reaches
    ['https://a.b.c.kyma.ondemand.com/some/prefix', true],
    ['https://kyma.ondemand.com', false, 'kyma.ondemand.com'], // the domain itself is not below it
    ['https://api.evil.example/?x=.kyma.ondemand.com', false, 'api.evil.example'],
    ['https://api.evil.example/.kyma.ondemand.com', false, 'api.evil.example'],
    ['https://api.evil.example#.kyma.ondemand.com', false, 'api.evil.example'],
    ['https://api.evil.example?.kyma.ondemand.com', false, 'api.evil.example'],
    ['https://api.c-1.kyma.ondemand.com@evil.example', false, 'evil.example'],
    ['https://api.c-1.kyma.ondemand.com:pw@evil.example', false, 'evil.example'],
    ['https://evil.example\\@api.c-1.kyma.ondemand.com', false, 'evil.example'],
    ['https://evil.example\\.kyma.ondemand.com', false, 'evil.example'],
    ['https://api.c-1.kyma.ondemand.com:6443', false, 'api.c-1.kyma.ondemand.com:6443'],
    ['https://api.c-1.kyma.ondemand.com:443.evil.example', false], // not a URL at all
    ['http://api.c-1.kyma.ondemand.com', false, 'api.c-1.kyma.ondemand.com'], // port 80
    ['https://evilkyma.ondemand.com', false, 'evilkyma.ondemand.com'],
    ['https://api.kyma.ondemand.com.evil.example', false, 'api.kyma.ondemand.com.evil.example'],
    ['https://api.kyma.ondemand.com%2F.evil.example', false],
    ['https://api.kyma.ondemand.com%00.evil.example', false],
    ['https://a.kyma.ondemand.com\u3002evil.example', false, 'a.kyma.ondemand.com.evil.example'], // ideographic full stop
    ['https://10.0.0.1', false, '10.0.0.1'],
    ['https://169.254.169.254', false, '169.254.169.254'],
    ['file:///etc/passwd', false],
    ['https://', false],
    ['not a url', false, '(unparsable)'],
  ];

  it.each(LANDSCAPE)('*.kyma.ondemand.com: %s → allowed %s', (url, allowed, host) => {
    const r = checkSkrServer(url, landscape);
    expect(r.ok).toBe(allowed);
    if (!r.ok && host !== undefined) expect(r.host).toBe(host);
  });

  const LOCAL: Row[] = [
    ['https://127.0.0.1:6443', true],
    ['http://127.0.0.1:38211', true],
    ['https://2130706433:6443', true], // the same address as a number
    ['http://0x7f.0.0.1:1', true],
    ['http://[::1]:8080', true],
    ['http://[0:0::1]:8080', true],
    ['http://localhost:38211', false, 'localhost:38211'], // a name is not the address it may resolve to
    ['http://127.0.0.2:38211', false, '127.0.0.2:38211'],
    ['http://127.0.0.1.evil.example:1', false, '127.0.0.1.evil.example:1'],
    ['http://[::2]:1', false, '[::2]:1'],
  ];
  const local = parseSkrServerPatterns(['127.0.0.1:*', '[::1]:*']);

  it.each(LOCAL)('127.0.0.1:*, [::1]:*: %s → allowed %s', (url, allowed, host) => {
    const r = checkSkrServer(url, local);
    expect(r.ok).toBe(allowed);
    if (!r.ok && host !== undefined) expect(r.host).toBe(host);
  });

  it('an exact host allows only that host, and a port pattern only that port', () => {
    const exact = parseSkrServerPatterns(['api.example.com', 'alt.example.com:6443']);
    expect(checkSkrServer('https://api.example.com', exact).ok).toBe(true);
    expect(checkSkrServer('https://x.api.example.com', exact).ok).toBe(false);
    expect(checkSkrServer('https://api.example.com:6443', exact).ok).toBe(false);
    expect(checkSkrServer('https://alt.example.com:6443', exact).ok).toBe(true);
    expect(checkSkrServer('https://alt.example.com', exact).ok).toBe(false);
  });

  it('no patterns allow nothing', () => {
    expect(checkSkrServer('https://api.c-1.kyma.ondemand.com', []).ok).toBe(false);
  });
});

describe('fleet.yaml spec.skrApiServers', () => {
  it('the example fleet declares the landscape\'s domain, and validates', async () => {
    const fx = FleetFixture.example();
    try {
      expect(fx.read('fleet.yaml')).toContain('  skrApiServers:\n    - "*.kyma.ondemand.com"\n');
      expect((await fx.validate()).code).toBe(0);
    } finally {
      fx.cleanup();
    }
  });

  it('validates every pattern, reporting each bad one at its position; a valid list passes', async () => {
    const fx = FleetFixture.example();
    try {
      fx.replace('fleet.yaml', '  skrApiServers:\n    - "*.kyma.ondemand.com"\n', '  skrApiServers: ["*.com", "*.kyma.ondemand.com", "https://x.example.com"]\n');
      const line = fx.read('fleet.yaml').split('\n').findIndex((l) => l.startsWith('  skrApiServers: [')) + 1;
      const bad = await fx.validate();
      expect(bad.code).toBe(1);
      expect(bad.errLines).toEqual([
        `fleet/fleet.yaml:${line}:19: error at skrApiServers[0]: "*.com" would allow every host of a top-level domain; name the landscape's domain (got "*.com") [E_SKR_API_SERVER]`,
        `fleet/fleet.yaml:${line}:51: error at skrApiServers[2]: must be a host pattern such as "*.kyma.ondemand.com" or "api.example.com:6443", not a URL (got "https://x.example.com") [E_SKR_API_SERVER]`,
        'fleet: 2 errors',
      ]);
      fx.replace('fleet.yaml', '["*.com", "*.kyma.ondemand.com", "https://x.example.com"]', '["*.kyma.ondemand.com", "127.0.0.1:*"]');
      expect((await fx.validate()).code).toBe(0);
    } finally {
      fx.cleanup();
    }
  });
});
