import { describe, expect, it } from 'vitest';
import type { Org } from '../../../shared/orgs/store.ts';
import { LocalControls } from './local.ts';

const org = (over: { rate_rps?: number } = {}): Org => ({
  org_id: 'org_0000000000000001',
  name: 't',
  tier: 'verify',
  rate_rps: 20,
  credits: 100,
  overdraft: 5,
  entitlements: [],
  contexts: {},
  created_at: '2026-11-01T00:00:00.000Z',
  ...over,
});
const CK = 'frs:credits:{org_0000000000000001}:2026-11';
const T0 = 1_795_000_000_000;

describe('local controls while Redis is unreachable', () => {
  it('admits rate_rps / nodeCount per whole second, then starts a new window', () => {
    const local = new LocalControls(4);
    const outcomes = Array.from({ length: 8 }, (_, i) => local.admit(org(), CK, T0 + i).outcome);
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(5);
    expect(outcomes.slice(5)).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    expect(local.admit(org(), CK, T0 + 1000).outcome).toBe('admitted');
  });

  it('never limits an organisation below one request per second per node', () => {
    const local = new LocalControls(10);
    expect(local.admit(org({ rate_rps: 3 }), CK, T0)).toMatchObject({ outcome: 'admitted', limit: 1 });
    expect(local.admit(org({ rate_rps: 3 }), CK, T0).outcome).toBe('rate_limited');
  });

  it('bills at most its share of what Redis last reported left of allowance + grace', () => {
    const local = new LocalControls(2);
    local.observe(CK, 95); // 10 left of 105: this node may bill 5
    const results = Array.from({ length: 7 }, (_, i) => local.admit(org(), CK, T0 + i * 1000));
    expect(results.map((r) => r.outcome)).toEqual([
      ...Array(5).fill('admitted'),
      'credits_exhausted',
      'credits_exhausted',
    ]);
    expect(results[4]!.creditsRemaining).toBe(0);
    expect(local.drain()).toEqual(new Map([[CK, 5]]));
  });

  it('keeps refunds and a failed reconciliation in the ledger', () => {
    const local = new LocalControls(1);
    local.admit(org(), CK, T0);
    local.admit(org(), CK, T0);
    local.refund(CK);
    const ledger = local.drain();
    expect(ledger).toEqual(new Map([[CK, 1]]));
    expect(local.pending).toBe(false);
    local.restore(ledger);
    local.admit(org(), CK, T0 + 1000);
    expect(local.drain()).toEqual(new Map([[CK, 2]]));
  });

  it('counts a drained ledger against the budget until it is settled in Redis', () => {
    const local = new LocalControls(1);
    local.observe(CK, 100); // 5 left of 105
    for (let i = 0; i < 3; i++) local.admit(org(), CK, T0 + i * 1000);
    const ledger = local.drain();
    expect(ledger).toEqual(new Map([[CK, 3]]));
    // Still unconfirmed: two more, then refused, as if never drained.
    const next = Array.from({ length: 3 }, (_, i) => local.admit(org(), CK, T0 + (3 + i) * 1000).outcome);
    expect(next).toEqual(['admitted', 'admitted', 'credits_exhausted']);
    local.settled(CK, 3);
    local.observe(CK, 103);
    expect(local.admit(org(), CK, T0 + 9000).outcome).toBe('credits_exhausted');
    expect(local.drain()).toEqual(new Map([[CK, 2]]));
  });

  it('does not bill a request whose script may already have billed it in Redis', () => {
    const local = new LocalControls(1);
    expect(local.admit(org(), CK, T0, false).outcome).toBe('admitted');
    expect(local.pending).toBe(false);
  });
});
