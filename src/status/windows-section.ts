// The part of status.html about change windows (docs/rollout.md#change-windows): per rollout ring,
// whether its window is open at the time of the status run and when it closes, or why it is closed
// and when the next window opens. The rows are judged by the caller (src/rollout/windows.ts
// ringWindowRows, at the run's --now); this module only lays them out. Pure; every text escaped.

/** One ring's change window at the time of the run. */
export interface RingWindowRow {
  readonly ring: string;
  readonly open: boolean;
  /** One line: `open: inside … ; closes …` or `closed: … ; next window opens …`. */
  readonly text: string;
}

/** The HTML section (absent rows: no section). */
export function windowsHtml(rows: readonly RingWindowRow[], esc: (text: string) => string): string[] {
  if (rows.length === 0) return [];
  return [
    '<section id="windows">',
    '<h2>Change windows</h2>',
    '<p class="note">rollout start, rollout advance and apply garden act on a ring only inside its change window and outside every freeze (judged at the time of this status run).</p>',
    '<div class="scroll"><table class="list">',
    '<thead><tr><th scope="col">Ring</th><th scope="col">Window</th><th scope="col">Why, and the next change</th></tr></thead>',
    '<tbody>',
    ...rows.map(
      (r) =>
        `<tr data-ring="${esc(r.ring)}"><td class="name">${esc(r.ring)}</td><td><span class="badge s-${r.open ? 'Ready' : 'Progressing'}">${r.open ? 'open' : 'closed'}</span></td><td>${esc(r.text.replace(/^(open|closed): /, ''))}</td></tr>`,
    ),
    '</tbody>',
    '</table></div>',
    '</section>',
  ];
}
