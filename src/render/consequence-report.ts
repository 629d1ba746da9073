// The consequences of a change (./consequences.ts) as `kyma-fleet diff` shows them: the Markdown
// section that opens the pull request comment (counts per class and, with rollout rings, per ring;
// the most costly first, runtimes named up to the list cap), the text lines of the terminal and
// --output-file (every runtime named), and the JSON entries. Classes no runtime has are left out. Pure.

import type { ConsequenceClass } from '../extensions/types';
import type { Consequences } from './consequences';
import { cappedList } from './markdown-diff';

/** Rollout rings, for the per-ring columns. */
export interface RingColumns {
  /** Ring names in rollout order. */
  readonly names: readonly string[];
  /** A runtime's ring; undefined for a runtime no ring holds (one that leaves the fleet). */
  readonly ringOf: (runtime: string) => string | undefined;
}

/** The classes some runtime has, in order, with their runtimes. */
export function presentClasses(c: Consequences): Array<{ cls: ConsequenceClass; runtimes: readonly string[] }> {
  return c.classes.map((cls) => ({ cls, runtimes: c.runtimesOf.get(cls.id) ?? [] })).filter((x) => x.runtimes.length > 0);
}

const thousands = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string): string => `${thousands(n)} ${one}${n === 1 ? '' : 's'}`;

/** The Markdown section; '' when no runtime has a class. `failOn`: the class ids of --fail-on that matched. */
export function consequencesMarkdown(c: Consequences, rings?: RingColumns, failOn: readonly string[] = []): string {
  const present = presentClasses(c);
  if (present.length === 0) return '';
  const ringNames = rings ? [...rings.names] : [];
  const noRing = '(none)';
  if (rings && present.some((p) => p.runtimes.some((r) => rings.ringOf(r) === undefined))) ringNames.push(noRing);
  const cols = ringNames.map((n) => ` ${n} |`).join('');
  let out = `#### What the change does on the clusters\n\n| consequence | severity | runtimes |${cols}\n|---|---|---:|${ringNames.map(() => '---:|').join('')}\n`;
  for (const { cls, runtimes } of present) {
    const label = cls.severity === 'routine' ? cls.label : `**${cls.label}**`;
    let perRing = '';
    if (rings) {
      const counts = new Map<string, number>(ringNames.map((n) => [n, 0]));
      for (const r of runtimes) {
        const ring = rings.ringOf(r) ?? noRing;
        counts.set(ring, (counts.get(ring) ?? 0) + 1);
      }
      perRing = ringNames.map((n) => ` ${thousands(counts.get(n) ?? 0)} |`).join('');
    }
    out += `| ${label} \`${cls.id}\` | ${cls.severity} | ${thousands(runtimes.length)} |${perRing}\n`;
  }
  out += '\n';
  for (const { cls, runtimes } of present) out += `- **${cls.label}** in ${plural(runtimes.length, 'runtime')}: ${cappedList(runtimes)}. ${capitalise(cls.description)}.\n`;
  if (failOn.length > 0) {
    const labels = present.filter((p) => failOn.includes(p.cls.id)).map((p) => `${p.cls.label} (\`${p.cls.id}\`)`);
    out += `\n**This change needs an explicit approval** (\`--fail-on\`): ${labels.join(', ')}.\n`;
  }
  return out;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Text lines for the terminal and --output-file, every runtime named; '' when no runtime has a class. */
export function consequencesText(c: Consequences): string {
  const present = presentClasses(c);
  if (present.length === 0) return '';
  let out = 'consequences:\n';
  for (const { cls, runtimes } of present) out += `  ${cls.id} (${cls.severity}: ${cls.label}): ${plural(runtimes.length, 'runtime')}: ${runtimes.join(', ')}\n`;
  return out;
}

/** The JSON entries (schemas/output/diff.schema.json `consequences`). */
export function consequencesJson(c: Consequences): Array<{ id: string; label: string; severity: string; runtimes: readonly string[] }> {
  return presentClasses(c).map(({ cls, runtimes }) => ({ id: cls.id, label: cls.label, severity: cls.severity, runtimes }));
}
