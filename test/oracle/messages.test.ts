// Messages of the registry-cache rules that mirror an upstream rule, compared with upstream's through
// the oracle (issue 16): for each input, kyma-fleet's message must carry upstream's field error detail
// and value as apimachinery prints them (`<type>: <value>: <detail>`; kyma-fleet puts its own path
// and file:line:col in front, and writes the value as ` (got "<value>")`, with user info redacted),
// or, where upstream refuses at decoding, upstream's decode error text. Not yet in the table (our
// texts differ today): an upstream with a scheme or a path (ours: "must be a host[:port] without
// scheme", upstream: the DNS-1123 subdomain detail) and a quantity that does not parse (ours: "must be
// a Kubernetes quantity such as 10Gi", upstream: "quantities must match the regular expression ...").

import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateLayer, validateResolved } from '../../src/extensions/registry-cache/rules';
import { redactUserInfo } from '../../src/lib/url-rules';
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
  { rule: 'E_REGCACHE_STORAGE_CLASS', caches: [{ upstream: 'ghcr.io', volume: { storageClassName: 'Premium_SSD' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '7d' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '1x' } }] },
  { rule: 'E_DURATION', caches: [{ upstream: 'ghcr.io', garbageCollection: { ttl: '' } }] },
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
    if (upstream.decodeError !== undefined) {
      // Refused while decoding (quantities and durations that do not parse): upstream's reason.
      const reason = upstream.decodeError.replace(/^failed to decode providerConfig: /, '');
      expect(ours.map((m) => m.message).join('\n')).toContain(reason);
      return;
    }
    expect(upstream.fieldErrors.length, 'upstream refuses it too').toBeGreaterThan(0);
    for (const fe of upstream.fieldErrors) {
      // `<path>: <type>: <value>: <detail>`: our message carries `<type>: <value>` for Duplicate and
      // Required, and `<detail> (got <value>)` for Invalid (value redacted like every message).
      const body = fe.error.slice(fe.field.length + 2);
      const carried = ours.some((m) => {
        if (fe.type === 'FieldValueDuplicate' || fe.type === 'FieldValueRequired') return m.message.includes(body);
        return m.message.includes(fe.detail) && m.message.includes(`(got ${JSON.stringify(redactUserInfo(String(fe.badValue)))})`.slice(0, 40));
      });
      expect(carried, `upstream: ${fe.error}\nkyma-fleet: ${ours.map((m) => m.message).join('\n  ')}`).toBe(true);
    }
  });
});
