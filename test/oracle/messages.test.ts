// Messages of the registry-cache rules that mirror an upstream rule, compared with upstream's through
// the oracle (issue 16): for each input, kyma-fleet's message must carry upstream's field error text
// `<type>: <value>: <detail>` exactly as apimachinery prints it (kyma-fleet puts file:line:col and its
// own path in front, and redacts user info in URLs); where upstream refuses while decoding
// (quantities and durations Go cannot parse), `Invalid value: "<value>": <upstream's decode error>`.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateLayer, validateResolved } from '../../src/extensions/registry-cache/rules';
import { goQuote, redactUserInfo } from '../../src/lib/url-rules';
import { describeWithOracle } from './describe-with-oracle';
import { Oracle } from './oracle';
import { providerConfigOf } from './registry-cache-verdicts';

type Rec = Record<string, unknown>;

interface Row {
  rule: string;
  /** One cache (or a list for duplicates); [] for "no caches". */
  caches: Rec[];
}

const ROWS: Row[] = [
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'Docker.io' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'https://docker.io' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'ghcr.io/my-org' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: '' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: `${'a'.repeat(63)}.${'a'.repeat(63)}.${'a'.repeat(63)}.${'c'.repeat(62)}` }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'my-reg.io:0' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'my-reg.io:65536' }] },
  { rule: 'E_REGCACHE_UPSTREAM', caches: [{ upstream: 'reg.example.com.' }] },
  { rule: 'E_REGCACHE_DUPLICATE', caches: [{ upstream: 'quay.io' }, { upstream: 'quay.io' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'ftp://ghcr.io' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io/v2' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://u:p@ghcr.io' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io?x=1' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io#f' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io:65536' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', remoteURL: 'https://ghcr.io/%zz' }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', proxy: { httpProxy: 'proxy.corp:3128' } }] },
  { rule: 'E_REGCACHE_URL', caches: [{ upstream: 'ghcr.io', proxy: { httpsProxy: 'http://proxy.corp:3128/path' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '0' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1Gi' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1.5Gi' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-0.001' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1000' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1e3' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1500Mi' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '0.0Gi' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-1E3' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-2048Ki' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-0.5Ki' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-9Ei' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '-0.0000000001' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '10GB' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '1K' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '1e1.5' } }] },
  { rule: 'E_QUANTITY', caches: [{ upstream: 'ghcr.io', volume: { size: '' } }] },
  { rule: 'E_REGCACHE_STORAGE_CLASS', caches: [{ upstream: 'ghcr.io', volume: { storageClassName: 'Premium_SSD' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '7d' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '1x' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '-1h' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '-90.5s' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '-1500us' } }] },
  { rule: 'E_REGCACHE_NO_CACHES', caches: [] },
];

function ourMessages(caches: Rec[]): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = [];
  const reporter = { report: (_path: unknown, code: string, message: string) => out.push({ code, message }) };
  validateLayer({ caches }, reporter);
  validateResolved({ enabled: true, caches }, reporter);
  return out;
}

describeWithOracle('registry-cache messages carry upstream field error texts', () => {
  let oracle: Oracle;
  beforeAll(async () => {
    oracle = await Oracle.start();
  });
  afterAll(async () => {
    await oracle?.close();
  });

  it.each(ROWS.map((r) => [r.rule, JSON.stringify(r.caches), r] as const))('%s %s', async (rule, _caches, row) => {
    const upstream = await oracle.ask('registry-cache/validate-config', { providerConfig: providerConfigOf(row.caches), fieldPath: ['spec'] });
    const ours = ourMessages(row.caches).filter((m) => m.code === rule);
    expect(ours.length, 'kyma-fleet reports the rule').toBeGreaterThan(0);
    const texts = ours.map((m) => m.message);
    if (upstream.decodeError !== undefined) {
      const reason = upstream.decodeError.replace(/^failed to decode providerConfig: /, '');
      const cache = row.caches[0] as { volume?: { size?: string }; garbageCollection?: { ttl?: string } };
      const value = cache.volume?.size ?? cache.garbageCollection?.ttl ?? '';
      expect(texts.join('\n')).toContain(`Invalid value: ${goQuote(value)}: ${reason}`);
      return;
    }
    expect(upstream.fieldErrors.length, 'upstream refuses it too').toBeGreaterThan(0);
    for (const fe of upstream.fieldErrors) {
      // Upstream's `<path>: ` replaced by ours; the value's user info redacted as in every message.
      const body = fe.error.slice(fe.field.length + 2);
      const redacted = typeof fe.badValue === 'string' ? body.replace(goQuote(fe.badValue), goQuote(redactUserInfo(fe.badValue))) : body;
      expect(texts.some((t) => t.includes(redacted)), `upstream: ${fe.error}\nkyma-fleet: ${texts.join('\n  ')}`).toBe(true);
    }
  });
});
