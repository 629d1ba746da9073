// A vitest configuration for running single test files without the global setups (no Go builds):
// test/shared/shared-skip.test.ts runs the files that read ../shared with it, to see them skip or fail.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
