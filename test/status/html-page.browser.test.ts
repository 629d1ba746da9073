// The status page (`kyma-fleet status --html`) in a real browser: Debian's Chromium at
// /usr/bin/chromium, driven by playwright-core (which ships and downloads no browser). The page is
// written by the built CLI from the sample dump and opened from a file:// URL. Checked: it loads
// with no console error and no request but its own; the counts match the status files and the
// fleet; the search box filters the runtime table; hostile cluster text stays text; a screenshot is
// taken (and, with UPDATE_GOLDEN=1, saved as docs/images/status-page.png).
//
// Without /usr/bin/chromium the browser tests are skipped with a reason, unless CI=true or
// KYMA_FLEET_REQUIRE_BROWSER=1: then the first test fails (.ci/run installs chromium).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FleetFixture, NOW, REPO, runBinary } from '../helpers/fleet-fixture';
import { isEnabledInFleet, STATUS_STATES } from '../../src/status/states';
import { loadExample, SAMPLE_DUMP, tmpDir } from './status-helpers';

const CHROMIUM = '/usr/bin/chromium';
/** The flags known to work on these machines (no background connections to a closed network). */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const DOCS_SCREENSHOT = path.join(REPO, 'docs/images/status-page.png');

const available = isExecutable(CHROMIUM);
const required = process.env.CI === 'true' || process.env.KYMA_FLEET_REQUIRE_BROWSER === '1';
const SKIP_REASON = `${CHROMIUM} not found: the status page browser tests are skipped (install Debian's chromium: apt-get install -y --no-install-recommends chromium; they are required when CI=true or KYMA_FLEET_REQUIRE_BROWSER=1)`;
if (!available && !required) console.warn(SKIP_REASON);

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

