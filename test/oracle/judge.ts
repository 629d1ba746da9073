// Judges a rendered dist/ folder with the upstream oracle: every Shoot fragment
// (dist/runtimes/<name>/garden/) is decoded strictly with its spec.resources validated by Gardener,
// every extension entry goes through its extension's admission (registry-cache, shoot-falco-service:
// mutator and validator, shoot-lakom-service), and every Runtime fragment (dist/runtimes/<name>/kcp/)
// through KIM's own mapping, compared with the runtime's Shoot fragment. One line per object and
// extension entry. Other folders (skr/, skr-config/, gitops/) are not read. Falco versions are judged
// against the FalcoProfile given (the fleet's snapshot) as of `now`; without one, the rendered version
// stands in and the line notes that it was not judged.

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
  /** Upstream's messages (refused), the differences (differs: KIM's mapping, or the Falco mutator's changes), or the reason (not-judged). */
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

export interface JudgeOptions {
  /** The FalcoProfile (the fleet's snapshot) to judge falcoVersion against. */
  falcoProfile?: KubeObject;
  /** The instant kyma-fleet rendered at (synth --now), for the profile's expiration dates. */
  now?: string;
  /**
   * Judge Falco as an admission run with --otlp-logging (upstream's default is off, and then the
   * `otlp` destination is refused: `destination "otlp" is not configured`). A landscape's choice.
   */
  otlpLogging?: boolean;
}

async function judgeFalco(oracle: Oracle, shoot: KubeObject, opts: JudgeOptions): Promise<{ verdict: Verdict; messages: string[]; notes: string[] }> {
  const r = await oracle.request('falco/validate', {
    shoot,
    ...(opts.falcoProfile ? { falcoProfile: opts.falcoProfile } : { standInProfile: true }),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.otlpLogging ? { otlpLogging: true } : {}),
  });
  if (r.error !== undefined) {
    if (!r.error.startsWith('unavailable:')) throw new Error(`oracle falco/validate: ${r.error}`);
    return { verdict: 'not-judged', messages: [r.error.slice('unavailable: '.length)], notes: [] };
  }
  if (r.skipped) return { verdict: 'disabled', messages: [], notes: [r.skipped] };
  const notes = [...(r.notes ?? [])];
  if (!r.accepted) return { verdict: 'refused', messages: r.errors ?? [], notes };
  // The renderer writes the mutator's defaults itself: a change shows as drift in every GitOps diff.
  // Without a FalcoProfile the default version cannot be known, so a version the mutator adds is noted.
  const mutations = (r.mutations ?? []).filter((m) => {
    if (!opts.falcoProfile && m.startsWith('providerConfig.falcoVersion: rendered (none)')) {
      notes.push(`the mutator adds falcoVersion (no FalcoProfile given): ${m}`);
      return false;
    }
    return true;
  });
  if (mutations.length > 0) return { verdict: 'differs', messages: mutations.map((m) => `the Falco mutator changes ${m}`), notes };
  return { verdict: 'accepted', messages: [], notes };
}

async function judgeShoot(oracle: Oracle, fragment: Fragment, opts: JudgeOptions): Promise<JudgeLine[]> {
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
      const f = await judgeFalco(oracle, fragment.object, opts);
      lines.push(line(f.verdict, f.messages, f.notes));
    } else if (ext.type === 'shoot-lakom-service') {
      const r = await oracle.ask('lakom/validate', { shoot: fragment.object, standInSecrets: true });
      if (r.skipped) lines.push(line('disabled', [], [r.skipped]));
      else lines.push(r.accepted ? line('accepted') : line('refused', r.errors ?? []));
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
export async function judgeDist(oracle: Oracle, distDir: string, opts: JudgeOptions = {}): Promise<JudgeResult> {
  const runtimesDir = path.join(distDir, 'runtimes');
  if (!fs.existsSync(runtimesDir)) throw new Error(`${distDir} has no runtimes/ folder: not a kyma-fleet dist/`);
  const runtimes = fs.readdirSync(runtimesDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const perRuntime = await Promise.all(
    runtimes.map(async (runtime) => {
      const shoots = readFragments(distDir, runtime, 'garden', 'Shoot');
      const runtimeCRs = readFragments(distDir, runtime, 'kcp', 'Runtime');
      const lines: JudgeLine[] = [];
      for (const shoot of shoots) lines.push(...(await judgeShoot(oracle, shoot, opts)));
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
  return `${r.lines.length} entries: ${c.accepted} accepted, ${c.refused} refused, ${c.disabled} disabled, ${c.equal} KIM-equal, ${c.differs} different (KIM mapping or Falco mutator), ${c['not-judged']} not judged`;
}
