import { describe, expect, it } from 'vitest';
import type { Org } from '../../../shared/orgs/store.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { admissionRequest, scriptArgs } from './admission.ts';
import { bodyFingerprint } from './fingerprint.ts';

// What an admission reads of its organisation.
const org = { org_id: 'org_0000000000000001', rate_rps: 20, credits: 100, overdraft: 5 } as Org;
const principal = { org, keyId: 'key_1' };
const NOW = Date.UTC(2026, 10, 27, 16, 12, 5, 902);
const BODY = { subject: { phone_number: '+447911123456' } };

describe('one admission as its steps read it', () => {
  it('bills scoring and not outcomes, against the credits of the month', () => {
    const score = admissionRequest(principal, undefined, BODY, 'score', NOW, 't1');
    expect(score).toMatchObject({ billed: true, credits: 'frs:credits:{org_0000000000000001}:2026-11' });
    expect(admissionRequest(principal, undefined, BODY, 'outcomes', NOW, 't1').billed).toBe(false);
  });

  it('binds an Idempotency-Key to the body, per scope; without one there is no entry and no fingerprint', () => {
    const plain = admissionRequest(principal, undefined, BODY, 'score', NOW, 't1');
    expect([plain.idemKey, plain.fp]).toEqual([undefined, '']);
    const keyed = admissionRequest(principal, 'k1', BODY, 'score', NOW, 't1');
    expect(keyed.fp).toBe(bodyFingerprint(BODY));
    expect(keyed.idemKey).toMatch(/^frs:idem/);
    expect(admissionRequest(principal, 'k1', BODY, 'outcomes', NOW, 't1').idemKey).not.toBe(keyed.idemKey);
    expect(() => admissionRequest(principal, '', BODY, 'score', NOW, 't1')).toThrow(ApiError);
  });

  it("gives requests without a key one window's arguments, so a turn's run shares them", () => {
    const a = scriptArgs(admissionRequest(principal, undefined, BODY, 'score', NOW, 't1'), 10);
    const b = scriptArgs(admissionRequest(principal, undefined, BODY, 'score', NOW + 50, 't2'), 10);
    expect(a).toEqual(b);
    expect([a.token, a.nowMs, a.fingerprint]).toEqual(['', Math.floor(NOW / 1000) * 1000, '']);
  });

  it('gives a keyed request its token and clock, to claim its entry with', () => {
    const args = scriptArgs(admissionRequest(principal, 'k1', BODY, 'score', NOW, 't1'), 10);
    expect(args).toMatchObject({ token: 't1', nowMs: NOW, idempotencyEntriesPerDay: 10, billed: true });
  });
});
