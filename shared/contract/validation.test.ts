import { describe, expect, it } from 'vitest';
import { idempotencyKeyErrors, validateScoreRequest } from './validation.ts';

describe('validateScoreRequest', () => {
  it('maps every issue to one error with a dotted field and a specific code where there is one', () => {
    const r = validateScoreRequest(
      { subject: { phone_number: 'x', ip_address: 'y', ipp: 1 }, options: { max_latency_ms: 1 } },
      '',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [e.code, e.field])).toEqual(
      expect.arrayContaining([
        ['E_UNKNOWN_FIELD', 'subject.ipp'],
        ['E_INVALID_PHONE_NUMBER', 'subject.phone_number'],
        ['E_INVALID_IP_ADDRESS', 'subject.ip_address'],
        ['E_VALIDATION', 'options.max_latency_ms'],
        ['E_INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key'],
      ]),
    );
    expect(r.errors).toHaveLength(5);
  });

  it('reports header violations even when the body is valid', () => {
    const r = validateScoreRequest({ subject: { ip_address: '1.1.1.1' } }, 'k'.repeat(129));
    expect(r).toEqual({ ok: false, errors: [expect.objectContaining({ field: 'Idempotency-Key' })] });
  });

  it('applies defaults to a valid request', () => {
    const r = validateScoreRequest({ subject: { ip_address: '::1' }, options: {} }, undefined);
    expect(r).toEqual({ ok: true, request: { subject: { ip_address: '::1' }, options: { explain: true } } });
  });

  it('accepts Idempotency-Key lengths 1 to 128', () => {
    expect(idempotencyKeyErrors('a')).toEqual([]);
    expect(idempotencyKeyErrors('a'.repeat(128))).toEqual([]);
    expect(idempotencyKeyErrors(undefined)).toEqual([]);
  });
});
