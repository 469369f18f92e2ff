import { defineConfig } from 'vitest/config';

// Integration tests share one real Redis, Kafka and ClickHouse and start API processes on
// their own ports, so files run one at a time; each test uses its own organisations and keys.
// `npm run test:unit` runs the `unit` project alone: pure logic beside the code, no servers.
// `npm test` runs unit and integration; `npm run test:cluster` the multi-node engines.
export default defineConfig({
  test: {
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'shared/**/*.test.ts',
            'services/**/*.test.ts',
            'client/**/*.test.ts',
            'infra/**/*.test.ts',
            'loadtest/**/*.test.ts',
            // Reads source files only (no servers), so npm run test:unit keeps the circle check.
            'test/repo/import-circles.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cluster/**', 'test/repo/import-circles.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        // The engines' multi-node forms (npm run test:cluster): each file starts a cluster of its
        // own (6 Redis nodes, 3 Kafka brokers, 4 ClickHouse servers and 3 ZooKeepers).
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          // The second stops a ClickHouse cluster the run started, whatever its files' hooks did.
          globalSetup: ['test/global-setup.ts', 'test/cluster/global-teardown.ts'],
        },
      },
    ],
  },
});
