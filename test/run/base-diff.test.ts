// `check --base` compares the base from the two indexes once dist/ is proven current
// (src/run/base-diff.ts, issue 28). Each case prepares a base dist/ from the example fleet, changes
// the fleet, synthesizes the pull request's dist/, and compares what the index path gives with what
// the rendering path gives (diffDist of the base, as `diff --out BASE` on a fresh runner): the
// same files, patches, runtimes and consequences' inputs, the same diagnostics and exit code. Then
// the cases where the index path must not apply (dist/ not proven, the base unreadable) and the one
// place where the two differ on purpose (a file of the base edited by hand that the pull request
// does not change: the base is taken as its index records it).

import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type Diagnostic, formatDiagnostic, normalizeDiagnostics } from '../../src/lib/diagnostics';
import { compareIndexes, diffBaseFromIndexes } from '../../src/run/base-diff';
import { diffDist, diffDistProving, type DiffResult, synth } from '../../src/run/synth';
import { IndexView } from '../../src/lib/dist-index';
import { FleetFixture, NOW } from '../helpers/fleet-fixture';

const SEQUENTIAL = { KYMA_FLEET_WORKERS: '1', KYMA_FLEET_PARALLEL_MIN: '10000000' };
const now = new Date(NOW);

const fixtures: FleetFixture[] = [];
afterAll(() => fixtures.forEach((f) => f.cleanup()));

type Edit = (fx: FleetFixture) => void;

/** A synth of the fleet into `out` with a throw-away cache folder (what a commit leaves). */
function synthInto(fx: FleetFixture, out: string): void {
  const cacheDir = path.join(fx.dir, `author-cache-${out}`);
  const r = synth({ fleetDir: 'fleet', outDir: out, cwd: fx.dir, now, cacheDir, env: SEQUENTIAL });
  expect(r.exitCode, r.diagnostics.map(formatDiagnostic).join('\n')).toBe(0);
  fs.rmSync(cacheDir, { recursive: true, force: true });
}

/**
 * The base branch's dist/ (the example fleet), then `edit` and the pull request's dist/: synthesized
 * over a copy of the base's (as an author does), or from nothing (`fromScratch`: a change synth
 * would refuse against the base, which only the check against the base then finds).
 */
function pullRequest(edit: Edit, options: { fromScratch?: boolean } = {}): FleetFixture {
  const fx = FleetFixture.example();
  fixtures.push(fx);
  synthInto(fx, 'base');
  edit(fx);
  if (!options.fromScratch) fs.cpSync(path.join(fx.dir, 'base'), path.join(fx.dir, 'dist'), { recursive: true });
  synthInto(fx, 'dist');
  return fx;
}

/** A file outside the fleet folder (dist/, the base), changed in place. */
function editFile(fx: FleetFixture, rel: string, change: (text: string) => string): void {
  const file = path.join(fx.dir, rel);
  const text = fs.readFileSync(file, 'utf8');
  expect(change(text)).not.toBe(text);
  fs.writeFileSync(file, change(text));
}

let runner = 0;
const options = (fx: FleetFixture, outDir: string) => ({ fleetDir: 'fleet', outDir, cwd: fx.dir, now, cacheDir: path.join(fx.dir, `runner-${runner++}`), env: SEQUENTIAL });

/** What check reports against the base: its comparison and the diagnostics of both comparisons. */
function report(check: DiffResult, base: DiffResult): unknown {
  const d = base.diff;
  const diagnostics = normalizeDiagnostics([...check.diagnostics, ...base.diagnostics]) as Diagnostic[];
  return {
    exitCode: base.exitCode,
    diagnostics: diagnostics.map(formatDiagnostic),
    ...(d
      ? {
          added: d.added,
          changed: d.changed,
          removed: d.removed,
          patches: Object.fromEntries(d.patches),
          runtimes: d.runtimes,
          identifiers: Object.fromEntries(d.identifiers),
          manifests: Object.fromEntries(d.manifests),
        }
      : {}),
  };
}

/** Both ways: from the indexes (undefined when that path does not apply) and by rendering the base. */
function compare(fx: FleetFixture): { fromIndexes: unknown; rendered: unknown; check: DiffResult } {
  const { result: check, proven } = diffDistProving(options(fx, 'dist'));
  const fast = proven ? diffBaseFromIndexes(options(fx, 'dist'), 'base', proven) : undefined;
  const slow = diffDist({ ...options(fx, 'base'), allowEmpty: true });
  return { fromIndexes: fast && report(check, fast), rendered: report(check, slow), check };
}

