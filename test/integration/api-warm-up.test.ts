import { afterAll, describe, expect, it } from 'vitest';
import { startApi, waitFor, type ApiNode } from '../../infra/harness/processes.ts';
import { WARM_UP_CALLS } from '../../services/api/warm-up.ts';

/** No cold node in rotation: /readyz turns 200 only after the score path ran warm-up calls. */
describe('API node readiness', () => {
  let api: ApiNode | undefined;
  afterAll(async () => {
    await api?.stop();
  });

  it('reports ready only after warming the score path over the loaded snapshots', async () => {
    api = await startApi({ LOG_LEVEL: 'info' });
    const readyAt = Date.now();
    const line = await waitFor('the warm-up log line', async () =>
      api!
        .output()
        .split('\n')
        .find((l) => l.includes('"score path warmed up"')),
    );
    const warmed = JSON.parse(line) as { time: number; calls: number };
    expect(warmed.calls).toBe(WARM_UP_CALLS);
    // Logged before the flag that /readyz reads was set, so before the first ready answer.
    expect(warmed.time).toBeLessThanOrEqual(readyAt);
  });
});
