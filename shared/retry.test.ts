import { describe, expect, it } from 'vitest';
import { errorMessage } from './error-message.ts';
import { Backoff, retry } from './retry.ts';

describe('Backoff', () => {
  it('doubles from the first pause up to the maximum, and starts again after reset', () => {
    const b = new Backoff(100, 500);
    expect([b.next(), b.next(), b.next(), b.next(), b.ms]).toEqual([100, 200, 400, 500, 500]);
    b.reset();
    expect(b.next()).toBe(100);
  });

  it('keeps a fixed pause without a maximum', () => {
    const b = new Backoff(250);
    expect([b.next(), b.next(), b.next()]).toEqual([250, 250, 250]);
  });

  it('refuses a pause that is not positive or a maximum below the first', () => {
    expect(() => new Backoff(0)).toThrow(RangeError);
    expect(() => new Backoff(100, 50)).toThrow(RangeError);
  });
});

describe('retry', () => {
  it('retries until the call succeeds, telling each failure and its pause', async () => {
    let calls = 0;
    const failures: [string, number][] = [];
    const value = await retry(
      async () => {
        if (++calls < 4) throw new Error(`failure ${calls}`);
        return 'done';
      },
      { firstMs: 1, maxMs: 3, onFailure: (err, ms) => void failures.push([errorMessage(err), ms]) },
    );
    expect(value).toBe('done');
    expect(calls).toBe(4);
    expect(failures).toEqual([
      ['failure 1', 1],
      ['failure 2', 2],
      ['failure 3', 3],
    ]);
  });

  it('gives up with undefined once told to stop, without another attempt', async () => {
    let calls = 0;
    const value = await retry(
      async () => {
        calls++;
        throw new Error('down');
      },
      { firstMs: 1, keepGoing: () => calls < 3 },
    );
    expect(value).toBeUndefined();
    expect(calls).toBe(3);
  });

  it('makes no attempt when already stopped', async () => {
    let calls = 0;
    await retry(async () => ++calls, { firstMs: 1, keepGoing: () => false });
    expect(calls).toBe(0);
  });
});
