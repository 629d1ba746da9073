// Reads the previous render (a runtime's skr/ folder in an existing dist/) for transition rules
// such as "a cache's volume size is immutable". I/O at the edge of validation, lazily per runtime;
// an absent or foreign dist/ simply means "no previous render". Only files the index lists are read.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { readDistIndex } from '../write/index-file';

export type PreviousManifests = (runtimeName: string) => readonly Record<string, unknown>[] | undefined;

export function previousRenderReader(outDir: string): PreviousManifests {
  const index = readDistIndex(path.resolve(outDir));
  if (!index) return () => undefined;
  const byRuntime = new Map<string, string[]>();
  for (const rel of Object.keys(index.files)) {
    const m = /^runtimes\/([^/]+)\/skr\/(?!kustomization\.yaml$)[^/]+\.yaml$/.exec(rel);
    if (m) byRuntime.set(m[1]!, [...(byRuntime.get(m[1]!) ?? []), rel]);
  }
  return (name) => {
    const files = byRuntime.get(name);
    if (!files) return undefined;
    const out: Record<string, unknown>[] = [];
    for (const rel of files) {
      try {
        const doc = parse(fs.readFileSync(path.join(outDir, ...rel.split('/')), 'utf8'), { version: '1.2', schema: 'core', maxAliasCount: 0, uniqueKeys: true }) as unknown;
        if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) out.push(doc as Record<string, unknown>);
      } catch {
        // A damaged or missing previous file cannot veto a change; synth rewrites it.
      }
    }
    return out;
  };
}
