// Reads the previous render (a runtime's skr-config/ folder in an existing dist/, and its skr/
// folder, where a dist/ rendered before the two-step SKR layout kept the config objects) for
// transition rules such as "a cache's volume size is immutable". I/O at the edge of validation, lazily per runtime;
// an absent or foreign dist/ simply means "no previous render". Only files the index lists are read,
// and only with the bytes the index records: a file edited by hand in dist/ is not what the last
// synth rendered, so it is no previous render either (it is reported to `edited`, and synth restores
// it from the fleet); a transition rule must never blame a fleet file for an edit made in dist/.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { type HashLookup, readIndexLookup, sha256 } from '../lib/dist-index';
import { fastParseYaml } from '../lib/yaml/fast-yaml';

export type PreviousManifests = (runtimeName: string, kinds?: readonly string[]) => readonly Record<string, unknown>[] | undefined;

/** Where a runtime's config objects are (skr-config/), or were before the two-step SKR layout (skr/). */
const CONFIG_FOLDERS = ['skr-config', 'skr'] as const;

const PARSE_OPTIONS = { version: '1.2', schema: 'core', maxAliasCount: 0, uniqueKeys: true } as const;

/**
 * `readIndex`: dist/'s index when the caller has read it already (synth does); else it is read
 * from `outDir`, on the first question only: a run whose runtimes are all unchanged asks none.
 */
export function previousRenderReader(
  outDir: string,
  readIndex: () => HashLookup | undefined = () => readIndexLookup(path.resolve(outDir)),
  edited: (relPath: string) => void = () => {},
): PreviousManifests {
  let index: HashLookup | undefined | null = null;
  return (name, kinds) => {
    if (index === null) index = readIndex();
    if (!index) return undefined;
    // Manifest files are named <kind>-<name>.yaml: only the kinds asked for are read and parsed.
    const prefixes = kinds?.map((k) => `${k.toLowerCase()}-`);
    const files: string[] = [];
    for (const folder of CONFIG_FOLDERS) {
      let names: string[];
      try {
        names = fs.readdirSync(path.join(outDir, 'runtimes', name, folder));
      } catch {
        continue;
      }
      files.push(
        ...names
          .filter((n) => prefixes === undefined || prefixes.some((p) => n.startsWith(p)))
          .sort()
          .map((n) => `runtimes/${name}/${folder}/${n}`)
          .filter((rel) => /\.yaml$/.test(rel) && !rel.endsWith('/kustomization.yaml') && index!.hashOf(rel) !== undefined),
      );
    }
    if (files.length === 0) return undefined;
    const out: Record<string, unknown>[] = [];
    for (const rel of files) {
      try {
        const bytes = fs.readFileSync(path.join(outDir, ...rel.split('/')));
        if (sha256(bytes) !== index.hashOf(rel)) {
          edited(rel);
          continue;
        }
        const text = bytes.toString('utf8');
        // Our own output has the common shape the fast path reads (the same data as yaml's parse).
        const doc = (fastParseYaml(text.replace(/\r\n?/g, '\n'))?.data ?? parse(text, PARSE_OPTIONS)) as unknown;
        if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) continue;
        if (kinds !== undefined && !kinds.includes(String((doc as Record<string, unknown>).kind))) continue;
        out.push(doc as Record<string, unknown>);
      } catch {
        // A damaged or missing previous file cannot veto a change; synth rewrites it.
      }
    }
    return out;
  };
}
