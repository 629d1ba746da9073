// `kyma-fleet validate` and `kyma-fleet explain` with the run record of the last synth (read only):
// runtime files unchanged since then are not parsed again. Whatever they skip, their reports must
// be exactly those without cache; each case also says how many files the record vouched for, so the
// fast path is known to have been taken (or refused, where it must be).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../bench/generate-fleet';
import { loadFleet } from '../src/load/load';
import { checkForExplain, synth, validateFleetDir, type Validation } from '../src/run/synth';
import { type RecordedRuntimes, validateFleet } from '../src/validate/validate';
import { runBinary, testProcessEnv } from './helpers/fleet-fixture';

const NOW = new Date('2026-11-21T00:00:00Z');
const RUNTIMES = 30;

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-validate-record-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

interface Workspace {
  readonly fleetDir: string;
  readonly outDir: string;
  readonly cacheDir: string;
  runtimeFile(i: number): string;
  edit(file: string, edit: (doc: ReturnType<typeof parseDocument>) => void): void;
  validate(cached: boolean, now?: Date): Validation;
  synth(): void;
}

/** A generated fleet, synthesised once with a cache (so the record exists). */
function workspace(name: string): Workspace {
  const dir = path.join(root, name);
  const fleetDir = path.join(dir, 'fleet');
  generateFleet(fleetDir, RUNTIMES, 21);
  const outDir = path.join(dir, 'dist');
  const cacheDir = path.join(dir, 'cache');
  const ws: Workspace = {
    fleetDir,
    outDir,
    cacheDir,
    runtimeFile: (i) => path.join(fleetDir, 'runtimes', fs.readdirSync(path.join(fleetDir, 'runtimes')).sort()[i]!),
    edit: (file, edit) => {
      const doc = parseDocument(fs.readFileSync(file, 'utf8'));
      edit(doc);
      fs.writeFileSync(file, doc.toString({ lineWidth: 0 }));
    },
    validate: (cached, now = NOW) => validateFleetDir({ fleetDir, outDir, cwd: dir, now, cacheDir: cached ? cacheDir : undefined }),
    synth: () => {
      const r = synth({ fleetDir, outDir, cwd: dir, now: NOW, cacheDir, env: { KYMA_FLEET_WORKERS: '1' } });
      expect(r.exitCode, JSON.stringify(r.diagnostics.slice(0, 3))).toBe(0);
    },
  };
  ws.synth();
  return ws;
}

/** Validate with the record and without any cache: the same result but for `reused`, which is returned. */
function compare(ws: Workspace, now?: Date): { reused: number; result: Validation } {
  const fast = ws.validate(true, now);
  const reference = ws.validate(false, now);
  expect(reference.reused).toBe(0);
  const { reused, ...rest } = fast;
  const { reused: _none, ...expected } = reference;
  expect(rest).toEqual(expected);
  return { reused, result: fast };
}

