// The status page renderer (src/status/html-page.ts) without a browser: self-contained (nothing
// that could load), deterministic, escaped, built on SUMMARY.md's data model; its file carries the
// ownership marker the writer checks, and `kyma-fleet status --html` writes it like the other
// status files (only when it changed; never over a foreign file). The browser side is in
// html-page.browser.test.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { escapeHtml, renderStatusPage, STATUS_PAGE_CSP } from '../../src/status/html-page';
import type { StatusState } from '../../src/status/states';
import {
  isOwnedStatusFile,
  type RuntimeFacts,
  type RuntimeStatusRecord,
  STATUS_HEADER,
  STATUS_PAGE_FILE,
  STATUS_PAGE_HEADER,
  SUMMARY_FILE,
  SUMMARY_HEADER,
} from '../../src/status/status-file';
import { writeStatusFiles } from '../../src/status/write-status';
import { FleetFixture, NOW, REPO } from '../helpers/fleet-fixture';
import { SAMPLE_DUMP, tmpDir } from './status-helpers';

const rec = (name: string, rc: StatusState, falco: StatusState, message = 'm', time = '2026-11-22T00:00:00Z'): RuntimeStatusRecord => ({
  name,
  runtimeID: `id-${name}`,
  state: rc,
  extensions: {
    falco: { state: falco, reason: `${falco}Reason`, message, lastTransitionTime: time },
    'registry-cache': { state: rc, reason: `${rc}Reason`, message, lastTransitionTime: time },
  },
});

