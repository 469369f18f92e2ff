import { describe, expect, it } from 'vitest';
import { creditPeriod, creditsTtlSeconds } from './keyspace.ts';

describe('creditPeriod', () => {
  it('names the UTC month of each instant, in any order of instants (the month is memoised)', () => {
    const at = (iso: string) => Date.parse(iso);
    const cases: [string, string][] = [
      ['2026-11-25T17:00:00.000Z', '2026-11'],
      ['2026-11-30T23:59:59.999Z', '2026-11'],
      ['2026-12-01T00:00:00.000Z', '2026-12'],
      ['2026-11-01T00:00:00.000Z', '2026-11'],
      ['2026-10-31T23:59:59.999Z', '2026-10'],
      ['2027-01-01T00:00:00.000Z', '2027-01'],
      ['2026-12-31T23:59:59.999Z', '2026-12'],
    ];
    for (const [iso, month] of cases) expect(creditPeriod(at(iso)), iso).toBe(month);
  });

  it('keeps a month counter past the end of its month', () => {
    const now = Date.parse('2026-11-30T23:00:00.000Z');
    expect(creditsTtlSeconds(now)).toBeGreaterThan(35 * 24 * 3600);
  });
});
