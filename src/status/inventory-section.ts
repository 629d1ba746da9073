// The part of SUMMARY.md and status.html about the KCP's inventory (../observe/inventory.ts):
// Runtime CRs the fleet does not manage (import them with `kyma-fleet import runtimes`) and fleet
// runtimes without a Runtime CR. Shown only when the source read the whole KCP namespace; long
// lists are capped (the counts stay exact). Pure; every cluster text escaped.

import type { InventoryComparison } from '../observe/inventory';
import { markdownCell, sanitizeMessage } from '../observe/sanitize';

/** At most this many rows per list; the rest is counted. */
export const MAX_INVENTORY_ROWS = 200;

const IMPORT_HINT = 'kyma-fleet import runtimes';

function headline(c: InventoryComparison): string {
  return `${c.managed + c.unmanaged.length} Runtime CR${c.managed + c.unmanaged.length === 1 ? '' : 's'} in ${c.namespace}: ${c.managed} managed by the fleet, ${c.unmanaged.length} not managed; ${c.missing.length} fleet runtime${c.missing.length === 1 ? '' : 's'} without a Runtime CR.`;
}

/** The Markdown section (ends with an empty line). */
export function inventoryMarkdown(c: InventoryComparison): string[] {
  const lines = ['## The KCP and the fleet', '', headline(c), ''];
  if (c.unmanaged.length > 0) {
    lines.push(`### Runtimes the fleet does not manage (add them with \`${IMPORT_HINT}\`)`, '', '| Runtime ID | Runtime CR | Shoot | Plan | Region |', '| --- | --- | --- | --- | --- |');
    for (const r of c.unmanaged.slice(0, MAX_INVENTORY_ROWS)) {
      lines.push(`| ${markdownCell(r.runtimeID)} | ${markdownCell(r.object)} | ${markdownCell(r.shootName ?? '')} | ${markdownCell(r.plan ?? '')} | ${markdownCell(r.region ?? '')} |`);
    }
    if (c.unmanaged.length > MAX_INVENTORY_ROWS) lines.push('', `… and ${c.unmanaged.length - MAX_INVENTORY_ROWS} more.`);
    lines.push('');
  }
  if (c.missing.length > 0) {
    lines.push('### Fleet runtimes the KCP does not have (deprovisioned, or a wrong runtime ID)', '', '| Runtime | Runtime ID |', '| --- | --- |');
    for (const r of c.missing.slice(0, MAX_INVENTORY_ROWS)) lines.push(`| ${markdownCell(r.name)} | ${markdownCell(r.runtimeID)} |`);
    if (c.missing.length > MAX_INVENTORY_ROWS) lines.push('', `… and ${c.missing.length - MAX_INVENTORY_ROWS} more.`);
    lines.push('');
  }
  return lines;
}

/** Inserts the section into SUMMARY.md text before its closing "Per-runtime details" line. */
export function withInventorySection(summary: string, c: InventoryComparison): string {
  const section = inventoryMarkdown(c).join('\n') + '\n';
  const at = summary.lastIndexOf('\nPer-runtime details:');
  return at < 0 ? summary + section : `${summary.slice(0, at + 1)}${section}${summary.slice(at + 1)}`;
}

/** The HTML section; `esc` is the page's escaper. */
export function inventoryHtml(c: InventoryComparison, esc: (s: string) => string): string[] {
  const out = ['<section id="inventory">', `<h2>The KCP and the fleet <span class="count" data-count="${c.unmanaged.length + c.missing.length}">${c.unmanaged.length + c.missing.length}</span></h2>`, `<p class="note">${esc(headline(c))}</p>`];
  const table = (title: string, head: string[], rows: string[][], total: number, id: string): void => {
    out.push(`<h3>${esc(title)}</h3>`, `<div class="scroll"><table class="list" id="${id}">`, `<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`, '<tbody>');
    for (const r of rows) out.push(`<tr>${r.map((cell) => `<td>${esc(sanitizeMessage(cell, 200))}</td>`).join('')}</tr>`);
    if (total > rows.length) out.push(`<tr><td colspan="${head.length}" class="none">… and ${total - rows.length} more</td></tr>`);
    out.push('</tbody>', '</table></div>');
  };
  if (c.unmanaged.length > 0) {
    table(
      `Runtimes the fleet does not manage (add them with ${IMPORT_HINT})`,
      ['Runtime ID', 'Runtime CR', 'Shoot', 'Plan', 'Region'],
      c.unmanaged.slice(0, MAX_INVENTORY_ROWS).map((r) => [r.runtimeID, r.object, r.shootName ?? '', r.plan ?? '', r.region ?? '']),
      c.unmanaged.length,
      'unmanaged',
    );
  }
  if (c.missing.length > 0) {
    table('Fleet runtimes the KCP does not have (deprovisioned, or a wrong runtime ID)', ['Runtime', 'Runtime ID'], c.missing.slice(0, MAX_INVENTORY_ROWS).map((r) => [r.name, r.runtimeID]), c.missing.length, 'missing');
  }
  out.push('</section>');
  return out;
}
