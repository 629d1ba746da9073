import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // afterAll hooks delete temporary fleets and dist/ trees of thousands of files; on a busy CI
    // disk that takes longer than vitest's default 10 s.
    hookTimeout: 180_000,
    pool: 'forks',
    // Two test files at a time on the 2-core CI machine (vitest's default is one fewer than the cores,
    // so one): most files spend their time waiting on API servers, controllers and CLI processes they
    // started, which leaves the other core idle.
    maxWorkers: 2,
    // Every Go tool's build started at once, a few side by side (test/helpers/go-prebuild.ts); then
    // the test cluster's binaries, built or reused once per run (test/cluster/global-setup.ts: a cold
    // build takes minutes; global setups have no timeout); then a cache home of its own for the run
    // (test/helpers/global-setup.ts). The upstream oracle's two programs likewise (test/oracle/global-setup.ts),
    // and test/argocd's program (argo-cd's ApplicationSet code and gitops-engine; test/argocd/global-setup.ts),
    // and the real Flux kustomize-controller (test/flux-controller/global-setup.ts).
    globalSetup: ['test/helpers/go-prebuild.ts', 'test/cluster/global-setup.ts', 'test/oracle/global-setup.ts', 'test/argocd/global-setup.ts', 'test/flux-controller/global-setup.ts', 'test/helpers/global-setup.ts'],
  },
});
