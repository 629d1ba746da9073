// The status files (src/status/status-file.ts) and their writer (src/status/write-status.ts):
// stable timestamps, stale handling, tolerant parsing of the previous file, deterministic YAML and
// Markdown, and a writer that rewrites only what changed and only files kyma-fleet owns (H69).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeStatus, StatusState } from '../../src/status/states';
import {
  formatStatusFile,
  formatSummary,
  mergeWithPrevious,
  parseStatusFile,
  type RuntimeStatusRecord,
  STATUS_HEADER,
  SUMMARY_FILE,
  SUMMARY_HEADER,
} from '../../src/status/status-file';
import { readPreviousStatus, writeStatusFiles } from '../../src/status/write-status';
import { tmpDir } from './status-helpers';

const T1 = new Date('2026-11-22T00:00:00Z');
const T2 = new Date('2026-11-23T06:30:00.123Z');
const T3 = new Date('2026-11-24T12:00:00Z');

function status(rc: [StatusState, string, string], falco: [StatusState, string, string] = ['Disabled', 'DisabledInFleet', 'off'], runtimeID = 'rid-1'): RuntimeStatus {
  const e = ([state, reason, message]: [StatusState, string, string]) => ({ state, reason, message });
  return { name: 'rt', runtimeID, state: rc[0], extensions: { falco: e(falco), 'registry-cache': e(rc) } };
}

describe('mergeWithPrevious', () => {
  it('stamps a first status with the time of the run (second precision, UTC)', () => {
    const r = mergeWithPrevious(undefined, status(['Ready', 'Reconciled', 'ok']), T2);
    expect(r.extensions['registry-cache']).toEqual({ state: 'Ready', reason: 'Reconciled', message: 'ok', lastTransitionTime: '2026-11-23T06:30:00Z' });
    expect(r.state).toBe('Ready');
  });

  it('keeps lastTransitionTime while the state stays, even when reason or message change', () => {
    const first = mergeWithPrevious(undefined, status(['Progressing', 'ShootOperationProcessing', 'Waiting for A']), T1);
    const second = mergeWithPrevious(first, status(['Progressing', 'ModuleProcessing', 'Waiting for B']), T2);
    expect(second.extensions['registry-cache']).toEqual({ state: 'Progressing', reason: 'ModuleProcessing', message: 'Waiting for B', lastTransitionTime: '2026-11-22T00:00:00Z' });
    const third = mergeWithPrevious(second, status(['Ready', 'Reconciled', 'ok']), T3);
    expect(third.extensions['registry-cache']!.lastTransitionTime).toBe('2026-11-24T12:00:00Z');
    expect(third.extensions.falco!.lastTransitionTime).toBe('2026-11-22T00:00:00Z');
  });

  it('a failed read keeps the last known state as lastKnown and marks it stale, run after run', () => {
    const ready = mergeWithPrevious(undefined, status(['Ready', 'Reconciled', 'all good']), T1);
    const failed = mergeWithPrevious(ready, status(['Unknown', 'Timeout', 'Garden cluster not read: timeout']), T2);
    expect(failed.extensions['registry-cache']).toEqual({
      state: 'Unknown',
      reason: 'Timeout',
      message: 'Garden cluster not read: timeout',
      lastTransitionTime: '2026-11-23T06:30:00Z',
      stale: true,
      lastKnown: { state: 'Ready', reason: 'Reconciled', message: 'all good', lastTransitionTime: '2026-11-22T00:00:00Z' },
    });
    expect(failed.state).toBe('Unknown');
    const again = mergeWithPrevious(failed, status(['Unknown', 'Forbidden', 'Garden cluster not read: 403']), T3);
    expect(again.extensions['registry-cache']).toMatchObject({ lastTransitionTime: '2026-11-23T06:30:00Z', stale: true, lastKnown: failed.extensions['registry-cache']!.lastKnown });
    const back = mergeWithPrevious(again, status(['Ready', 'Reconciled', 'all good']), T3);
    expect(back.extensions['registry-cache']).toEqual({ state: 'Ready', reason: 'Reconciled', message: 'all good', lastTransitionTime: '2026-11-24T12:00:00Z' });
  });

  it('NotFound is a fact, not a failed read: no lastKnown', () => {
    const ready = mergeWithPrevious(undefined, status(['Ready', 'Reconciled', 'ok']), T1);
    const gone = mergeWithPrevious(ready, status(['Unknown', 'NotFound', 'Shoot x/y not found']), T2);
    expect(gone.extensions['registry-cache']).toEqual({ state: 'Unknown', reason: 'NotFound', message: 'Shoot x/y not found', lastTransitionTime: '2026-11-23T06:30:00Z' });
  });

  it('a failed read with nothing known before is plain Unknown', () => {
    const r = mergeWithPrevious(undefined, status(['Unknown', 'NotDumped', 'no dump']), T1);
    expect(r.extensions['registry-cache']).toEqual({ state: 'Unknown', reason: 'NotDumped', message: 'no dump', lastTransitionTime: '2026-11-22T00:00:00Z' });
    const r2 = mergeWithPrevious(r, status(['Unknown', 'NotDumped', 'no dump']), T2);
    expect(r2).toEqual(r);
  });

  it('ignores the previous record of another runtime ID (a replaced runtime)', () => {
    const old = mergeWithPrevious(undefined, status(['Ready', 'Reconciled', 'ok']), T1);
    const fresh = mergeWithPrevious(old, status(['Ready', 'Reconciled', 'ok'], undefined, 'rid-2'), T2);
    expect(fresh.extensions['registry-cache']!.lastTransitionTime).toBe('2026-11-23T06:30:00Z');
    const failed = mergeWithPrevious(old, status(['Unknown', 'Timeout', 't'], undefined, 'rid-2'), T2);
    expect(failed.extensions['registry-cache']!.stale).toBeUndefined();
  });
});