const facts = new Map<string, RuntimeFacts>([
  ['a', { groups: ['europe'], region: 'eu-west-1', enabled: ['registry-cache'] }],
  ['b', { groups: ['americas', 'production'], region: 'us-east-1', enabled: ['falco', 'registry-cache'] }],
]);

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe('renderStatusPage', () => {
  it('starts with the ownership marker, then the doctype, and carries the strict CSP', () => {
    const page = renderStatusPage([rec('a', 'Ready', 'Disabled')], facts);
    expect(page.startsWith(`${STATUS_PAGE_HEADER}<!DOCTYPE html>\n`)).toBe(true);
    expect(isOwnedStatusFile(STATUS_PAGE_FILE, page)).toBe(true);
    expect(STATUS_PAGE_CSP).toBe("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'");
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">`);
  });

  it('is self-contained: no URL, no external resource, no font, one inline script and style', () => {
    const page = renderStatusPage([rec('a', 'Ready', 'Disabled'), rec('b', 'Failed', 'Ready')], facts);
    expect(page).not.toMatch(/https?:|\/\/[a-z]|\bsrc=|\bhref=|<link|<img|<iframe|@import|url\(|@font-face/i);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page.match(/<style/g)).toHaveLength(1);
    expect(page).not.toMatch(/<script[^>]*\bsrc/);
  });

  it('is deterministic: the same records in any order give the same bytes; the only time is the latest state change', () => {
    const records = [rec('b', 'Failed', 'Ready', 'x', '2026-11-20T00:00:00Z'), rec('a', 'Ready', 'Disabled', 'y', '2026-11-21T10:00:00Z')];
    const one = renderStatusPage(records, facts);
    expect(renderStatusPage([...records].reverse(), facts)).toBe(one);
    expect(renderStatusPage(structuredClone(records), new Map(facts))).toBe(one);
    expect(one).toContain('Last state change: <time datetime="2026-11-21T10:00:00Z">2026-11-21T10:00:00Z</time>.');
    const times = [...new Set(one.match(/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/g))].sort();
    expect(times).toEqual(['2026-11-20T00:00:00Z', '2026-11-21T10:00:00Z']);
  });

  it('counts per extension and state for the fleet, each group and each region, with adoption from the fleet', () => {
    const page = renderStatusPage([rec('a', 'Ready', 'Disabled'), rec('b', 'Failed', 'Ready')], facts);
    const row = (id: string) => page.split('\n').find((l) => l.startsWith(`<tr data-row="${id}"`))!;
    const cells = (id: string) => [...row(id).matchAll(/data-ext="([^"]+)" data-state="([A-Za-z]+)">([0-9]+)</g)].filter((m) => m[3] !== '0').map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(cells('fleet')).toEqual(['falco Ready 1', 'falco Disabled 1', 'registry-cache Ready 1', 'registry-cache Failed 1']);
    expect(cells('group:europe')).toEqual(['falco Disabled 1', 'registry-cache Ready 1']);
    expect(cells('group:production')).toEqual(['falco Ready 1', 'registry-cache Failed 1']);
    expect(cells('region:us-east-1')).toEqual(['falco Ready 1', 'registry-cache Failed 1']);
    expect(row('fleet')).toContain('data-ext="falco" data-adopted="1" title="1 of 2 enable falco"><span class="pct">50%</span>');
    expect(row('fleet')).toContain('data-ext="registry-cache" data-adopted="2" title="2 of 2 enable registry-cache"><span class="pct">100%</span>');
    // Without the fleet's enabled list, an extension counts as adopted unless it is Disabled.
    const noFacts = renderStatusPage([rec('a', 'Ready', 'Disabled'), rec('b', 'Failed', 'Drifted')], new Map());
    expect(noFacts).toContain('data-ext="falco" data-adopted="1" title="1 of 2 enable falco"');
    expect(noFacts).toContain('<tr data-row="group:(no group)"');
    expect(noFacts).toContain('<tr data-row="region:(unknown)"');
  });

  it('lists what needs attention worst first, with reason, since and message, and marks stale states', () => {
    const records = [rec('z', 'Progressing', 'Ready'), rec('y', 'Failed', 'Drifted'), rec('x', 'Ready', 'Ready')];
    (records[2]!.extensions as Record<string, unknown>)['registry-cache'] = {
      state: 'Unknown',
      reason: 'Timeout',
      message: 't',
      lastTransitionTime: '2026-11-22T00:00:00Z',
      stale: true,
      lastKnown: { state: 'Ready', reason: 'Reconciled', message: 'ok', lastTransitionTime: '2026-11-01T00:00:00Z' },
    };
    const page = renderStatusPage(records, new Map());
    const rows = [...page.matchAll(/<tr data-runtime="([a-z]+)" data-ext="([a-z-]+)" data-state="([A-Za-z]+)">/g)].map((m) => m.slice(1).join(' '));
    expect(rows).toEqual(['y registry-cache Failed', 'y falco Drifted', 'x registry-cache Unknown', 'z registry-cache Progressing']);
    expect(page).toContain('<span class="badge s-Unknown">Unknown</span> <span class="stale">(stale; last known Ready since 2026-11-01T00:00:00Z)</span>');
    expect(renderStatusPage([rec('a', 'Ready', 'Disabled')], facts)).toContain('Every extension of every runtime is Ready or Disabled.');
  });

  it('escapes every text: cluster messages stay text in content and in attributes', () => {
    const evil = `a"b'c <script>alert(1)</script><img src=x onerror="alert(2)"> & </td></tr></table>`;
    const hostileFacts = new Map<string, RuntimeFacts>([['a', { groups: ['<b>g</b>'], region: '"r"', enabled: [] }]]);
    const page = renderStatusPage([rec('a', 'Failed', 'Ready', evil)], hostileFacts);
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>g</b>');
    expect(page).toContain(`<td class="msg">${escapeHtml(evil)}</td>`);
    expect(page).toContain(`title="${escapeHtml(evil)}"`);
    expect(escapeHtml(evil)).toBe('a&quot;b&#39;c &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt; &amp; &lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;');
    expect(page).toContain('data-group="&lt;b&gt;g&lt;/b&gt;" data-region="&quot;r&quot;"');
    expect(page.match(/<script/g)).toHaveLength(1);
  });
});