const RUNTIME = 'acme-eu-dev-1';
const addRuntime: Edit = (fx) => {
  const text = fx.read(`runtimes/${RUNTIME}.yaml`);
  fx.write(
    'runtimes/zz-added.yaml',
    text.replace(`name: ${RUNTIME}`, 'name: zz-added').replace(/runtimeID: \S+/, 'runtimeID: 00000000-0000-4000-8000-00000000abcd').replace(/name: c-\S+/, 'name: c-zzadded'),
  );
};

const EDITS: ReadonlyArray<readonly [string, Edit]> = [
  ['one runtime file', (fx) => fx.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules')],
  ['a runtime added', addRuntime],
  ['a runtime removed', (fx) => fx.remove('runtimes/acme-us-dev-2.yaml')],
  ['a group that selects several runtimes', (fx) => fx.replace('groups/europe.yaml', '            secretReferenceName: gar-europe-pull', '            secretReferenceName: gar-europe-pull-2')],
  ['a default of fleet.yaml', (fx) => fx.replace('fleet.yaml', '      interval: 10m', '      interval: 15m')],
  ['nothing', () => {}],
];

describe('the base compared from the indexes gives what rendering the base gives', () => {
  it.each(EDITS)('%s', (_name, edit) => {
    const fx = pullRequest(edit);
    const { fromIndexes, rendered, check } = compare(fx);
    expect(check.exitCode).toBe(0);
    expect(fromIndexes, 'the index path applies').toBeDefined();
    expect(fromIndexes).toEqual(rendered);
  });

  it("a change refused against the base's render (E_IMMUTABLE_FIELD) is refused from the indexes too", () => {
    const fx = pullRequest((f) => f.replace('groups/production.yaml', 'size: 50Gi', 'size: 80Gi'), { fromScratch: true });
    const { fromIndexes, rendered } = compare(fx);
    expect(fromIndexes).toEqual(rendered);
    expect(JSON.stringify(fromIndexes)).toContain('E_IMMUTABLE_FIELD');
    expect((fromIndexes as { exitCode: number }).exitCode).toBe(1);
  });

  it('a file of the base edited by hand, in a runtime the change reaches: its transition is not judged against the edit (W_DIST_EDITED), either way', () => {
    const fx = pullRequest((f) => f.replace('groups/production.yaml', 'size: 50Gi', 'size: 80Gi'), { fromScratch: true });
    const config = 'runtimes/acme-eu-prod-1/skr-config/registrycacheconfig-docker.io.yaml';
    editFile(fx, `base/${config}`, (t) => t.replace('size: 50Gi', 'size: 80Gi'));
    const { fromIndexes, rendered } = compare(fx);
    const text = JSON.stringify(fromIndexes);
    expect(text).toContain('W_DIST_EDITED');
    expect(text).toContain(`base/${config}`);
    // Judged against the edit, the size would be unchanged: no error for this runtime.
    expect((fromIndexes as { diagnostics: string[] }).diagnostics.filter((d) => d.includes('E_IMMUTABLE_FIELD') && d.includes('acme-eu-prod-1'))).toEqual([]);
    expect((fromIndexes as { diagnostics: string[] }).diagnostics).toEqual((rendered as { diagnostics: string[] }).diagnostics);
  });

  it('on random combinations of changes', () => {
    fc.assert(
      fc.property(fc.subarray(EDITS.slice(0, 5).map(([, e]) => e), { minLength: 1 }), (edits) => {
        const fx = pullRequest((f) => edits.forEach((e) => e(f)));
        const { fromIndexes, rendered } = compare(fx);
        expect(fromIndexes).toBeDefined();
        expect(fromIndexes).toEqual(rendered);
        fx.cleanup();
      }),
      { numRuns: 6 },
    );
  });
});

describe('where the indexes cannot stand for the trees, the base is rendered and read', () => {
  it('dist/ out of date: nothing is proven', () => {
    const fx = pullRequest(() => {});
    fx.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules');
    const { result, proven } = diffDistProving(options(fx, 'dist'));
    expect(result.exitCode).toBe(0);
    expect(result.diff!.changed.length).toBeGreaterThan(0);
    expect(proven).toBeUndefined();
  });

  it("dist/ files edited to what the changed fleet renders, their index entries left as they were: out of date, nothing proven", () => {
    // The author changed a runtime and copied its new render into dist/ by hand; the index keeps the
    // old sha256s (the base's too). The check must not call this up to date: from the indexes the
    // runtime would look unchanged against the base. A file is the same only when its bytes, its
    // index entry and the render agree.
    const fx = pullRequest(() => {});
    fx.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules');
    synthInto(fx, 'rendered');
    const folder = `runtimes/${RUNTIME}`;
    fs.rmSync(path.join(fx.dir, 'dist', folder), { recursive: true });
    fs.cpSync(path.join(fx.dir, 'rendered', folder), path.join(fx.dir, 'dist', folder), { recursive: true });
    const { result, proven } = diffDistProving(options(fx, 'dist'));
    expect(result.diff!.changed).toContain(`${folder}/skr/kyma-default.yaml`);
    expect(proven).toBeUndefined();
  });

  it('a record that names a changed runtime under another file, or not at all: the base is rendered', () => {
    const fx = pullRequest((f) => f.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules'));
    const { proven } = diffDistProving(options(fx, 'dist'));
    expect(proven).toBeDefined();
    expect(diffBaseFromIndexes(options(fx, 'dist'), 'base', proven!)).toBeDefined();
    const own = `runtimes/${RUNTIME}.yaml`;
    const { [own]: entry, ...others } = proven!.record.runtimes;
    const other = 'runtimes/acme-us-dev-1.yaml';
    const elsewhere = { ...others, [other]: entry! };
    expect(diffBaseFromIndexes(options(fx, 'dist'), 'base', { ...proven!, record: { ...proven!.record, runtimes: elsewhere } })).toBeUndefined();
    expect(diffBaseFromIndexes(options(fx, 'dist'), 'base', { ...proven!, record: { ...proven!.record, runtimes: others } })).toBeUndefined();
  });

  it.each([
    ['missing', (fx: FleetFixture) => fs.rmSync(path.join(fx.dir, 'base'), { recursive: true })],
    ['without an index', (fx: FleetFixture) => fs.rmSync(path.join(fx.dir, 'base', '.kyma-fleet-index.json'))],
    ['a file, not a folder', (fx: FleetFixture) => {
      fs.rmSync(path.join(fx.dir, 'base'), { recursive: true });
      fs.writeFileSync(path.join(fx.dir, 'base'), 'x');
    }],
    ['a symlink to a dist/', (fx: FleetFixture) => {
      fs.renameSync(path.join(fx.dir, 'base'), path.join(fx.dir, 'real-base'));
      fs.symlinkSync(path.join(fx.dir, 'real-base'), path.join(fx.dir, 'base'));
    }],
    ['an index that is not a kyma-fleet index', (fx: FleetFixture) => fs.writeFileSync(path.join(fx.dir, 'base', '.kyma-fleet-index.json'), '{"version": 2}')],
  ])('a base %s: diff words what is wrong with it', (_name, spoil) => {
    const fx = pullRequest((f) => f.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules'));
    spoil(fx);
    const { proven } = diffDistProving(options(fx, 'dist'));
    expect(proven).toBeDefined();
    expect(diffBaseFromIndexes(options(fx, 'dist'), 'base', proven!)).toBeUndefined();
  });

});

describe('the trade-off: the base is taken as its index records it', () => {
  it('a file of the base edited by hand that the pull request does not change is not reported (rendering the base would show it restored)', () => {
    const fx = pullRequest((f) => f.replace(`runtimes/${RUNTIME}.yaml`, 'channel: fast\n  modules', 'channel: regular\n  modules'));
    const other = 'runtimes/acme-us-prod-1/skr/kyma-default.yaml';
    editFile(fx, `base/${other}`, (t) => `${t}# edited on the base branch\n`);
    const { fromIndexes, rendered } = compare(fx);
    expect((fromIndexes as { changed: string[] }).changed).not.toContain(other);
    expect((rendered as { changed: string[] }).changed).toContain(other);
  });
});

describe('compareIndexes', () => {
  const view = (entries: Record<string, string>): IndexView => IndexView.fromSorted(Object.keys(entries).sort(), Object.keys(entries).sort().map((k) => entries[k]!.repeat(64)));
  it.each([
    ['equal', { a: '1', b: '2' }, { a: '1', b: '2' }, { added: [], changed: [], removed: [] }],
    ['one hash differs', { a: '1', b: '2' }, { a: '1', b: '3' }, { added: [], changed: ['b'], removed: [] }],
    ['added at the end and the start', { b: '2' }, { a: '1', b: '2', c: '3' }, { added: ['a', 'c'], changed: [], removed: [] }],
    ['removed', { a: '1', b: '2', c: '3' }, { b: '2' }, { added: [], changed: [], removed: ['a', 'c'] }],
    ['empty before', {}, { a: '1' }, { added: ['a'], changed: [], removed: [] }],
    ['empty after', { a: '1' }, {}, { added: [], changed: [], removed: ['a'] }],
    ['code-point order, not locale order', { 'a-b/x': '1', 'a/x': '2' }, { 'a-b/x': '1', 'a/x': '3', 'B/x': '4' }, { added: ['B/x'], changed: ['a/x'], removed: [] }],
  ])('%s', (_name, before, after, expected) => {
    expect(compareIndexes(Object.entries(before).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v.repeat(64)] as const), view(after))).toEqual(expected);
  });
});
