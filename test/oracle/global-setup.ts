// vitest global setup of the upstream oracle: builds (or reuses from the tool cache) its Go programs
// once per run and hands their paths to test processes (tools.ts ORACLE_ENV). Without Go and with CI
// unset it sets a one-line skip reason instead (ORACLE_SKIP_ENV), printed once here; under CI=true a
// missing Go fails the run. Where the Falco snapshot (../shared/upstream/) is absent, the Falco
// program is not built and FALCO_SKIP_ENV carries the one-line reason; under CI=true that fails the
// run too. A failed build where Go is present fails the run.

import { ensureOracleBinaries, falcoUnavailableReason, FALCO_SKIP_ENV, findGo, ORACLE_ENV, ORACLE_SKIP_ENV, oracleBinariesFromEnv } from './tools';

export default async function setup(): Promise<void> {
  delete process.env[ORACLE_SKIP_ENV];
  delete process.env[FALCO_SKIP_ENV];
  const noFalco = falcoUnavailableReason();
  if (noFalco) {
    if (process.env.CI === 'true') throw new Error(`CI=true requires the Falco judge, but ${noFalco.split(':')[0]}`);
    process.env[FALCO_SKIP_ENV] = noFalco;
    process.stderr.write(`oracle: ${noFalco}\n`);
  }
  const given = oracleBinariesFromEnv();
  if (given) {
    // given by the caller (e.g. a developer's own build); without a Falco binary, its judge is skipped
    if (!given.falco && !noFalco) process.env[FALCO_SKIP_ENV] = `${ORACLE_ENV.falco} is not set beside the other oracle programs: the Falco judge is skipped`;
    return;
  }
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
  process.env[ORACLE_ENV.lakom] = binaries.lakom;
  if (binaries.falco) process.env[ORACLE_ENV.falco] = binaries.falco;
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) process.stderr.write(`oracle: programs ready after ${seconds.toFixed(0)} s\n`);
}
