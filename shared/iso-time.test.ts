import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('is toISOString, within a second, across seconds and back in time', () => {
    const start = Date.parse('2026-12-31T23:59:58.000Z');
    const times = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1999, 2000, 2001, 5, 998, 86_400_000 + 7];
    for (let i = 0; i < 5000; i++) times.push(Math.floor(Math.random() * 4000));
    for (const t of times) expect(isoTime(start + t)).toBe(new Date(start + t).toISOString());
    expect(isoTime(Date.parse('1999-01-01T00:00:00.050Z'))).toBe('1999-01-01T00:00:00.050Z');
  });
});
