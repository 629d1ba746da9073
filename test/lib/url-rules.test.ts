import { describe, it, expect } from 'vitest';
import { DNS1123_SUBDOMAIN_MESSAGE as SUBDOMAIN } from '../../src/lib/k8s-names';
import { goQuote, hostPortErrors, httpURLErrors, parseGoURL, redactUserInfo } from '../../src/lib/url-rules';

const PORT = (p: string) => `port '${p}' is not valid, valid port must be in the range [1, 65535]`;

describe('hostPortErrors (GRC validateHostPort)', () => {
  it.each(['docker.io', 'docker.io:5000', 'my-registry.io:1', 'my-registry.io:65535', 'localhost'])(
    'accepts %j',
    (hostPort) => {
      expect(hostPortErrors(hostPort)).toEqual([]);
    },
  );

  it.each([
    ['my-registry.io:0', [PORT('0')]],
    ['my-registry.io:65536', [PORT('65536')]],
    ['my-registry.io:08080', [PORT('08080')]],
    ['My_Registry:0', [PORT('0'), SUBDOMAIN]],
    ['Docker.IO', [SUBDOMAIN]],
    // Only an all-digit tail is a port; the rest stays in the host and fails as a host.
    ['docker.io:abc', [SUBDOMAIN]],
    ['docker.io:', [SUBDOMAIN]],
    [':5000', [SUBDOMAIN]],
    ['', [SUBDOMAIN]],
    [`${'a'.repeat(254)}:5000`, ['must be no more than 253 characters']],
  ])('refuses %j', (hostPort, messages) => {
    expect(hostPortErrors(hostPort)).toEqual(messages);
  });
});

describe('parseGoURL (Go net/url.Parse)', () => {
  it('splits a full URL as Go does', () => {
    expect(parseGoURL('HTTPS://User:Pw@Host.example:8080/p%41?q=1#f%41')).toEqual({
      ok: true,
      url: {
        scheme: 'https',
        opaque: '',
        user: { username: 'User', password: 'Pw' },
        host: 'Host.example:8080',
        path: '/pA',
        rawQuery: 'q=1',
        fragment: 'fA',
      },
    });
  });

  it.each([
    ['registry-1.docker.io', { scheme: '', opaque: '', host: '', path: 'registry-1.docker.io', rawQuery: '' }],
    ['proxy.corp:3128', { scheme: 'proxy.corp', opaque: '3128', host: '', path: '', rawQuery: '' }],
    ['https://host?', { scheme: 'https', opaque: '', host: 'host', path: '', rawQuery: '' }],
    ['https://token@host', { scheme: 'https', opaque: '', user: { username: 'token' }, host: 'host', path: '', rawQuery: '' }],
    ['https://[::1]:443/', { scheme: 'https', opaque: '', host: '[::1]:443', path: '/', rawQuery: '' }],
    ['//host/x', { scheme: '', opaque: '', host: 'host', path: '/x', rawQuery: '' }],
  ])('parses %j', (raw, url) => {
    expect(parseGoURL(raw)).toEqual({ ok: true, url: { ...url, fragment: '' } });
  });

  it.each([
    ['https://registry.example.com:abc', 'parse "https://registry.example.com:abc": invalid port ":abc" after host'],
    ['https://registry.example.com:abc#x', 'parse "https://registry.example.com:abc": invalid port ":abc" after host'],
    [':foo', 'parse ":foo": missing protocol scheme'],
    ['1.2.3.4:5000', 'parse "1.2.3.4:5000": first path segment in URL cannot contain colon'],
    ['https://a b.example', 'parse "https://a b.example": invalid character " " in host name'],
    ['https://a{b', 'parse "https://a{b": invalid character "{" in host name'],
    ['https://a%41b', 'parse "https://a%41b": invalid URL escape "%41"'],
    ['https://host/%zz', 'parse "https://host/%zz": invalid URL escape "%zz"'],
    ['https://host/%4', 'parse "https://host/%4": invalid URL escape "%4"'],
    ['https://host#%zz', 'parse "https://host#%zz": invalid URL escape "%zz"'],
    ['https://ho\nst', 'parse "https://ho\\nst": net/url: invalid control character in URL'],
    ['https://[::1', 'parse "https://[::1": missing \']\' in host'],
    ['https://[::1]x', 'parse "https://[::1]x": invalid port "x" after host'],
    // User info never shows up, not even a piece of a bad escape.
    ['https://u:p%zz@host', 'parse "https://u:***@host": invalid URL escape "***"'],
    ['https://u:p^w@host', 'parse "https://u:***@host": net/url: invalid userinfo'],
    ['https://u:secret@host:abc', 'parse "https://u:***@host:abc": invalid port ":abc" after host'],
  ])('refuses %j with Go\'s message', (raw, error) => {
    expect(parseGoURL(raw)).toEqual({ ok: false, error });
  });

  it('shortens a long URL inside the message', () => {
    const raw = `https://${'a'.repeat(300)}:x`;
    const result = parseGoURL(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBe(`parse "https://${'a'.repeat(67)}…:x": invalid port ":x" after host`);
    }
  });
});

