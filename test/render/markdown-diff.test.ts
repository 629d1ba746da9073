// The pull request comment of `diff --output markdown` at any scale: runtimes with the same change
// are one group with one patch, lists are capped, and the comment stays under the size limit
// whatever the change (many distinct changes, one huge file, hostile text), saying what it left out.

import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, DEFAULT_MAX_CHARS, formatDiffMarkdown } from '../../src/render/markdown-diff';
import { diffTrees } from '../../src/render/tree-diff';

const pad = (i: number): string => String(i).padStart(5, '0');
/** A UUIDv4 (random, like a runtime ID) and a UUIDv5 (derived, like a Runtime CR entry's uid) per runtime. */
const runtimeID = (i: number): string => `${pad(i)}abc-1111-4222-8333-${String(i).padStart(12, '0')}`;
const derivedUid = (i: number): string => `${pad(i)}def-1111-5222-9333-${String(i).padStart(12, '0')}`;

interface Settings {
  channel: string;
  ttl: string;
  size?: string;
}

/** The files of one runtime as synth writes them (folder, kcp/ named by the runtime ID, its GitOps file). */
function runtimeFiles(i: number, s: Settings): Array<[string, string]> {
  const name = `eu-prod-${pad(i)}`;
  const id = runtimeID(i);
  return [
    [`runtimes/${name}/skr/kyma-default.yaml`, `kind: Kyma\nmetadata:\n  name: default\nspec:\n  channel: ${s.channel}\n  modules:\n    - name: istio\n`],
    [
      `runtimes/${name}/kcp/runtime-${id}.yaml`,
      `kind: Runtime\nmetadata:\n  name: ${id}\nspec:\n  imageRegistryCache:\n    - config:\n        garbageCollection:\n          ttl: ${s.ttl}\n        upstream: docker.io\n        volume:\n          size: ${s.size ?? '20Gi'}\n      uid: ${derivedUid(i)}\n`,
    ],
    [`gitops/flux/${name}-kcp.yaml`, `kind: Kustomization\nmetadata:\n  name: ${name}-kcp\nspec:\n  path: ./dist/runtimes/${name}/kcp\n  interval: ${s.channel === 'fast' ? '5m' : '10m'}\n`],
  ];
}

function fleet(n: number, settings: (i: number) => Settings): Map<string, string> {
  const files = new Map<string, string>([['gitops/flux/kustomization.yaml', 'resources: []\n']]);
  for (let i = 0; i < n; i++) for (const [f, t] of runtimeFiles(i, settings(i))) files.set(f, t);
  return files;
}

const BASE = (): Settings => ({ channel: 'regular', ttl: '168h' });