describe('validate with the run record of the last synth', () => {
  it('reuses every runtime file of an unchanged fleet and reports what a cold validate reports', () => {
    const ws = workspace('unchanged');
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES);
    expect(result).toMatchObject({ ok: true, runtimes: RUNTIMES });
  });

  it('parses only an edited runtime file; an error in it is reported as a cold validate reports it', () => {
    const ws = workspace('invalid-edit');
    ws.edit(ws.runtimeFile(3), (doc) => doc.setIn(['spec', 'runtimeID'], 'not-a-uuid'));
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES - 1);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.some((d) => d.severity === 'error' && d.file.endsWith(path.basename(ws.runtimeFile(3))))).toBe(true);
  });

  it('checks an edited file against the identities of the reused ones (a copied runtime ID is a duplicate)', () => {
    const ws = workspace('duplicate');
    const source = parseDocument(fs.readFileSync(ws.runtimeFile(5), 'utf8'));
    const copy = path.join(ws.fleetDir, 'runtimes', 'zz-copy.yaml');
    source.setIn(['metadata', 'name'], 'zz-copy');
    source.setIn(['spec', 'shoot', 'name'], 'c-zzcopy');
    fs.writeFileSync(copy, source.toString({ lineWidth: 0 }));
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('E_DUPLICATE_RUNTIME_ID');
  });

  // The checks across files are skipped while every runtime is one the record has, with the
  // identity it has there (src/validate/validate.ts RecordedRuntimes.settled): an edit that gives a
  // recorded runtime another one's ID or Shoot is not such a runtime.
  it.each([
    ['runtime ID', 'E_DUPLICATE_RUNTIME_ID', (doc: ReturnType<typeof parseDocument>, other: ReturnType<typeof parseDocument>) => doc.setIn(['spec', 'runtimeID'], other.getIn(['spec', 'runtimeID']))],
    [
      'Shoot',
      'E_DUPLICATE_SHOOT',
      (doc: ReturnType<typeof parseDocument>, other: ReturnType<typeof parseDocument>) => {
        doc.setIn(['spec', 'shoot', 'name'], other.getIn(['spec', 'shoot', 'name']));
        doc.setIn(['spec', 'shoot', 'project'], other.getIn(['spec', 'shoot', 'project']));
      },
    ],
  ])('checks a recorded runtime given another one\'s %s against the reused ones, in validate and synth', (what, code, edit) => {
    const ws = workspace(`settled-${what.replace(/ /g, '-')}`);
    const other = parseDocument(fs.readFileSync(ws.runtimeFile(8), 'utf8'));
    ws.edit(ws.runtimeFile(3), (doc) => edit(doc, other));
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES - 1);
    expect(result.ok).toBe(false);
    // Outside git, both files are named (git cannot tell which is new).
    expect(result.diagnostics.filter((d) => d.code === code).map((d) => path.basename(d.file))).toContain(path.basename(ws.runtimeFile(3)));
    const r = synth({ fleetDir: ws.fleetDir, outDir: ws.outDir, cwd: path.dirname(ws.fleetDir), now: NOW, cacheDir: ws.cacheDir, env: { KYMA_FLEET_WORKERS: '1' } });
    expect(r.exitCode).toBe(1);
    expect(r.diagnostics.map((d) => d.code)).toContain(code);
  });

  it('does not run the checks across files while every runtime is the record\'s own (an edit that keeps its identity)', () => {
    const ws = workspace('settled');
    ws.edit(ws.runtimeFile(3), (doc) => doc.setIn(['spec', 'channel'], 'fast'));
    const loaded = loadFleet({ fleetDir: ws.fleetDir, cwd: path.dirname(ws.fleetDir) });
    const known = (settled: boolean): RecordedRuntimes => ({
      count: 0,
      identities: () => {
        throw new Error('the identities were asked for');
      },
      labelled: () => [],
      settled: () => settled,
    });
    expect(validateFleet(loaded, { now: NOW, knownRuntimes: known(true) }).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(() => validateFleet(loaded, { now: NOW, knownRuntimes: known(false) })).toThrow('the identities were asked for');
    // Through the record: the same report as without it, and the edited file parsed.
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES - 1);
    expect(result.ok).toBe(true);
  });

  it('reports the recorded warnings of reused runtime files again', () => {
    const ws = workspace('warnings');
    // A production runtime with event destinations but none to stdout gets a warning from its resolved rules.
    const runtimes = path.join(ws.fleetDir, 'runtimes');
    const prod = fs.readdirSync(runtimes).sort().find((f) => /tier: production/.test(fs.readFileSync(path.join(runtimes, f), 'utf8')))!;
    ws.edit(path.join(runtimes, prod), (doc) =>
      doc.setIn(['spec', 'extensions', 'falco', 'destinations'], doc.createNode([{ name: 'logging' }, { name: 'otlp', resourceSecretName: 'otlp-endpoint' }])),
    );
    ws.synth(); // the record now holds the warning of that file
    const { reused, result } = compare(ws);
    expect(reused).toBe(RUNTIMES);
    expect(result.diagnostics.map((d) => d.code)).toContain('W_FALCO_DESTINATIONS');
  });

  it.each([
    [
      'a group changed (the fleet-wide inputs are not those of the record)',
      (ws: Workspace) => {
        const groups = path.join(ws.fleetDir, 'groups');
        ws.edit(path.join(groups, fs.readdirSync(groups).sort()[0]!), (doc) => doc.setIn(['spec', 'priority'], 77));
      },
    ],
    [
      'dist/ was written by another run (its index is not the one of the record)',
      (ws: Workspace) => {
        const edited = `${ws.fleetDir}-copy`;
        fs.cpSync(ws.fleetDir, edited, { recursive: true });
        fs.rmSync(path.join(edited, 'runtimes', fs.readdirSync(path.join(edited, 'runtimes')).sort()[0]!));
        const r = synth({ fleetDir: edited, outDir: ws.outDir, cwd: root, now: NOW, cacheDir: `${ws.cacheDir}-other`, env: { KYMA_FLEET_WORKERS: '1' } });
        expect(r.exitCode).toBe(0);
      },
    ],
    ['no dist/ any more', (ws: Workspace) => fs.rmSync(ws.outDir, { recursive: true })],
  ])('does not use the record when %s', (label, change) => {
    const ws = workspace(`refused-${Math.random().toString(16).slice(2)}`);
    change(ws);
    // The record that dist/'s index carries (src/run/committed-record.ts) is that other run's: it
    // vouches for the runtime files the two fleets share, never this cache folder's record.
    expect(compare(ws).reused).toBe(label.startsWith('dist/ was written by another run') ? RUNTIMES - 1 : 0);
  });

  it('does not use the record at a `now` past one of its time thresholds (a Falco version expiring)', () => {
    const ws = workspace('expiry');
    const profile = path.join(ws.fleetDir, 'profiles/falco-profile.yaml');
    ws.edit(profile, (doc) => {
      const list = doc.getIn(['spec', 'versions', 'falco']) as { add(v: unknown): void };
      list.add(doc.createNode({ classification: 'supported', expirationDate: '2026-12-01T00:00:00Z', rulesVersion: '0.45.0', version: '0.45.0' }));
    });
    ws.synth();
    expect(compare(ws).reused).toBe(RUNTIMES);
    expect(compare(ws, new Date('2026-12-02T00:00:00Z')).reused).toBe(0);
  });

  it('the CLI prints the same report with and without cache (text and JSON), and writes nothing', () => {
    const ws = workspace('cli');
    ws.edit(ws.runtimeFile(2), (doc) => doc.setIn(['spec', 'runtimeID'], 'not-a-uuid'));
    const cwd = path.dirname(ws.fleetDir);
    const env = { ...testProcessEnv(), KYMA_FLEET_CACHE_DIR: ws.cacheDir };
    const listing = (): string[] => fs.readdirSync(ws.cacheDir).sort();
    const before = listing();
    const recordBytes = fs.readFileSync(path.join(ws.cacheDir, before.find((n) => n.startsWith('run-'))!));
    for (const output of ['text', 'json']) {
      const args = ['validate', '--fleet', 'fleet', '--out', 'dist', '--now', NOW.toISOString(), '--output', output];
      const cached = runBinary(args, cwd, env);
      const cold = runBinary([...args, '--no-cache'], cwd, env);
      expect(cached.code).toBe(1);
      expect({ stdout: cached.stdout, stderr: cached.stderr }).toEqual({ stdout: cold.stdout, stderr: cold.stderr });
    }
    // The record is synth's: validate reads it and leaves it as it was.
    expect(fs.readFileSync(path.join(ws.cacheDir, before.find((n) => n.startsWith('run-'))!))).toEqual(recordBytes);
  });
});

