import { describe, expect, it } from 'vitest';
import { buildCdf, percentileRank } from './percentile.ts';

describe('percentileRank', () => {
  // Population of 10: four 0s, three 5s, two 20s, one 45.
  const cdf = buildCdf([0, 0, 0, 0, 5, 5, 5, 20, 20, 45]);

  it('builds the distinct values with the share strictly below each', () => {
    expect(cdf.raw).toEqual([0, 5, 20, 45]);
    expect(cdf.below).toEqual([0, 0.4, 0.7, 0.9]);
    expect(cdf.quantiles).toHaveLength(101);
    expect(cdf.quantiles[0]).toBe(0);
    expect(cdf.quantiles[50]).toBe(5);
    expect(cdf.quantiles[100]).toBe(45);
  });

  it('is the share of the population strictly below, in whole percent', () => {
    expect(percentileRank(0, { cdf })).toBe(0);
    expect(percentileRank(5, { cdf })).toBe(40);
    expect(percentileRank(20, { cdf })).toBe(70);
    expect(percentileRank(45, { cdf })).toBe(90);
  });

  it('places values between and beyond the population', () => {
    expect(percentileRank(-3, { cdf })).toBe(0);
    expect(percentileRank(3, { cdf })).toBe(40);
    expect(percentileRank(21, { cdf })).toBe(90);
    expect(percentileRank(46, { cdf })).toBe(100);
  });

  it('rounds down, so "riskier than N %" is never overstated', () => {
    expect(percentileRank(1, { cdf: { raw: [0, 1], below: [0, 0.8765] } })).toBe(87);
  });
});
