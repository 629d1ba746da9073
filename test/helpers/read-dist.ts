// The tests' reference reader of a whole dist/: the files kyma-fleet owns (those its index lists),
// read one by one. synth --check and diff stage only what differs (DistSession.preview); tests compare
// their reports with what this reader sees. Never follows a symlink out of dist/; a missing dist/ reads as empty.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { readDistIndex } from '../../src/lib/dist-index';
import { indexParts, VERSION_END } from '../../src/lib/index-text';

export interface CurrentDist {
  /** relPath -> content of every owned file that exists. */
  readonly files: Map<string, string>;
  /** True when dist/ exists but has no readable index (not written by kyma-fleet). */
  readonly unowned: boolean;
}

export function readCurrentDist(outDir: string): CurrentDist {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(outDir);
  } catch {
    return { files: new Map(), unowned: false };
  }
  if (!stat.isDirectory()) return { files: new Map(), unowned: true };
  const index = readDistIndex(outDir);
  if (!index) return { files: new Map(), unowned: fs.readdirSync(outDir).length > 0 };
  const files = new Map<string, string>();
  for (const rel of Object.keys(index.files)) {
    const abs = path.join(outDir, ...rel.split('/'));
    try {
      if (fs.lstatSync(abs).isFile()) files.set(rel, fs.readFileSync(abs, 'utf8'));
    } catch {
      // listed but gone: reported as a difference by the caller
    }
  }
  return { files, unowned: false };
}

/**
 * dist/'s index text without its inputs section (src/run/committed-record.ts): what the files are,
 * not how they were rendered. For tests that compare two renders made from different fleet-wide
 * inputs (another build, a rollout state, a fleet.yaml with rings) that must give the same files.
 */
export function indexWithoutRecord(text: string): string {
  const parts = indexParts(text);
  return parts && parts.inputs !== '' ? text.slice(0, parts.prefixEnd) + VERSION_END : text;
}
