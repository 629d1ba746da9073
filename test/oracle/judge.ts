// Judges a rendered dist/ folder with the upstream oracle: every Shoot fragment
// (dist/runtimes/<name>/garden/) is decoded strictly with its spec.resources validated by Gardener,
// every extension entry goes through upstream admission, and every Runtime fragment
// (dist/runtimes/<name>/kcp/) through KIM's own mapping, compared with the runtime's Shoot fragment.
// One line per object and extension entry. Other folders (skr/, skr-config/, gitops/) are not read.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Oracle } from './oracle';
import type { KubeObject } from './protocol';

export type Verdict = 'accepted' | 'refused' | 'disabled' | 'not-judged' | 'equal' | 'differs';

export interface JudgeLine {
  /** dist-relative file, e.g. runtimes/acme/garden/shoot-c-1.yaml */
  file: string;
  /** `Shoot garden-x/c-1` or `Runtime kcp-system/<id>` */
  object: string;
  /** What was judged: `spec.resources`, an extension type (`registry-cache`, `shoot-falco-service`), `KIM registry-cache`. */
  entry: string;
  verdict: Verdict;
  /** Upstream's messages (refused), the differences (differs), or the reason (not-judged). */
  messages: string[];
  /** Extra facts worth showing, e.g. the name rule's map or text-only differences. */
  notes: string[];
}

export interface JudgeResult {
  lines: JudgeLine[];
  /** False when any entry was refused or any mapping differs. */
  ok: boolean;
  counts: Record<Verdict, number>;
}

interface Fragment {
  file: string;
  object: KubeObject;
}

function readFragments(distDir: string, runtime: string, target: 'garden' | 'kcp', kind: string): Fragment[] {
  const dir = path.join(distDir, 'runtimes', runtime, target);
  if (!fs.existsSync(dir)) return [];
  const out: Fragment[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(name)) continue;
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${path.join(dir, name)}: ${doc.errors[0]!.message}`);
      const object = doc.toJS() as KubeObject | null;
      if (object && object.kind === kind) out.push({ file: `runtimes/${runtime}/${target}/${name}`, object });
    }
  }
  return out;
}

function describeObject(o: KubeObject): string {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(o.kind)} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? '?'}`;
}

interface ExtensionEntry {
  type?: string;
  disabled?: boolean;
  providerConfig?: unknown;
}

function extensionsOf(shoot: KubeObject): ExtensionEntry[] {
  const spec = (shoot.spec ?? {}) as { extensions?: ExtensionEntry[] };
  return Array.isArray(spec.extensions) ? spec.extensions : [];
}

/** Short form of the Falco op's "unavailable" answer, for the per-entry line. */
export const FALCO_NOT_JUDGED = 'the Falco extension module is not served by the Go module proxy (docs/testing.md)';

async function judgeShoot(oracle: Oracle, fragment: Fragment): Promise<JudgeLine[]> {
  const lines: JudgeLine[] = [];
  const object = describeObject(fragment.object);
  // The fragment as the API server decodes it, and its spec.resources as Gardener validates them.
  const resources = await oracle.ask('shoot/validate-resources', { shoot: fragment.object });
  lines.push({ file: fragment.file, object, entry: 'spec.resources', verdict: resources.accepted ? 'accepted' : 'refused', messages: resources.errors ?? [], notes: [] });
  for (const ext of extensionsOf(fragment.object)) {
    const entry = String(ext.type);
    const line = (verdict: Verdict, messages: string[] = [], notes: string[] = []): JudgeLine => ({ file: fragment.file, object, entry, verdict, messages, notes });
    if (ext.type === 'registry-cache') {
      const r = await oracle.ask('registry-cache/validate', { shoot: fragment.object, standInSecrets: true });
      if (r.skipped) lines.push(line('disabled', [], [r.skipped]));
      else lines.push(r.accepted ? line('accepted') : line('refused', r.errors ?? []));
    } else if (ext.type === 'shoot-falco-service') {
      const r = await oracle.request('falco/validate', { shoot: fragment.object });
      if (r.error !== undefined) {
        if (!r.error.startsWith('unavailable:')) throw new Error(`oracle falco/validate: ${r.error}`);
        lines.push(line('not-judged', [FALCO_NOT_JUDGED]));
      } else {
        lines.push(r.accepted ? line('accepted') : line('refused', r.errors ?? []));
      }
    } else {
      lines.push(line('not-judged', [`no upstream oracle for extension type ${entry}`]));
    }
  }
  return lines;
}

