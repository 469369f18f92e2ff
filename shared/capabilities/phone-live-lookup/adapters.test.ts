import { describe, expect, it } from 'vitest';
import { decodeFields, encodeFields } from './cache.ts';
import {
  telesign,
  TELESIGN_NO_INFO,
  TELESIGN_NOT_PORTED,
  TELESIGN_OUT_OF_COVERAGE,
  twilio,
} from './fixtures.ts';
import { liveFinding } from './index.ts';
import { parseTelesign, telesignRequest } from './telesign.ts';
import { durationMs, parseTwilio, twilioRequest } from './twilio.ts';

// The adapters pinned to the providers' documented shapes (fixtures.ts, from the sources each
// adapter cites): what each documented answer and error code becomes in the internal finding.
const N = '+447772000001';
const NOW = Date.parse('2026-12-10T12:00:00Z');
const ALL = ['line_type', 'porting', 'sim_swap', 'forwarding'] as const;
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();
const tw = (body: object, status = 200, fields: readonly (typeof ALL)[number][] = ALL) =>
  parseTwilio(status, JSON.stringify(body), fields, NOW);

describe('Twilio Lookup v2 (twilio_lookups_v2.json)', () => {
  it('asks only for the packages of the fields wanted, with Basic auth', () => {
    const { url, init } = twilioRequest(
      { accountSid: 'AC1', authToken: 't', baseUrl: 'https://lookups.twilio.com' },
      N,
      ['line_type', 'sim_swap'],
    );
    expect(url).toBe(
      'https://lookups.twilio.com/v2/PhoneNumbers/%2B447772000001?Fields=line_type_intelligence%2Csim_swap',
    );
    expect(init.headers.Authorization).toBe(`Basic ${Buffer.from('AC1:t').toString('base64')}`);
  });

  it('maps line_type_intelligence.type onto the network line type', () => {
    expect(tw(twilio.lineType(N, 'nonFixedVoip'))).toEqual({
      kind: 'fields',
      fields: { lineType: 'non_fixed_voip' },
    });
    expect(tw(twilio.lineType(N, 'fixedVoip'))).toMatchObject({ fields: { lineType: 'fixed_voip' } });
    expect(tw(twilio.lineType(N, 'mobile'))).toMatchObject({ fields: { lineType: 'mobile' } });
    expect(tw(twilio.lineType(N, 'unknown'))).toMatchObject({ fields: { lineType: null } });
  });

  it('puts sim_swap into the same buckets as Telesign', () => {
    expect(tw(twilio.simSwap(N, hoursAgo(30)))).toMatchObject({ fields: { simSwap: 'within_72h' } });
    expect(tw(twilio.simSwap(N, hoursAgo(2)))).toMatchObject({ fields: { simSwap: 'within_24h' } });
    expect(tw(twilio.simSwap(N, '2020-04-27T10:18:50Z', 'PT15282H33M44S'))).toMatchObject({
      fields: { simSwap: 'none' },
    });
    // Undated: within the period, so the narrowest bucket holding it; not within 24 h says nothing.
    expect(tw(twilio.simSwap(N, null, 'PT24H', true))).toMatchObject({ fields: { simSwap: 'within_24h' } });
    expect(tw(twilio.simSwap(N, null, 'PT72H', true))).toMatchObject({ fields: { simSwap: 'within_72h' } });
    expect(tw(twilio.simSwap(N, null, 'PT24H', false))).toMatchObject({ fields: { simSwap: null } });
    expect(tw(twilio.simSwap(N, null, 'PT336H', false))).toMatchObject({ fields: { simSwap: 'none' } });
  });

  it('reads forwarding and porting, never roaming', () => {
    expect(tw(twilio.forwarding(N))).toMatchObject({ fields: { forwarding: true } });
    const ported = tw(twilio.liveActivity(N, true, true));
    expect(ported).toEqual({ kind: 'fields', fields: { porting: { ported: true } } });
    expect(JSON.stringify(encodeFields((ported as { fields: object }).fields))).not.toMatch(/roam|connect/i);
  });

  it('caches the codes Twilio documents as final for the number as no data; fails the others', () => {
    expect(tw(twilio.packageError(N, 'sim_swap', 60600))).toMatchObject({ fields: { simSwap: null } });
    expect(tw(twilio.packageError(N, 'sim_swap', 60612))).toMatchObject({ fields: { simSwap: null } });
    expect(tw(twilio.packageError(N, 'sim_swap', 60608))).toEqual({ kind: 'fields', fields: {} });
    expect(tw(twilio.invalid(N))).toEqual({
      kind: 'fields',
      fields: { lineType: null, porting: null, simSwap: null, forwarding: null },
    });
    expect(tw(twilio.error(20404, 404, 'The requested resource was not found'), 404)).toMatchObject({
      fields: { lineType: null },
    });
    expect(tw(twilio.error(60620, 400, 'Do not retry'), 400)).toMatchObject({ kind: 'fields' });
    expect(tw(twilio.error(20429, 429, 'Too Many Requests'), 429)).toEqual({
      kind: 'failed',
      code: 'twilio:20429',
      retry: true,
    });
    expect(tw(twilio.error(20500, 500, 'Internal Server Error'), 500)).toMatchObject({
      kind: 'failed',
      retry: true,
    });
    expect(tw(twilio.error(20003, 401, 'Authenticate'), 401)).toMatchObject({ kind: 'failed', retry: false });
  });

  it('refuses a body that is not the documented shape', () => {
    expect(() => parseTwilio(200, '<html>', ALL, NOW)).toThrow();
    expect(() => parseTwilio(200, '[]', ALL, NOW)).toThrow();
    expect(() => tw({ ...twilio.lineType(N), sim_swap: 'yes' })).toThrow(/sim_swap/);
  });

  it('reads ISO 8601 durations', () => {
    expect(durationMs('PT24H')).toBe(86_400_000);
    expect(durationMs('P1DT1H')).toBe(90_000_000);
    expect(durationMs('PT')).toBeUndefined();
  });
});