describe('explain with the run record of the last synth into dist/', () => {
  /** `explain NAME` through the binary, with the cache and with --no-cache: the same code, stdout and stderr. */
  function explainBoth(ws: Workspace, name: string, output = 'text'): { code: number; stdout: string; stderr: string } {
    const cwd = path.dirname(ws.fleetDir);
    const env = { ...testProcessEnv(), KYMA_FLEET_CACHE_DIR: ws.cacheDir };
    const args = ['explain', name, '--fleet', 'fleet', '--now', NOW.toISOString(), '--output', output];
    const cached = runBinary(args, cwd, env);
    const cold = runBinary([...args, '--no-cache'], cwd, env);
    expect({ code: cached.code, stdout: cached.stdout, stderr: cached.stderr }).toEqual({ code: cold.code, stdout: cold.stdout, stderr: cold.stderr });
    return { code: cached.code, stdout: cached.stdout, stderr: cached.stderr };
  }
  const nameOf = (file: string): string => path.basename(file, '.yaml');
  /** How many runtime files the record vouched for when explaining `name` (the function behind the command). */
  const reusedFor = (ws: Workspace, name: string): number =>
    checkForExplain({ fleetDir: ws.fleetDir, outDir: ws.outDir, cwd: path.dirname(ws.fleetDir), now: NOW, cacheDir: ws.cacheDir }, name).checked.reusedRuntimes.length;

  it('parses only the runtime it explains in an unchanged fleet, with the same explanation (text and JSON)', () => {
    const ws = workspace('explain-unchanged');
    const name = nameOf(ws.runtimeFile(4));
    expect(reusedFor(ws, name)).toBe(RUNTIMES - 1);
    expect(explainBoth(ws, name).code).toBe(0);
    expect(explainBoth(ws, name, 'json').stdout).toContain(`"name": "${name}"`);
  });

  it('explains the runtime as edited since the synth', () => {
    const ws = workspace('explain-edited');
    const name = nameOf(ws.runtimeFile(6));
    ws.edit(ws.runtimeFile(6), (doc) => doc.setIn(['spec', 'channel'], 'fast'));
    expect(reusedFor(ws, name)).toBe(RUNTIMES - 1);
    expect(explainBoth(ws, name).stdout).toMatch(/channel = "fast" +\S*runtimes\//);
  });

  it('reports the errors of other runtimes and of the checks across files, and exits 1', () => {
    const ws = workspace('explain-broken');
    ws.edit(ws.runtimeFile(1), (doc) => doc.setIn(['spec', 'runtimeID'], 'not-a-uuid'));
    const id = parseDocument(fs.readFileSync(ws.runtimeFile(8), 'utf8')).getIn(['spec', 'runtimeID']);
    ws.edit(ws.runtimeFile(9), (doc) => doc.setIn(['spec', 'runtimeID'], id));
    const r = explainBoth(ws, nameOf(ws.runtimeFile(8)));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[E_RUNTIME_ID]');
    expect(r.stderr).toContain('[E_DUPLICATE_RUNTIME_ID]');
  });

  it('suggests a name from every runtime, the ones the record vouched for included', () => {
    const ws = workspace('explain-unknown');
    const name = nameOf(ws.runtimeFile(12));
    const r = explainBoth(ws, `${name}x`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`did you mean "${name}"`);
  });
});
