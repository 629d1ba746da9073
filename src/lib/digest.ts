// The content digest every stage keys by (parse cache, run record, dist/ index): sha256 as hex.

import { createHash } from 'node:crypto';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
