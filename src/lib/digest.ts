// The content digest every stage keys by (parse cache, run record, dist/ index): sha256 as hex.
// crypto.hash (Node 20.12+) is the one-shot form: half the cost of createHash for the 100,000+
// small files of a fleet's dist/.

import * as crypto from 'node:crypto';

const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

export function sha256(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}
