// fleet/rollout/ survives a kill at any point of a save: a child process saves a new state (a new
// revision, then state.yaml, then the removal of the revision no ring names any more) and kills
// itself with SIGKILL at the n-th step, for every n. Each time what is on disk reads as the old
// state or the new one, every revision it names intact, never a mix; the next save leaves exactly
// the new state and its revision. Rollout commands never write dist/ (synth does, atomically).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { revisionOf } from '../../src/rollout/revision';
import type { RolloutState } from '../../src/rollout/state-file';
import { readRollout, saveRollout } from '../../src/rollout/store';
import { REPO } from '../helpers/fleet-fixture';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kyma-fleet-rollout-kill-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const OLD = revisionOf([
  { relPath: 'fleet.yaml', bytes: Buffer.from('old fleet\n') },
  { relPath: 'groups/a.yaml', bytes: Buffer.from('old group\n') },
]);
const NEW = revisionOf([
  { relPath: 'fleet.yaml', bytes: Buffer.from('new fleet\n') },
  { relPath: 'groups/a.yaml', bytes: Buffer.from('new group\n') },
  { relPath: 'rules/r.yaml', bytes: Buffer.from('- rule: x\n') },
]);
const on = (id: string, since: string): RolloutState => ({
  paused: false,
  rings: [
    { name: 'canary', revision: id, since },
    { name: 'rest', revision: id, since },
  ],
});
const OLD_STATE = on(OLD.id, '2026-11-25T10:00:00Z');
const NEW_STATE = on(NEW.id, '2026-11-26T10:00:00Z');

/** The built module (npm test builds first), loaded by the child. */
const STORE_JS = path.join(REPO, 'lib/src/rollout/store.js');
const REVISION_JS = path.join(REPO, 'lib/src/rollout/revision.js');

const CHILD = `
const { saveRollout } = require(${JSON.stringify(STORE_JS)});
const { revisionOf } = require(${JSON.stringify(REVISION_JS)});
const [root, killAt, state, files] = [process.argv[1], Number(process.argv[2]), JSON.parse(process.argv[3]), JSON.parse(process.argv[4])];
const revision = revisionOf(files.map((f) => ({ relPath: f.relPath, bytes: Buffer.from(f.text) })));
let n = 0;
saveRollout(root, state, revision, () => { if (n++ === killAt) process.kill(process.pid, 'SIGKILL'); });
process.stdout.write('finished after ' + n + ' steps');
`;

function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

describe('a killed rollout save', () => {
  it('leaves the old state or the new one, never a mix, at every step', () => {
    expect(fs.existsSync(STORE_JS), 'build first (npm run build)').toBe(true);
    const files = JSON.stringify(NEW.files.map((f) => ({ relPath: f.relPath, text: Buffer.from(f.bytes).toString('utf8') })));
    const outcomes: string[] = [];
    for (let killAt = 0; killAt < 100; killAt++) {
      const root = path.join(scratch, `kill-${killAt}`);
      saveRollout(root, OLD_STATE, OLD);
      const child = spawnSync(process.execPath, ['-e', CHILD, root, String(killAt), JSON.stringify(NEW_STATE), files], { encoding: 'utf8' });
      const finished = child.status === 0;
      if (!finished) expect(child.signal, child.stderr).toBe('SIGKILL');

      const read = readRollout(root, 'fleet');
      expect(read.diagnostics).toEqual([]);
      const isOld = JSON.stringify(read.state) === JSON.stringify(OLD_STATE);
      const isNew = JSON.stringify(read.state) === JSON.stringify(NEW_STATE);
      expect(isOld || isNew, `step ${killAt}: ${JSON.stringify(read.state)}`).toBe(true);
      outcomes.push(isOld ? 'old' : 'new');

      // The next save cleans up after the killed one.
      saveRollout(root, NEW_STATE, NEW);
      expect(listing(path.join(root, 'rollout'))).toEqual([...NEW.files.map((f) => `revisions/${NEW.id}/${f.relPath}`).sort(), 'state.yaml']);
      if (finished) break;
    }
    // Killed before state.yaml was replaced, then after it, then the save ran to its end.
    expect(outcomes[0]).toBe('old');
    expect(outcomes.at(-1)).toBe('new');
    expect(outcomes.indexOf('new')).toBeGreaterThan(NEW.files.length);
    expect(outcomes.lastIndexOf('old')).toBe(outcomes.indexOf('new') - 1);
  });
});
