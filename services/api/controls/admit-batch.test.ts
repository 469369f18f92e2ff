import { describe, expect, it } from 'vitest';
import { AdmitBatch, type SendRun } from './admit-batch.ts';

/** A sender that records each run and answers every request of it with its place in the run. */
function recorder() {
  const runs: { rate: string; count: number }[] = [];
  const send: SendRun = async (rate, _credits, _args, count) => {
    runs.push({ rate, count });
    return Array.from({ length: count }, (_, i) => ['admitted', i + 1, 10 + i]).flat();
  };
  return { runs, send };
}

describe('admissions without Idempotency-Key, one run per organisation window and turn', () => {
  it('sends the requests of one turn with the same keys and arguments as one run, in order', async () => {
    const { runs, send } = recorder();
    const batch = new AdmitBatch(send);
    const replies = await Promise.all([1, 2, 3].map(() => batch.admit('rate:a', 'credits:a', [1, 2])));
    expect(runs).toEqual([{ rate: 'rate:a', count: 3 }]);
    expect(replies).toEqual([
      ['admitted', 1, 10],
      ['admitted', 2, 11],
      ['admitted', 3, 12],
    ]);
  });

  it('keeps requests whose keys or arguments differ in runs of their own', async () => {
    const { runs, send } = recorder();
    const batch = new AdmitBatch(send);
    await Promise.all([
      batch.admit('rate:a', 'credits:a', [1]),
      batch.admit('rate:b', 'credits:b', [1]),
      batch.admit('rate:a', 'credits:a', [2]),
    ]);
    expect(runs.map((r) => r.count)).toEqual([1, 1, 1]);
  });

  it('sends a full run at once and starts another', async () => {
    const { runs, send } = recorder();
    const batch = new AdmitBatch(send);
    await Promise.all(Array.from({ length: 450 }, () => batch.admit('rate:a', 'credits:a', [])));
    expect(runs.map((r) => r.count)).toEqual([200, 200, 50]);
  });

  it('fails every request of a run whose script failed, and only those', async () => {
    const batch = new AdmitBatch(async (rate, _c, _a, count) => {
      if (rate === 'rate:down') throw new Error('Command timed out');
      return Array.from({ length: count }, () => ['admitted', 1, 1]).flat();
    });
    const [down, up] = await Promise.allSettled([
      batch.admit('rate:down', 'credits:x', []),
      batch.admit('rate:up', 'credits:y', []),
    ]);
    expect(down.status).toBe('rejected');
    expect(up).toEqual({ status: 'fulfilled', value: ['admitted', 1, 1] });
  });
});
