// The run record's file (src/run/run-record.ts): a row per runtime file, a row a line. What is saved
// is loaded back as it was, whatever a runtime's record holds; anything else in the file (another
// version, a damaged row) is no record at all, which only means doing everything. A row is written
// as it was read only for the very record object it was read into.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRunRecord, type RunRecord, type RuntimeRecord, saveRunRecord, withStamp } from '../../src/run/run-record';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-run-record-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const at = { name: { line: 5, col: 9 }, runtimeID: { line: 11, col: 14 }, shootName: { line: 16, col: 11 } };
const runtime = (name: string, extra: Partial<RuntimeRecord> = {}): RuntimeRecord => ({
  digest: `d-${name}`,
  identity: { name, runtimeID: `id-${name}`, shoot: { name: `c-${name}`, project: 'kyma-dev' }, at },
  diagnostics: [],
  input: `i-${name}`,
  targets: ['skr', 'kcp'],
  ...extra,
});

const RECORD: RunRecord = {
  version: 4,
  key: 'k',
  thresholds: [1785542399000],
  epoch: 1,
  index: 'x'.repeat(64),
  indexStamp: '1:2:3:4:5',
  settled: 1795890529173,
  gitops: '{"shards":1}',
  code: { key: 'ck', files: 'cf' },
  runtimes: {
    'runtimes/a.yaml': runtime('a'),
    'runtimes/b.yaml': runtime('b', { stamp: '65024:1:2:3.5:4.25', identity: { ...runtime('b').identity, labels: { tier: 'production', geo: 'eu' } } }),
    'runtimes/c.yaml': runtime('c', {
      targets: ['skr', 'skr-config', 'kcp', 'garden'],
      diagnostics: [{ severity: 'warning', code: 'W_FALCO_OTLP', file: '', line: 27, col: 17, field: 'extensions.falco.destinations[name=otlp].name', message: 'ask first' }],
    }),
  },
};

const save = (record: RunRecord) => saveRunRecord(dir, '/w', '/w/fleet', '/w/dist', record);
const load = () => loadRunRecord(dir, '/w', '/w/fleet', '/w/dist');
const file = () => path.join(dir, fs.readdirSync(dir).find((n) => n.startsWith('run-'))!);