describe('status.html in headless Chromium', () => {
  it('has Chromium to run in', (ctx) => {
    if (available) return;
    if (required) {
      throw new Error(
        `${CHROMIUM} not found, and the status page browser test is required here (CI=true or KYMA_FLEET_REQUIRE_BROWSER=1): ` +
          '.ci/run must install chromium (apt-get install -y --no-install-recommends chromium) before the tests run',
      );
    }
    ctx.skip(SKIP_REASON);
  });

  describe.runIf(available)('the page of the sample dump', () => {
    const cleanups: Array<() => void> = [];
    let context: BrowserContext;
    let work: string;
    let samplePage: string;
    let hostilePage: string;
    const HOSTILE = `x"'><img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2;alert(2)</script><svg onload=alert(3)>`;

    beforeAll(async () => {
      work = tmpDir('kyma-fleet-html-');
      cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));

      // The sample, through the built CLI.
      const out = path.join(work, 'sample');
      const r = runBinary(['status', '--from', 'fleet-status-sample', '--write', out, '--now', NOW, '--html'], REPO);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      samplePage = path.join(out, 'status.html');

      // The sample with a hostile RegistryCacheConfig condition message (markup and an attribute breakout).
      const fx = FleetFixture.example();
      cleanups.push(() => fx.cleanup());
      const dump = path.join(fx.dir, 'dump');
      fs.cpSync(SAMPLE_DUMP, dump, { recursive: true });
      const file = path.join(dump, 'runtimes/acme-us-prod-1/registrycacheconfigs.yaml');
      const doc = parse(fs.readFileSync(file, 'utf8'));
      doc.items[1].status.conditions[0].message = HOSTILE;
      fs.writeFileSync(file, JSON.stringify(doc));
      const h = fx.runBinary(['status', '--from', 'dump', '--write', 'out', '--now', NOW, '--html']);
      expect(h.code).toBe(0);
      hostilePage = path.join(fx.dir, 'out/status.html');

      const profile = path.join(work, 'chromium-profile'); // a new, empty user data dir
      fs.mkdirSync(profile);
      // playwright-core refuses --user-data-dir in launch()'s args: a persistent context takes it instead.
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        args: CHROMIUM_FLAGS,
        viewport: { width: 1280, height: 800 },
        offline: true,
      });
    }, 60_000);

    afterAll(async () => {
      await context?.close();
      for (const c of cleanups.reverse()) c();
    });

    interface Opened {
      readonly page: Page;
      readonly url: string;
      readonly requests: string[];
      readonly problems: string[];
      readonly dialogs: string[];
    }

    async function open(file: string): Promise<Opened> {
      const page = await context.newPage();
      const url = pathToFileURL(file).href;
      const requests: string[] = [];
      const problems: string[] = [];
      const dialogs: string[] = [];
      page.on('request', (req) => requests.push(req.url()));
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('dialog', (d) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss();
      });
      await page.goto(url, { waitUntil: 'load' });
      return { page, url, requests, problems, dialogs };
    }

    it('loads with no console error and no request but the page itself, in standards mode, under its CSP', async () => {
      const { page, url, requests, problems, dialogs } = await open(samplePage);
      await page.waitForTimeout(200);
      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(requests).toEqual([url]);
      expect(await page.evaluate(() => document.compatMode)).toBe('CSS1Compat');
      expect(await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content')).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
      );
      expect(await page.title()).toBe('Fleet status: 7 runtimes, 2 Ready, 1 Progressing, 1 Failed, 1 Drifted, 1 Disabled, 1 Unknown');
      await page.close();
    });

    it('shows the counts of the status files: per state, per extension, per group and region, with adoption', async () => {
      // Expected values computed here from the status files the CLI wrote and the fleet's groups,
      // regions and enabled extensions, independently of the page's renderer.
      const dir = path.dirname(samplePage);
      const status = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { metadata: { name: string }; state: string; extensions: Record<string, { state: string }> });
      expect(status).toHaveLength(7);
      const ex = loadExample();
      const exts = ['falco', 'lakom', 'registry-cache'];
      const rows = new Map<string, typeof status>([['fleet', status]]);
      for (const s of status) {
        const resolved = ex.resolved(s.metadata.name);
        for (const key of [...resolved.groups.map((g) => `group:${g.name}`), `region:${resolved.runtime.region}`]) rows.set(key, [...(rows.get(key) ?? []), s]);
      }
      const expected: Record<string, string> = {};
      for (const [row, members] of rows) {
        expected[`${row}|runtimes`] = String(members.length);
        for (const ext of exts) {
          const adopted = members.filter((m) => isEnabledInFleet(ex.resolved(m.metadata.name), ext)).length;
          expected[`${row}|${ext}|adoption`] = `${Math.round((100 * adopted) / members.length)}%`;
          for (const st of STATUS_STATES) expected[`${row}|${ext}|${st}`] = String(members.filter((m) => m.extensions[ext]?.state === st).length);
        }
      }

      const { page } = await open(samplePage);
      const shown = await page.$$eval('table.matrix tr[data-row]', (trs) => {
        const out: Record<string, string> = {};
        for (const tr of trs) {
          const row = tr.getAttribute('data-row')!;
          out[`${row}|runtimes`] = tr.querySelector('th + td')!.textContent!.trim();
          for (const td of Array.from(tr.querySelectorAll('td[data-ext]'))) {
            const ext = td.getAttribute('data-ext');
            const state = td.getAttribute('data-state');
            out[`${row}|${ext}|${state ?? 'adoption'}`] = (state ? td.textContent! : td.querySelector('.pct')!.textContent!).trim();
          }
        }
        return out;
      });
      expect(shown).toEqual(expected);
      // The same numbers as SUMMARY.md of the sample (README "Status").
      expect(exts.map((e) => STATUS_STATES.map((s) => shown[`fleet|${e}|${s}`]).join(' '))).toEqual(['3 1 0 0 3 0', '5 1 0 0 1 0', '2 1 1 1 1 1']);
      expect(shown['fleet|falco|adoption']).toBe('57%'); // 4 of 7 runtimes enable Falco
      expect(shown['fleet|registry-cache|adoption']).toBe('86%'); // 6 of 7
      expect(shown['fleet|lakom|adoption']).toBe('86%'); // 6 of 7 (acme-us-dev-1 opts out)

      const tiles = await page.$$eval('.tiles .tile', (lis) => lis.map((li) => `${li.querySelector('.num')!.textContent} ${li.querySelector('.lbl')!.textContent}`));
      const runtimeStates = STATUS_STATES.map((st) => `${status.filter((s) => s.state === st).length} ${st}`);
      expect(tiles).toEqual(runtimeStates);
      expect(tiles).toEqual(['2 Ready', '1 Progressing', '1 Failed', '1 Drifted', '1 Disabled', '1 Unknown']);

      const attention = await page.$$eval('#attention tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells).slice(0, 4).map((c) => c.textContent!.trim()).join(' | ')));
      expect(attention).toEqual([
        'acme-us-prod-1 | registry-cache | Failed | RegistryCacheConfigFailed',
        'acme-eu-prod-2 | registry-cache | Drifted | ShootConfigDrift',
        'acme-eu-sandbox | registry-cache | Unknown | NotDumped',
        'acme-us-dev-2 | falco | Progressing | ShootGenerationStale',
        'acme-us-dev-2 | lakom | Progressing | ShootGenerationStale',
        'acme-us-dev-2 | registry-cache | Progressing | ShootGenerationStale',
      ]);
      expect(await page.textContent('#attention tbody tr:first-child .msg')).toBe(
        'RegistryCacheConfig kyma-system/us-docker.pkg.dev: state Failed, condition RegistryCacheConfigured False (RegistryCacheGardenClusterConfigurationFailed): failed to sync secret kyma-system/gar-us-pull to the Garden cluster: secrets "gar-us-pull" not found',
      );
      expect(await page.locator('#runtime-table tbody tr[data-name]:visible').count()).toBe(7);
      await page.close();
    });

    it('filters the runtime table by name, state, reason, group and region as one types', async () => {
      const { page, problems } = await open(samplePage);
      const visible = () => page.locator('#runtime-table tbody tr[data-name]:visible .rt').allTextContents();
      const search = async (q: string) => {
        await page.fill('#q', q);
        return visible();
      };
      expect(await search('acme-us-prod-1')).toEqual(['acme-us-prod-1']);
      expect(await page.textContent('#shown')).toBe('1 of 7 runtimes');
      expect(await search('ACME-EU-PROD-2')).toEqual(['acme-eu-prod-2']);
      expect(await search('4a5b6c7d')).toEqual(['acme-us-prod-1']); // runtime ID
      // A state matches the runtime's state or any extension's.
      expect(await search('Failed')).toEqual(['acme-us-prod-1']);
      expect(await search('drifted')).toEqual(['acme-eu-prod-2']);
      expect(await search('Unknown')).toEqual(['acme-eu-sandbox']);
      expect(await search('Progressing')).toEqual(['acme-us-dev-2']);
      expect(await search('Disabled')).toEqual(['acme-eu-dev-1', 'acme-eu-sandbox', 'acme-us-dev-1']);
      expect(await search('Ready')).toEqual(['acme-eu-dev-1', 'acme-eu-prod-1', 'acme-eu-prod-2', 'acme-eu-sandbox', 'acme-us-prod-1']); // the sandbox: Lakom
      // state: is the runtime's (worst) state only.
      expect(await search('state:ready')).toEqual(['acme-eu-dev-1', 'acme-eu-prod-1']);
      expect(await search('state:Disabled')).toEqual(['acme-us-dev-1']);
      // Reasons, groups, regions, and several words at once.
      expect(await search('ShootGenerationStale')).toEqual(['acme-us-dev-2']);
      expect(await search('reason:notdumped')).toEqual(['acme-eu-sandbox']);
      expect(await search('eu-west-1')).toEqual(['acme-eu-dev-1', 'acme-eu-sandbox']);
      expect(await search('region:us-')).toEqual(['acme-us-dev-1', 'acme-us-dev-2', 'acme-us-prod-1']);
      expect(await search('group:production')).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1']);
      expect(await search('production  ready')).toEqual(['acme-eu-prod-1', 'acme-eu-prod-2', 'acme-us-prod-1']);
      expect(await search('americas failed')).toEqual(['acme-us-prod-1']);
      expect(await page.isVisible('#no-match')).toBe(false);
      expect(await search('no-such-runtime')).toEqual([]);
      expect(await page.isVisible('#no-match')).toBe(true);
      expect(await page.textContent('#shown')).toBe('0 of 7 runtimes');
      expect(await search('')).toHaveLength(7);
      expect(await page.isVisible('#no-match')).toBe(false);
      // "/" focuses the search box.
      await page.locator('h1').click();
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');
      // A link can carry a search: status.html#q=...
      await page.goto(`${pathToFileURL(samplePage).href}#q=${encodeURIComponent('state:drifted')}`);
      await page.reload();
      expect(await visible()).toEqual(['acme-eu-prod-2']);
      expect(await page.inputValue('#q')).toBe('state:drifted');
      expect(problems).toEqual([]);
      await page.close();
    });

    it('keeps hostile cluster text as text: no element, no script, no dialog, no request', async () => {
      const { page, url, requests, problems, dialogs } = await open(hostilePage);
      const row = page.locator('#runtime-table tr[data-name^="acme-us-prod-1"] td[data-ext="registry-cache"]');
      await row.hover(); // an attribute breakout would have added handlers here
      await page.waitForTimeout(300);
      expect(dialogs).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.evaluate(() => document.querySelectorAll('img, svg, iframe, object, embed').length)).toBe(0);
      expect(await page.evaluate(() => document.scripts.length)).toBe(1);
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
      // The message is shown as the literal text the cluster sent (after sanitising, which leaves markup alone).
      const message = await page.textContent('#attention tr[data-runtime="acme-us-prod-1"][data-ext="registry-cache"] .msg');
      expect(message).toContain(HOSTILE);
      expect(await row.getAttribute('title')).toBe(message);
      await page.close();
      const html = fs.readFileSync(hostilePage, 'utf8');
      expect(html).not.toContain('<img');
      expect(html).not.toContain('<svg');
      expect(html.match(/<script/g)).toHaveLength(1); // the page's own
    });

    it('takes a screenshot (and updates docs/images/status-page.png with UPDATE_GOLDEN=1)', async () => {
      const { page } = await open(samplePage);
      const shot = path.join(work, 'status-page.png');
      await page.screenshot({ path: shot, fullPage: true });
      const png = fs.readFileSync(shot);
      expect(png.length).toBeGreaterThan(10_000);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      if (process.env.UPDATE_GOLDEN === '1') {
        fs.mkdirSync(path.dirname(DOCS_SCREENSHOT), { recursive: true });
        fs.copyFileSync(shot, DOCS_SCREENSHOT);
      }
      await page.close();
    });
  });
});
