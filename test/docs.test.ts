// The docs in docs/ stay current: the format reference is what the schemas generate, every
// diagnostic code the code can emit has a troubleshooting entry (and no entry outlives its code),
// and relative links between the docs point at files that exist.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEADER_LINE, renderFleetFormatReference } from '../scripts/write-docs';
import { REPO } from './helpers/fleet-fixture';

const DOCS = path.join(REPO, 'docs');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(abs));
    else if (entry.name.endsWith('.ts')) out.push(abs);
  }
  return out.sort();
}

/** Every code string in src/, as `grep -rhoE "'[EW]_[A-Z0-9_]+'" src` finds them. */
function emittedCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of sourceFiles(path.join(REPO, 'src'))) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/'([EW]_[A-Z0-9_]+)'/g)) {
      if (!codes.has(m[1]!)) codes.set(m[1]!, path.relative(REPO, file));
    }
  }
  return codes;
}

function troubleshooting(): string {
  return fs.readFileSync(path.join(DOCS, 'troubleshooting.md'), 'utf8');
}

/** `### CODE` headings of docs/troubleshooting.md, each with the text up to the next heading. */
function codeSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = text.split(/^(?=#{1,3} )/m);
  for (const part of parts) {
    const m = /^### ([EW]_[A-Z0-9_]+)\s*\n/.exec(part);
    if (m) sections.set(m[1]!, part);
  }
  return sections;
}

describe('docs/fleet-format.md', () => {
  it('is what the schemas generate (run npm run docs)', () => {
    const file = path.join(DOCS, 'fleet-format.md');
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    expect(committed, 'docs/fleet-format.md is stale: run npm run docs and commit the result').toBe(renderFleetFormatReference());
  });

  it('says that it is generated', () => {
    expect(renderFleetFormatReference().split('\n').slice(0, 4).join('\n')).toContain(HEADER_LINE);
  });

  it('is deterministic', () => {
    expect(renderFleetFormatReference()).toBe(renderFleetFormatReference());
  });
});

describe('docs/troubleshooting.md', () => {
  const codes = emittedCodes();
  const sections = codeSections(troubleshooting());

  it('finds the codes of src/', () => {
    // Guards the scan itself: a regex that finds nothing would make the next test pass vacuously.
    expect(codes.size).toBeGreaterThan(50);
    expect(codes.has('E_REGCACHE_UPSTREAM')).toBe(true);
    expect(codes.has('W_IGNORED_FILE')).toBe(true);
  });

  it('has a ### heading for every code emitted in src/', () => {
    const missing = [...codes].filter(([c]) => !sections.has(c)).map(([c, file]) => `${c} (emitted in ${file})`);
    expect(missing, 'add a "### CODE" entry to docs/troubleshooting.md: what it means, a real example line, how to fix it').toEqual([]);
  });

  it('documents no code that src/ no longer emits', () => {
    const stale = [...sections.keys()].filter((c) => !codes.has(c));
    expect(stale, 'remove these entries from docs/troubleshooting.md (or rename them)').toEqual([]);
  });

  it('shows, under each code, example lines of that code only', () => {
    const wrong: string[] = [];
    for (const [code, body] of sections) {
      for (const line of body.split('\n')) {
        const m = /\[([EW]_[A-Z0-9_]+)\]\s*$/.exec(line);
        if (m && m[1] !== code) wrong.push(`### ${code}: ${line.trim()}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** GitHub's heading anchors of a Markdown file: lowercase, punctuation dropped, spaces to "-", repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('docs/*.md', () => {
  // Relative links (and images) of every Markdown file in docs/.
  const files = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();

  it.each(files)('%s links only to files and headings that exist', (name) => {
    // Links outside code: fenced blocks and inline code hold regexes and paths, not links.
    const text = fs
      .readFileSync(path.join(DOCS, name), 'utf8')
      .replace(/^```[\s\S]*?^```/gm, '')
      .replace(/`[^`\n]*`/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const [target, anchor] = m[1]!.split('#') as [string, string | undefined];
      if (/^[a-z]+:/i.test(target)) continue; // http(s) and mailto links
      const abs = target === '' ? path.join(DOCS, name) : path.resolve(DOCS, target);
      // Inside the repository: a link to the workspace around it breaks on GitHub and in CI.
      if (path.relative(REPO, abs).startsWith('..') || !fs.existsSync(abs)) broken.push(m[1]!);
      else if (anchor !== undefined && abs.endsWith('.md') && !anchorsOf(abs).has(anchor)) broken.push(m[1]!);
    }
    expect(broken).toEqual([]);
  });
});
