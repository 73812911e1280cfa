import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Through a real HAProxy: `npm run test:deploy` (vitest.deploy.config.ts), which .ci/run
    // runs once it has installed haproxy; `npm test` needs nothing installed.
    exclude: [...configDefaults.exclude, 'test/deploy/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: test files share one PostgreSQL server, each in its own database.
    maxWorkers: 2,
  },
});