describe('the writer and the status page', () => {
  const workspace = (): string => {
    const d = tmpDir();
    cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
    return path.join(d, 'status');
  };
  const files = (v: string): Map<string, string> =>
    new Map([
      ['a.yaml', `${STATUS_HEADER}a: ${v}\n`],
      [SUMMARY_FILE, `${SUMMARY_HEADER}# ${v}\n`],
      [STATUS_PAGE_FILE, `${STATUS_PAGE_HEADER}<!DOCTYPE html>\n<p>${v}</p>\n`],
    ]);

  it('writes runtime files, then status.html, then SUMMARY.md; only what changed', () => {
    const dir = workspace();
    expect(writeStatusFiles(dir, files('1'), 'status/')).toEqual({ ok: true, written: ['a.yaml', STATUS_PAGE_FILE, SUMMARY_FILE], removed: [], unchanged: 0 });
    expect(writeStatusFiles(dir, files('1'), 'status/')).toEqual({ ok: true, written: [], removed: [], unchanged: 3 });
    expect(writeStatusFiles(dir, files('2'), 'status/')).toMatchObject({ ok: true, written: ['a.yaml', STATUS_PAGE_FILE, SUMMARY_FILE] });
  });

  it('never replaces a status.html it did not write, and never removes one', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, STATUS_PAGE_FILE), '<!DOCTYPE html>\n<p>the team dashboard</p>\n');
    expect(writeStatusFiles(dir, files('1'), 'status/')).toEqual({
      ok: false,
      problem: { code: 'E_STATUS_NOT_OWNED', message: 'status/status.html was not written by kyma-fleet status (no header line); refusing to replace it: move it away or check --write' },
    });
    expect(fs.readdirSync(dir)).toEqual([STATUS_PAGE_FILE]);
    // A SUMMARY.md-style marker on a runtime file or a YAML header on the page does not count.
    expect(isOwnedStatusFile(STATUS_PAGE_FILE, `${STATUS_HEADER}<!DOCTYPE html>`)).toBe(false);
    expect(isOwnedStatusFile(STATUS_PAGE_FILE, ` ${STATUS_PAGE_HEADER}`)).toBe(false);
    // Without the page in the files, an owned page is left as it is.
    fs.writeFileSync(path.join(dir, STATUS_PAGE_FILE), `${STATUS_PAGE_HEADER}old`);
    const withoutPage = files('1');
    withoutPage.delete(STATUS_PAGE_FILE);
    expect(writeStatusFiles(dir, withoutPage, 'status/')).toMatchObject({ ok: true, removed: [] });
    expect(fs.readFileSync(path.join(dir, STATUS_PAGE_FILE), 'utf8')).toBe(`${STATUS_PAGE_HEADER}old`);
  });
});

describe('kyma-fleet status --html', () => {
  function fixture(): FleetFixture {
    const fx = FleetFixture.example();
    cleanups.push(() => fx.cleanup());
    fs.cpSync(SAMPLE_DUMP, path.join(fx.dir, 'dump'), { recursive: true });
    return fx;
  }

  it('writes the committed fleet/status/status.html beside SUMMARY.md, then rewrites nothing while nothing changes', () => {
    const fx = fixture();
    fx.remove('status');
    const first = fx.runBinary(['status', '--from', 'dump', '--now', NOW, '--html']);
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n').at(-2)).toBe('fleet/status/: 7 runtimes (2 Ready, 1 Progressing, 1 Failed, 1 Drifted, 1 Disabled, 1 Unknown); 9 files written');
    const page = fx.read('status/status.html');
    expect(page).toBe(fs.readFileSync(path.join(REPO, 'fleet/status/status.html'), 'utf8'));
    const st = fs.statSync(fx.path('status/status.html'));
    const again = fx.runBinary(['status', '--from', 'dump', '--now', '2026-12-01T08:00:00Z', '--html']);
    expect(again.stdout.split('\n').at(-2)).toMatch(/; up to date, nothing written$/);
    const st2 = fs.statSync(fx.path('status/status.html'));
    expect(`${st2.ino}:${st2.mtimeMs}`).toBe(`${st.ino}:${st.mtimeMs}`);
  });

  it('exits 4 and writes nothing when status.html is someone else\'s file', () => {
    const fx = fixture();
    fx.remove('status').write('status/status.html', '<!DOCTYPE html><p>ours</p>\n');
    const r = fx.runBinary(['status', '--from', 'dump', '--now', NOW, '--html']);
    expect(r.code).toBe(4);
    expect(r.errLines).toEqual([
      'fleet/status/: error: fleet/status/status.html was not written by kyma-fleet status (no header line); refusing to replace it: move it away or check --write [E_STATUS_NOT_OWNED]',
    ]);
    expect(fs.readdirSync(fx.path('status'))).toEqual(['status.html']);
    expect(fx.read('status/status.html')).toBe('<!DOCTYPE html><p>ours</p>\n');
  });
});
