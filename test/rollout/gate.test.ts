// The gate between two rings, with an injected clock: what opens it (every runtime's extensions
// in effect, Ready or Disabled and not stale, for the bake time counted from the later of the
// ring's promotion and the state's last transition; at most maxFailed Failed or Drifted) and what
// holds it, named.

import { describe, expect, it } from 'vitest';
import { evaluateGate, formatDuration, type GateInput } from '../../src/rollout/gate';
import type { ExtensionRecord, RuntimeStatusRecord } from '../../src/status/status-file';

const HOUR = 3_600_000;
const SINCE = new Date('2026-11-25T10:00:00Z');
const at = (hours: number): Date => new Date(SINCE.getTime() + hours * HOUR);
const iso = (hours: number): string => at(hours).toISOString().replace(/\.000Z$/, 'Z');

function record(name: string, extensions: Record<string, Partial<ExtensionRecord>>): RuntimeStatusRecord {
  const full: Record<string, ExtensionRecord> = {};
  for (const [ext, e] of Object.entries(extensions)) full[ext] = { state: 'Ready', reason: 'Reconciled', message: '', lastTransitionTime: iso(-100), ...e };
  return { name, runtimeID: `id-${name}`, state: 'Ready', extensions: full };
}

function gate(records: RuntimeStatusRecord[], now: Date, extra: Partial<GateInput> = {}): ReturnType<typeof evaluateGate> {
  return evaluateGate({
    ring: 'canary',
    bakeMs: 24 * HOUR,
    maxFailed: 0,
    since: SINCE,
    runtimes: records.map((r) => ({ name: r.name, runtimeID: r.runtimeID })),
    status: new Map(records.map((r) => [r.name, r])),
    now,
    ...extra,
  });
}

describe('the gate of a ring', () => {
  it('opens when every runtime has been Ready or Disabled for the bake time since the promotion', () => {
    const records = [record('a', { 'registry-cache': {}, falco: { state: 'Disabled', reason: 'DisabledInFleet' } }), record('b', { 'registry-cache': {} })];
    const early = gate(records, at(23));
    expect(early.open).toBe(false);
    expect(early.holders.map((h) => `${h.runtime}: ${h.why}`)).toEqual(['a: baking, 1h left', 'b: baking, 1h left']);
    expect(early.bakeLeftMs).toBe(HOUR);
    const done = gate(records, at(24));
    expect(done.open).toBe(true);
    expect(done.reason).toBe('every runtime of ring canary has shown its render in effect for 1d');
  });

  it('counts the bake from a state transition after the promotion', () => {
    const records = [record('a', { 'registry-cache': { lastTransitionTime: iso(5) } })];
    expect(gate(records, at(24)).open).toBe(false);
    expect(gate(records, at(24)).holders[0]!.why).toBe('baking, 5h left');
    expect(gate(records, at(29)).open).toBe(true);
  });

  it('never opens on a runtime not observed, not in effect, or stale', () => {
    const records = [
      record('progressing', { 'registry-cache': { state: 'Progressing', reason: 'ShootGenerationStale' } }),
      record('stale', { 'registry-cache': { state: 'Unknown', reason: 'Timeout', stale: true, lastKnown: { state: 'Ready', reason: 'Reconciled', message: '', lastTransitionTime: iso(-100) } } }),
      record('unknown', { falco: { state: 'Unknown', reason: 'NotFound' } }),
    ];
    const v = evaluateGate({
      ring: 'canary',
      bakeMs: 0,
      maxFailed: 5,
      since: SINCE,
      runtimes: [...records.map((r) => ({ name: r.name, runtimeID: r.runtimeID })), { name: 'unseen', runtimeID: 'id-unseen' }],
      status: new Map(records.map((r) => [r.name, r])),
      now: at(1000),
    });
    expect(v.open).toBe(false);
    expect(v.holders.map((h) => `${h.runtime}: ${h.why}`)).toEqual([
      'progressing: registry-cache Progressing (ShootGenerationStale)',
      'stale: registry-cache stale (Timeout; last known Ready)',
      'unknown: falco Unknown (NotFound)',
      'unseen: not observed yet (no status for this runtime)',
    ]);
  });

  it('takes a status of another runtime with the same name for no status', () => {
    const other = { ...record('a', { 'registry-cache': {} }), runtimeID: 'id-someone-else' };
    const v = evaluateGate({ ring: 'canary', bakeMs: 0, maxFailed: 0, since: SINCE, runtimes: [{ name: 'a', runtimeID: 'id-a' }], status: new Map([['a', other]]), now: at(1) });
    expect(v.open).toBe(false);
  });

  it('lets at most maxFailed runtimes be Failed or Drifted, and names them when there are more', () => {
    const records = [
      record('ok', { 'registry-cache': {} }),
      record('drifted', { 'registry-cache': { state: 'Drifted', reason: 'ShootConfigDrift' } }),
      record('failed', { falco: { state: 'Failed', reason: 'ShootLastError' } }),
    ];
    const none = gate(records, at(48));
    expect(none.open).toBe(false);
    expect(none.holders.map((h) => `${h.runtime}: ${h.why}`)).toEqual(['drifted: registry-cache Drifted (ShootConfigDrift)', 'failed: falco Failed (ShootLastError)']);
    expect(none.reason).toBe('ring canary: 2 Failed or Drifted, at most 0 allowed');
    expect(gate(records, at(48), { maxFailed: 1 }).open).toBe(false);
    const two = gate(records, at(48), { maxFailed: 2 });
    expect(two.open).toBe(true);
    expect(two.failed).toHaveLength(2);
  });

  it('a ring without runtimes holds nothing', () => {
    const v = gate([], at(0));
    expect(v.open).toBe(true);
    expect(v.reason).toBe('ring canary has no runtimes');
  });

  it('prints durations the way people read them', () => {
    expect([0, 999, 61_000, 3 * HOUR + 5 * 60_000, 49 * HOUR].map(formatDuration)).toEqual(['0s', '1s', '1m1s', '3h5m', '2d1h']);
  });
});
