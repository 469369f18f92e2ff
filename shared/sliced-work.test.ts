import { describe, expect, it } from 'vitest';
import { runInTurns, runNow, sortedInSlices, type Slices } from './sliced-work.ts';

/** Counts to `n`, yielding after each step; fails at `failAt`. */
function* counting(n: number, log: string[], name: string, failAt = -1): Slices<number> {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new Error(`${name} failed`);
    log.push(name);
    yield;
  }
  return n;
}

describe('sliced work', () => {
  it('sorts as the engine does, stably, whatever the length', () => {
    for (const n of [0, 1, 1_023, 1_024, 5_000, 20_001]) {
      const items = Array.from({ length: n }, (_, i) => ({ key: (i * 7919) % 97, i }));
      const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
      expect(runNow(sortedInSlices(items, byKey))).toEqual(items.slice().sort(byKey));
    }
  });

  it('runs every work to its end in turns, one failing without the others', async () => {
    const log: string[] = [];
    const [a, b, c] = await Promise.allSettled([
      runInTurns(counting(50_000, log, 'a')),
      runInTurns(counting(50_000, log, 'b')),
      runInTurns(counting(50_000, log, 'c', 10_000)),
    ]);
    expect([a, b]).toEqual([
      { status: 'fulfilled', value: 50_000 },
      { status: 'fulfilled', value: 50_000 },
    ]);
    expect(c).toMatchObject({ status: 'rejected', reason: new Error('c failed') });
    expect(log.filter((w) => w === 'a')).toHaveLength(50_000);
  });
});
