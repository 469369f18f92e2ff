import { describe, expect, it } from 'vitest';
import { gatePromotion, promotionRecord, PromotionRefused, type GateRequest } from './promotion-gate.ts';
import type { LatestBacktest } from './store.ts';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const run = (over: Partial<LatestBacktest> = {}): LatestBacktest => ({
  run_id: 'bt_1',
  ran_at: '2026-11-28T12:00:00Z',
  window: { from: '2026-11-01', to: '2026-11-28', org_id: '' },
  caps: { critical: { share: 0.004, pass: true }, high: { share: 0.03, pass: true } },
  caps_pass: true,
  scores: 10_000,
  ...over,
});
const request = (over: Partial<GateRequest> = {}): GateRequest => ({
  candidate: '2026.12.4',
  currentDefault: '2026.12.3',
  force: false,
  operator: 'ops@example.org',
  ...over,
});
const gate = (latest: LatestBacktest | undefined | Error, req = request()) =>
  gatePromotion(
    {
      latest: async () => {
        if (latest instanceof Error) throw latest;
        return latest;
      },
      record: async () => undefined,
      maxAgeDays: 7,
      now: () => NOW,
    },
    req,
  );

describe('the promotion gate', () => {
  it('lets a candidate through on a recent backtest that passed every cap', async () => {
    const out = await gate(run());
    expect(out).toMatchObject({ problems: [], forced: false, backtest: { run_id: 'bt_1', age_days: 1 } });
    expect(promotionRecord(request(), out)).toEqual({
      version: '2026.12.4',
      previous_default: '2026.12.3',
      backtest_run_id: 'bt_1',
      forced: false,
      reason: '',
      operator: 'ops@example.org',
    });
  });

  it('refuses without a backtest, with an old one, or with a failed cap, naming why and the run', async () => {
    await expect(gate(undefined)).rejects.toThrow(/no backtest of 2026\.12\.4 .*npm run backtest/);
    await expect(gate(run({ ran_at: '2026-11-01T12:00:00Z' }))).rejects.toThrow(/28 days old \(at most 7/);
    const failed = run({ caps_pass: false, caps: { critical: { share: 0.0213, pass: false } } });
    await expect(gate(failed)).rejects.toThrow(
      /failed the score quality caps \(critical 2\.13 %\).*critical 2\.13 % FAIL/,
    );
    await expect(gate(new Error('connection refused'))).rejects.toThrow(
      /backtests could not be read \(connection refused\)/,
    );
    await expect(gate(undefined)).rejects.toBeInstanceOf(PromotionRefused);
  });

  it('is forced only with a reason, and the record says so', async () => {
    await expect(gate(undefined, request({ force: true }))).rejects.toThrow('--force needs --reason');
    await expect(gate(undefined, request({ force: true, reason: '  ' }))).rejects.toThrow(
      '--force needs --reason',
    );
    const req = request({ force: true, reason: 'incident 42' });
    const out = await gate(undefined, req);
    expect(out.forced).toBe(true);
    expect(promotionRecord(req, out)).toMatchObject({
      forced: true,
      reason: 'incident 42',
      backtest_run_id: '',
    });
  });

  it('has nothing to check when the candidate is already the default', async () => {
    expect(await gate(undefined, request({ candidate: '2026.12.3' }))).toEqual({
      backtest: null,
      problems: [],
      forced: false,
    });
  });
});
