// The status page `kyma-fleet status --html` writes beside SUMMARY.md: one self-contained HTML file
// (inline CSS and JS, no network, no external assets or fonts, a Content-Security-Policy that
// allows nothing else) that shows, from the same data model as SUMMARY.md (summarizeStatus):
//   - runtime counts per state;
//   - a matrix: rows the fleet, each group and each region; columns per extension its adoption
//     (share of the row's runtimes whose fleet declaration enables it) and its states counted;
//   - what needs attention (every runtime × extension not Ready or Disabled), worst first, with
//     reason, since and message;
//   - every runtime with its groups, region and extension states, filtered by a search box;
//   - with rollout change windows, each ring's window at the time of the run (./windows-section.ts).
// Pure and deterministic: the same records and facts (and window rows) give the same bytes; the
// only times on the page are the latest lastTransitionTime and the window rows' next changes. Every text is HTML-escaped (cluster messages are data:
// a `<script>` in a condition message stays text), and no data is put inside the script.

import { cmp } from '../lib/diagnostics';
import type { InventoryComparison } from '../observe/inventory';
import { inventoryHtml } from './inventory-section';
import { type RingWindowRow, windowsHtml } from './windows-section';
import { STATUS_STATES, type StatusState } from './states';
import {
  extensionStates,
  type ExtensionRecord,
  type RuntimeFacts,
  type RuntimeStatusRecord,
  STATUS_PAGE_HEADER,
  stateCountsText,
  stateLabel,
  type StatusBucket,
  summarizeStatus,
} from './status-file';

