// vitest global setup of the real Flux controller tests: builds (or reuses from the tool cache)
// kustomize-controller (and controller-gen, for the ArtifactGenerator CRD) from the Go module proxy once
// per run and hands their outputs to test processes
// (tools.ts FLUX_CONTROLLER_ENV); it also fetches the Flux CRDs' module sources once (fluxCrdFiles),
// so that a missing module fails here and not in every test. Without Go and with CI unset it sets a
// one-line skip reason instead (FLUX_CONTROLLER_SKIP_ENV), printed once; under CI=true a missing Go
// fails the run, and so does a failed build where Go is present.

import { ensureFluxControllerBinaries, findGo, FLUX_CONTROLLER_ENV, FLUX_CONTROLLER_SKIP_ENV, fluxControllerBinariesFromEnv, fluxCrdFiles } from './tools';

export default async function setup(): Promise<void> {
  delete process.env[FLUX_CONTROLLER_SKIP_ENV];
  if (fluxControllerBinariesFromEnv()) return; // given by the caller (e.g. a developer's own build)
  if (!findGo()) {
    const reason = 'no Go toolchain (no `go` on PATH or /usr/local/go/bin/go): the real Flux controller tests are skipped (see docs/testing.md)';
    if (process.env.CI === 'true') throw new Error(`CI=true requires the real Flux controller, but there is ${reason.split(':')[0]}`);
    process.env[FLUX_CONTROLLER_SKIP_ENV] = reason;
    process.stderr.write(`flux controller: ${reason}\n`);
    return;
  }
  const started = Date.now();
  const binaries = await ensureFluxControllerBinaries((line) => process.stderr.write(`flux controller: ${line}\n`));
  fluxCrdFiles();
  process.env[FLUX_CONTROLLER_ENV.kustomizeController] = binaries.kustomizeController;
  process.env[FLUX_CONTROLLER_ENV.artifactGeneratorCrd] = binaries.artifactGeneratorCrd;
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) process.stderr.write(`flux controller: kustomize-controller ready after ${seconds.toFixed(0)} s\n`);
}
