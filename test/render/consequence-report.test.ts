// The consequence section of the review (src/render/consequence-report.ts) at scale and with rings:
// it opens the pull request comment, counts per class and per ring with the most costly first,
// names at most 20 runtimes per class, and the whole comment stays under 60,000 characters when
// 10,000 runtimes each have every class of the core and the extensions.

import { describe, expect, it } from 'vitest';
import { consequenceClasses, type Consequences } from '../../src/render/consequences';
import { consequencesMarkdown, consequencesText } from '../../src/render/consequence-report';
import { DEFAULT_MAX_CHARS, formatDiffMarkdown } from '../../src/render/markdown-diff';
import { diffTrees } from '../../src/render/tree-diff';

const name = (i: number): string => `eu-prod-${String(i).padStart(5, '0')}`;

/** Every class for each of `n` runtimes (or the classes `ids`). */
function everything(n: number, ids?: readonly string[]): Consequences {
  const classes = consequenceClasses();
  const runtimes = Array.from({ length: n }, (_, i) => name(i));
  const chosen = ids ?? classes.map((c) => c.id);
  return {
    classes,
    runtimesOf: new Map(classes.map((c) => [c.id, chosen.includes(c.id) ? runtimes : []])),
    classesOf: new Map(runtimes.map((r) => [r, [...chosen]])),
  };
}

describe('the consequence section', () => {
  it('10,000 runtimes with every class, in 5 rings, distinct changes: the comment opens with it and stays under the limit', () => {
    const n = 10_000;
    const rings = { names: ['canary', 'early', 'eu', 'us', 'rest'], ringOf: (r: string) => ['canary', 'early', 'eu', 'us', 'rest'][Number(r.slice(-5)) % 5] };
    const lead = consequencesMarkdown(everything(n), rings, ['module-removed', 'cache-removed']);
    const before = new Map<string, string>();
    const after = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      before.set(`runtimes/${name(i)}/skr/kyma-default.yaml`, `spec:\n  channel: regular\n  n: 0\n`);
      after.set(`runtimes/${name(i)}/skr/kyma-default.yaml`, `spec:\n  channel: regular\n  n: ${i + 1}\n`);
    }
    const md = formatDiffMarkdown(diffTrees(before, after), { lead, fullDiffFile: 'kyma-fleet.diff' });
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    expect(md.indexOf('#### What the change does on the clusters')).toBeLessThan(md.indexOf('**Changed runtimes:**'));
    expect(lead.length).toBeLessThan(20_000);
    const rows = lead.match(/^\| .+ \| (destructive|disruptive|routine) \| [\d,]+ \|.*$/gm)!;
    expect(rows).toHaveLength(consequenceClasses().length);
    // Destructive first, then disruptive, then routine.
    const severities = rows.map((r) => /\| (destructive|disruptive|routine) \|/.exec(r)![1]);
    expect(severities).toEqual([...severities].sort((a, b) => ['destructive', 'disruptive', 'routine'].indexOf(a!) - ['destructive', 'disruptive', 'routine'].indexOf(b!)));
    expect(rows[0]).toBe('| **module removed (deletes its resources)** `module-removed` | destructive | 10,000 | 2,000 | 2,000 | 2,000 | 2,000 | 2,000 |');
    // Names capped at 20 per class.
    expect(lead).toContain('- **cache removed (images lost)** in 10,000 runtimes: `eu-prod-00000`, ');
    expect(lead).toContain('`eu-prod-00019` and 9,980 more. ');
    expect(lead).toContain('**This change needs an explicit approval** (`--fail-on`): module removed (deletes its resources) (`module-removed`), cache removed (images lost) (`cache-removed`).');
  });

  it('per ring: each runtime counted in its ring, runtimes without one in (none)', () => {
    const c = everything(4, ['node-agent-added']);
    const lead = consequencesMarkdown(c, { names: ['canary', 'rest'], ringOf: (r) => (r === name(0) ? 'canary' : r === name(3) ? undefined : 'rest') });
    expect(lead).toContain('| consequence | severity | runtimes | canary | rest | (none) |\n|---|---|---:|---:|---:|---:|\n| **node agent added (DaemonSet)** `node-agent-added` | disruptive | 4 | 1 | 2 | 1 |\n');
  });

  it('no class: no section, no text', () => {
    expect(consequencesMarkdown(everything(3, []))).toBe('');
    expect(consequencesText(everything(3, []))).toBe('');
  });
});
