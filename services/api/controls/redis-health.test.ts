import { describe, expect, it } from 'vitest';
import { mayHaveRun, RedisHealth, RETRY_REDIS_AFTER_MS } from './redis-health.ts';

const T0 = 1_795_000_000_000;

describe('whether an admission asks Redis', () => {
  it('asks a connected Redis, never one the client is not connected to', () => {
    const h = new RedisHealth();
    expect(h.usable(T0, true)).toBe(true);
    expect(h.usable(T0, false)).toBe(false);
  });

  it('stays local for a while after an error, then lets one request a while probe', () => {
    const h = new RedisHealth();
    expect(h.failed(T0)).toBe(true);
    expect(h.failed(T0 + 1)).toBe(false); // the same spell: logged once
    expect(h.usable(T0 + RETRY_REDIS_AFTER_MS, true)).toBe(false);
    const probe = T0 + 1 + RETRY_REDIS_AFTER_MS;
    expect(h.usable(probe, true)).toBe(true);
    expect(h.usable(probe + 1, true)).toBe(false); // the probe's interval
    expect(h.ok()).toBe(true);
    expect(h.usable(probe + RETRY_REDIS_AFTER_MS, true)).toBe(true);
    expect(h.usable(probe + RETRY_REDIS_AFTER_MS + 1, true)).toBe(true); // shared again
    expect(h.ok()).toBe(false);
  });

  it('takes a timed-out script as one that may still bill, any other error as one that did not run', () => {
    expect(mayHaveRun(new Error('Command timed out'))).toBe(true);
    expect(mayHaveRun(new Error('Connection is closed.'))).toBe(false);
    expect(mayHaveRun('Command timed out')).toBe(false);
  });
});
