import { describe, expect, it } from 'vitest';
import { ScoreRequest } from './request.ts';
import { isStorable, storableText, toStorable, unstorableReason } from './storable-text.ts';
import { capErrors, MAX_ERROR_ITEMS, validateScoreRequest } from './validation.ts';

describe('storable text', () => {
  it.each([
    ['lone high surrogate', 'x\ud800'],
    ['lone low surrogate', '\udc00'],
    ['reversed pair', '\ude00\ud83d'],
    ['NUL', 'a\u0000'],
    ['escape', '\u001b[31m'],
    ['line feed', 'a\nb'],
    ['DEL', '\u007f'],
    ['C1', '\u0085'],
    ['U+FFFF', '\uffff'],
    ['U+FDD0', '\ufdd0'],
    ['U+10FFFF', '\u{10ffff}'],
    ['U+1FFFE', '\u{1fffe}'],
    ['bidi override', '\u202e'],
    ['bidi isolate', '\u2068'],
  ])('refuses %s in an identifier', (_name, value) => {
    expect(isStorable(value)).toBe(false);
    expect(storableText({ max: 10 }).safeParse(value).success).toBe(false);
  });

  it('accepts ordinary text in any script, emoji and metacharacters', () => {
    for (const v of ['café', '東京', 'مرحبا', '\u{1F600}', "x' OR 1=1 --", '"}]\\', '\u200f', ''])
      expect(unstorableReason(v), v).toBeUndefined();
  });

  it('lets free text hold tabs, newlines and bidi controls, never NUL or a lone surrogate', () => {
    for (const v of ['a\tb', 'line\r\nline', '\u202eRTL\u202c']) expect(isStorable(v, true), v).toBe(true);
    for (const v of ['a\u0000', 'x\ud800', '\u000b', '\uffff']) expect(isStorable(v, true), v).toBe(false);
  });

  it('counts the maximum in code points', () => {
    const schema = storableText({ max: 3 });
    expect(schema.safeParse('\u{1F600}'.repeat(3)).success).toBe(true);
    expect(schema.safeParse('\u{1F600}'.repeat(4)).success).toBe(false);
    expect(storableText({ min: 1, max: 3 }).safeParse('').success).toBe(false);
  });

  it('names the field and the character, not the value', () => {
    const r = validateScoreRequest(
      {
        subject: { phone_number: '+447911123456' },
        client_reference: 'x\ud800',
        context: { sector: '\u0000', geography: {}, collection_point: {}, action_policy: { '\u202e': 'ok' } },
      },
      undefined,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field).sort()).toEqual([
      'client_reference',
      'context.action_policy.\\u202e',
      'context.sector',
    ]);
    expect(r.errors.find((e) => e.field === 'context.sector')!.message).toMatch(/U\+0000/);
  });

  it('refuses an IPv6 literal with a zone id', () => {
    expect(ScoreRequest.safeParse({ subject: { ip_address: '2001:db8::66%x' } }).success).toBe(false);
    expect(ScoreRequest.safeParse({ subject: { ip_address: 'fe80::1%eth0' } }).success).toBe(false);
    expect(ScoreRequest.safeParse({ subject: { ip_address: 'fe80::1' } }).success).toBe(true);
  });
});

describe('error list cap', () => {
  it('lists at most MAX_ERROR_ITEMS, the last saying how many were left out', () => {
    const body = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`.padEnd(200, 'x'), 1]));
    const r = validateScoreRequest({ subject: { phone_number: '+447911123456' }, ...body }, undefined);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(MAX_ERROR_ITEMS);
    expect(r.errors.at(-1)!.message).toMatch(/^2981 more errors omitted/);
    expect(JSON.stringify(r.errors).length).toBeLessThan(8_000);
  });

  it('leaves a short list alone', () => {
    const items = [{ code: 'E_VALIDATION' as const, message: 'm' }];
    expect(capErrors(items)).toBe(items);
  });
});

describe('toStorable', () => {
  it('replaces only the characters that break the rules', () => {
    expect(toStorable('x\ud800y')).toBe('x\ufffdy');
    expect(toStorable('a\u0000b\u202e')).toBe('a\ufffdb\ufffd');
    expect(toStorable('caf\u00e9 \u{1F600}')).toBe('caf\u00e9 \u{1F600}');
    expect(toStorable('a\tb', true)).toBe('a\tb');
  });
});
