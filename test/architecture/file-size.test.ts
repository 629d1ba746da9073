// Small modules: no source file of src/ or charts/ is over 400 lines unless its header (the comment
// block it starts with) says why, in a sentence that contains "over 400 lines". Splitting is the rule;
// the reason is for text that is one piece on purpose (e.g. the literal files init writes).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '..', '..');
const LIMIT = 400;

function listTs(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return listTs(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The leading `//` comment lines of a file. */
export function header(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ');
}

/** Files over the limit whose header gives no reason, as "file: N lines". */
export function oversized(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > LIMIT && !/over 400 lines/i.test(header(text))) out.push(`${file}: ${lines} lines`);
  }
  return out.sort();
}

describe('source file size', () => {
  it(`no file of src/ or charts/ is over ${LIMIT} lines without a reason in its header`, () => {
    const files = new Map(['src', 'charts'].flatMap(listTs).map((f) => [f, fs.readFileSync(path.join(REPO, f), 'utf8')] as const));
    expect(files.size).toBeGreaterThan(100);
    expect(oversized(files)).toEqual([]);
  });

  it('bites: a long file without a reason is named, one with a reason is not', () => {
    const body = 'x\n'.repeat(LIMIT + 1);
    expect(oversized(new Map([['a.ts', `// A module.\n${body}`], ['b.ts', `// Over 400 lines on purpose: one table.\n${body}`], ['c.ts', body.slice(2)]]))).toEqual(['a.ts: 402 lines']);
  });
});
