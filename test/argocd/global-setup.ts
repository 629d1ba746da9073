// vitest global setup of the Argo CD tests: builds (or reuses from the tool cache) test/argocd's Go
// program (argo-cd v3.2.12 + gitops-engine) once per run, finds argo-cd's module folder (its CRDs are
// read from there at run time), and hands both to test processes (argocd-fleet.ts ARGOCD_ENV).
// Without Go and with CI unset it sets a one-line skip reason instead (ARGOCD_SKIP_ENV), printed once
// here; under CI=true a missing Go fails the run. A failed build where Go is present fails the run too.

import { ARGOCD_ENV, ARGOCD_SKIP_ENV, argoFromEnv, ensureArgoCdFleet } from './argocd-fleet';
import { findGo } from '../cluster/go-tool-cache';

export default async function setup(): Promise<void> {
  delete process.env[ARGOCD_SKIP_ENV];
  if (argoFromEnv()) return; // given by the caller (e.g. a developer's own build)
  if (!findGo()) {
    const reason = 'no Go toolchain (no `go` on PATH or /usr/local/go/bin/go): the Argo CD tests are skipped (see docs/testing.md)';
    if (process.env.CI === 'true') throw new Error(`CI=true requires the Argo CD tests, but there is ${reason.split(':')[0]}`);
    process.env[ARGOCD_SKIP_ENV] = reason;
    process.stderr.write(`argocd: ${reason}\n`);
    return;
  }
  const started = Date.now();
  const built = await ensureArgoCdFleet((line) => process.stderr.write(`argocd: ${line}\n`));
  process.env[ARGOCD_ENV.binary] = built.binary;
  process.env[ARGOCD_ENV.moduleDir] = built.moduleDir;
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) process.stderr.write(`argocd: argocd-fleet ready after ${seconds.toFixed(0)} s\n`);
}