describe('formatDiffMarkdown', () => {
  it('a small change reads as before: summary, the changed runtime, its patch folded', () => {
    const md = formatDiffMarkdown(diffTrees(fleet(3, BASE), fleet(3, (i) => (i === 1 ? { ...BASE(), channel: 'fast' } : BASE()))));
    expect(md).toContain('### kyma-fleet: changes to `dist/`\n\n0 added, 2 changed, 0 removed files; runtimes: 0 new, 1 changed, 0 removed\n');
    expect(md).toContain('**Changed runtimes:** `eu-prod-00001`');
    expect(md).toContain('<details><summary><code>runtimes/eu-prod-00001/skr/kyma-default.yaml</code> (changed)</summary>\n\n```diff\n');
    expect(md).toContain('-  channel: regular\n+  channel: fast\n');
    // The runtime's Flux Kustomization belongs to it, not to the fleet-wide files, after its own folder.
    expect(md).toContain('<code>gitops/flux/eu-prod-00001-kcp.yaml</code>');
    expect(md.indexOf('<code>runtimes/eu-prod-00001/skr/kyma-default.yaml</code>')).toBeLessThan(md.indexOf('<code>gitops/flux/eu-prod-00001-kcp.yaml</code>'));
    expect(md).not.toContain('Fleet-wide files');
    expect(md).not.toContain('Not shown here');
  });

  it('says so when nothing changes', () => {
    expect(formatDiffMarkdown(diffTrees(fleet(2, BASE), fleet(2, BASE)))).toBe('### kyma-fleet: no changes to `dist/`\n');
  });

  it('the same change in 2,000 runtimes is one group with one patch, its runtimes capped, under the limit', () => {
    const d = diffTrees(fleet(2000, BASE), fleet(2000, () => ({ ...BASE(), ttl: '336h' })));
    const md = formatDiffMarkdown(d, { fullDiffFile: 'kyma-fleet.diff' });
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    expect(md).toContain('0 added, 2000 changed, 0 removed files; runtimes: 0 new, 2000 changed, 0 removed');
    // One group, although every kcp/ file has another name (the runtime ID) and another uid (UUIDv5).
    expect(md.match(/^#### /gm)).toEqual(['#### ']);
    // The group is every changed runtime: the list above is not repeated.
    expect(md).toContain('#### The same change in 2,000 runtimes\n\nEvery runtime listed above. The patch of `eu-prod-00000` stands for all of them');
    expect(md.match(/```diff/g)).toHaveLength(1);
    expect(md).toContain(`<code>runtimes/eu-prod-00000/kcp/runtime-${runtimeID(0)}.yaml</code>`);
    expect(md).toContain('-          ttl: 168h\n+          ttl: 336h\n');
    expect(md).toContain('**Changed runtimes:** `eu-prod-00000`');
    expect(md).toContain('and 1,980 more\n');
  });

  it('runtimes with different changes are not grouped (a different value, or the same value in another file)', () => {
    const d = diffTrees(fleet(30, BASE), fleet(30, (i) => (i < 10 ? { ...BASE(), ttl: '336h' } : i < 20 ? { ...BASE(), ttl: '72h' } : { ...BASE(), size: '40Gi' })));
    const md = formatDiffMarkdown(d);
    expect(md.match(/^#### The same change in 10 runtimes$/gm)).toHaveLength(3);
    // Each group lists its own runtimes.
    expect(md).toContain('#### The same change in 10 runtimes\n\n`eu-prod-00000`, `eu-prod-00001`, `eu-prod-00002`');
    expect(md).toContain('`eu-prod-00019`. The patch of `eu-prod-00010` stands for all of them');
    expect(md).toContain('+          ttl: 336h\n');
    expect(md).toContain('+          ttl: 72h\n');
    expect(md).toContain('+          size: 40Gi\n');
  });

  it('the same change to runtimes\' own GitOps files, which name the runtime ID, is one group though their folders did not change', () => {
    // Each runtime's GitOps file gets a changed line that names its runtime ID; only those files change.
    const withID = (files: Map<string, string>, note: string): Map<string, string> =>
      new Map(
        [...files].map(([f, t]) => {
          const i = /^gitops\/flux\/eu-prod-(\d{5})-kcp\.yaml$/.exec(f)?.[1];
          return [f, i === undefined ? t : `${t}  note: ${note} ${runtimeID(Number(i))}\n`];
        }),
      );
    const d = diffTrees(withID(fleet(12, BASE), 'before'), withID(fleet(12, BASE), 'after'));
    expect(d.runtimes.changed).toEqual([]);
    expect(d.changed).toHaveLength(12);
    const md = formatDiffMarkdown(d);
    expect(md.match(/^#### /gm)).toEqual(['#### ']);
    expect(md).toContain('#### The same change in 12 runtimes');
  });

  it('names the objects of the runtimes that own a changed file only; every runtime still owns its files', () => {
    const d = diffTrees(fleet(3, BASE), fleet(3, (i) => (i === 1 ? { ...BASE(), channel: 'fast' } : BASE())));
    expect([...d.identifiers.keys()]).toEqual(['eu-prod-00000', 'eu-prod-00001', 'eu-prod-00002']);
    expect(d.identifiers.get('eu-prod-00001')).toEqual([runtimeID(1)]);
    expect(d.identifiers.get('eu-prod-00000')).toEqual([]);
  });

  it('a runtime ID that changes is a change of its own, not hidden by the masking', () => {
    const before = fleet(3, BASE);
    const after = new Map([...before].map(([f, t]) => [f, f.includes('eu-prod-00002/kcp') ? t.replace(`name: ${runtimeID(2)}`, `name: ${runtimeID(7)}`) : t.replace('ttl: 168h', 'ttl: 336h')]));
    const md = formatDiffMarkdown(diffTrees(before, after));
    expect(md).toContain('#### The same change in 2 runtimes');
    expect(md).toContain('#### `eu-prod-00002`');
  });

  it('10,000 distinct changes: under the limit, and it says how many changes and runtimes it left out', () => {
    const d = diffTrees(fleet(10_000, BASE), fleet(10_000, (i) => ({ ...BASE(), ttl: `${i + 1000}h` })));
    const md = formatDiffMarkdown(d, { fullDiffFile: 'kyma-fleet.diff' });
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    const shown = md.match(/^#### /gm)!.length;
    expect(shown).toBeGreaterThan(10);
    expect(md).toContain(`_Not shown here: ${(10_000 - shown).toLocaleString('en-US')} more changes in ${(10_000 - shown).toLocaleString('en-US')} runtimes. Every patch is in the full diff (\`kyma-fleet.diff\`)._\n`);
  });

  it('one huge file: its patch is cut at a line with a note, the comment stays under the limit', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n') + '\n';
    const before = fleet(2, BASE);
    const after = new Map(before).set('runtimes/eu-prod-00000/skr-config/configmap-huge.yaml', big);
    const md = formatDiffMarkdown(diffTrees(before, after), { fullDiffFile: 'full.diff' });
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    expect(md).toContain('+line 0 xxxx');
    expect(md).toMatch(/… [\d,]+ more lines of this patch in the full diff \(`full\.diff`\)\n```\n<\/details>/);
  });

  it('many files of one change, larger than the comment together: under the limit, the rest named', () => {
    const before = new Map<string, string>();
    const after = new Map<string, string>();
    for (let f = 0; f < 400; f++) after.set(`runtimes/eu-prod-00000/skr-config/configmap-rules-${f}.yaml`, `data: ${'y'.repeat(500)}\n`);
    const md = formatDiffMarkdown(diffTrees(before, after));
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    expect(md).toContain('_Not shown here: 1 more change in 1 runtime. Every patch is in the full diff (`kyma-fleet diff`)._');
  });

  it('backticks and HTML in the patch and the file name cannot break out of the block', () => {
    const after = new Map([['runtimes/a-b/skr-config/configmap-<script>.yaml', 'rule: |\n  ```\n  ````x\n</details>\n']]);
    const md = formatDiffMarkdown(diffTrees(new Map(), after));
    expect(md).toContain('<code>runtimes/a-b/skr-config/configmap-&lt;script&gt;.yaml</code>');
    expect(md).toContain('`````diff\n');
    expect(md).toContain('\n`````\n</details>');
  });

  it('sections (another view of the change) come after the summary and count against the limit', () => {
    const d = diffTrees(fleet(2000, BASE), fleet(2000, (i) => ({ ...BASE(), ttl: `${i + 1}h` })));
    const md = formatDiffMarkdown(d, { sections: ['#### Blast radius\n\n2,000 runtimes in 1 ring'] });
    expect(md.indexOf('#### Blast radius')).toBeGreaterThan(md.indexOf('**Changed runtimes:**'));
    expect(md.indexOf('#### Blast radius')).toBeLessThan(md.indexOf('#### `eu-prod-00000`'));
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
    const tooLong = formatDiffMarkdown(d, { sections: ['x'.repeat(70_000)] });
    expect(tooLong).toContain('_A section of 70,001 characters is left out: it does not fit into the comment._');
    expect(tooLong.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS);
  });

  it('never more than the comment limit, whatever maxChars asks for', () => {
    const d = diffTrees(fleet(3000, BASE), fleet(3000, (i) => ({ ...BASE(), ttl: `${i + 1}h` })));
    expect(formatDiffMarkdown(d, { maxChars: 10_000_000 }).length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(formatDiffMarkdown(d, { maxChars: 20_000 }).length).toBeLessThanOrEqual(20_000);
  });
});
