import { describe, expect, it } from 'vitest';
import { crossedThresholds, latencyThresholds } from './k6-thresholds.ts';

describe('latencyThresholds', () => {
  it('states the thresholds as ratios of the baseline, never under the idle budget', () => {
    expect(latencyThresholds({ requests: 150, failed: 0, p95: 12.2, p99: 21 })).toEqual({ p95: 37, p99: 84 });
    expect(latencyThresholds({ requests: 150, failed: 0, p95: 2, p99: 3 })).toEqual({ p95: 25, p99: 50 });
    expect(latencyThresholds({ requests: 10, failed: 0, p95: 10, p99: 10 }, { p95: 2, p99: 2 })).toEqual({
      p95: 25,
      p99: 50,
    });
  });

  it('refuses a baseline with failures or no requests', () => {
    expect(() => latencyThresholds({ requests: 150, failed: 0.02, p95: 5, p99: 9 })).toThrow(/failed/);
    expect(() => latencyThresholds({ requests: 0, failed: 0, p95: NaN, p99: NaN })).toThrow(/baseline/);
  });
});

describe('crossedThresholds', () => {
  it('names each crossed threshold with the value observed', () => {
    const summary = {
      metrics: {
        'http_req_duration{expected_response:true}': {
          values: { 'p(95)': 20.1, 'p(99)': 93.2114 },
          thresholds: { 'p(95)<37': { ok: true }, 'p(99)<84': { ok: false } },
        },
        dropped_iterations: { values: { count: 19, rate: 0.3 }, thresholds: { 'count<1': { ok: false } } },
        http_req_failed: { values: { rate: 0 }, thresholds: { 'rate<0.001': { ok: true } } },
        checks: { values: { rate: 1 } },
      },
    };
    expect(crossedThresholds(summary)).toEqual([
      'http_req_duration{expected_response:true} p(99)<84: 93.211',
      'dropped_iterations count<1: 19',
    ]);
  });
});