describe('the run record file', () => {
  it('loads back what was saved: stamps, labels, diagnostics and targets as they were, or absent', () => {
    save(RECORD);
    expect(load()).toEqual(RECORD);
    const rows = (JSON.parse(fs.readFileSync(file(), 'utf8')) as { runtimes: unknown[][] }).runtimes;
    expect(rows.map((r) => r[0])).toEqual(['runtimes/a.yaml', 'runtimes/b.yaml', 'runtimes/c.yaml']);
    expect(load()!.runtimes['runtimes/a.yaml']).not.toHaveProperty('stamp');
    expect(load()!.runtimes['runtimes/a.yaml']!.identity).not.toHaveProperty('labels');
  });

  it.each([
    ['a record of another version', (d: Record<string, unknown>) => ({ ...d, version: 3 })],
    ['runtimes kept by key, as version 3 kept them', (d: Record<string, unknown>) => ({ ...d, runtimes: RECORD.runtimes })],
    ['a row too short', (d: Record<string, unknown>) => ({ ...d, runtimes: [...(d.runtimes as unknown[][]).slice(1), (d.runtimes as unknown[][])[0]!.slice(0, 11)] })],
    ['a row whose digest is not a string', (d: Record<string, unknown>) => ({ ...d, runtimes: (d.runtimes as unknown[][]).map((r, i) => (i === 1 ? [r[0], 7, ...r.slice(2)] : r)) })],
    ['a row without positions', (d: Record<string, unknown>) => ({ ...d, runtimes: (d.runtimes as unknown[][]).map((r) => [...r.slice(0, 9), null, ...r.slice(10)]) })],
    ['a row with three positions, not six', (d: Record<string, unknown>) => ({ ...d, runtimes: (d.runtimes as unknown[][]).map((r) => [...r.slice(0, 9), [5, 9, 11], ...r.slice(10)]) })],
    ['a row whose position is not a whole number', (d: Record<string, unknown>) => ({ ...d, runtimes: (d.runtimes as unknown[][]).map((r) => [...r.slice(0, 9), [5, 9, 11, '14', 16, 11], ...r.slice(10)]) })],
  ])('is no record at all: %s', (_label, damage) => {
    save(RECORD);
    fs.writeFileSync(file(), JSON.stringify(damage(JSON.parse(fs.readFileSync(file(), 'utf8')) as Record<string, unknown>)));
    expect(load()).toBeUndefined();
  });

  it('is one line a row, and JSON as a whole; a record without runtimes too', () => {
    save(RECORD);
    const text = fs.readFileSync(file(), 'utf8');
    expect(text.split('\n')).toHaveLength(1 + 3 + 1);
    expect(JSON.parse(text)).toMatchObject({ version: 4, key: 'k' });
    save({ ...RECORD, runtimes: {} });
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toMatchObject({ runtimes: [] });
    expect(load()).toEqual({ ...RECORD, runtimes: {} });
  });

  it('loads a record kept on one line (as earlier versions wrote it)', () => {
    save(RECORD);
    fs.writeFileSync(file(), JSON.stringify(JSON.parse(fs.readFileSync(file(), 'utf8'))));
    expect(load()).toEqual(RECORD);
  });

  it.each([
    ['two rows on one line', (t: string) => t.replace(',\n["runtimes/b.yaml"', ',["runtimes/b.yaml"')],
    ['a row over two lines', (t: string) => t.replace('["runtimes/b.yaml",', '["runtimes/b.yaml",\n')],
    ['the last row followed by a comma', (t: string) => t.replace(/\n\]\}$/, ',\n]}')],
    ['no end after the rows', (t: string) => t.replace(/\n\]\}$/, '')],
    ['a line of rows in the head', (t: string) => t.replace('"runtimes":[\n', '"runtimes":[["runtimes/x.yaml"],\n')],
  ])('is no record at all, a row a line: %s', (_label, damage) => {
    save(RECORD);
    const text = fs.readFileSync(file(), 'utf8');
    const damaged = damage(text);
    expect(damaged).not.toBe(text);
    fs.writeFileSync(file(), damaged);
    expect(load()).toBeUndefined();
  });

  it('is no record at all without rows and without its end (the head alone, then two other characters)', () => {
    save({ ...RECORD, runtimes: {} });
    const text = fs.readFileSync(file(), 'utf8');
    expect(text.endsWith('\n]}')).toBe(true);
    fs.writeFileSync(file(), `${text.slice(0, -2)}xx`);
    expect(load()).toBeUndefined();
  });

  it('writes the row of a record object it read as it was read, and any other record (another stamp, another file) anew', () => {
    save(RECORD);
    // Spaces JSON allows: a row written as read keeps them, one serialized anew has none.
    fs.writeFileSync(file(), fs.readFileSync(file(), 'utf8').replace(/\n\["(runtimes\/[abc]\.yaml)",/g, '\n[ "$1" ,'));
    const read = load()!;
    expect(read).toEqual(RECORD);
    const a = read.runtimes['runtimes/a.yaml']!;
    const b = read.runtimes['runtimes/b.yaml']!;
    const c = read.runtimes['runtimes/c.yaml']!;
    saveRunRecord(dir, '/w', '/w/fleet', '/w/dist', { ...read, runtimes: { 'runtimes/a.yaml': a, 'runtimes/b.yaml': withStamp(b, '65024:9:9:9:9'), 'runtimes/c2.yaml': c } });
    const lines = fs.readFileSync(file(), 'utf8').split('\n');
    expect(lines[1]).toMatch(/^\[ "runtimes\/a\.yaml" ,/);
    expect(lines[2]).toMatch(/^\["runtimes\/b\.yaml",/);
    expect(lines[3]).toMatch(/^\["runtimes\/c2\.yaml",/);
    expect(load()!.runtimes).toEqual({ 'runtimes/a.yaml': a, 'runtimes/b.yaml': { ...b, stamp: '65024:9:9:9:9' }, 'runtimes/c2.yaml': c });
  });
});
