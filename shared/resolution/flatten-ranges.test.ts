import { describe, expect, it } from 'vitest';
import { BIGINT_BOUNDS, flattenRanges, NUMBER_BOUNDS } from './flatten-ranges.ts';

function flatten(ranges: [number, number][]) {
  const out = flattenRanges(
    ranges.map((r) => r[0]),
    ranges.map((r) => r[1]),
    NUMBER_BOUNDS,
    'test',
  );
  return out.starts.map((start, i) => [start, out.ends[i], out.rows[i]]);
}

describe('flattenRanges', () => {
  it('keeps disjoint ranges as they are', () => {
    expect(
      flatten([
        [0, 9],
        [20, 29],
      ]),
    ).toEqual([
      [0, 9, 0],
      [20, 29, 1],
    ]);
  });

  it('lets a nested range win and resumes the enclosing one after it', () => {
    expect(
      flatten([
        [0, 99],
        [10, 19],
        [30, 39],
      ]),
    ).toEqual([
      [0, 9, 0],
      [10, 19, 1],
      [20, 29, 0],
      [30, 39, 2],
      [40, 99, 0],
    ]);
  });

  it('gives a partial overlap to the later range', () => {
    expect(
      flatten([
        [0, 20],
        [10, 30],
      ]),
    ).toEqual([
      [0, 9, 0],
      [10, 30, 1],
    ]);
  });

  it('resumes through several levels', () => {
    expect(
      flatten([
        [0, 99],
        [10, 49],
        [20, 29],
      ]),
    ).toEqual([
      [0, 9, 0],
      [10, 19, 1],
      [20, 29, 2],
      [30, 49, 1],
      [50, 99, 0],
    ]);
  });

  it('handles 128-bit bounds', () => {
    const top = (1n << 128n) - 1n;
    const out = flattenRanges([0n, 1n << 64n], [top, (1n << 64n) + 5n], BIGINT_BOUNDS, 'test');
    expect(out.ends).toEqual([(1n << 64n) - 1n, (1n << 64n) + 5n, top]);
    expect(out.rows).toEqual([0, 1, 0]);
  });

  it('refuses unsorted input rather than answering wrongly', () => {
    expect(() =>
      flatten([
        [10, 19],
        [0, 5],
      ]),
    ).toThrow(/out of order/);
  });
});
