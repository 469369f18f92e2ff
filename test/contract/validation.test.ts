import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, type ErrorItem } from '../../shared/contract/errors.ts';
import { ScoreResponse } from '../../shared/contract/response.ts';
import { admin } from '../../infra/harness/fixtures.ts';
import { waitFor } from '../../infra/harness/processes.ts';
import { startHarness, type Harness } from './harness.ts';

/** docs/contract.md "Validation and errors" and the request limits of "Limits and billing". */
describe('POST /v1/score validation against the running API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  async function rejected(res: Response, status: number): Promise<ErrorItem[]> {
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    return ErrorBody.parse(await res.json()).errors;
  }

  const fields = (errors: ErrorItem[]) => errors.map((e) => `${e.code} ${e.field ?? ''}`.trim()).sort();
  const ok = { subject: { phone_number: '+447911123456' } };

  it('reports every violation of body and Idempotency-Key in one 422, one item each', async () => {
    const res = await h.callers.assess.score(
      {
        subject: { phone_number: '447911123456', ip_address: '999.1.1.1', ip: '1.2.3.4' },
        client_reference: 'x'.repeat(257),
        options: { max_latency_ms: 49, explain: 'no', shadow: '2026.08.0' },
        context: {
          sector: 'bank',
          geography: { operating_countries: ['gb'] },
          collection_point: { channel: 'fax', direction: 'sideways', moment: 'lunch' },
          risk_posture: 'paranoid',
        },
        tier: 'bureau',
      },
      { 'Idempotency-Key': 'k'.repeat(129) },
    );
    const errors = await rejected(res, 422);
    expect(fields(errors)).toEqual(
      [
        'E_INVALID_IDEMPOTENCY_KEY Idempotency-Key',
        'E_INVALID_IP_ADDRESS subject.ip_address',
        'E_INVALID_PHONE_NUMBER subject.phone_number',
        'E_UNKNOWN_FIELD options.shadow',
        'E_UNKNOWN_FIELD subject.ip',
        'E_UNKNOWN_FIELD tier',
        'E_VALIDATION client_reference',
        'E_VALIDATION context.collection_point.channel',
        'E_VALIDATION context.collection_point.direction',
        'E_VALIDATION context.collection_point.moment',
        'E_VALIDATION context.geography.operating_countries.0',
        'E_VALIDATION context.risk_posture',
        'E_VALIDATION options.explain',
        'E_VALIDATION options.max_latency_ms',
      ].sort(),
    );
    for (const e of errors) expect(e.message.length).toBeGreaterThan(0);
  });

  it.each([
    ['subject missing', {}, ['E_VALIDATION subject']],
    ['subject empty', { subject: {} }, ['E_VALIDATION subject']],
    ['subject not an object', { subject: '+447911123456' }, ['E_VALIDATION subject']],
    [
      'only a misspelt key',
      { subject: { ip: '1.1.1.1' } },
      ['E_UNKNOWN_FIELD subject.ip', 'E_VALIDATION subject'],
    ],
    [
      'phone with separators',
      { subject: { phone_number: '+44 7911 123456' } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    [
      'phone without +',
      { subject: { phone_number: '07911123456' } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    [
      'phone as number',
      { subject: { phone_number: 447911123456 } },
      ['E_INVALID_PHONE_NUMBER subject.phone_number'],
    ],
    ['ip hostname', { subject: { ip_address: 'example.com' } }, ['E_INVALID_IP_ADDRESS subject.ip_address']],
    [
      'ip with prefix',
      { subject: { ip_address: '10.0.0.0/8' } },
      ['E_INVALID_IP_ADDRESS subject.ip_address'],
    ],
    ['context_id empty', { ...ok, context_id: '' }, ['E_VALIDATION context_id']],
    [
      'context without required members',
      { ...ok, context: {} },
      [
        'E_VALIDATION context.collection_point',
        'E_VALIDATION context.geography',
        'E_VALIDATION context.sector',
      ],
    ],
    [
      'context unknown member',
      { ...ok, context: { sector: 's', geography: {}, collection_point: {}, mood: 'x' } },
      ['E_UNKNOWN_FIELD context.mood'],
    ],
    [
      'action_policy not strings',
      { ...ok, context: { sector: 's', geography: {}, collection_point: {}, action_policy: { high: 1 } } },
      ['E_VALIDATION context.action_policy.high'],
    ],
    [
      'max_latency_ms not an integer',
      { ...ok, options: { max_latency_ms: 75.5 } },
      ['E_VALIDATION options.max_latency_ms'],
    ],
    [
      'shadow_version empty',
      { ...ok, options: { shadow_version: '' } },
      ['E_VALIDATION options.shadow_version'],
    ],
    ['body is an array', [ok], ['E_VALIDATION']],
  ])('422 for %s', async (_name, body, expected) => {
    expect(fields(await rejected(await h.callers.assess.score(body), 422))).toEqual(expected.sort());
  });

  it('accepts the limits exactly: client_reference 256, max_latency_ms 50, Idempotency-Key 128', async () => {
    const res = await h.callers.assess.score(
      { ...ok, client_reference: 'r'.repeat(256), options: { max_latency_ms: 50 } },
      { 'Idempotency-Key': 'k'.repeat(128) },
    );
    expect(res.status).toBe(200);
    expect(ScoreResponse.parse(await res.json()).client_reference).toBe('r'.repeat(256));
  });

  it('422 on an empty Idempotency-Key, naming the header', async () => {
    const errors = await rejected(await h.callers.assess.score(ok, { 'Idempotency-Key': '' }), 422);
    expect(fields(errors)).toEqual(['E_INVALID_IDEMPOTENCY_KEY Idempotency-Key']);
  });

  it('a trunk zero after the country code is 200 and scores as unattested', async () => {
    const res = await h.callers.assess.score({ subject: { phone_number: '+4407911123456' } });
    expect(res.status).toBe(200);
    const body = ScoreResponse.parse(await res.json());
    const cli = body.components!.find((c) => c.component === 'caller_id_integrity')!;
    expect(cli).toMatchObject({ verdict: 'no_match', detail: 'CLI_UNATTESTED' });
    expect(body.subject!.phone_number).toMatchObject({ valid: false, allocated: false });
    expect(body.subject!.phone_number!.ndc).toBeUndefined();
  });

  it('accepts IPv6 and treats IPv4-mapped IPv6 as its IPv4', async () => {
    const v4 = ScoreResponse.parse(
      await (await h.callers.assess.score({ subject: { ip_address: '192.0.2.1' } })).json(),
    );
    const mapped = ScoreResponse.parse(
      await (await h.callers.assess.score({ subject: { ip_address: '::ffff:192.0.2.1' } })).json(),
    );
    expect(mapped.score).toBe(v4.score);
    expect(mapped.components).toEqual(v4.components);
    expect(
      (await h.callers.assess.score({ subject: { ip_address: '2a00:1450:4009:81f::200e' } })).status,
    ).toBe(200);
  });

  it('400 E_MALFORMED_JSON for a body that is not JSON', async () => {
    const errors = await rejected(await h.callers.assess.score('{"subject": '), 400);
    expect(errors[0]!.code).toBe('E_MALFORMED_JSON');
  });

  it('415 E_UNSUPPORTED_MEDIA_TYPE for another content type', async () => {
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, 'content-type': 'text/plain' },
      body: JSON.stringify(ok),
    });
    expect((await rejected(res, 415))[0]!.code).toBe('E_UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 E_PAYLOAD_TOO_LARGE above 64 KiB', async () => {
    const big = JSON.stringify({ ...ok, client_reference: 'x'.repeat(70 * 1024) });
    expect((await rejected(await h.callers.assess.score(big), 413))[0]!.code).toBe('E_PAYLOAD_TOO_LARGE');
  });

  it('413 also for a streamed body with no Content-Length that grows past 64 KiB', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 6; i++) c.enqueue(chunk);
        c.close();
      },
    });
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect((await rejected(res, 413))[0]!.code).toBe('E_PAYLOAD_TOO_LARGE');
  });

  it('415 for JSON in another charset or with a content coding', async () => {
    for (const headers of [
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    ]) {
      const res = await fetch(`${h.api.url}/v1/score`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.callers.assess.apiKey}`, ...headers },
        body: JSON.stringify(ok),
      });
      expect((await rejected(res, 415))[0]!.code).toBe('E_UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('404 E_NOT_FOUND for an unknown route, 405 with Allow for a wrong method', async () => {
    expect((await rejected(await fetch(`${h.api.url}/v1/scores`), 404))[0]!.code).toBe('E_NOT_FOUND');
    const res = await fetch(`${h.api.url}/v1/score`, {
      headers: { authorization: `Bearer ${h.callers.assess.apiKey}` },
    });
    expect((await rejected(res, 405))[0]!.code).toBe('E_METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('401 with WWW-Authenticate: Bearer comes before validation', async () => {
    const res = await fetch(`${h.api.url}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"nonsense": true}',
    });
    expect((await rejected(res, 401))[0]!.code).toBe('E_UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  describe('context_id', () => {
    const saved = {
      sector: 'remittance',
      geography: { operating_countries: ['GB'] },
      collection_point: { moment: 'payment' },
      risk_posture: 'balanced',
    };

    it('an unknown context_id alone is a 422 on context_id, reported with the other violations', async () => {
      const errors = await rejected(
        await h.callers.assess.score({ subject: { phone_number: '+447911123456' }, context_id: 'nope' }),
        422,
      );
      expect(fields(errors)).toEqual(['E_UNKNOWN_CONTEXT context_id']);
    });

    it('a context saved with the admin CLI is applied and labelled; only its organisation sees it', async () => {
      const out = await admin(
        'context',
        'set',
        '--org',
        h.callers.assess.orgId,
        '--id',
        'gb-payments',
        '--json',
        JSON.stringify(saved),
      );
      expect(out).toMatchObject({ context_id: 'gb-payments', context: saved });
      // A hosting-free foreign mobile: outside GB, so the saved context elevates the band. The
      // change reaches every node's copy of the organisation through pub/sub within a second.
      const res = await waitFor('the saved context on the API node', async () => {
        const r = await h.callers.assess.score({
          subject: { phone_number: '+4915112345678' },
          context_id: 'gb-payments',
        });
        return r.status === 200 ? r : undefined;
      });
      const body = ScoreResponse.parse(await res.json());
      expect(body.context_applied).toMatchObject({ context_id: 'gb-payments', effect: 'band_elevated' });

      const other = await h.callers.bureau.score({
        subject: { phone_number: '+4915112345678' },
        context_id: 'gb-payments',
      });
      expect(fields(await rejected(other, 422))).toEqual(['E_UNKNOWN_CONTEXT context_id']);
    });

    it('with an inline context too, the inline one is applied and context_id labels it', async () => {
      const res = await h.callers.assess.score({
        subject: { phone_number: '+4915112345678' },
        context_id: 'never-saved',
        context: { sector: 'retail', geography: { operating_countries: ['DE'] }, collection_point: {} },
      });
      expect(res.status).toBe(200);
      const body = ScoreResponse.parse(await res.json());
      expect(body.context_applied).toMatchObject({ context_id: 'never-saved', effect: 'none' });
    });

    it('the admin CLI refuses an invalid context', async () => {
      await expect(
        admin('context', 'set', '--org', h.callers.assess.orgId, '--id', 'bad', '--json', '{"sector":"x"}'),
      ).rejects.toThrow(/geography/);
    });
  });
});
