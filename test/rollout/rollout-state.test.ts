// The pure parts of rollout rings: ring assignment, the state file (deterministic text, strict
// reading with positions), the moves (start, advance with empty rings passing through, abort,
// pause), fitting a state to changed rings, content-addressed revisions and hand-edit detection.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ringOf, runtimesByRing } from '../../src/rollout/rings';
import { readRevisionFolder, revisionOf, storeRevision } from '../../src/rollout/revision';
import { formatState, parseState, type RolloutState } from '../../src/rollout/state-file';
import { readRollout, saveRollout } from '../../src/rollout/store';
import { abortRollout, advanceFrom, alignState, ringToLeave, setPaused, startRollout } from '../../src/rollout/transitions';
import type { RolloutConfig } from '../../src/validate/rollout-options';

const CONFIG: RolloutConfig = {
  rings: [
    { name: 'canary', selector: { matchLabels: { ring: 'canary' } }, bake: '24h', bakeMs: 86_400_000, maxFailed: 0 },
    { name: 'early', selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['production'] }] }, bake: '48h', bakeMs: 172_800_000, maxFailed: 1 },
  ],
};
const R1 = '1111111111111111';
const R2 = '2222222222222222';
const R3 = '3333333333333333';
const T0 = new Date('2026-11-25T10:00:00Z');
const T1 = new Date('2026-11-26T10:00:00Z');

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function scratch(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-rollout-'));
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

describe('ring assignment', () => {
  it('puts a runtime into the first ring whose selector matches, else into rest', () => {
    expect(ringOf({ ring: 'canary', tier: 'development' }, CONFIG)).toBe('canary');
    expect(ringOf({ tier: 'development' }, CONFIG)).toBe('early');
    expect(ringOf({ tier: 'production' }, CONFIG)).toBe('rest');
    expect(ringOf({ ring: 'canary', tier: 'production' }, CONFIG)).toBe('canary');
    const byRing = runtimesByRing(
      [
        { name: 'b', labels: { tier: 'sandbox' } },
        { name: 'a', labels: { tier: 'sandbox' } },
        { name: 'p', labels: { tier: 'production' } },
      ],
      CONFIG,
    );
    expect([...byRing]).toEqual([
      ['canary', []],
      ['early', ['a', 'b']],
      ['rest', ['p']],
    ]);
  });
});

describe('the state file', () => {
  const state: RolloutState = {
    paused: false,
    rings: [
      { name: 'canary', revision: R2, since: '2026-11-25T10:00:00Z' },
      { name: 'early', revision: R1, since: '2026-11-20T10:00:00Z' },
      { name: 'rest', revision: R1, since: '2026-11-20T10:00:00Z' },
    ],
  };

  it('is the same text for the same state, and reads back as it was written', () => {
    const text = formatState(state);
    expect(formatState(structuredClone(state))).toBe(text);
    expect(text.startsWith('# written by kyma-fleet rollout; do not edit')).toBe(true);
    expect(parseState(Buffer.from(text), 'fleet/rollout/state.yaml').read?.state).toEqual(state);
  });

  it('refuses hand edits that do not fit, each with its line, column and field', () => {
    const text = formatState(state)
      .replace(`revision: "${R1}"`, 'revision: "abc"')
      .replace('paused: false', 'paused: maybe')
      .replace('  - name: rest\n', '  - name: rest\n    note: hand-made\n');
    const { read, diagnostics } = parseState(Buffer.from(text), 'fleet/rollout/state.yaml');
    expect(read).toBeUndefined();
    const lines = diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.field}: ${d.code}`);
    expect(lines).toEqual([
      'fleet/rollout/state.yaml:4:9: paused: E_ROLLOUT_STATE',
      'fleet/rollout/state.yaml:10:15: rings[1].revision: E_ROLLOUT_STATE',
      'fleet/rollout/state.yaml:13:5: rings[2].note: E_ROLLOUT_STATE',
    ]);
    expect(diagnostics[1]!.message).toContain('must be a revision id of 16 hex digits (got "abc")');
    expect(diagnostics[1]!.message).toContain('restore it from git');
  });
});

describe('moves', () => {
  it('start: the first start puts every ring on the revision; a later one moves only the first ring; a repeated one nothing', () => {
    const first = startRollout(undefined, CONFIG, R1, T0)!;
    expect(first.rings.map((r) => [r.name, r.revision])).toEqual([
      ['canary', R1],
      ['early', R1],
      ['rest', R1],
    ]);
    const second = startRollout(first, CONFIG, R2, T1)!;
    expect(second.rings.map((r) => [r.name, r.revision, r.since])).toEqual([
      ['canary', R2, '2026-11-26T10:00:00Z'],
      ['early', R1, '2026-11-25T10:00:00Z'],
      ['rest', R1, '2026-11-25T10:00:00Z'],
    ]);
    expect(startRollout(second, CONFIG, R2, T1)).toBeUndefined();
  });

  it('advance: leaves the first ring whose next ring is elsewhere, and passes through rings without runtimes', () => {
    const s = startRollout(startRollout(undefined, CONFIG, R1, T0)!, CONFIG, R2, T0)!;
    expect(ringToLeave(s)).toBe(0);
    const one = advanceFrom(s, 0, T1, () => false);
    expect(one.moved).toEqual(['early']);
    expect(one.state.rings.map((r) => r.revision)).toEqual([R2, R2, R1]);
    expect(ringToLeave(one.state)).toBe(1);
    const through = advanceFrom(s, 0, T1, (ring) => ring === 'early');
    expect(through.moved).toEqual(['early', 'rest']);
    expect(ringToLeave(through.state)).toBeUndefined();
  });

  it('abort: every ring back to the revision of the last ring; pause and resume flip only the flag', () => {
    const s = startRollout(advanceFrom(startRollout(startRollout(undefined, CONFIG, R1, T0)!, CONFIG, R2, T0)!, 0, T0, () => false).state, CONFIG, R3, T1)!;
    expect(s.rings.map((r) => r.revision)).toEqual([R3, R2, R1]);
    const aborted = abortRollout(s, T1);
    expect(aborted.moved).toEqual(['canary', 'early']);
    expect(aborted.state.rings.map((r) => r.revision)).toEqual([R1, R1, R1]);
    expect(setPaused(s, true)).toEqual({ ...s, paused: true });
  });

  it('fits a state to rings added or removed in fleet.yaml: a new ring is where the ring after it is', () => {
    const s = startRollout(startRollout(undefined, CONFIG, R1, T0)!, CONFIG, R2, T1)!;
    const wider: RolloutConfig = { rings: [CONFIG.rings[0]!, { ...CONFIG.rings[1]!, name: 'pilot' }, CONFIG.rings[1]!] };
    expect(alignState(s, wider).rings.map((r) => [r.name, r.revision])).toEqual([
      ['canary', R2],
      ['pilot', R1],
      ['early', R1],
      ['rest', R1],
    ]);
    const narrower: RolloutConfig = { rings: [CONFIG.rings[1]!] };
    expect(alignState(s, narrower).rings.map((r) => r.name)).toEqual(['early', 'rest']);
  });
});

describe('revisions', () => {
  const files = [
    { relPath: 'groups/b.yaml', bytes: Buffer.from('b') },
    { relPath: 'fleet.yaml', bytes: Buffer.from('f') },
    { relPath: 'rules/x/y.yaml', bytes: Buffer.from('y') },
  ];

  it('are named by their content, whatever the order of the files', () => {
    const a = revisionOf(files);
    expect(a.id).toMatch(/^[0-9a-f]{16}$/);
    expect(revisionOf([...files].reverse()).id).toBe(a.id);
    expect(revisionOf([...files.slice(1), { relPath: 'groups/b.yaml', bytes: Buffer.from('B') }]).id).not.toBe(a.id);
    expect(revisionOf([...files, { relPath: 'groups/c.yaml', bytes: Buffer.from('') }]).id).not.toBe(a.id);
  });

  it('are stored in the fleet layout and read back to the same id', () => {
    const dir = scratch();
    const r = revisionOf(files);
    storeRevision(dir, r);
    expect(fs.readdirSync(dir)).toEqual([r.id]);
    expect(fs.readFileSync(path.join(dir, r.id, 'rules/x/y.yaml'), 'utf8')).toBe('y');
    const back = readRevisionFolder(path.join(dir, r.id));
    expect(typeof back === 'string' ? back : back.id).toBe(r.id);
  });

  it('a revision edited by hand is refused with its folder; a state naming a missing revision with the line of the name', () => {
    const root = scratch();
    const r = revisionOf(files);
    const state: RolloutState = { paused: false, rings: [{ name: 'canary', revision: r.id, since: '2026-11-25T10:00:00Z' }, { name: 'rest', revision: r.id, since: '2026-11-25T10:00:00Z' }] };
    saveRollout(root, state, r);
    expect(readRollout(root, 'fleet').diagnostics).toEqual([]);
    expect(readRollout(root, 'fleet').state).toEqual(state);

    fs.writeFileSync(path.join(root, 'rollout/revisions', r.id, 'groups/b.yaml'), 'edited');
    const edited = readRollout(root, 'fleet');
    expect(edited.state).toBeUndefined();
    expect(edited.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.code}`)).toEqual([`fleet/rollout/revisions/${r.id}/:1:1: E_ROLLOUT_EDITED`]);

    fs.rmSync(path.join(root, 'rollout/revisions', r.id), { recursive: true });
    const missing = readRollout(root, 'fleet');
    expect(missing.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}: ${d.field}: ${d.code}`)).toEqual(['fleet/rollout/state.yaml:7:15: rings[0].revision: E_ROLLOUT_REVISION']);
  });

  it('a save removes the revisions no ring names any more', () => {
    const root = scratch();
    const a = revisionOf(files);
    const b = revisionOf([{ relPath: 'fleet.yaml', bytes: Buffer.from('other') }]);
    const on = (id: string): RolloutState => ({ paused: false, rings: [{ name: 'rest', revision: id, since: '2026-11-25T10:00:00Z' }] });
    saveRollout(root, on(a.id), a);
    saveRollout(root, on(b.id), b);
    expect(fs.readdirSync(path.join(root, 'rollout/revisions'))).toEqual([b.id]);
  });
});