async function judgeRuntime(oracle: Oracle, fragment: Fragment, shoot: Fragment | undefined): Promise<JudgeLine> {
  const base = { file: fragment.file, object: describeObject(fragment.object), entry: 'KIM registry-cache' };
  const rendered: KubeObject = shoot?.object ?? { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: {}, spec: {} };
  const r = await oracle.ask('kim/registry-cache', { runtime: fragment.object, rendered });
  if (!r.accepted) return { ...base, verdict: 'refused', messages: r.errors ?? [], notes: [] };
  const c = r.comparison!;
  const against = shoot ? shoot.file.replace(/^runtimes\/[^/]+\//, '') : 'no Shoot fragment';
  const notes = [`against ${against}`];
  const names = Object.entries(c.nameMap).map(([kim, ours]) => `${kim} -> ${ours}`);
  if (names.length > 0) notes.push(`name rule: ${names.join(', ')}`);
  if ((c.textDifferences ?? []).length > 0) notes.push(`text only: ${c.textDifferences.join('; ')}`);
  return { ...base, verdict: c.equal ? 'equal' : 'differs', messages: c.differences, notes };
}

/** Judges every Shoot and Runtime fragment under distDir/runtimes/. */
export async function judgeDist(oracle: Oracle, distDir: string): Promise<JudgeResult> {
  const runtimesDir = path.join(distDir, 'runtimes');
  if (!fs.existsSync(runtimesDir)) throw new Error(`${distDir} has no runtimes/ folder: not a kyma-fleet dist/`);
  const runtimes = fs.readdirSync(runtimesDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const perRuntime = await Promise.all(
    runtimes.map(async (runtime) => {
      const shoots = readFragments(distDir, runtime, 'garden', 'Shoot');
      const runtimeCRs = readFragments(distDir, runtime, 'kcp', 'Runtime');
      const lines: JudgeLine[] = [];
      for (const shoot of shoots) lines.push(...(await judgeShoot(oracle, shoot)));
      for (const rt of runtimeCRs) lines.push(await judgeRuntime(oracle, rt, shoots[0]));
      return lines;
    }),
  );
  const lines = perRuntime.flat();
  const counts: Record<Verdict, number> = { accepted: 0, refused: 0, disabled: 0, 'not-judged': 0, equal: 0, differs: 0 };
  for (const l of lines) counts[l.verdict]++;
  return { lines, ok: counts.refused === 0 && counts.differs === 0, counts };
}

/** One printable line per judged entry: `<file> <object> <entry>: <verdict>[: messages][ (notes)]`. */
export function formatLine(l: JudgeLine, verbose = false): string {
  const head = `${l.file} ${l.object} ${l.entry}: ${l.verdict}`;
  const messages = l.messages.length > 0 ? `: ${l.messages.join(' | ')}` : '';
  const notes = verbose && l.notes.length > 0 ? ` (${l.notes.join('; ')})` : '';
  return head + messages + notes;
}

export function formatSummary(r: JudgeResult): string {
  const c = r.counts;
  return `${r.lines.length} entries: ${c.accepted} accepted, ${c.refused} refused, ${c.disabled} disabled, ${c.equal} KIM-equal, ${c.differs} KIM-different, ${c['not-judged']} not judged`;
}
