// Name-based UUIDs (RFC 9562 version 5, SHA-1): stable identifiers derived from data, e.g. the
// `uid` of an entry an extension writes into a Runtime CR, which must not change between renders.

import * as crypto from 'node:crypto';

/** The kyma-fleet namespace: uuidV5(DNS namespace, "kyma-fleet.dev"). */
export const KYMA_FLEET_NAMESPACE = '7fbec522-3d71-52eb-874e-f1b60cbb4401';

const namespaces = new Map<string, Buffer>();
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer }).hash;

export function uuidV5(name: string, namespace: string = KYMA_FLEET_NAMESPACE): string {
  let ns = namespaces.get(namespace);
  if (!ns) {
    ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (ns.length !== 16 || !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(namespace)) throw new Error(`invalid namespace UUID ${namespace}`);
    namespaces.set(namespace, ns);
  }
  const data = Buffer.concat([ns, Buffer.from(name, 'utf8')]);
  const b = oneShot ? oneShot('sha1', data, 'buffer') : crypto.createHash('sha1').update(data).digest();
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex', 0, 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