/** The page's Content-Security-Policy: nothing may load; only the inline style and script run. */
export const STATUS_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/** The status page as text (starts with STATUS_PAGE_HEADER, the ownership marker). */
export function renderStatusPage(records: readonly RuntimeStatusRecord[], facts: ReadonlyMap<string, RuntimeFacts>, inventory?: InventoryComparison, windows: readonly RingWindowRow[] = []): string {
  const summary = summarizeStatus(records, facts);
  const { extensions } = summary;
  const total = summary.records.length;
  const out: string[] = [];
  const counts = stateCountsText(summary.runtimeStates) || 'none';

  out.push(
    STATUS_PAGE_HEADER.trimEnd(),
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${STATUS_PAGE_CSP}">`, // a constant without " or &
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="kyma-fleet status">',
    `<title>Fleet status: ${esc(`${total} runtime${total === 1 ? '' : 's'}, ${counts}`)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<header>',
    '<h1>Fleet status</h1>',
    `<p class="lede"><span id="total" data-count="${total}">${total} runtime${total === 1 ? '' : 's'}</span>: ${esc(counts)}.` +
      (summary.latest ? ` Last state change: <time datetime="${esc(summary.latest)}">${esc(summary.latest)}</time>.` : '') +
      '</p>',
    '<ul class="tiles" aria-label="Runtimes by state">',
  );
  for (const s of STATUS_STATES) {
    const n = summary.runtimeStates[s];
    out.push(`<li class="tile s-${s}${n === 0 ? ' zero' : ''}" data-state="${s}"><span class="num" data-count="${n}">${n}</span> <span class="lbl">${s}</span></li>`);
  }
  out.push(
    '</ul>',
    '<p class="note">A runtime counts as its worst extension state (Failed, Drifted, Unknown, Progressing, Ready, Disabled).</p>',
    '</header>',
    '<main>',
  );

  // ------------------------------------------------------------------ matrix
  const enabledIn = (r: RuntimeStatusRecord, ext: string): boolean => {
    const enabled = facts.get(r.name)?.enabled;
    if (enabled) return enabled.includes(ext);
    const e = r.extensions[ext];
    return e !== undefined && e.state !== 'Disabled';
  };
  const width = 2 + extensions.length * (1 + STATUS_STATES.length);
  out.push(
    '<section id="matrix">',
    '<h2>Extensions by group and region</h2>',
    '<p class="note">Per extension: <b>Adoption</b> is the share of the row\u2019s runtimes whose fleet declaration enables it; the other columns count the row\u2019s runtimes by the state of that extension. A runtime in several groups counts in each.</p>',
    '<div class="scroll"><table class="matrix">',
    '<thead>',
    '<tr><th scope="col" rowspan="2" class="key">Group / region</th><th scope="col" rowspan="2" class="n">Runtimes</th>' +
      extensions.map((ext) => `<th scope="colgroup" colspan="${1 + STATUS_STATES.length}" class="ext">${esc(ext)}</th>`).join('') +
      '</tr>',
    '<tr>' +
      extensions
        .map((ext) => `<th scope="col" class="n adopt first" data-ext="${esc(ext)}">Adoption</th>` + STATUS_STATES.map((s) => `<th scope="col" class="n h-${s}" title="${esc(ext)}: ${s}">${s}</th>`).join(''))
        .join('') +
      '</tr>',
    '</thead>',
  );
  const matrixRow = (id: string, label: string, rows: readonly RuntimeStatusRecord[], cls = ''): string => {
    const cells = extensions.map((ext) => {
      const adopted = rows.filter((r) => enabledIn(r, ext)).length;
      const pct = rows.length === 0 ? 0 : Math.round((100 * adopted) / rows.length);
      const byState = extensionStates(rows, ext);
      return (
        `<td class="n adopt first" data-ext="${esc(ext)}" data-adopted="${adopted}" title="${adopted} of ${rows.length} enable ${esc(ext)}">` +
        `<span class="pct">${pct}%</span><span class="bar" style="--p:${pct}%"></span></td>` +
        STATUS_STATES.map((s) => countCell(ext, s, byState[s])).join('')
      );
    });
    return `<tr data-row="${esc(id)}"${cls ? ` class="${cls}"` : ''}><th scope="row" class="key">${label}</th><td class="n" data-count="${rows.length}">${rows.length}</td>${cells.join('')}</tr>`;
  };
  out.push('<tbody>', matrixRow('fleet', 'All runtimes', summary.records, 'fleet'), '</tbody>');
  for (const [title, prefix, buckets] of [
    ['Groups', 'group', summary.byGroup],
    ['Regions', 'region', summary.byRegion],
  ] as const) {
    out.push('<tbody>', `<tr class="section"><th scope="rowgroup" colspan="${width}">${title}</th></tr>`);
    for (const b of buckets as readonly StatusBucket[]) out.push(matrixRow(`${prefix}:${b.key}`, esc(b.key), b.records));
    out.push('</tbody>');
  }
  out.push('</table></div>', '</section>');

  // ------------------------------------------------------------------ needs attention
  out.push('<section id="attention">', `<h2>Needs attention <span class="count" data-count="${summary.attention.length}">${summary.attention.length}</span></h2>`);
  if (summary.attention.length === 0) {
    out.push('<p class="ok">Every extension of every runtime is Ready or Disabled.</p>');
  } else {
    out.push(
      '<div class="scroll"><table class="list">',
      '<thead><tr><th scope="col">Runtime</th><th scope="col">Extension</th><th scope="col">State</th><th scope="col">Reason</th><th scope="col">Since</th><th scope="col">Message</th></tr></thead>',
      '<tbody>',
    );
    for (const { runtime, extension, status: e } of summary.attention) {
      out.push(
        `<tr data-runtime="${esc(runtime)}" data-ext="${esc(extension)}" data-state="${e.state}">` +
          `<td class="name">${esc(runtime)}</td><td class="ext-name">${esc(extension)}</td><td>${badge(e)}</td><td class="reason">${esc(e.reason)}</td>` +
          `<td class="time"><time datetime="${esc(e.lastTransitionTime)}">${esc(e.lastTransitionTime)}</time></td><td class="msg">${esc(e.message)}</td></tr>`,
      );
    }
    out.push('</tbody>', '</table></div>');
  }
  out.push('</section>');

  // ------------------------------------------------------------------ runtimes
  out.push(
    '<section id="runtimes">',
    '<h2>Runtimes</h2>',
    '<div class="search">' +
      '<label for="q">Search</label> ' +
      '<input id="q" type="search" autocomplete="off" spellcheck="false" placeholder="name, state, reason, group or region; state:Failed" aria-describedby="search-help">' +
      ` <span id="shown" aria-live="polite">${total} of ${total} runtime${total === 1 ? '' : 's'}</span>` +
      '</div>',
    '<p id="search-help" class="note">Words match the runtime name or ID, its state or any extension\u2019s state, reasons, groups and region (all words must match, case-insensitive). <code>state:</code>, <code>name:</code>, <code>reason:</code>, <code>group:</code> and <code>region:</code> match that field only; <code>state:</code> is the runtime\u2019s (worst) state. Press <kbd>/</kbd> to search.</p>',
    '<div class="scroll"><table class="list" id="runtime-table">',
    '<thead><tr><th scope="col">Runtime</th><th scope="col">State</th><th scope="col">Groups</th><th scope="col">Region</th>' +
      extensions.map((ext) => `<th scope="col">${esc(ext)}</th>`).join('') +
      '</tr></thead>',
    '<tbody>',
  );
  for (const r of summary.records) {
    const f = facts.get(r.name);
    const groups = f?.groups ?? [];
    const exts = Object.keys(r.extensions).sort(cmp);
    const attrs = {
      name: `${r.name} ${r.runtimeID}`,
      state: r.state,
      states: [...new Set(exts.map((x) => r.extensions[x]!.state))].join(' '),
      reason: [...new Set(exts.map((x) => r.extensions[x]!.reason))].join(' '),
      group: groups.join(' '),
      region: f?.region ?? '',
    };
    out.push(
      '<tr' +
        Object.entries(attrs)
          .map(([k, v]) => ` data-${k}="${esc(v.toLowerCase())}"`)
          .join('') +
        '>' +
        `<td class="name"><span class="rt">${esc(r.name)}</span><span class="id">${esc(r.runtimeID)}</span></td>` +
        `<td><span class="badge s-${r.state}">${r.state}</span></td>` +
        `<td>${groups.map(esc).join(', ') || '<span class="none">none</span>'}</td>` +
        `<td>${f ? esc(f.region) : '<span class="none">unknown</span>'}</td>` +
        extensions
          .map((ext) => {
            const e = r.extensions[ext];
            if (!e) return '<td><span class="none">not reported</span></td>';
            return `<td data-ext="${esc(ext)}" title="${esc(e.message)}">${badge(e)} <span class="reason">${esc(e.reason)}</span></td>`;
          })
          .join('') +
        '</tr>',
    );
  }
  out.push(
    `<tr id="no-match" hidden><td colspan="${4 + extensions.length}">No runtime matches the search.</td></tr>`,
    '</tbody>',
    '</table></div>',
    '</section>',
    ...(inventory ? inventoryHtml(inventory, esc) : []),
    ...windowsHtml(windows, esc),
    '</main>',
    '<footer><p>Written by <code>kyma-fleet status --html</code> from the same status as SUMMARY.md and the <code>&lt;runtime&gt;.yaml</code> files in this folder (per-runtime details there). States and reasons: see the README section \u201cStatus\u201d.</p></footer>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  );
  return out.join('\n');
}

/** Text for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const esc = escapeHtml;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function countCell(ext: string, state: StatusState, n: number): string {
  return `<td class="n c-${state}${n === 0 ? ' zero' : ''}" data-ext="${esc(ext)}" data-state="${state}">${n}</td>`;
}

function badge(e: ExtensionRecord): string {
  const label = stateLabel(e);
  return label === e.state ? `<span class="badge s-${e.state}">${e.state}</span>` : `<span class="badge s-${e.state}">${e.state}</span> <span class="stale">${esc(label.slice(e.state.length + 1))}</span>`;
}

// Everything below is constant text: no data goes into the style or the script.

const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;
--Ready:#1a7f37;--Ready-bg:#dafbe1;--Progressing:#0969da;--Progressing-bg:#ddf4ff;--Failed:#cf222e;--Failed-bg:#ffebe9;
--Drifted:#9a6700;--Drifted-bg:#fff8c5;--Disabled:#59636e;--Disabled-bg:#eff2f5;--Unknown:#8250df;--Unknown-bg:#fbefff}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;
--Ready:#3fb950;--Ready-bg:#12261e;--Progressing:#4493f8;--Progressing-bg:#121d2f;--Failed:#f85149;--Failed-bg:#25171c;
--Drifted:#d29922;--Drifted-bg:#272115;--Disabled:#9198a1;--Disabled-bg:#1c2128;--Unknown:#ab7df8;--Unknown-bg:#1f1a2e}}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem 2rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;display:flex;gap:.5rem;align-items:center}
code,kbd,.id,.time,.reason{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.85em}
kbd{border:1px solid var(--line);border-radius:4px;padding:0 .3em}
.lede{font-size:1.05rem;margin:.25rem 0 .75rem}.note{color:var(--muted);margin:.25rem 0 .75rem;max-width:70rem}
.tiles{list-style:none;display:flex;flex-wrap:wrap;gap:.5rem;padding:0;margin:0 0 .5rem}
.tile{min-width:8.5rem;padding:.5rem .8rem;border-radius:8px;border:1px solid var(--line);border-left:5px solid var(--s);background:var(--sb)}
.tile .num{font-size:1.6rem;font-weight:700;color:var(--s)}.tile .lbl{color:var(--fg)}.tile.zero{opacity:.55}
.s-Ready,.c-Ready,.h-Ready{--s:var(--Ready);--sb:var(--Ready-bg)}.s-Progressing,.c-Progressing,.h-Progressing{--s:var(--Progressing);--sb:var(--Progressing-bg)}
.s-Failed,.c-Failed,.h-Failed{--s:var(--Failed);--sb:var(--Failed-bg)}.s-Drifted,.c-Drifted,.h-Drifted{--s:var(--Drifted);--sb:var(--Drifted-bg)}
.s-Disabled,.c-Disabled,.h-Disabled{--s:var(--Disabled);--sb:var(--Disabled-bg)}.s-Unknown,.c-Unknown,.h-Unknown{--s:var(--Unknown);--sb:var(--Unknown-bg)}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse;width:100%}
th,td{padding:.35rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--panel);font-weight:600;white-space:nowrap}
tbody tr:last-child td,tbody tr:last-child th{border-bottom:0}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.matrix th.ext{text-align:center;border-left:2px solid var(--line)}.matrix .first{border-left:2px solid var(--line)}
.matrix th,.matrix td{padding:.3rem .45rem}.matrix thead th.n{font-size:.74rem}.matrix thead th[class*=h-]{color:var(--s)}
.matrix td[class*=c-]{background:var(--sb);color:var(--s);font-weight:700}.matrix td.zero{background:none;color:var(--muted);font-weight:400;opacity:.6}
.matrix tr.section th{background:var(--panel);color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
.matrix tr.fleet th,.matrix tr.fleet td{border-bottom:2px solid var(--line)}.matrix .key{white-space:nowrap}
.adopt .pct{display:block;font-weight:600}.adopt .bar{display:block;height:4px;margin-top:2px;border-radius:2px;background:linear-gradient(90deg,var(--Ready) var(--p),var(--line) var(--p))}
.badge{display:inline-block;padding:0 .5em;border-radius:999px;font-size:.8rem;font-weight:600;color:var(--s);background:var(--sb);border:1px solid var(--s);white-space:nowrap}
.stale{color:var(--muted);font-size:.85em}.none{color:var(--muted);font-style:italic}
.name,.ext-name,.time{white-space:nowrap}.name{font-weight:600}.name .id{display:block;font-weight:400;color:var(--muted)}
.msg{min-width:24rem;overflow-wrap:anywhere}.reason{color:var(--muted)}
.count{font-size:.8rem;padding:0 .5em;border-radius:999px;background:var(--panel);border:1px solid var(--line)}
.ok{color:var(--Ready)}
.search{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin:.25rem 0}
.search input{font:inherit;padding:.4rem .6rem;width:min(34rem,100%);border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
#shown{color:var(--muted)}
footer{margin-top:2rem;color:var(--muted);font-size:.85rem}
@media print{.search,#search-help{display:none}body{padding:0}}
`.trim();

const SCRIPT = `
(function () {
  'use strict';
  var input = document.getElementById('q');
  var shown = document.getElementById('shown');
  var none = document.getElementById('no-match');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#runtime-table tbody tr[data-name]'));
  var FIELDS = ['name', 'state', 'states', 'reason', 'group', 'region'];
  var QUALIFIED = { name: 'name', state: 'state', reason: 'reason', group: 'group', region: 'region' };
  function matches(row, term) {
    var colon = term.indexOf(':');
    if (colon > 0 && Object.prototype.hasOwnProperty.call(QUALIFIED, term.slice(0, colon))) {
      var key = term.slice(0, colon);
      var value = term.slice(colon + 1);
      var field = row.getAttribute('data-' + QUALIFIED[key]) || '';
      return key === 'state' ? field.indexOf(value) === 0 : field.indexOf(value) >= 0;
    }
    for (var i = 0; i < FIELDS.length; i++) {
      if ((row.getAttribute('data-' + FIELDS[i]) || '').indexOf(term) >= 0) return true;
    }
    return false;
  }
  function apply() {
    var terms = input.value.toLowerCase().split(/\\s+/).filter(function (t) { return t !== ''; });
    var count = 0;
    rows.forEach(function (row) {
      var ok = terms.every(function (t) { return matches(row, t); });
      row.hidden = !ok;
      if (ok) count++;
    });
    shown.textContent = count + ' of ' + rows.length + ' runtime' + (rows.length === 1 ? '' : 's');
    none.hidden = count !== 0;
  }
  input.addEventListener('input', apply);
  document.addEventListener('keydown', function (e) {
    if (e.key === '/' && document.activeElement !== input) {
      e.preventDefault();
      input.focus();
    }
  });
  if (location.hash.indexOf('#q=') === 0) {
    try { input.value = decodeURIComponent(location.hash.slice(3)); } catch (e) { input.value = ''; }
  }
  apply();
})();
`.trim();
