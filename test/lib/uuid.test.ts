// uuidV5 against the RFC 9562 test vector and the namespace constant it documents: the Runtime CR's
// cache uids are derived with it and must never change between releases.

import { describe, expect, it } from 'vitest';
import { KYMA_FLEET_NAMESPACE, uuidV5 } from '../../src/lib/uuid';

const DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('matches the RFC 9562 example (DNS namespace, www.example.com)', () => {
    expect(uuidV5('www.example.com', DNS)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('derives the kyma-fleet namespace from the DNS namespace and kyma-fleet.dev', () => {
    expect(uuidV5('kyma-fleet.dev', DNS)).toBe(KYMA_FLEET_NAMESPACE);
  });

  it('hashes names as UTF-8 and is stable per name', () => {
    expect(uuidV5('registry-cache/ä/docker.io')).toBe(uuidV5('registry-cache/ä/docker.io'));
    expect(uuidV5('registry-cache/ä/docker.io')).not.toBe(uuidV5('registry-cache/a/docker.io'));
    expect(uuidV5('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses a malformed namespace', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(/invalid namespace UUID/);
  });
});
