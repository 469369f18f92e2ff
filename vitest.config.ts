import { defineConfig } from 'vitest/config';

// Integration tests share one real Redis, Kafka and ClickHouse and start API processes on
// their own ports, so files run one at a time; each test uses its own organisations and keys.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'shared/**/*.test.ts', 'services/**/*.test.ts', 'client/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
