// Entry point of a worker thread of a dist/ scan (./tree-scan.ts): one range of runtime folders,
// listed and hashed against its index lines, or one range of listed files looked at for their
// times (touchedSince); the reply goes back through lib/sync-workers.ts.

import { isMainThread } from 'node:worker_threads';
import { serveSyncTask } from '../lib/sync-workers';
import { scanPart, type ScanPartInput, type ScanPartResult, touchedPart, type TouchedPartInput } from './tree-scan';

if (!isMainThread) {
  serveSyncTask<ScanPartInput | TouchedPartInput, ScanPartResult | boolean>((input, beat) => ('names' in input ? scanPart(input, beat) : touchedPart(input)));
}
