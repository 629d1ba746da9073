// Turns the judge's refusals and differences into minimal reproducers for a failing test: the runtime,
// its rendered entry (the settings as kyma-fleet resolved them), kyma-fleet's verdict (it rendered the
// runtime, so its validation accepted it) and upstream's verdict with its messages.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { JudgeLine, JudgeResult } from './judge';

function renderedEntry(distDir: string, line: JudgeLine): unknown {
  const docs = parseAllDocuments(fs.readFileSync(path.join(distDir, line.file), 'utf8')).map((d) => d.toJS() as Record<string, any>);
  const object = docs.find((d) => d && (d.kind === 'Shoot' || d.kind === 'Runtime'));
  if (!object) return undefined;
  if (object.kind === 'Runtime') return { 'spec.imageRegistryCache': object.spec?.imageRegistryCache };
  if (line.entry === 'spec.resources') return { 'spec.resources': object.spec?.resources };
  const ext = (object.spec?.extensions ?? []).find((e: { type?: string }) => e.type === line.entry);
  return { extension: ext, 'spec.resources': object.spec?.resources };
}

/** One reproducer text per refused or differing line (empty when the judge found nothing). */
export function reproducers(result: JudgeResult, distDir: string, context = ''): string[] {
  return result.lines
    .filter((l) => l.verdict === 'refused' || l.verdict === 'differs')
    .map((l) =>
      [
        `${context}${l.file} (${l.object}) ${l.entry}`,
        `  kyma-fleet: accepted (rendered by synth)`,
        `  upstream:   ${l.verdict} (${l.entry.startsWith('KIM') ? 'KIM mapping vs garden/' : l.entry === 'spec.resources' ? 'Gardener API validation' : l.verdict === 'differs' ? 'admission mutator vs garden/' : 'admission'})`,
        ...l.messages.map((m) => `    ${m}`),
        ...l.notes.map((n) => `    note: ${n}`),
        '  rendered:',
        ...stringify(renderedEntry(distDir, l) ?? null, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd().split('\n').map((s) => `    ${s}`),
      ].join('\n'),
    );
}
