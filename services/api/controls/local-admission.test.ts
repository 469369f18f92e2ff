import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from './admission.ts';
import { localBilling, localHeaders } from './local-admission.ts';
import type { LocalDecision } from './local.ts';

const req = (over: Partial<AdmissionRequest>) =>
  ({ billed: true, idemKey: undefined, ...over }) as AdmissionRequest;
const admitted: LocalDecision = { outcome: 'admitted', limit: 5, remaining: 4, creditsRemaining: 17 };

describe('an admission without Redis', () => {
  it('bills a plain scoring request here, unless its timed-out script may have billed it in Redis', () => {
    expect(localBilling(req({}), false)).toEqual({ bill: true, uncertain: false });
    expect(localBilling(req({}), true)).toEqual({ bill: false, uncertain: false });
  });

  it('never bills an idempotent one here: settle.lua bills it once Redis answers', () => {
    const keyed = req({ idemKey: 'frs:idem:{org_a}:k' });
    expect(localBilling(keyed, false)).toEqual({ bill: false, uncertain: true });
    expect(localBilling(keyed, true)).toEqual({ bill: false, uncertain: true });
  });

  it('bills and settles nothing for outcomes', () => {
    const outcomes = req({ billed: false, idemKey: 'frs:idem:outcomes:{org_a}:k' });
    expect(localBilling(outcomes, false)).toEqual({ bill: true, uncertain: false });
  });

  it("answers with the node's share, credits on billed requests, and says a key could not be checked", () => {
    expect(localHeaders(admitted, true, false)).toEqual({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'X-Credits-Remaining': '17',
    });
    expect(localHeaders(admitted, false, true)).toEqual({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'Idempotency-Status': 'unavailable',
    });
  });
});