describe('the runtime status file', () => {
  const record = (): RuntimeStatusRecord => {
    const ready = mergeWithPrevious(undefined, status(['Ready', 'Reconciled', 'all good'], ['Ready', 'Reconciled', 'all good']), T1);
    return mergeWithPrevious(ready, status(['Unknown', 'Timeout', 'Garden: ${HOME} <b>x</b>: no'], ['Ready', 'Reconciled', 'all good']), T2);
  };

  it('is YAML with the header, a fixed key order and no anchors', () => {
    const text = formatStatusFile(record());
    expect(text).toBe(
      `${STATUS_HEADER}apiVersion: kyma-fleet.dev/v1alpha1
kind: RuntimeStatus
metadata:
  name: rt
runtimeID: rid-1
state: Unknown
extensions:
  falco:
    state: Ready
    reason: Reconciled
    message: all good
    lastTransitionTime: "2026-11-22T00:00:00Z"
  registry-cache:
    state: Unknown
    reason: Timeout
    message: "Garden: \${HOME} <b>x</b>: no"
    lastTransitionTime: "2026-11-23T06:30:00Z"
    stale: true
    lastKnown:
      state: Ready
      reason: Reconciled
      message: all good
      lastTransitionTime: "2026-11-22T00:00:00Z"
`,
    );
    expect(text).not.toMatch(/[&*][a-z0-9]+\s*$/m);
  });

  it('parses back to the same record', () => {
    const r = record();
    const parsed = parseStatusFile(formatStatusFile(r), 'rt');
    expect(parsed).toEqual({ record: r });
  });

  it.each([
    ['broken YAML', `${STATUS_HEADER}apiVersion: [`, /^not valid YAML/],
    ['a list', '- a\n', /^not a mapping/],
    ['another kind', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\n', /not a kyma-fleet.dev\/v1alpha1 RuntimeStatus/],
    ['another runtime', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: other}\n', /metadata.name is "other", expected "rt"/],
    ['no runtimeID', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: rt}\nextensions: {}\n', /runtimeID is missing/],
    ['a state that does not exist', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: rt}\nruntimeID: r\nextensions: {falco: {state: Great, lastTransitionTime: "2026-11-22T00:00:00Z"}}\n', /extensions.falco: state "Great" is not a status state/],
    ['a bad time', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: rt}\nruntimeID: r\nextensions: {falco: {state: Ready, lastTransitionTime: yesterday}}\n', /lastTransitionTime is not an RFC 3339 time/],
    ['aliases', 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: &n rt}\nruntimeID: *n\nextensions: {}\n', /not valid YAML/],
    ['deep nesting', 'a: ' + '['.repeat(100) + ']'.repeat(100), /nested too deeply/],
  ])('is ignored with a reason when it is %s', (_t, text, problem) => {
    const r = parseStatusFile(text, 'rt');
    expect('problem' in r && r.problem).toMatch(problem);
  });

  it('re-sanitises messages read back (a hand-edited file cannot smuggle control characters)', () => {
    const text = 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: RuntimeStatus\nmetadata: {name: rt}\nruntimeID: r\nextensions:\n  falco: {state: Ready, reason: "R\\e[31m", message: "a\\nb\\u0007", lastTransitionTime: "2026-11-22T00:00:00Z"}\n';
    const r = parseStatusFile(text, 'rt');
    expect('record' in r && r.record.extensions.falco).toEqual({ state: 'Ready', reason: 'R', message: 'a b', lastTransitionTime: '2026-11-22T00:00:00Z' });
  });
});

describe('SUMMARY.md', () => {
  const rec = (name: string, rc: StatusState, falco: StatusState, message = 'm', time = '2026-11-22T00:00:00Z'): RuntimeStatusRecord => ({
    name,
    runtimeID: name,
    state: rc,
    extensions: {
      falco: { state: falco, reason: `${falco}Reason`, message, lastTransitionTime: time },
      'registry-cache': { state: rc, reason: `${rc}Reason`, message, lastTransitionTime: time },
    },
  });

  it('has no run timestamp: the same records give the same bytes, the header names the latest state change', () => {
    const records = [rec('b', 'Failed', 'Ready', 'x', '2026-11-20T00:00:00Z'), rec('a', 'Ready', 'Disabled', 'y', '2026-11-21T10:00:00Z')];
    const facts = new Map([
      ['a', { groups: ['europe'], region: 'eu-west-1' }],
      ['b', { groups: [], region: 'us-east-1' }],
    ]);
    const one = formatSummary(records, facts);
    expect(formatSummary([...records].reverse(), facts)).toBe(one);
    expect(one.startsWith(SUMMARY_HEADER)).toBe(true);
    expect(one).toContain('2 runtimes: 1 Ready, 1 Failed. Last state change: 2026-11-21T10:00:00Z.');
    expect(one).toContain('| (no group) | 1 | 0 | 0 | 1 | 0 | 0 | 0 |');
    expect(one).toContain('| europe | 1 | 1 | 0 | 0 | 0 | 0 | 0 |');
    expect(one).toContain('| registry-cache | 1 | 0 | 1 | 0 | 0 | 0 |');
  });

  it('lists what needs attention worst first, and marks stale states', () => {
    const records = [rec('z', 'Progressing', 'Ready'), rec('y', 'Failed', 'Drifted'), rec('x', 'Ready', 'Ready')];
    (records[2]!.extensions as Record<string, unknown>)['registry-cache'] = {
      state: 'Unknown',
      reason: 'Timeout',
      message: 't',
      lastTransitionTime: '2026-11-22T00:00:00Z',
      stale: true,
      lastKnown: { state: 'Ready', reason: 'Reconciled', message: 'ok', lastTransitionTime: '2026-11-01T00:00:00Z' },
    };
    const rows = formatSummary(records, new Map())
      .split('\n')
      .filter((l) => /^\| [xyz] \|/.test(l))
      .map((l) => l.split(' | ').slice(0, 3).join(' | '));
    expect(rows).toEqual([
      '| y | registry-cache | Failed',
      '| y | falco | Drifted',
      '| x | registry-cache | Unknown (stale; last known Ready since 2026-11-01T00:00:00Z)',
      '| z | registry-cache | Progressing',
    ]);
  });

  it('says so when nothing needs attention', () => {
    expect(formatSummary([rec('a', 'Ready', 'Disabled')], new Map())).toContain('Every extension of every runtime is Ready or Disabled.');
  });

  it('keeps hostile messages as inert text: no HTML, links, emphasis, math or table breaks', () => {
    const evil = 'a | b <script>alert(1)</script> [click](https://evil.example) *bold* `code` ${HOME} $x$ \u001b[31mred\nnext';
    const md = formatSummary([rec('a', 'Failed', 'Ready', evil)], new Map());
    const row = md.split('\n').find((l) => l.startsWith('| a | registry-cache'))!;
    expect(row).toContain('a \\| b &lt;script&gt;alert(1)&lt;/script&gt; \\[click\\](https://evil.example) \\*bold\\* \\`code\\` \\${HOME} \\$x\\$ red next');
    expect(row.split(/(?<!\\)\|/).length).toBe(8); // 6 cells
    expect(md).not.toContain('<script>');
  });
});

describe('writeStatusFiles', () => {
  let dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    dirs = [];
  });
  const workspace = (): string => {
    const d = tmpDir();
    dirs.push(d);
    return path.join(d, 'status');
  };
  const files = (a: string, b: string): Map<string, string> =>
    new Map([
      ['a.yaml', `${STATUS_HEADER}a: ${a}\n`],
      ['b.yaml', `${STATUS_HEADER}b: ${b}\n`],
      [SUMMARY_FILE, `${SUMMARY_HEADER}# ${a}${b}\n`],
    ]);
  const stamp = (dir: string): Record<string, string> =>
    Object.fromEntries(fs.readdirSync(dir).sort().map((f) => {
      const st = fs.statSync(path.join(dir, f));
      return [f, `${st.ino}:${st.mtimeMs}`];
    }));

  it('creates the folder, then rewrites nothing when nothing changed (same inodes and mtimes)', () => {
    const dir = workspace();
    expect(writeStatusFiles(dir, files('1', '1'), 'status/')).toEqual({ ok: true, written: ['a.yaml', 'b.yaml', SUMMARY_FILE], removed: [], unchanged: 0 });
    const before = stamp(dir);
    expect(writeStatusFiles(dir, files('1', '1'), 'status/')).toEqual({ ok: true, written: [], removed: [], unchanged: 3 });
    expect(stamp(dir)).toEqual(before);
  });

  it('replaces only the files that changed, atomically (a new inode, no temporary files left)', () => {
    const dir = workspace();
    writeStatusFiles(dir, files('1', '1'), 'status/');
    const before = stamp(dir);
    expect(writeStatusFiles(dir, files('1', '2'), 'status/')).toMatchObject({ ok: true, written: ['b.yaml', SUMMARY_FILE], unchanged: 1 });
    const after = stamp(dir);
    expect(after['a.yaml']).toBe(before['a.yaml']);
    expect(after['b.yaml']).not.toBe(before['b.yaml']);
    expect(fs.readdirSync(dir).sort()).toEqual([SUMMARY_FILE, 'a.yaml', 'b.yaml']);
  });

  it('removes status files of runtimes that left the fleet, only when kyma-fleet wrote them; other files stay', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'gone.yaml'), `${STATUS_HEADER}old\n`);
    fs.writeFileSync(path.join(dir, 'notes.yaml'), 'my own notes\n');
    fs.writeFileSync(path.join(dir, 'README.md'), 'hello\n');
    fs.mkdirSync(path.join(dir, 'archive.yaml'));
    const r = writeStatusFiles(dir, files('1', '1'), 'status/');
    expect(r).toMatchObject({ ok: true, removed: ['gone.yaml'] });
    expect(fs.readdirSync(dir).sort()).toEqual(['README.md', SUMMARY_FILE, 'a.yaml', 'archive.yaml', 'b.yaml', 'notes.yaml']);
  });

  it('refuses to replace a file it did not write (a wrong --write), before writing anything', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'b.yaml'), 'apiVersion: kyma-fleet.dev/v1alpha1\nkind: KymaRuntime\n');
    const r = writeStatusFiles(dir, files('1', '1'), 'fleet/runtimes/');
    expect(r).toEqual({
      ok: false,
      problem: { code: 'E_STATUS_NOT_OWNED', message: 'fleet/runtimes/b.yaml was not written by kyma-fleet status (no header line); refusing to replace it: move it away or check --write' },
    });
    expect(fs.readdirSync(dir)).toEqual(['b.yaml']);
  });

  it('cleans up temporary files of a killed run, and replaces a symlinked status file instead of writing through it', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.a.yaml.tmp-123-0badc0de'), 'half');
    const target = path.join(path.dirname(dir), 'outside.txt');
    fs.writeFileSync(target, 'precious');
    fs.symlinkSync(target, path.join(dir, 'a.yaml'));
    expect(writeStatusFiles(dir, files('1', '1'), 'status/')).toMatchObject({ ok: true });
    expect(fs.readFileSync(target, 'utf8')).toBe('precious');
    expect(fs.lstatSync(path.join(dir, 'a.yaml')).isFile()).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual([SUMMARY_FILE, 'a.yaml', 'b.yaml']);
  });

  it('refuses a status folder that is a symlink or a file', () => {
    const dir = workspace();
    const real = path.join(path.dirname(dir), 'elsewhere');
    fs.mkdirSync(real);
    fs.symlinkSync(real, dir);
    expect(writeStatusFiles(dir, files('1', '1'), 'status/')).toMatchObject({ ok: false, problem: { code: 'E_STATUS_SYMLINK' } });
    expect(fs.readdirSync(real)).toEqual([]);
    const file = workspace();
    fs.writeFileSync(file, 'x');
    expect(writeStatusFiles(file, files('1', '1'), 'status/')).toMatchObject({ ok: false, problem: { code: 'E_STATUS_NOT_DIR' } });
  });

  it.skipIf(process.getuid?.() === 0)('reports a folder it cannot write to (exit 4 in the CLI)', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o500);
    try {
      expect(writeStatusFiles(dir, files('1', '1'), 'status/')).toMatchObject({ ok: false, problem: { code: 'E_STATUS_WRITE' } });
    } finally {
      fs.chmodSync(dir, 0o755);
    }
  });

  it('reads previous files, skipping what is not a regular file', () => {
    const dir = workspace();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.yaml'), `${STATUS_HEADER}text-a`);
    fs.mkdirSync(path.join(dir, 'b.yaml'));
    fs.symlinkSync('/etc/passwd', path.join(dir, 'c.yaml'));
    fs.writeFileSync(path.join(dir, 'e.yaml'), 'not ours');
    const p = readPreviousStatus(dir, ['a', 'b', 'c', 'd', 'e']);
    expect([...p.texts]).toEqual([['a', `${STATUS_HEADER}text-a`]]);
    expect(p.problems).toEqual([
      { file: 'b.yaml', message: 'is not a regular file; not read' },
      { file: 'c.yaml', message: 'is a symlink; not read (it will be replaced by a file)' },
    ]);
    expect(readPreviousStatus(path.join(dir, 'missing'), ['a'])).toEqual({ texts: new Map(), problems: [] });
  });
});
