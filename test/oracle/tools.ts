// The oracle's Go programs as tool-cache entries (built or reused with test/cluster/go-tool-cache),
// and the environment variables through which the vitest global setup hands their paths (or the
// reason they are missing) to test processes.
//
// Four programs, one Go module each, because their upstream module graphs cannot be one (docs/testing.md,
// "The upstream oracle"): admission (registry-cache extension, Gardener's ValidateResources), kim,
// lakom (Lakom v0.23.0 needs Gardener v1.132.1) and falco (the Falco extension from the source
// snapshot in ../shared/upstream/, through a replace line). admission and falco pin the same
// dependency versions, so the second one reuses the first one's compiled packages from the Go build cache.
// Falco is optional where the snapshot is absent (a clone without ../shared): its judge is then
// skipped with one line (FALCO_SKIP_ENV), unless CI=true.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { PROJECT_ROOT } from '../cluster/paths';

export const ORACLE_DIR = path.join(PROJECT_ROOT, 'test', 'oracle');
const JSONLINES_DIR = path.join(ORACLE_DIR, 'jsonlines');
/** The Falco extension's source snapshot, where falco/go.mod's replace line points (relative there). */
export const FALCO_SNAPSHOT_DIR = path.resolve(PROJECT_ROOT, '..', 'shared', 'upstream', 'gardener-extension-shoot-falco-service');

/** Paths of the built programs, set by the global setup. */
export const ORACLE_ENV = { admission: 'KYMA_FLEET_ORACLE_ADMISSION', kim: 'KYMA_FLEET_ORACLE_KIM', lakom: 'KYMA_FLEET_ORACLE_LAKOM', falco: 'KYMA_FLEET_ORACLE_FALCO' } as const;
/** Set by the global setup (CI unset, no Go) to the one-line reason the oracle tests are skipped. */
export const ORACLE_SKIP_ENV = 'KYMA_FLEET_ORACLE_SKIP';
/** Set by the global setup (CI unset, no Falco snapshot) to the one-line reason the Falco judge is skipped. */
export const FALCO_SKIP_ENV = 'KYMA_FLEET_ORACLE_FALCO_SKIP';

export type OracleProgram = keyof typeof ORACLE_ENV;
/** The programs; falco is absent where its snapshot is. */
export type OracleBinaries = Record<Exclude<OracleProgram, 'falco'>, string> & { falco?: string };

/** Why the Falco program cannot be built here (no snapshot), or undefined when it can. */
export function falcoUnavailableReason(): string | undefined {
  if (fs.existsSync(path.join(FALCO_SNAPSHOT_DIR, 'go.mod'))) return undefined;
  return `${path.relative(PROJECT_ROOT, FALCO_SNAPSHOT_DIR)} is absent (a clone without ../shared): the Falco judge is skipped (docs/testing.md)`;
}

/** sha256 over a folder's files (names and contents), sorted; part of a program's cache key. */
function folderHash(dir: string, keep: (rel: string) => boolean = () => true): string {
  const hash = createHash('sha256');
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(r);
      else if (keep(r)) {
        hash.update(`\0${r}\0`);
        hash.update(fs.readFileSync(path.join(dir, r)));
      }
    }
  };
  walk('');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Every module uses the shared request loop through `replace => ../jsonlines`, outside its module
 * folder, and falco the snapshot through its replace line; the hashes of those sources are stamped
 * into the binaries (-X), so that they are part of the cache key too. `go build -o DIR/ .` names each
 * binary after its module path's last element.
 */
export function oracleToolSpecs(): Record<OracleProgram, GoToolSpec> {
  const stamp = `-X kyma-fleet.dev/oracle/jsonlines.SourceHash=${folderHash(JSONLINES_DIR)}`;
  const spec = (name: OracleProgram, ldflags = stamp): GoToolSpec => ({
    name: `oracle-${name}`, moduleDir: path.join(ORACLE_DIR, name), binaries: { [name]: '.' }, ldflags, env: { CGO_ENABLED: '0' },
  });
  const snapshot = falcoUnavailableReason() ? 'absent' : folderHash(FALCO_SNAPSHOT_DIR, (r) => r.endsWith('.go') || r === 'go.mod' || r === 'go.sum');
  return {
    admission: spec('admission'),
    kim: spec('kim'),
    lakom: spec('lakom'),
    falco: spec('falco', `${stamp} -X main.snapshotHash=${snapshot}`),
  };
}

/** Builds (or reuses) the programs, falco only where its snapshot is; throws without Go or on a failed build. */
export async function ensureOracleBinaries(log?: (line: string) => void): Promise<OracleBinaries & { seconds: number }> {
  const specs = oracleToolSpecs();
  // admission first: falco then reuses its compiled packages (same dependency versions).
  const admission = await ensureGoTool(specs.admission, { log });
  const falco = falcoUnavailableReason() ? undefined : await ensureGoTool(specs.falco, { log });
  const kim = await ensureGoTool(specs.kim, { log });
  const lakom = await ensureGoTool(specs.lakom, { log });
  return {
    admission: admission.binaries.admission!,
    kim: kim.binaries.kim!,
    lakom: lakom.binaries.lakom!,
    ...(falco ? { falco: falco.binaries.falco! } : {}),
    seconds: admission.seconds + kim.seconds + lakom.seconds + (falco?.seconds ?? 0),
  };
}

/** The binaries the global setup built, when it did (falco may be absent: FALCO_SKIP_ENV says why). */
export function oracleBinariesFromEnv(): OracleBinaries | undefined {
  const admission = process.env[ORACLE_ENV.admission];
  const kim = process.env[ORACLE_ENV.kim];
  const lakom = process.env[ORACLE_ENV.lakom];
  const falco = process.env[ORACLE_ENV.falco];
  return admission && kim && lakom ? { admission, kim, lakom, ...(falco ? { falco } : {}) } : undefined;
}

export { findGo };
