// The oracle's two Go programs as tool-cache entries (built or reused with test/cluster/go-tool-cache),
// and the environment variables through which the vitest global setup hands their paths (or the
// reason they are missing) to test processes.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureGoTool, findGo, type GoToolSpec } from '../cluster/go-tool-cache';
import { PROJECT_ROOT } from '../cluster/paths';

export const ORACLE_DIR = path.join(PROJECT_ROOT, 'test', 'oracle');
const JSONLINES_DIR = path.join(ORACLE_DIR, 'jsonlines');

/** Paths of the built programs, set by the global setup. */
export const ORACLE_ENV = { admission: 'KYMA_FLEET_ORACLE_ADMISSION', kim: 'KYMA_FLEET_ORACLE_KIM' } as const;
/** Set by the global setup (CI unset, no Go) to the one-line reason the oracle tests are skipped. */
export const ORACLE_SKIP_ENV = 'KYMA_FLEET_ORACLE_SKIP';

export type OracleProgram = keyof typeof ORACLE_ENV;
export type OracleBinaries = Record<OracleProgram, string>;

/**
 * Both modules use the shared request loop through `replace => ../jsonlines`, outside their module
 * folders; its sources' hash is stamped into the binary so that it is part of the cache key too.
 */
/** `go build -o DIR/ .` names each binary after its module path's last element: admission, kim. */
function jsonlinesHash(): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(JSONLINES_DIR).sort()) {
    hash.update(`\0${name}\0`);
    hash.update(fs.readFileSync(path.join(JSONLINES_DIR, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

export function oracleToolSpecs(): Record<OracleProgram, GoToolSpec> {
  const stamp = `-X kyma-fleet.dev/oracle/jsonlines.SourceHash=${jsonlinesHash()}`;
  return {
    admission: { name: 'oracle-admission', moduleDir: path.join(ORACLE_DIR, 'admission'), binaries: { admission: '.' }, ldflags: stamp, env: { CGO_ENABLED: '0' } },
    kim: { name: 'oracle-kim', moduleDir: path.join(ORACLE_DIR, 'kim'), binaries: { kim: '.' }, ldflags: stamp, env: { CGO_ENABLED: '0' } },
  };
}

/** Builds (or reuses) both programs; throws without Go or on a failed build. */
export async function ensureOracleBinaries(log?: (line: string) => void): Promise<OracleBinaries & { seconds: number }> {
  const specs = oracleToolSpecs();
  const admission = await ensureGoTool(specs.admission, { log });
  const kim = await ensureGoTool(specs.kim, { log });
  return { admission: admission.binaries.admission!, kim: kim.binaries.kim!, seconds: admission.seconds + kim.seconds };
}

/** The binaries the global setup built, when it did. */
export function oracleBinariesFromEnv(): OracleBinaries | undefined {
  const admission = process.env[ORACLE_ENV.admission];
  const kim = process.env[ORACLE_ENV.kim];
  return admission && kim ? { admission, kim } : undefined;
}

export { findGo };
