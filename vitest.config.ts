import { defineConfig } from 'vitest/config';

// Integration tests share one real Redis, Kafka and ClickHouse and start API processes on
// their own ports, so files run one at a time; each test uses its own organisations and keys.
// `npm run test:unit` runs the `unit` project alone: pure logic beside the code, no servers.
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
          ],
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
