import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'web/src/**/*.test.ts', 'web/src/**/*.test.tsx'],
    // One embedded PostgreSQL (in a child process) and one redis-server for the whole run;
    // each test file gets its own database cloned from a migrated template.
    globalSetup: ['tests/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
  },
});
