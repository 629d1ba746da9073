// Reads the previous render (a runtime's skr/ folder in an existing dist/) for transition rules
// such as "a cache's volume size is immutable". I/O at the edge of validation, lazily per runtime;
// an absent or foreign dist/ simply means "no previous render". Only files the index lists are read.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { type DistIndex, readDistIndex } from '../write/index-file';

export type PreviousManifests = (runtimeName: string) => readonly Record<string, unknown>[] | undefined;

export function previousRenderReader(outDir: string): PreviousManifests {
  // The index is read on the first question only: a run whose runtimes are all unchanged asks none.
  let index: DistIndex | undefined | null = null;
  return (name) => {
    if (index === null) index = readDistIndex(path.resolve(outDir));
    if (!index) return undefined;
    let names: string[];
    try {
      names = fs.readdirSync(path.join(outDir, 'runtimes', name, 'skr'));
    } catch {
      return undefined;
    }
    const files = names
      .sort()
      .map((n) => `runtimes/${name}/skr/${n}`)
      .filter((rel) => /\.yaml$/.test(rel) && !rel.endsWith('/kustomization.yaml') && Object.hasOwn(index!.files, rel));
    if (files.length === 0) return undefined;
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
