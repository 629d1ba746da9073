// The folders of src/ show the pipeline, and the imports run one way: a module imports only from
// its own layer or a lower one, and no chain of imports comes back to where it started. The layers,
// lowest first, are the list below (docs/architecture.md explains each). Every import counts: type
// imports, re-exports and require() calls too, because a type import from a later stage still ties
// an earlier stage to it. charts/ is part of the render stage; imports/ (generated types) sits with lib.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '..', '..');

/** Lowest first. A new stage or feature folder gets its place here (one line). */
const LAYERS = [
  'lib',
  'extensions',
  'gitops',
  'load',
  'validate',
  'resolve',
  'render',
  'write',
  'observe',
  'apply',
  'status',
  'rollout',
  'scaffold',
  'onboard',
  'run',
  'cli',
  'main',
] as const;

/** The layer of a repo-relative path, or undefined for files outside the checked tree. */
export function layerOf(rel: string): string | undefined {
  const parts = rel.split('/');
  if (parts[0] === 'charts') return 'render';
  if (parts[0] === 'imports') return 'lib';
  if (parts[0] === 'scripts') return 'cli';
  if (parts[0] !== 'src') return undefined;
  if (parts.length === 2) return parts[1] === 'main.ts' ? 'main' : undefined;
  return parts[1];
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listTs(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Resolves a relative specifier the way Node's CommonJS resolution does for our sources. */
function resolveSpecifier(fromRel: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined; // packages and node: builtins
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), spec)).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(REPO, candidate))) return candidate;
  }
  throw new Error(`${fromRel}: cannot resolve import '${spec}'`);
}

/** File -> the repo files it imports (all kinds of import). */
export function importGraph(roots: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(listTs)) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(REPO, file), 'utf8'), true, true);
    const targets = info.importedFiles.map((f) => resolveSpecifier(file, f.fileName)).filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Every edge from a layer to a higher one, as "from -> to". */
export function upwardImports(graph: Map<string, string[]>, layers: readonly string[] = LAYERS): string[] {
  const rank = (rel: string): number => {
    const layer = layerOf(rel);
    const i = layer === undefined ? -1 : layers.indexOf(layer);
    if (layer !== undefined && i < 0) throw new Error(`${rel}: folder src/${layer}/ has no place in LAYERS (test/architecture/import-graph.test.ts)`);
    return i;
  };
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (rank(from) >= 0 && rank(to) > rank(from)) bad.push(`${from} (${layerOf(from)}) -> ${to} (${layerOf(to)})`);
    }
  }
  return bad.sort();
}

/** The strongly connected components with more than one file (or a file importing itself): Tarjan. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('the import graph of src/ and charts/', () => {
  const graph = importGraph(['src', 'charts']);

  it('reads every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/run/synth.ts')).toContain('src/run/check.ts');
  });

  it('has a layer for every folder of src/', () => {
    const folders = fs.readdirSync(path.join(REPO, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.filter((f) => !(LAYERS as readonly string[]).includes(f))).toEqual([]);
  });

  it('imports only from the same layer or a lower one', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('the checks themselves bite', () => {
  it('finds an import from an earlier stage into a later one', () => {
    const graph = new Map([
      ['src/load/a.ts', ['src/render/b.ts']],
      ['src/render/b.ts', ['src/lib/c.ts']],
      ['src/lib/c.ts', []],
    ]);
    expect(upwardImports(graph)).toEqual(['src/load/a.ts (load) -> src/render/b.ts (render)']);
  });

  it('finds a cycle, also one within a layer', () => {
    const graph = new Map([
      ['src/write/a.ts', ['src/write/b.ts']],
      ['src/write/b.ts', ['src/write/a.ts']],
      ['src/lib/c.ts', ['src/lib/c.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['src/lib/c.ts'], ['src/write/a.ts', 'src/write/b.ts']]);
  });

  it('counts type imports and require() calls', () => {
    const info = ts.preProcessFile("import type { A } from './a';\nexport { B } from './b';\nconst c = require('./c');\n", true, true);
    expect(info.importedFiles.map((f) => f.fileName)).toEqual(['./a', './b', './c']);
  });
});
