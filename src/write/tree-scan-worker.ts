// Entry point of a worker thread of a dist/ scan (./tree-scan.ts): one range of runtime folders,
// listed and hashed against its index lines; the reply goes back through lib/sync-workers.ts.

import { isMainThread } from 'node:worker_threads';
import { serveSyncTask } from '../lib/sync-workers';
import { scanPart, type ScanPartInput, type ScanPartResult } from './tree-scan';

if (!isMainThread) serveSyncTask<ScanPartInput, ScanPartResult>((input, beat) => scanPart(input, beat));
