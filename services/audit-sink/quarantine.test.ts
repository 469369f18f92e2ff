import { describe, expect, it } from 'vitest';
import { classifyInsertError, clickHouseErrorCode, insertSplitting } from './quarantine.ts';

/** A ClickHouse that refuses any batch holding a record marked bad, with 18.16's wording. */
function fakeClickHouse(bad: (n: number) => boolean) {
  const stored: number[] = [];
  const calls: number[][] = [];
  return {
    stored,
    calls,
    insert: async (items: number[]) => {
      calls.push(items);
      const poison = items.find(bad);
      if (poison !== undefined)
        throw new Error(
          `Code: 25, e.displayText() = DB::Exception: Cannot parse escape sequence: missing second part of surrogate pair (row ${poison})`,
        );
      stored.push(...items);
    },
  };
}

const noWait = { onUnavailable: async () => {}, keepGoing: () => true };

describe('splitting a refused batch', () => {
  it('inserts every good record once and returns exactly the refused ones', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const bad = new Set([0, 17, 500, 501, 999]);
    const ch = fakeClickHouse((n) => bad.has(n));
    const refused = await insertSplitting(items, { insert: ch.insert, ...noWait });
    expect(refused!.map((r) => r.item)).toEqual([...bad].sort((a, b) => a - b));
    expect(refused![0]!.code).toBe(25);
    expect(refused![0]!.reason).toMatch(/^clickhouse refused: Code: 25/);
    expect(ch.stored.sort((a, b) => a - b)).toEqual(items.filter((n) => !bad.has(n)));
    // Bisection, not one insert per record.
    expect(ch.calls.length).toBeLessThan(120);
  });

  it('tries a record refused alone once more before dead-lettering it', async () => {
    let glitches = 1;
    const stored: number[] = [];
    const refused = await insertSplitting([1], {
      insert: async (items) => {
        if (glitches-- > 0) throw new Error('Code: 27, e.displayText() = DB::Exception: Cannot parse input');
        stored.push(...items);
      },
      ...noWait,
    });
    expect(refused).toEqual([]);
    expect(stored).toEqual([1]);
  });

  it('one insert when nothing is refused', async () => {
    const ch = fakeClickHouse(() => false);
    expect(await insertSplitting([1, 2, 3], { insert: ch.insert, ...noWait })).toEqual([]);
    expect(ch.calls).toEqual([[1, 2, 3]]);
  });

  it('retries the same slice while ClickHouse is unavailable, never dead-letters for it', async () => {
    let failures = 3;
    const waits: number[] = [];
    const stored: number[] = [];
    const refused = await insertSplitting([1, 2], {
      insert: async (items) => {
        if (failures-- > 0)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
        stored.push(...items);
      },
      onUnavailable: async (_err, n) => void waits.push(n),
      keepGoing: () => true,
    });
    expect(refused).toEqual([]);
    expect(waits).toEqual([2, 2, 2]);
    expect(stored).toEqual([1, 2]);
  });

  it('stops without a verdict when the consumer stops', async () => {
    const refused = await insertSplitting([1], {
      insert: async () => {
        throw new Error('Timeout error.');
      },
      onUnavailable: async () => {},
      keepGoing: (() => {
        let n = 2;
        return () => n-- > 0;
      })(),
    });
    expect(refused).toBeUndefined();
  });
});

describe('classifying ClickHouse errors', () => {
  it.each([
    ['Code: 25, e.displayText() = DB::Exception: Cannot parse escape sequence', 'content'],
    ['Code: 27, e.displayText() = DB::Exception: Cannot parse input: expected {', 'content'],
    ['Code: 33, e.displayText() = DB::Exception: Cannot read all data', 'unavailable'],
    ['Code: 117, e.displayText() = DB::Exception: Unknown field found while parsing JSONEachRow', 'content'],
    ['Code: 241, e.displayText() = DB::Exception: Memory limit (total) exceeded', 'unavailable'],
    ['Code: 252, e.displayText() = DB::Exception: Too many parts', 'unavailable'],
    ["Code: 60, e.displayText() = DB::Exception: Table frs.scores doesn't exist", 'unavailable'],
    ['connect ECONNREFUSED 127.0.0.1:8123', 'unavailable'],
    ['Timeout error.', 'unavailable'],
    ['socket hang up', 'unavailable'],
  ])('%s: %s', (message, expected) => {
    expect(classifyInsertError(new Error(message))).toBe(expected);
  });

  it('reads the code the client parsed', () => {
    expect(clickHouseErrorCode(Object.assign(new Error('x'), { code: '53' }))).toBe(53);
    expect(classifyInsertError(Object.assign(new Error('x'), { code: '53' }))).toBe('content');
  });
});
