// The promise behind src/extensions/: everything about an extension lives in its folder. Outside
// `src/extensions/<name>/`, no source file under src/ or charts/ may name an extension: its name,
// its Shoot extension type, the kinds and CRDs of its objects, its providerConfig kind and API group,
// its fleet options or its default Kyma module (the registry lines of src/extensions/index.ts
// excepted). The names come from the plug-ins themselves, so a new extension is covered without
// editing this test. Matching ignores case and the separators - _ . so that identifiers count too
// (imageRegistryCache, kimRegistryCacheSync, FALCO_...).
//
// Files that name an extension today are listed in KNOWN_OFFENDERS (file -> extension names). The
// list may only shrink: a file not listed that names an extension fails, and so does a listed
// entry that no longer occurs (remove it when the code moves into the extension's folder).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTENSIONS } from '../../src/extensions';
import type { ExtensionPlugin } from '../../src/extensions/types';

const REPO = path.resolve(__dirname, '../..');
const ROOTS = ['src', 'charts'];
const REGISTRY = 'src/extensions/index.ts';

/**
 * Files outside the extensions' folders that still name an extension (file -> the extensions it
 * names). Empty since issue 18 moved the last of them into the plug-ins; it may only stay empty.
 */
const KNOWN_OFFENDERS: Readonly<Record<string, readonly string[]>> = {};

/** Extensions this list was made before; any later one must have no offender at all. */
const EXTENSIONS_WITH_OFFENDERS: ReadonlySet<string> = new Set(['registry-cache', 'falco']);

/** The strings that name an extension, normalised (lowercase, without - _ .). */
export function extensionTokens(e: ExtensionPlugin<any>): string[] {
  const names = new Set<string>([e.name, e.shootExtensionType]);
  for (const [kind, crd] of Object.entries(e.skrConfigCrds ?? {})) names.add(kind).add(crd);
  for (const option of Object.keys(e.fleetOptions ?? {})) names.add(option);
  if (e.defaultModuleName) names.add(e.defaultModuleName);
  // The providerConfig's kind and API group, as the plug-in renders them.
  const rendered = e.render?.({
    state: 'enabled',
    config: {},
    runtime: { name: 'rt', runtimeID: '00000000-0000-4000-8000-000000000000', shootName: 'c-0000000', shootProject: 'p' },
    env: { state: undefined, files: new Map(), now: new Date(0) },
  });
  const pc = rendered?.shootExtension?.providerConfig;
  if (typeof pc?.kind === 'string') names.add(pc.kind);
  if (typeof pc?.apiVersion === 'string') names.add(pc.apiVersion.split('/')[0]!);
  return [...new Set([...names].map(normalise))].sort();
}

export function normalise(text: string): string {
  return text.toLowerCase().replace(/[-_.]/g, '');
}

/** The registry lines of src/extensions/index.ts: one import per extension and the list. */
function withoutRegistryLines(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^import \{ \w+ \} from '\.\/[a-z0-9-]+';$/.test(l) && !/^export const EXTENSIONS\b/.test(l))
    .join('\n');
}

/** Which of the tokens occur in the text (normalised as the tokens are). */
export function tokensIn(text: string, tokens: readonly string[]): string[] {
  const haystack = normalise(text);
  return tokens.filter((t) => haystack.includes(t));
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name)) out.push(rel);
    }
  };
  for (const root of ROOTS) walk(root);
  return out.sort();
}

interface Offence {
  readonly file: string;
  readonly extension: string;
  readonly tokens: readonly string[];
}

function offences(extensions: readonly ExtensionPlugin<any>[] = EXTENSIONS): Offence[] {
  const tokens = new Map(extensions.map((e) => [e.name, extensionTokens(e)]));
  const out: Offence[] = [];
  for (const file of sourceFiles()) {
    let text = fs.readFileSync(path.join(REPO, file), 'utf8');
    if (file === REGISTRY) text = withoutRegistryLines(text);
    for (const e of extensions) {
      if (file.startsWith(`src/extensions/${e.name}/`)) continue;
      const found = tokensIn(text, tokens.get(e.name)!);
      if (found.length > 0) out.push({ file, extension: e.name, tokens: found });
    }
  }
  return out;
}

describe('extension names stay in their folders', () => {
  const found = offences();

  it('takes the names from the plug-ins: name, Shoot type, kinds, CRDs, providerConfig, options, module', () => {
    const byName = new Map(EXTENSIONS.map((e) => [e.name, extensionTokens(e)]));
    expect(byName.get('registry-cache')).toEqual(expect.arrayContaining(['registrycache', 'registrycacheconfig', 'registrycacheconfigscorekymaprojectio', 'registryextensionsgardenercloud', 'registryconfig']));
    expect(byName.get('falco')).toEqual(expect.arrayContaining(['falco', 'shootfalcoservice', 'falcoprofile', 'falcoserviceconfig']));
    expect(byName.get('lakom')).toEqual(['lakom', 'lakomconfig', 'lakomextensionsgardenercloud', 'shootlakomservice']);
  });

  it('finds a name in any spelling: identifiers, constants, comments', () => {
    const tokens = ['registrycache', 'shootlakomservice'];
    expect(tokensIn('const x = obs.imageRegistryCache;', tokens)).toEqual(['registrycache']);
    expect(tokensIn('const REGISTRY_CACHE = 1;', tokens)).toEqual(['registrycache']);
    expect(tokensIn('// writes shoot-lakom-service entries', tokens)).toEqual(['shootlakomservice']);
    expect(tokensIn('const registry = cache;', tokens)).toEqual([]);
  });

  it('only the registry lines of src/extensions/index.ts may name extensions there', () => {
    const registry = fs.readFileSync(path.join(REPO, REGISTRY), 'utf8');
    for (const e of EXTENSIONS) expect(tokensIn(registry, extensionTokens(e)), e.name).not.toEqual([]);
    expect(found.filter((o) => o.file === REGISTRY)).toEqual([]);
  });

  it('no file outside an extension folder names an extension, except the known offenders', () => {
    const unexpected = found
      .filter((o) => !(KNOWN_OFFENDERS[o.file] ?? []).includes(o.extension))
      .map((o) => `${o.file} names ${o.extension} (${o.tokens.join(', ')}); move that code into src/extensions/${o.extension}/`);
    expect(unexpected).toEqual([]);
  });

  it('the list of known offenders only shrinks: every entry still occurs', () => {
    const stale: string[] = [];
    for (const [file, names] of Object.entries(KNOWN_OFFENDERS)) {
      for (const name of names) {
        if (!found.some((o) => o.file === file && o.extension === name)) stale.push(`${file}: ${name} no longer occurs; remove it from KNOWN_OFFENDERS`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('extensions added after the list have no offenders at all (Lakom changed nothing outside its folder)', () => {
    const late = EXTENSIONS.filter((e) => !EXTENSIONS_WITH_OFFENDERS.has(e.name)).map((e) => e.name);
    expect(late).toContain('lakom');
    expect(Object.entries(KNOWN_OFFENDERS).filter(([, names]) => names.some((n) => late.includes(n)))).toEqual([]);
    expect(found.filter((o) => late.includes(o.extension))).toEqual([]);
  });
});
