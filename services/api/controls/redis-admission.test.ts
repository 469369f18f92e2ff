import { describe, expect, it } from 'vitest';
import type { Org } from '../../../shared/orgs/store.ts';
import type { AdmissionRequest } from './admission.ts';
import { replyHeaders, settlesLater } from './redis-admission.ts';

const org = { rate_rps: 20, credits: 100 } as Org;
const req = (over: Partial<AdmissionRequest>) =>
  ({ org, billed: true, idemKey: undefined, ...over }) as AdmissionRequest;

describe("admit.lua's answer", () => {
  it('says what is left of the window and of the month', () => {
    expect(replyHeaders(req({}), 3, 40)).toEqual({
      'X-RateLimit-Limit': '20',
      'X-RateLimit-Remaining': '17',
      'X-Credits-Remaining': '60',
    });
    // Past the allowance, inside the overdraft; refused requests beyond the rate count in the window.
    expect(replyHeaders(req({}), 25, 103)['X-Credits-Remaining']).toBe('-3');
    expect(replyHeaders(req({}), 25, 103)['X-RateLimit-Remaining']).toBe('0');
    expect(replyHeaders(req({ billed: false }), 3, 40)).not.toHaveProperty('X-Credits-Remaining');
  });

  it('settles later only a billed, idempotent admission its replica may not hold', () => {
    const keyed = req({ idemKey: 'frs:idem:{org_a}:k' });
    expect(settlesLater('admitted', false, keyed)).toBe(true);
    expect(settlesLater('admitted', true, keyed)).toBe(false);
    expect(settlesLater('admitted_unretained', false, keyed)).toBe(false); // no entry to settle by
    expect(settlesLater('admitted', false, req({}))).toBe(false); // billed in the run, nothing to find
    expect(settlesLater('admitted', false, req({ billed: false, idemKey: 'k' }))).toBe(false);
  });
});
