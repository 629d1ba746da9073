// Entry point of a worker thread of a dist/ scan (./tree-scan.ts): one range of runtime folders,
// listed and hashed against its index lines, or one range of listed files looked at for their
// times (touchedSince); the reply goes back through lib/sync-workers.ts. A warm worker may first
// list and stamp the fleet's runtimes/ for the loader (its prelude, src/run/plan.ts).

import { isMainThread } from 'node:worker_threads';
import { serveSyncTask } from '../lib/sync-workers';
import { listStamped } from '../load/folder-walk';
import { type RuntimesListingInput, scanPart, type ScanPartInput, type ScanPartResult, touchedPart, type TouchedPartInput } from './tree-scan';

if (!isMainThread) {
  serveSyncTask<ScanPartInput | TouchedPartInput, ScanPartResult | boolean>(
    (input, beat) => ('names' in input ? scanPart(input, beat) : touchedPart(input)),
    (input) => listStamped((input as RuntimesListingInput).fleetDir, (input as RuntimesListingInput).runStart),
  );
}
