import { describe, expect, it } from 'vitest';
import { earliestOccurredAt, OCCURRED_AT_SKEW_MS } from './outcome.ts';
import { idempotencyKeyErrors, validateOutcomeRequest, validateScoreRequest } from './validation.ts';

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

describe('validateOutcomeRequest: occurred_at', () => {
  const monthsAgo = (n: number) => {
    const d = new Date();
    d.setUTCMonth(d.getUTCMonth() - n);
    return d.toISOString();
  };
  const fieldsRefused = (occurred_at: string) => {
    const r = validateOutcomeRequest(
      { subject: { ip_address: '81.2.69.142' }, outcome: 'not_fraud', occurred_at },
      undefined,
    );
    return r.ok ? [] : r.errors.map((e) => [e.code, e.field]);
  };

  it('refuses a time before the last 13 months, however far back, naming occurred_at', () => {
    for (const t of ['1969-12-31T23:59:59Z', '2001-01-01T00:00:00Z', monthsAgo(14)])
      expect(fieldsRefused(t), t).toEqual([['E_VALIDATION', 'occurred_at']]);
  });

  it('accepts the last 13 months up to a minute ahead of our clock, and no more', () => {
    for (const t of [
      monthsAgo(12),
      new Date(earliestOccurredAt() + 60_000).toISOString(),
      new Date().toISOString(),
    ])
      expect(fieldsRefused(t), t).toEqual([]);
    expect(fieldsRefused(new Date(Date.now() + OCCURRED_AT_SKEW_MS - 5_000).toISOString())).toEqual([]);
    expect(fieldsRefused(new Date(Date.now() + OCCURRED_AT_SKEW_MS + 60_000).toISOString())).toEqual([
      ['E_VALIDATION', 'occurred_at'],
    ]);
  });

  it('is 13 calendar months back', () => {
    expect(new Date(earliestOccurredAt(Date.parse('2026-11-25T12:00:00Z'))).toISOString()).toBe(
      '2025-10-25T12:00:00.000Z',
    );
  });
});
