import { describe, expect, it } from 'vitest';
import { earliestOccurredAt, OCCURRED_AT_SKEW_MS, OutcomeRequest } from './outcome.ts';
import { idempotencyKeyErrors, validateRequest, validateScoreRequest } from './validation.ts';

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

  it('writes no default into a valid request: it is stored as sent', () => {
    const r = validateScoreRequest({ subject: { ip_address: '::1' }, options: {} }, undefined);
    expect(r).toEqual({ ok: true, request: { subject: { ip_address: '::1' }, options: {} } });
  });

  it('accepts Idempotency-Key lengths 1 to 128', () => {
    expect(idempotencyKeyErrors('a')).toEqual([]);
    expect(idempotencyKeyErrors('a'.repeat(128))).toEqual([]);
    expect(idempotencyKeyErrors(undefined)).toEqual([]);
  });

  it('accepts an Idempotency-Key of visible ASCII only', () => {
    expect(idempotencyKeyErrors('!~azAZ09-_.:/{}"\\')).toEqual([]);
    // Node gives header bytes as Latin-1: \u00e9 is the byte 0xE9, \u00c3\u00a9 a UTF-8 é.
    for (const key of ['a\tb', 'a b', 'caf\u00e9', 'caf\u00c3\u00a9', 'a\u007fb', 'a\u0000'])
      expect(idempotencyKeyErrors(key), JSON.stringify(key)).toEqual([
        expect.objectContaining({ code: 'E_INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' }),
      ]);
  });
});

describe('validateScoreRequest: rules of refusal', () => {
  const fieldsOf = (body: unknown) => {
    const r = validateScoreRequest(body, undefined);
    return r.ok ? [] : r.errors.map((e) => [e.code, e.field]);
  };
  const context = (more: Record<string, unknown>) => ({
    subject: { phone_number: '+447911123456' },
    context: { sector: 's', geography: {}, collection_point: {}, ...more },
  });

  it('refuses the IPv4-compatible form however spelt, and keeps mapped and other IPv6', () => {
    for (const ip of ['::52.95.110.77', '::0:52.95.110.77', '0:0:0:0:0:0:52.95.110.77', '0::0.0.0.1']) {
      expect(fieldsOf({ subject: { ip_address: ip } }), ip).toEqual([
        ['E_INVALID_IP_ADDRESS', 'subject.ip_address'],
      ]);
    }
    const r = validateScoreRequest({ subject: { ip_address: '::52.95.110.77' } }, undefined);
    expect(r.ok ? '' : r.errors[0]!.message).toMatch(/deprecated/);
    for (const ip of [
      '::ffff:52.95.110.77',
      '::1',
      '::',
      '::345f:6e4d',
      '64:ff9b::52.95.110.77',
      '1::1.2.3.4',
    ])
      expect(fieldsOf({ subject: { ip_address: ip } }), ip).toEqual([]);
  });

  it('refuses reserved names as keys of a caller map, naming each, and keeps other keys', () => {
    const body = JSON.parse(
      '{"subject":{"phone_number":"+447911123456"},"context":{"sector":"s","geography":{},' +
        '"collection_point":{},"action_policy":{"__proto__":"x","constructor":"y","prototype":"z"}}}',
    );
    expect(fieldsOf(body)).toEqual([
      ['E_VALIDATION', 'context.action_policy.__proto__'],
      ['E_VALIDATION', 'context.action_policy.constructor'],
      ['E_VALIDATION', 'context.action_policy.prototype'],
    ]);
    const ok = validateScoreRequest(context({ action_policy: { high: 'review', proto: 'x' } }), undefined);
    expect(ok.ok && ok.request.context?.action_policy).toEqual({ high: 'review', proto: 'x' });
  });

  it("says what is wrong with a map key, not zod's 'Invalid key'", () => {
    const r = validateScoreRequest(context({ action_policy: { 'a\u0000': 'x' } }), undefined);
    expect(r.ok ? [] : r.errors).toEqual([
      {
        code: 'E_VALIDATION',
        message: 'must not contain control characters (U+0000)',
        field: 'context.action_policy.a\\u0000',
      },
    ]);
  });

  it('accepts assigned country codes only, naming the offending item', () => {
    const geo = {
      operating_countries: ['GB', 'XX'],
      expected_corridors: ['ZZ'],
      diaspora_corridors: ['XK', 'AQ'],
    };
    expect(fieldsOf(context({ geography: geo }))).toEqual([
      ['E_VALIDATION', 'context.geography.operating_countries.1'],
      ['E_VALIDATION', 'context.geography.expected_corridors.0'],
    ]);
    const r = validateScoreRequest(context({ geography: { operating_countries: ['XX'] } }), undefined);
    expect(r.ok ? '' : r.errors[0]!.message).toBe(
      'must be an assigned ISO 3166-1 alpha-2 country code, in upper case',
    );
  });
});

describe('OutcomeRequest: occurred_at', () => {
  const monthsAgo = (n: number) => {
    const d = new Date();
    d.setUTCMonth(d.getUTCMonth() - n);
    return d.toISOString();
  };
  const fieldsRefused = (occurred_at: string) => {
    const r = validateRequest(
      OutcomeRequest,
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
