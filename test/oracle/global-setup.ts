// vitest global setup of the upstream oracle: builds (or reuses from the tool cache) its two Go
// programs once per run and hands their paths to test processes (tools.ts ORACLE_ENV). Without Go and
// with CI unset it sets a one-line skip reason instead (ORACLE_SKIP_ENV), printed once here; under
// CI=true a missing Go fails the run. A failed build where Go is present fails the run too.

import { ensureOracleBinaries, findGo, ORACLE_ENV, ORACLE_SKIP_ENV, oracleBinariesFromEnv } from './tools';

export default async function setup(): Promise<void> {
  delete process.env[ORACLE_SKIP_ENV];
  if (oracleBinariesFromEnv()) return; // given by the caller (e.g. a developer's own build)
  if (!findGo()) {
    const reason = 'no Go toolchain (no `go` on PATH or /usr/local/go/bin/go): the upstream oracle tests are skipped (see docs/testing.md)';
    if (process.env.CI === 'true') throw new Error(`CI=true requires the upstream oracle, but there is ${reason.split(':')[0]}`);
    process.env[ORACLE_SKIP_ENV] = reason;
    process.stderr.write(`oracle: ${reason}\n`);
    return;
  }
  const started = Date.now();
  const binaries = await ensureOracleBinaries((line) => process.stderr.write(`oracle: ${line}\n`));
  process.env[ORACLE_ENV.admission] = binaries.admission;
  process.env[ORACLE_ENV.kim] = binaries.kim;
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) process.stderr.write(`oracle: programs ready after ${seconds.toFixed(0)} s\n`);
}