describe('httpURLErrors (GRC ValidateURL)', () => {
  it.each([
    'https://registry-1.docker.io',
    'http://proxy.corp.example:3128',
    'https://my-registry.io:5000/',
    'HTTPS://registry.example.com',
    'https://registry.example.com?',
    'https://registry.example.com#',
  ])('accepts %j', (raw) => {
    expect(httpURLErrors(raw)).toEqual([]);
  });

  it.each([
    ['registry-1.docker.io', ["url must start with 'http://' or 'https://' scheme"]],
    ['ftp://my-registry.io', ["url must start with 'http://' or 'https://' scheme"]],
    ['proxy.corp:3128', ["url must start with 'http://' or 'https://' scheme"]],
    ['', ["url must start with 'http://' or 'https://' scheme"]],
    ['https://registry.example.com/v2/', ['url must not contain a path']],
    ['https://registry.example.com//', ['url must not contain a path']],
    ['https://user:pw@registry.example.com', ['url must not contain user info']],
    ['https://registry.example.com?x=1', ['url must not contain query parameters']],
    ['https://registry.example.com#frag', ['url must not contain a fragment']],
    [
      'https://registry.example.com:abc',
      ['failed to parse url: parse "https://registry.example.com:abc": invalid port ":abc" after host'],
    ],
    ['https://Registry.example.com:0', [PORT('0'), SUBDOMAIN]],
    ['https://', [SUBDOMAIN]],
    ['https://[::1]:443', [SUBDOMAIN]],
    [
      'https://u:p@Host/x?y#z',
      [
        SUBDOMAIN,
        'url must not contain a path',
        'url must not contain user info',
        'url must not contain query parameters',
        'url must not contain a fragment',
      ],
    ],
  ])('refuses %j', (raw, messages) => {
    expect(httpURLErrors(raw)).toEqual(messages);
  });

  it('allows a path when asked to', () => {
    expect(httpURLErrors('https://registry.example.com/v2/', { allowPath: true })).toEqual([]);
  });
});

describe('redactUserInfo', () => {
  it.each([
    ['https://user:pw@registry.example.com', 'https://user:***@registry.example.com'],
    ['https://user:p:w@host/x', 'https://user:***@host/x'],
    ['https://user:p@ss@host', 'https://user:***@host'],
    ['https://ghp_token@host', 'https://***@host'],
    ['user:pw@docker.io', 'user:***@docker.io'],
    ['https://registry.example.com', 'https://registry.example.com'],
    ['docker.io', 'docker.io'],
    ['', ''],
  ])('redacts %j', (raw, redacted) => {
    expect(redactUserInfo(raw)).toBe(redacted);
  });
});

describe('goQuote (strconv.Quote)', () => {
  it.each([
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\n\t', '"\\n\\t"'],
    ['\x01\x7f', '"\\x01\\x7f"'],
    ['é', '"é"'],
    ['\u200b', '"\\u200b"'],
  ])('quotes %j', (s, quoted) => {
    expect(goQuote(s)).toBe(quoted);
  });
});
