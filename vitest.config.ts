import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'web/src/**/*.test.ts', 'web/src/**/*.test.tsx'],
    // The fault suite (tests/e2e/fault-suite.test.ts: real processes SIGKILLed at named points)
    // is part of every run; `npm run test:faults` runs it alone (docs/operations.md).
    exclude: [...configDefaults.exclude],
    // One embedded PostgreSQL (in a child process) and one redis-server for the whole run;
    // each test file gets its own database cloned from a migrated template.
    globalSetup: ['tests/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
  },
});
