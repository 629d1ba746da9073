// The I/O of fleet/rollout/: reading the state with every revision it names (each checked against
// its content-addressed id, so a hand edit is refused with the file it concerns), and saving a new
// state. The save is kill-safe: the new revision folder is renamed into place first (content
// addressed, so it never replaces anything), then state.yaml is replaced by rename (the one commit
// point), then revision folders no ring names any more are removed. A kill at any step leaves the
// old state or the new one, each with all its revisions; what a killed save left behind (a
// temporary or unnamed folder) is never read and is removed by the next save.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cmp, type Diagnostic } from '../lib/diagnostics';
import { sha256 } from '../lib/digest';
import type { PositionIndex } from '../lib/yaml/positions';
import { fsyncDir } from '../write/fsync';
import { acquireLock } from '../write/lock';
import { readRevisionFolder, type Revision, storeRevision } from './revision';
import { formatState, parseState, type RolloutState } from './state-file';

export const ROLLOUT_FOLDER = 'rollout';
export const STATE_FILE = 'state.yaml';
export const REVISIONS_FOLDER = 'revisions';

export interface StoredRollout {
  /** Undefined when no rollout was started (no state.yaml). */
  readonly state?: RolloutState;
  readonly positions?: PositionIndex;
  /** Display path of state.yaml. */
  readonly stateFile: string;
  /** Every revision the state names, read and verified, by id. */
  readonly revisions: ReadonlyMap<string, StoredRevision>;
  readonly diagnostics: readonly Diagnostic[];
}

export interface StoredRevision {
  readonly revision: Revision;
  /** Absolute folder of the revision. */
  readonly dir: string;
}

export function rolloutDir(fleetRoot: string): string {
  return path.join(fleetRoot, ROLLOUT_FOLDER);
}

/** Reads fleet/rollout/ of the fleet at `fleetRoot`; `displayRoot` is the fleet folder as shown. */
export function readRollout(fleetRoot: string, displayRoot: string): StoredRollout {
  const dir = rolloutDir(fleetRoot);
  const stateFile = `${displayRoot}/${ROLLOUT_FOLDER}/${STATE_FILE}`;
  const revisions = new Map<string, StoredRevision>();
  let bytes: Buffer;
  try {
    const st = fs.lstatSync(path.join(dir, STATE_FILE));
    if (!st.isFile()) return { stateFile, revisions, diagnostics: [problem(stateFile, 'is not a regular file')] };
    bytes = fs.readFileSync(path.join(dir, STATE_FILE));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { stateFile, revisions, diagnostics: [] };
    return { stateFile, revisions, diagnostics: [problem(stateFile, `cannot be read (${code ?? 'error'})`)] };
  }
  const parsed = parseState(bytes, stateFile);
  if (!parsed.read) return { stateFile, revisions, diagnostics: parsed.diagnostics };
  const { state, positions } = parsed.read;
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  state.rings.forEach((ring, i) => {
    if (seen.has(ring.revision)) return;
    seen.add(ring.revision);
    const revDir = path.join(dir, REVISIONS_FOLDER, ring.revision);
    const display = `${displayRoot}/${ROLLOUT_FOLDER}/${REVISIONS_FOLDER}/${ring.revision}`;
    const read = fs.existsSync(revDir) ? readRevisionFolder(revDir) : undefined;
    if (read === undefined || typeof read === 'string') {
      const pos = positions.valueAt(['rings', i, 'revision']);
      const why = read === undefined ? `names revision ${ring.revision}, but ${display}/ does not exist` : `names revision ${ring.revision}, whose folder ${display}/ is broken: ${read}`;
      diagnostics.push({ severity: 'error', code: 'E_ROLLOUT_REVISION', file: stateFile, line: pos.line, col: pos.col, field: `rings[${i}].revision`, message: `${why} (fleet/rollout/ is written only by kyma-fleet rollout: restore it from git)` });
      return;
    }
    if (read.id !== ring.revision) {
      diagnostics.push({
        severity: 'error',
        code: 'E_ROLLOUT_EDITED',
        file: `${display}/`,
        line: 1,
        col: 1,
        field: '',
        message: `the files of revision ${ring.revision} were edited by hand (their content is revision ${read.id}); a revision is a snapshot and never changes: restore ${display}/ from git, then change the fleet and run kyma-fleet rollout start`,
      });
      return;
    }
    revisions.set(ring.revision, { revision: read, dir: revDir });
  });
  return diagnostics.length > 0 ? { stateFile, positions, revisions, diagnostics } : { state, positions, stateFile, revisions, diagnostics };
}

