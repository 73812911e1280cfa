import { defineConfig } from 'vitest/config';

// The deployment's tests (test/deploy/): the balancer's configuration through a real HAProxy.
// `npm test` (vitest.config.ts) leaves them out, so that it needs nothing installed.
export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