describe('Telesign Phone ID (developer.telesign.com)', () => {
  const ts = (body: object, status = 200) =>
    parseTelesign(status, JSON.stringify(body), ['line_type', 'porting', 'sim_swap']);
  const base = telesign.phoneId('+15555551212');

  it('posts the add-ons of the fields wanted to /v1/phoneid/{number}', () => {
    const { url, init } = telesignRequest(
      { customerId: 'C', apiKey: 'K', baseUrl: 'https://rest-ww.telesign.com' },
      '+15555551212',
      ['line_type', 'sim_swap', 'porting'],
    );
    expect(url).toBe('https://rest-ww.telesign.com/v1/phoneid/15555551212');
    expect(JSON.parse(init.body)).toEqual({ addons: { sim_swap: {}, porting_history: { past_x_days: 90 } } });
  });

  it('maps risk_indicator 4..1 onto the swap buckets, and the phone type', () => {
    expect(ts(telesign.simSwap(base, 4))).toMatchObject({
      fields: { lineType: 'mobile', simSwap: 'within_24h' },
    });
    expect(ts(telesign.simSwap(base, 3))).toMatchObject({ fields: { simSwap: 'within_72h' } });
    expect(ts(telesign.simSwap(base, 2))).toMatchObject({ fields: { simSwap: 'within_14d' } });
    expect(ts(telesign.simSwap(base, 1))).toMatchObject({ fields: { simSwap: 'none' } });
    expect(ts(telesign.phoneId('+15555551212', 'VOIP', '5'))).toMatchObject({ fields: { lineType: 'voip' } });
    expect(ts(telesign.phoneId('+15555551212', 'FIXED_LINE', '1'))).toMatchObject({
      fields: { lineType: 'landline' },
    });
  });

  it('dates a port from porting_history; 2805 there means not ported in 90 days', () => {
    expect(ts(telesign.portingHistory(base, '2018-08-26T16:33:19Z'))).toMatchObject({
      fields: { porting: { ported: true, atMs: Date.parse('2018-08-26T16:33:19Z') } },
    });
    expect(ts(telesign.portingHistory(base, TELESIGN_NOT_PORTED))).toMatchObject({
      fields: { porting: { ported: false } },
    });
  });

  it('keeps no-data add-on codes as no data, a timeout as not answered', () => {
    expect(ts(telesign.simSwap(base, TELESIGN_OUT_OF_COVERAGE))).toMatchObject({ fields: { simSwap: null } });
    expect(ts(telesign.simSwap(base, TELESIGN_NO_INFO))).toMatchObject({ fields: { simSwap: null } });
    const timeout = ts(telesign.simSwap(base, { code: 2811, description: 'Request processing timeout.' }));
    expect(timeout).toMatchObject({ kind: 'fields' });
    expect((timeout as { fields: object }).fields).not.toHaveProperty('simSwap');
  });

  it('fails on 429 and 5xx and refused credentials; an invalid number is final', () => {
    expect(ts(telesign.error(10033, 'Too many requests'), 429)).toMatchObject({
      kind: 'failed',
      retry: true,
    });
    expect(ts(telesign.error(-1, 'Internal error'), 503)).toMatchObject({ kind: 'failed', retry: true });
    expect(ts(telesign.error(-30000, 'Invalid Customer ID'), 401)).toMatchObject({
      kind: 'failed',
      retry: false,
    });
    expect(ts(telesign.error(-40008, 'Invalid value for parameter phone_number'), 400)).toMatchObject({
      fields: { lineType: null, simSwap: null, porting: null },
    });
    expect(() => parseTelesign(200, '{"status":', ['line_type'])).toThrow();
  });
});

describe('the finding', () => {
  const at = (fields: object, moment?: 'authentication' | 'payment') =>
    liveFinding({ state: 'answered', fields, nowMs: NOW, ...(moment ? { moment } : {}) });
  it('is adverse for a swap or a recent port at a takeover moment, elevated elsewhere', () => {
    expect(at({ simSwap: 'within_72h' }, 'authentication')?.detail).toBe('PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT');
    expect(at({ simSwap: 'within_72h' }, 'payment')?.detail).toBe('PHONE_SIM_SWAP_RECENT');
    expect(at({ simSwap: 'within_14d' }, 'authentication')?.detail).toBe('PHONE_NETWORK_NOTHING_RECENT');
    const port = { porting: { ported: true, atMs: NOW - 2 * 86_400_000 } };
    expect(at(port, 'authentication')?.verdict).toBe('adverse');
    expect(at({ porting: { ported: true } }, 'authentication')?.detail).toBe('PHONE_NETWORK_NOTHING_RECENT');
    expect(at({ lineType: 'non_fixed_voip' })?.detail).toBe('PHONE_NETWORK_VOIP');
    expect(at({ lineType: null, simSwap: null })?.detail).toBe('PHONE_NETWORK_NO_DATA');
    expect(liveFinding({ state: 'unavailable' })).toEqual({
      verdict: 'unavailable',
      detail: 'SOURCE_UNAVAILABLE',
    });
    expect(liveFinding(undefined)).toBeUndefined();
  });
  it('round-trips the cached fields', () => {
    const fields = { lineType: 'mobile' as const, simSwap: null, porting: { ported: true, atMs: 5 } };
    expect(decodeFields(encodeFields(fields))).toEqual(fields);
  });
});
