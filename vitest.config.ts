import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'web/src/**/*.test.ts', 'web/src/**/*.test.tsx'],
    // The fault suite (real processes SIGKILLed at named points) runs on its own with
    // `npm run test:faults`: two of five fresh-clone runs timed out in one case (a different
    // case each time), so it is not yet steady enough to gate CI (docs/operations.md).
    exclude: [...configDefaults.exclude, ...(process.env.FAULT_SUITE === '1' ? [] : ['tests/e2e/fault-suite.test.ts'])],
    // One embedded PostgreSQL (in a child process) and one redis-server for the whole run;
    // each test file gets its own database cloned from a migrated template.
    globalSetup: ['tests/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
  },
});