function problem(file: string, what: string): Diagnostic {
  return { severity: 'error', code: 'E_ROLLOUT_STATE', file, line: 1, col: 1, field: '', message: `${what} (fleet/rollout/ is written only by kyma-fleet rollout: restore it from git)` };
}

export type LockedRollout = { readonly ok: true; release(): void } | { readonly ok: false; readonly message: string };

/** Takes fleet/rollout.lock (beside the folder, as status.lock beside status/): one rollout command at a time. */
export function lockRollout(fleetRoot: string, display: string): LockedRollout {
  const lock = acquireLock(`${rolloutDir(fleetRoot)}.lock`, display);
  return lock.ok ? { ok: true, release: lock.release } : { ok: false, message: `${lock.problem.message}; another kyma-fleet rollout command is running on this fleet: run again when it has finished` };
}

/**
 * Saves `state` (and `revision`, when it is new) into fleet/rollout/ and removes revision
 * folders no ring names and leftovers of killed saves. Throws on I/O errors; what is on disk is
 * then the old state or the new one.
 */
export function saveRollout(fleetRoot: string, state: RolloutState, revision?: Revision, step: SaveStep = () => {}): void {
  const dir = rolloutDir(fleetRoot);
  const revisionsDir = path.join(dir, REVISIONS_FOLDER);
  fs.mkdirSync(revisionsDir, { recursive: true });
  if (revision) storeRevision(revisionsDir, revision, step);
  step('revision stored');
  const tmp = path.join(dir, `.${STATE_FILE}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    const content = Buffer.from(formatState(state), 'utf8');
    for (let off = 0; off < content.length; ) off += fs.writeSync(fd, content, off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  step('state written aside');
  try {
    fs.renameSync(tmp, path.join(dir, STATE_FILE));
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(dir);
  step('state replaced');
  collectGarbage(dir, new Set(state.rings.map((r) => r.revision)), step);
}

/** Called between the steps of a save (the kill-safety test stops the process there). */
export type SaveStep = (what: string) => void;

/** Removes what no state names: unnamed revision folders and temporary files of killed saves. */
function collectGarbage(dir: string, named: ReadonlySet<string>, step: SaveStep): void {
  const revisionsDir = path.join(dir, REVISIONS_FOLDER);
  for (const entry of fs.readdirSync(revisionsDir).sort(cmp)) {
    if (named.has(entry)) continue;
    // Renamed aside first, so a kill during the removal leaves a dot-folder, never half a revision under its id.
    const aside = entry.startsWith('.') ? entry : `.trash-${entry}-${process.pid}-${randomBytes(4).toString('hex')}`;
    if (aside !== entry) fs.renameSync(path.join(revisionsDir, entry), path.join(revisionsDir, aside));
    step('unnamed revision set aside');
    fs.rmSync(path.join(revisionsDir, aside), { recursive: true, force: true });
    step('unnamed revision removed');
  }
  for (const entry of fs.readdirSync(dir)) {
    if (entry.startsWith(`.${STATE_FILE}.tmp-`)) fs.rmSync(path.join(dir, entry), { force: true });
  }
  fsyncDir(revisionsDir);
}


/**
 * What the run record keys a render by besides the fleet-wide layers: the bytes of state.yaml
 * ('-' without one). The revisions it names are content-addressed (and checked against their ids
 * whenever they are read), so the state file alone says which layers each ring renders.
 */
export function rolloutStateKey(fleetRoot: string): string {
  try {
    return sha256(fs.readFileSync(path.join(rolloutDir(fleetRoot), STATE_FILE)));
  } catch {
    return '-';
  }
}
