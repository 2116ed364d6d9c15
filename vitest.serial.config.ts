import { defineConfig } from 'vitest/config';

/**
 * Tests that need the machine to themselves, one file at a time, after the
 * main suite (scripts/test.sh, `npm run test:faults`): the fault tests
 * (test/faults) stop PostgreSQL and Redis for everyone, and test/serial
 * measures the API's latency, which other test files running beside it
 * would distort.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts', 'test/serial/**/*.serial.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
