// The one way kyma-fleet writes a field path, shared by diagnostics (src/lib/diagnostics.ts
// formatField) and `explain` (src/resolve/resolve.ts displayPath), so the two cannot drift
// (issue 26, item 5): an entry of a list that has an identifying key is named by that key,
// `caches[upstream=docker.io]`, `modules[name=istio]`; any other list entry by its position,
// `rules.custom[0]`. A diagnostic also keeps the position where the key cannot name the entry at
// that point: missing, empty, not a string, or the same in another entry of the list. Pure.

/** A path into a YAML document: map keys and list indices. */
export type DocPath = ReadonlyArray<string | number>;

/** A list whose entries are identified by one of their fields (e.g. caches by upstream). */
export interface KeyedList {
  /** Path of the list, map keys only (e.g. ['spec', 'modules']). */
  readonly path: readonly string[];
  /** Field that identifies an entry, e.g. 'upstream'. */
  readonly key: string;
}

/** One segment of a path as shown: a map key, a list position, or a list entry named by its key. */
export type FieldSegment = string | number | { readonly key: string; readonly value: string };

/** What names the list entries of one document: its data and its keyed lists (paths from the data's root). */
export interface FieldNaming {
  readonly root: unknown;
  readonly lists: readonly KeyedList[];
}

/** Key values written as they are; anything else (spaces, brackets, quotes, '=') as a JSON string. */
const PLAIN_KEY_VALUE = /^[A-Za-z0-9._:/@+~-]+$/;
const PLAIN_MAP_KEY = /^[A-Za-z0-9_-]+$/;

/** `[upstream=docker.io]`: an entry of a keyed list. */
export function keyedEntryText(key: string, value: string): string {
  return `[${key}=${PLAIN_KEY_VALUE.test(value) ? value : JSON.stringify(value)}]`;
}

/** The text of a path: `extensions.<extension>.caches[upstream=docker.io].volume.size`. */
export function formatSegments(segments: readonly FieldSegment[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'object') out += keyedEntryText(seg.key, seg.value);
    else if (PLAIN_MAP_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The key value that names entry `index` of `list`, or undefined when it cannot (missing, empty, not a string, duplicated). */
export function identifyingValue(list: readonly unknown[], index: number, key: string): string | undefined {
  const entry = list[index];
  if (!isRecord(entry)) return undefined;
  const value = entry[key];
  if (typeof value !== 'string' || value === '') return undefined;
  for (let i = 0; i < list.length; i++) {
    const other = list[i];
    if (i !== index && isRecord(other) && other[key] === value) return undefined;
  }
  return value;
}

function sameSegments(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/**
 * The segments of a document path with the entries of keyed lists named by their key. Keyed lists
 * are found by map keys only: a list inside a list entry is never keyed (as in the resolver).
 */
export function namedSegments(path: DocPath, naming?: FieldNaming): FieldSegment[] {
  if (!naming || naming.lists.length === 0) return [...path];
  const out: FieldSegment[] = [];
  let node: unknown = naming.root;
  let plain: string[] | undefined = [];
  for (const seg of path) {
    if (typeof seg === 'number') {
      const spec = plain && Array.isArray(node) ? naming.lists.find((l) => sameSegments(l.path, plain!)) : undefined;
      const value = spec ? identifyingValue(node as unknown[], seg, spec.key) : undefined;
      out.push(spec && value !== undefined ? { key: spec.key, value } : seg);
      plain = undefined;
      node = Array.isArray(node) ? node[seg] : undefined;
      continue;
    }
    out.push(seg);
    plain?.push(seg);
    node = isRecord(node) ? node[seg] : undefined;
  }
  return out;
}

const TOKEN = /\.?([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\[([A-Za-z0-9_-]+)=("(?:[^"\\]|\\.)*"|[A-Za-z0-9._:/@+~-]+)\]/y;

/**
 * The inverse of formatSegments for scripts and tests that need positions (e.g. to compare with an
 * upstream field error, which counts list entries): the document path a field names in `root`, an
 * entry named by its key found by that key. Undefined when the text is not a field path or names
 * an entry `root` does not have exactly once.
 */
export function resolveField(field: string, root: unknown): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let node = root;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < field.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(field);
    if (!m || (m[1] !== undefined && at > 0 && field[at] !== '.') || (m[1] !== undefined && at === 0 && field[0] === '.')) return undefined;
    let seg: string | number;
    if (m[1] !== undefined || m[3] !== undefined) seg = m[1] ?? (JSON.parse(m[3]!) as string);
    else if (m[2] !== undefined) seg = Number(m[2]);
    else {
      const key = m[4]!;
      const value = m[5]!.startsWith('"') ? (JSON.parse(m[5]!) as string) : m[5]!;
      if (!Array.isArray(node)) return undefined;
      const hits = node.flatMap((e, i) => (isRecord(e) && e[key] === value ? [i] : []));
      if (hits.length !== 1) return undefined;
      seg = hits[0]!;
    }
    out.push(seg);
    node = typeof seg === 'number' ? (Array.isArray(node) ? node[seg] : undefined) : isRecord(node) ? node[seg] : undefined;
  }
  return out;
}
