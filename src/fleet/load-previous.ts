// Reads the previous render (the skr/ folders of an existing dist/) for transition rules such as
// "a cache's volume size is immutable". I/O at the edge of validation; an absent or foreign
// dist/ simply means "no previous render". Only files the dist/ index lists are read.

import * as path from 'node:path';
import { parse } from 'yaml';
import { readCurrentDist } from '../write/read-dist';
import type { PreviousRender } from './resolved-rules';

export function loadPreviousRender(outDir: string): PreviousRender {
  const out = new Map<string, Record<string, unknown>[]>();
  const current = readCurrentDist(path.resolve(outDir));
  for (const [file, content] of current.files) {
    const m = /^runtimes\/([^/]+)\/skr\/(?!kustomization\.yaml$)[^/]+\.yaml$/.exec(file);
    if (!m) continue;
    try {
      const doc = parse(content, { version: '1.2', schema: 'core', maxAliasCount: 0, uniqueKeys: true }) as unknown;
      if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
        const list = out.get(m[1]!) ?? [];
        list.push(doc as Record<string, unknown>);
        out.set(m[1]!, list);
      }
    } catch {
      // A damaged previous render cannot veto a change; synth rewrites it.
    }
  }
  return out;
}
